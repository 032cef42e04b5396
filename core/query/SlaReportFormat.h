// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/query/SlaReport.h"

#include <QByteArray>
#include <QJsonObject>
#include <QString>
#include <QStringList>

// The SLA report as `cooldown report` writes it (docs/report.md): CSV, one row per
// endpoint; JSON for scripts; and text for a terminal. Times in UTC (ISO 8601).
namespace cooldown::slareport {

QStringList csvColumnNames();
QByteArray toCsv(const SlaReport &report);
QJsonObject toJson(const SlaReport &report);
QString toText(const SlaReport &report);

// A percentage as the report prints it: four decimals ("99.5000").
QString percentText(double percent);

} // namespace cooldown::slareport
