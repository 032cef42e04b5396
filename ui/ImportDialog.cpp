// SPDX-License-Identifier: Apache-2.0
#include "ui/ImportDialog.h"

#include "core/import/ApiDocument.h"
#include "core/import/CurlScript.h"
#include "core/import/OpenApiImport.h"
#include "core/import/PostmanImport.h"
#include "core/import/SourceFetch.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace cooldown {

ImportDialog::ImportDialog(const QString &workspacePath, QWidget *parent)
    : QDialog(parent), m_workspacePath(workspacePath)
{
    setWindowTitle(tr("Import endpoints"));
    m_kind = new QComboBox(this);
    m_kind->setObjectName(QStringLiteral("importKind"));
    m_kind->addItems({tr("curl command"), tr("OpenAPI document"), tr("Postman collection")});
    m_source = new QPlainTextEdit(this);
    m_source->setObjectName(QStringLiteral("importSource"));
    m_source->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    auto *open = new QPushButton(tr("&Open file…"), this);
    m_envPrefix = new QLineEdit(this);
    m_envPrefix->setObjectName(QStringLiteral("importEnvPrefix"));
    m_envPrefix->setPlaceholderText(tr("made from the source's name"));
    m_server = new QLineEdit(this);
    m_server->setObjectName(QStringLiteral("importServer"));
    m_server->setPlaceholderText(tr("the document's first server; or its number, or a URL"));
    m_environmentButton = new QPushButton(tr("&Environment…"), this);
    m_environmentLabel = new QLabel(tr("none"), this);
    auto *environment = new QHBoxLayout;
    environment->addWidget(m_environmentButton);
    environment->addWidget(m_environmentLabel, 1);

    auto *form = new QFormLayout;
    form->addRow(tr("&From:"), m_kind);
    form->addRow(tr("Variables &begin with:"), m_envPrefix);
    form->addRow(tr("&Server:"), m_server);
    form->addRow(tr("Postman environment:"), environment);

    m_previewText = new QPlainTextEdit(this);
    m_previewText->setObjectName(QStringLiteral("importPreview"));
    m_previewText->setReadOnly(true);
    m_previewText->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Cancel, this);
    m_previewButton = buttons->addButton(tr("&Preview"), QDialogButtonBox::ActionRole);
    m_previewButton->setObjectName(QStringLiteral("importPreviewButton"));
    m_importButton = buttons->addButton(tr("&Import"), QDialogButtonBox::AcceptRole);
    m_importButton->setObjectName(QStringLiteral("importApplyButton"));
    m_importButton->setEnabled(false);

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(new QLabel(tr("Paste the source, or open its file:"), this));
    layout->addWidget(m_source, 2);
    layout->addWidget(open, 0, Qt::AlignLeft);
    layout->addWidget(
        new QLabel(tr("What the import does (nothing changes before Import):"), this));
    layout->addWidget(m_previewText, 3);
    layout->addWidget(buttons);
    resize(820, 640);

    connect(m_kind, &QComboBox::currentIndexChanged, this, &ImportDialog::kindChanged);
    connect(open, &QPushButton::clicked, this, &ImportDialog::openSource);
    connect(m_environmentButton, &QPushButton::clicked, this, &ImportDialog::openEnvironment);
    connect(m_source, &QPlainTextEdit::textChanged, this, [this] {
        m_fetchedUrl.clear(); // a URL typed again is fetched again
        sourceEdited();
    });
    connect(m_envPrefix, &QLineEdit::textChanged, this, &ImportDialog::sourceEdited);
    connect(m_server, &QLineEdit::textChanged, this, &ImportDialog::sourceEdited);
    connect(m_previewButton, &QPushButton::clicked, this, &ImportDialog::preview);
    connect(m_importButton, &QPushButton::clicked, this, &ImportDialog::apply);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    kindChanged();
}

void ImportDialog::setKind(Kind kind)
{
    m_kind->setCurrentIndex(int(kind));
}

void ImportDialog::setSource(const QString &text, const QString &baseDir)
{
    m_baseDir = baseDir;
    m_source->setPlainText(text);
}

