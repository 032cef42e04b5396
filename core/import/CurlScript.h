// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/import/EndpointImport.h"

#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace cooldown {

// One command of a script of curl commands: its text and the line it starts on.
struct CurlScriptCommand
{
    QString text;
    int line = 0;
};

// The curl commands of a text (a pasted command, or a file of them): lines joined where
// they continue (\ or ^ at the end, or a quote still open), blank lines and comments left
// out, and only what starts with curl taken; *skipped says which lines were left out.
QList<CurlScriptCommand> curlCommandsOf(const QString &text, QStringList *skipped);

// Each command as an endpoint (endpointFromCurl). nullopt with *error at the first
// command that cannot be read; with sourceName, the error starts "SOURCE: line N: ".
std::optional<QList<ImportedEndpoint>> importCurlCommands(const QList<CurlScriptCommand> &commands,
                                                          const CurlImportOptions &options,
                                                          const QString &sourceName,
                                                          const QString &baseDir, QString *error);

} // namespace cooldown
