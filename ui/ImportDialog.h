// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/import/ImportPreview.h"

#include <QByteArray>
#include <QDialog>
#include <QJsonValue>
#include <QPointer>
#include <QString>
#include <QUrl>

#include <optional>

class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;

namespace cooldown {

class SourceFetch;

// File > Import endpoints… (docs/import.md): endpoints from a curl command, an OpenAPI
// document or a Postman collection, pasted or opened from a file (an OpenAPI document
// also from a URL on this machine, fetched in the background), shown as the command
// line's preview (what is added, updated or left, each endpoint's check, the variables
// to set) before anything changes. Import writes the workspace file at once, as
// `cooldown import` does, and only a workspace that loads; it stays off until a preview
// says so.
class ImportDialog final : public QDialog
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ImportDialog)

public:
    enum class Kind
    {
        Curl,
        OpenApi,
        Postman
    };

    // workspacePath: the file to import into (made when it does not exist); empty for
    // the demo workspace, which Import saves as a new file.
    explicit ImportDialog(const QString &workspacePath, QWidget *parent = nullptr);

    void setKind(Kind kind);
    void setSource(const QString &text, const QString &baseDir = QString());
    // The Postman environment's export, as read from its file.
    void setEnvironment(const QJsonValue &environment, const QString &name);
    // Makes the preview of what is entered now; true when Import may write it. For an
    // OpenAPI URL not fetched yet it starts the fetch and answers false; the preview
    // follows when the document has come.
    bool preview();
    QString previewText() const;

signals:
    void saved(const QString &path);
    // Written, but it names variables the environment lacks: the dialog says which and
    // stays open; the engine cannot run it until Cooldown starts with them set.
    void savedWithoutVariables(const QString &path);

private:
    void kindChanged();
    void openSource();
    void openEnvironment();
    void sourceEdited();
    void apply();
    std::optional<ImportedSource> importSource(QString *error) const;
    std::optional<WorkspaceDocument> workspace(QString *error) const;
    QUrl sourceUrl() const;
    void fetched(const QUrl &url, const QByteArray &body, const QString &error);

    QString m_workspacePath;
    QString m_baseDir;
    QJsonValue m_environment;
    QString m_environmentName;
    std::optional<ImportPreview> m_preview;
    QPointer<SourceFetch> m_fetch;
    QUrl m_fetchedUrl; // what m_fetched holds
    QByteArray m_fetched;
    QComboBox *m_kind = nullptr;
    QPlainTextEdit *m_source = nullptr;
    QLineEdit *m_envPrefix = nullptr;
    QLineEdit *m_server = nullptr;
    QPushButton *m_environmentButton = nullptr;
    QLabel *m_environmentLabel = nullptr;
    QPlainTextEdit *m_previewText = nullptr;
    QPushButton *m_previewButton = nullptr;
    QPushButton *m_importButton = nullptr;
};

} // namespace cooldown