void ImportDialog::setEnvironment(const QJsonValue &environment, const QString &name)
{
    m_environment = environment;
    m_environmentName = name;
    m_environmentLabel->setText(name.isEmpty() ? tr("none") : QFileInfo(name).fileName());
    sourceEdited();
}

QString ImportDialog::previewText() const
{
    return m_previewText->toPlainText();
}

void ImportDialog::kindChanged()
{
    const auto kind = Kind(m_kind->currentIndex());
    m_server->setEnabled(kind == Kind::OpenApi);
    m_environmentButton->setEnabled(kind == Kind::Postman);
    m_source->setPlaceholderText(
        kind == Kind::Curl      ? tr("curl -X POST https://api.example.com/v1/orders -H …")
        : kind == Kind::OpenApi ? tr("The document, JSON or YAML, or its URL on this "
                                     "machine")
                                : tr("The document, JSON or YAML"));
    sourceEdited();
}

// What the preview showed no longer holds: Import waits for the next one.
void ImportDialog::sourceEdited()
{
    m_preview.reset();
    m_importButton->setEnabled(false);
}

void ImportDialog::openSource()
{
    const QString path =
        QFileDialog::getOpenFileName(this, tr("Open the source"), QString(),
                                     tr("Sources (*.json *.yaml *.yml *.sh *.txt);;All files (*)"));
    if (path.isEmpty())
        return;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        m_previewText->setPlainText(tr("Cannot read %1: %2").arg(path, file.errorString()));
        return;
    }
    setSource(QString::fromUtf8(file.readAll()), QFileInfo(path).absolutePath());
    preview();
}

void ImportDialog::openEnvironment()
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Open the Postman environment"),
                                                      QString(), tr("JSON (*.json)"));
    if (path.isEmpty())
        return;
    QFile file(path);
    QString error;
    const std::optional<QJsonValue> value = file.open(QIODevice::ReadOnly)
                                                ? readApiDocument(file.readAll(), path, &error)
                                                : std::nullopt;
    if (!value) {
        m_previewText->setPlainText(
            error.isEmpty() ? tr("Cannot read %1: %2").arg(path, file.errorString()) : error);
        return;
    }
    setEnvironment(*value, path);
}

std::optional<ImportedSource> ImportDialog::importSource(QString *error) const
{
    const QString text = m_source->toPlainText();
    const auto kind = Kind(m_kind->currentIndex());
    if (kind == Kind::Curl) {
        ImportedSource source;
        const QList<CurlScriptCommand> commands = curlCommandsOf(text, &source.notes);
        if (commands.isEmpty()) {
            *error = tr("No curl command in what is pasted.");
            return std::nullopt;
        }
        CurlImportOptions options;
        options.envPrefix = m_envPrefix->text().trimmed();
        const auto endpoints = importCurlCommands(
            commands, options, commands.size() > 1 ? tr("pasted") : QString(), m_baseDir, error);
        if (!endpoints)
            return std::nullopt;
        source.endpoints = *endpoints;
        return source;
    }
    const QUrl url = kind == Kind::OpenApi ? sourceUrl() : QUrl();
    const std::optional<QJsonValue> document =
        url.isValid() ? readApiDocument(m_fetched, url.toDisplayString(), error)
                      : readApiDocument(text.toUtf8(), tr("source"), error);
    if (!document)
        return std::nullopt;
    if (kind == Kind::OpenApi) {
        OpenApiImportOptions options;
        options.envPrefix = m_envPrefix->text().trimmed();
        options.server = m_server->text().trimmed();
        options.documentUrl = url;
        return importOpenApi(*document, options, error);
    }
    PostmanImportOptions options;
    options.envPrefix = m_envPrefix->text().trimmed();
    options.environment = m_environment;
    options.environmentName = m_environmentName;
    return importPostman(*document, options, error);
}

