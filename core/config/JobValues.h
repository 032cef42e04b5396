// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QMap>
#include <QString>

namespace cooldown {

// A job's values for its endpoint's ${job:NAME} placeholders, by name. A job has a
// handful; an ordered map keeps each small (a hash reserves room for dozens) and
// hands them out sorted, as checks and storage want them.
using JobValues = QMap<QString, QString>;

} // namespace cooldown
