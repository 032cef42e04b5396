// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/config/WorkspaceDocument.h"
#include "core/import/EndpointImport.h"

#include <QHash>
#include <QList>
#include <QString>
#include <QStringList>

namespace cooldown {

// What an import would do to a workspace, before anything is written: the document with
// the endpoints merged (mergeImport), each change, the check of the whole workspace and
// of each endpoint alone, and the text `cooldown import` prints and the import dialog
// shows.
struct ImportPreview
{
    WorkspaceDocument document;
    QList<ImportChange> changes;
    QList<ImportedEndpoint> imported;
    // The process environment, with a stand-in for each variable the workspace names and
    // the environment lacks: the workspace is checked (and saved) as it will load once
    // they are set.
    QHash<QString, QString> environment;
    // The variables given a stand-in there: to be set before the workspace can run.
    QStringList missingVariables;
    bool loads = false;
    QString problem; // why it would not load
    QString text;
};

// sourceNotes: what the source said as a whole (the server picked, requests left out),
// printed first.
ImportPreview previewImport(WorkspaceDocument document, QList<ImportedEndpoint> imported,
                            const QStringList &sourceNotes);

} // namespace cooldown