std::optional<WorkspaceDocument> ImportDialog::workspace(QString *error) const
{
    if (!m_workspacePath.isEmpty() && QFileInfo::exists(m_workspacePath))
        return WorkspaceDocument::load(m_workspacePath, error);
    if (!m_workspacePath.isEmpty())
        return WorkspaceDocument(QJsonObject{{QStringLiteral("version"), 1}}, m_workspacePath);
    QFile demo(QStringLiteral(":/cooldown/demo.json"));
    if (!demo.open(QIODevice::ReadOnly))
        return WorkspaceDocument(QJsonObject{{QStringLiteral("version"), 1}},
                                 QStringLiteral("demo.json"));
    return WorkspaceDocument::fromJson(demo.readAll(), QStringLiteral("demo.json"), error);
}

// The source as an http or https URL, when it is one line that is one.
QUrl ImportDialog::sourceUrl() const
{
    const QString text = m_source->toPlainText().trimmed();
    if (text.contains(QLatin1Char('\n')) ||
        !(text.startsWith(QLatin1String("http://")) || text.startsWith(QLatin1String("https://"))))
        return {};
    const QUrl url(text, QUrl::StrictMode);
    return url.isValid() ? url : QUrl();
}

void ImportDialog::fetched(const QUrl &url, const QByteArray &body, const QString &error)
{
    m_previewButton->setEnabled(true);
    if (url != sourceUrl())
        return; // the source changed while it was fetched
    if (!error.isEmpty()) {
        m_previewText->setPlainText(error);
        return;
    }
    m_fetchedUrl = url;
    m_fetched = body;
    preview();
}

bool ImportDialog::preview()
{
    const QUrl url = Kind(m_kind->currentIndex()) == Kind::OpenApi ? sourceUrl() : QUrl();
    if (url.isValid() && url != m_fetchedUrl) {
        if (m_fetch)
            return false;
        m_previewText->setPlainText(tr("Fetching %1…").arg(url.toDisplayString()));
        m_previewButton->setEnabled(false);
        m_fetch = new SourceFetch(this);
        connect(m_fetch, &SourceFetch::finished, this,
                [this, url](const QByteArray &body, const QString &error) {
                    fetched(url, body, error);
                });
        m_fetch->start(url);
        return false;
    }
    QString error;
    std::optional<ImportedSource> source = importSource(&error);
    std::optional<WorkspaceDocument> document =
        source ? workspace(&error) : std::optional<WorkspaceDocument>();
    if (!source || !document) {
        m_preview.reset();
        m_previewText->setPlainText(error);
        m_importButton->setEnabled(false);
        return false;
    }
    m_preview = previewImport(*document, source->endpoints, source->notes);
    m_previewText->setPlainText(m_preview->text);
    m_importButton->setEnabled(m_preview->loads && !m_preview->changes.isEmpty());
    return m_importButton->isEnabled();
}

void ImportDialog::apply()
{
    if (!m_preview && !preview())
        return;
    QString path = m_workspacePath;
    if (path.isEmpty())
        path = QFileDialog::getSaveFileName(this, tr("Save the workspace as"), QString(),
                                            tr("Workspace (*.json)"));
    if (path.isEmpty())
        return;
    QString error;
    if (!m_preview->document.save(path, &error, WorkspaceConfig::demoVariables(),
                                  m_preview->environment)) {
        m_previewText->appendPlainText(tr("Not written: %1").arg(error));
        return;
    }
    // The engine reads ${env:NAME} from the environment it was started in: what the
    // import asks for must be set there before it can run the workspace.
    if (!m_preview->missingVariables.isEmpty()) {
        QString exports;
        for (const QString &name : std::as_const(m_preview->missingVariables))
            exports += QStringLiteral("export %1=…\n").arg(name);
        m_previewText->setPlainText(
            tr("Written to %1, without a secret: the workspace names them as environment "
               "variables, and these are not set where Cooldown runs:\n\n%2\nSet them and "
               "start Cooldown again to run the workspace. Until then the engine goes on with "
               "what it runs.")
                .arg(QDir::toNativeSeparators(path), exports));
        m_importButton->setEnabled(false);
        m_preview.reset();
        emit savedWithoutVariables(path);
        return;
    }
    emit saved(path);
    accept();
}

} // namespace cooldown
