// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/config/JobRequest.h"

#include <QList>
#include <QStringList>

#include <optional>

namespace cooldown::cli {

// The jobs of a JSON Lines file ("-": standard input), one object per line; blank
// lines are skipped. paths[i] is where job i came from ("F line N: $"). The first line
// that is not a job refuses the whole file (*problem names it), unless skipInvalid:
// then it goes to `skipped` and the others are read.
struct JobLines
{
    QList<JobRequest> jobs;
    QStringList paths;
    QStringList skipped;
};
std::optional<JobLines> readJobLines(const QString &name, bool skipInvalid, QString *problem);

// cooldown enqueue: hands jobs to a workspace's endpoints (docs/intake.md).
int runEnqueue(const QStringList &arguments);

} // namespace cooldown::cli
