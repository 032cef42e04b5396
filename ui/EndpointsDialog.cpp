// SPDX-License-Identifier: Apache-2.0
#include "ui/EndpointsDialog.h"

#include "core/time/Clock.h"
#include "core/time/RandomSource.h"
#include "ui/CredentialTest.h"
#include "ui/CredentialsModel.h"
#include "ui/DriftModel.h"
#include "ui/Format.h"
#include "ui/JsonForm.h"
#include "ui/Palette.h"
#include "ui/WorkspaceItemsModel.h"

#include <QComboBox>
#include <QDateTime>
#include <QDialogButtonBox>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QScrollArea>
#include <QSet>
#include <QSplitter>
#include <QStackedWidget>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace cooldown {

namespace {

const QString kId = QStringLiteral("id");
const QString kPolicyId = QStringLiteral("policy_id");
const QString kCredentials = QStringLiteral("credentials");
const QString kTls = QStringLiteral("tls");
const QString kProxy = QStringLiteral("proxy");

QComboBox *choice(const QStringList &items, const QString &placeholder, QWidget *parent)
{
    // Editable, so that whatever the file holds is shown and kept as written.
    auto *combo = new QComboBox(parent);
    combo->setEditable(true);
    combo->setInsertPolicy(QComboBox::NoInsert);
    combo->addItems(items);
    combo->lineEdit()->setPlaceholderText(placeholder);
    combo->setEditText(QString());
    return combo;
}

QLineEdit *line(const QString &placeholder, QWidget *parent)
{
    auto *edit = new QLineEdit(parent);
    edit->setPlaceholderText(placeholder);
    edit->setClearButtonEnabled(true);
    return edit;
}

QPlainTextEdit *lines(const QString &placeholder, int rows, QWidget *parent)
{
    auto *edit = new QPlainTextEdit(parent);
    edit->setPlaceholderText(placeholder);
    edit->setTabChangesFocus(true);
    edit->setLineWrapMode(QPlainTextEdit::NoWrap);
    edit->setFixedHeight(edit->fontMetrics().lineSpacing() * rows + 12);
    return edit;
}

// A file's bytes; empty when it cannot be read.
QByteArray fileContents(const QString &path)
{
    QFile file(path);
    return !path.isEmpty() && file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

// The form of a page, at its top, with room below it.
QFormLayout *formOn(QWidget *page)
{
    auto *outer = new QVBoxLayout(page);
    auto *layout = new QFormLayout;
    outer->addLayout(layout);
    outer->addStretch(1);
    return layout;
}

} // namespace

EndpointsDialog::EndpointsDialog(WorkspaceDocument document, const QString &filePath,
                                 QWidget *parent)
    : QDialog(parent), m_document(std::move(document)), m_filePath(filePath),
      m_variables(WorkspaceConfig::demoVariables()),
      m_endpointsModel(new WorkspaceItemsModel(WorkspaceItemsModel::Kind::Endpoints, this)),
      m_policiesModel(new WorkspaceItemsModel(WorkspaceItemsModel::Kind::Policies, this)),
      m_driftModel(new DriftModel(this)), m_credentialsModel(new CredentialsModel(this)),
      m_testClock(&SystemClock::instance()), m_testRandom(&SystemRandom::instance())
{
    setObjectName(QStringLiteral("endpointsDialog"));
    setWindowTitle(tr("Endpoints and policies"));
    m_savedJson = m_document.toJson();
    m_chooseFile = [this] {
        return QFileDialog::getSaveFileName(this, tr("Save workspace as"),
                                            QDir::home().filePath(QStringLiteral("workspace.json")),
                                            tr("Workspace config (*.json)"));
    };
    m_confirm = [this](const QString &question, const QString &action) {
        QMessageBox box(QMessageBox::Question, windowTitle(), question, QMessageBox::Cancel, this);
        QPushButton *yes = box.addButton(action, QMessageBox::DestructiveRole);
        box.setDefaultButton(QMessageBox::Cancel);
        box.exec();
        return box.clickedButton() == yes;
    };
    m_fileSeen = fileContents(m_filePath);

    auto *layout = new QVBoxLayout(this);
    m_note = new QLabel(this);
    m_note->setObjectName(QStringLiteral("noteLabel"));
    m_note->setWordWrap(true);
    m_note->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_note);

    auto *splitter = new QSplitter(Qt::Horizontal, this);
    auto *left = new QWidget(splitter);
    auto *leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    m_pages = new QTabWidget(left);
    m_pages->setObjectName(QStringLiteral("endpointsPages"));
    m_endpointsView = makeList(m_endpointsModel, QStringLiteral("endpointsList"));
    m_policiesView = makeList(m_policiesModel, QStringLiteral("policiesList"));
    m_pages->addTab(m_endpointsView, tr("Endp&oints"));
    m_pages->addTab(m_policiesView, tr("Poli&cies"));
    m_credentialsView = makeList(m_credentialsModel, QStringLiteral("credentialsList"));
    m_pages->addTab(m_credentialsView, tr("Credentia&ls"));

    m_pages->addTab(makeDriftPage(), tr("Dri&ft"));
    leftLayout->addWidget(m_pages, 1);

    auto *itemButtons = new QHBoxLayout;
    m_addButton = new QPushButton(tr("Add"), left);
    m_addButton->setObjectName(QStringLiteral("addButton"));
    m_duplicateButton = new QPushButton(tr("Duplicate"), left);
    m_duplicateButton->setObjectName(QStringLiteral("duplicateButton"));
    m_removeButton = new QPushButton(tr("Remove"), left);
    m_removeButton->setObjectName(QStringLiteral("removeButton"));
    for (QPushButton *b : {m_addButton, m_duplicateButton, m_removeButton}) {
        b->setAutoDefault(false);
        itemButtons->addWidget(b);
    }
    itemButtons->addStretch(1);
    leftLayout->addLayout(itemButtons);

    m_forms = new QStackedWidget(splitter);
    auto *empty = new QLabel(tr("Select an endpoint or a policy, or add one."), m_forms);
    empty->setAlignment(Qt::AlignCenter);
    empty->setForegroundRole(QPalette::PlaceholderText);
    m_emptyForm = empty;
    const auto scrolled = [this](QWidget *form) {
        auto *area = new QScrollArea(m_forms);
        area->setWidgetResizable(true);
        area->setFrameShape(QFrame::NoFrame);
        area->setWidget(form);
        return area;
    };
    m_endpointFields = new JsonForm(QStringLiteral("endpoint"), this);
    m_policyFields = new JsonForm(QStringLiteral("policy"), this);
    for (JsonForm *form : {m_endpointFields, m_policyFields})
        connect(form, &JsonForm::edited, this, &EndpointsDialog::onEdited);
    m_endpointForm = scrolled(makeEndpointForm());
    m_policyForm = scrolled(makePolicyForm());
    m_credentialForm = scrolled(makeCredentialForm());
    for (QWidget *w : {m_emptyForm, m_endpointForm, m_policyForm, m_credentialForm})
        m_forms->addWidget(w);
    splitter->addWidget(left);
    splitter->addWidget(m_forms);
    splitter->setStretchFactor(0, 2);
    splitter->setStretchFactor(1, 3);
    splitter->setSizes({460, 600});
    layout->addWidget(splitter, 1);

    m_problemLabel = new QLabel(this);
    m_problemLabel->setObjectName(QStringLiteral("problemLabel"));
    m_problemLabel->setWordWrap(true);
    m_problemLabel->setTextFormat(Qt::RichText);
    palette::showAsProblem(m_problemLabel);
    layout->addWidget(m_problemLabel);

    auto *box = new QDialogButtonBox(this);
    m_saveButton = box->addButton(m_filePath.isEmpty() ? tr("Save &as…") : tr("&Save"),
                                  QDialogButtonBox::ActionRole);
    m_saveButton->setObjectName(QStringLiteral("saveButton"));
    // Enter in a field saves nothing: Save (or its file dialog) is a deliberate click.
    m_saveButton->setAutoDefault(false);
    QPushButton *close = box->addButton(QDialogButtonBox::Close);
    close->setAutoDefault(false);
    layout->addWidget(box);

    connect(m_saveButton, &QPushButton::clicked, this, &EndpointsDialog::save);
    connect(box, &QDialogButtonBox::rejected, this, &EndpointsDialog::reject);
    connect(m_addButton, &QPushButton::clicked, this, &EndpointsDialog::addItem);
    connect(m_duplicateButton, &QPushButton::clicked, this, &EndpointsDialog::duplicateItem);
    connect(m_removeButton, &QPushButton::clicked, this, &EndpointsDialog::removeItem);
    connect(m_problemLabel, &QLabel::linkActivated, this, &EndpointsDialog::goToProblem);
    connect(m_pages, &QTabWidget::currentChanged, this, &EndpointsDialog::showCurrentItem);
    connect(m_endpointsView->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &current) {
                if (m_pages->currentIndex() == int(Page::Endpoints))
                    editItem(true, current.row());
            });
    connect(m_policiesView->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &current) {
                if (m_pages->currentIndex() == int(Page::Policies))
                    editItem(false, current.row());
            });
    connect(m_credentialsView->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &current) {
                if (m_pages->currentIndex() == int(Page::Credentials))
                    showCredential(current.row());
            });

    m_endpointsModel->setItems(m_document.endpoints());
    m_policiesModel->setItems(m_document.policies());
    m_credentialsModel->setDocument(m_document.root());
    // Room for the warning sign a row with a problem gets.
    for (QTableView *view : {m_endpointsView, m_policiesView, m_credentialsView}) {
        view->resizeColumnToContents(WorkspaceItemsModel::IdColumn);
        view->setColumnWidth(WorkspaceItemsModel::IdColumn,
                             view->columnWidth(WorkspaceItemsModel::IdColumn) + 24);
    }
    m_credentialsView->resizeColumnToContents(CredentialsModel::TypeColumn);
    refreshChoices();
    updateNote();
    resize(1080, 660);
    selectItem(Page::Endpoints, 0);
    validate();
}

EndpointsDialog::~EndpointsDialog() = default;

// The Drift page: what servers advertised beside the configured policies (DriftModel).
// Selecting a row shows its policy's form; the tab says how many rows there are.
QWidget *EndpointsDialog::makeDriftPage()
{
    auto *drift = new QWidget;
    auto *driftLayout = new QVBoxLayout(drift);
    auto *driftAbout = new QLabel(tr("What servers advertised in <code>RateLimit-Policy</code> "
                                     "since the engine started, beside the configured policy. "
                                     "Select a row to edit its policy."),
                                  drift);
    driftAbout->setWordWrap(true);
    driftLayout->addWidget(driftAbout);
    m_noDrift =
        new QLabel(tr("No server has advertised other limits than the configured ones."), drift);
    m_noDrift->setObjectName(QStringLiteral("noDriftLabel"));
    m_noDrift->setForegroundRole(QPalette::PlaceholderText);
    driftLayout->addWidget(m_noDrift);
    m_driftView = new QTableView(drift);
    m_driftView->setObjectName(QStringLiteral("driftTable"));
    m_driftView->setModel(m_driftModel);
    m_driftView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_driftView->setSelectionMode(QAbstractItemView::SingleSelection);
    m_driftView->setWordWrap(false);
    m_driftView->verticalHeader()->hide();
    m_driftView->horizontalHeader()->setStretchLastSection(true);
    driftLayout->addWidget(m_driftView, 1);
    connect(m_driftView->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this] {
        if (currentPage() == Page::Drift)
            showCurrentItem();
    });
    connect(m_driftModel, &QAbstractItemModel::modelReset, this, [this] {
        const int rows = m_driftModel->rowCount();
        m_noDrift->setVisible(rows == 0);
        m_driftView->resizeColumnsToContents();
        m_pages->setTabText(int(Page::Drift), rows ? tr("Dri&ft (%1)").arg(rows) : tr("Dri&ft"));
    });
    return drift;
}

QTableView *EndpointsDialog::makeList(QAbstractItemModel *model, const QString &objectName)
{
    auto *view = new QTableView(this);
    view->setObjectName(objectName);
    view->setModel(model);
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setSelectionMode(QAbstractItemView::SingleSelection);
    view->setWordWrap(false);
    view->verticalHeader()->hide();
    view->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    view->verticalHeader()->setDefaultSectionSize(view->fontMetrics().height() + 8);
    view->horizontalHeader()->setStretchLastSection(true);
    view->horizontalHeader()->setHighlightSections(false);
    return view;
}

QWidget *EndpointsDialog::makeEndpointForm()
{
    auto *form = new QWidget;
    QFormLayout *layout = formOn(form);
    JsonForm &f = *m_endpointFields;
    layout->addRow(tr("&Id:"), f.add(kId, JsonForm::Kind::Text,
                                     line(tr("letters, digits, '.', '_' or '-'"), form)));
    layout->addRow(tr("&Name:"),
                   f.add(QStringLiteral("name"), JsonForm::Kind::Text, line(tr("the id"), form)));
    layout->addRow(tr("&Method:"), f.add(QStringLiteral("method"), JsonForm::Kind::Text,
                                         choice({QStringLiteral("GET"), QStringLiteral("HEAD"),
                                                 QStringLiteral("POST"), QStringLiteral("PUT"),
                                                 QStringLiteral("PATCH"), QStringLiteral("DELETE"),
                                                 QStringLiteral("OPTIONS")},
                                                QStringLiteral("GET"), form)));
    layout->addRow(tr("&URL:"),
                   f.add(QStringLiteral("url"), JsonForm::Kind::Text,
                         line(tr("https://api.example.com/items (${env:NAME} allowed)"), form)));
    layout->addRow(tr("&Every (seconds):"),
                   f.add(QStringLiteral("every_seconds"), JsonForm::Kind::Number,
                         line(tr("empty or 0: once per database"), form)));
    layout->addRow(tr("&Timeout (seconds):"),
                   f.add(QStringLiteral("timeout_seconds"), JsonForm::Kind::Number,
                         line(QStringLiteral("30"), form)));
    layout->addRow(tr("&Policy:"), f.add(QStringLiteral("policy"), JsonForm::Kind::Text,
                                         choice({}, tr("none"), form)));
    layout->addRow(tr("Partition &key:"),
                   f.add(QStringLiteral("partition_key"), JsonForm::Kind::Text,
                         line(tr("e.g. project-184"), form)));
    layout->addRow(tr("&Retry profile:"), f.add(QStringLiteral("retry"), JsonForm::Kind::Text,
                                                choice({}, QStringLiteral("default"), form)));
    layout->addRow(tr("Credenti&als:"), f.add(QStringLiteral("credentials"), JsonForm::Kind::Text,
                                              choice({}, tr("none"), form)));
    layout->addRow(tr("TLS settin&gs:"), f.add(QStringLiteral("tls"), JsonForm::Kind::Text,
                                               choice({}, tr("none: the system's CAs"), form)));
    layout->addRow(tr("Pro&xy:"), f.add(QStringLiteral("proxy"), JsonForm::Kind::Text,
                                        choice({}, tr("the workspace's"), form)));
    layout->addRow(tr("Idempotency &header:"),
                   f.add(QStringLiteral("idempotency"), JsonForm::Kind::Header,
                         line(tr("none (e.g. Idempotency-Key)"), form)));
    layout->addRow(
        tr("Hea&ders:"),
        f.add(QStringLiteral("headers"), JsonForm::Kind::Headers,
              lines(tr("One per line, e.g.\nAuthorization: Bearer ${env:API_TOKEN}"), 5, form)));
    auto *secrets = new QLabel(
        tr("Write secrets as <code>${env:NAME}</code>: the file keeps the reference."), form);
    secrets->setForegroundRole(QPalette::PlaceholderText);
    layout->addRow(QString(), secrets);
    layout->addRow(tr("&Body:"), f.add(QStringLiteral("body"), JsonForm::Kind::Text,
                                       lines(tr("sent as is"), 4, form)));
    layout->addRow(tr("E&xpect:"),
                   f.add(QStringLiteral("expect"), JsonForm::Kind::Json,
                         lines(tr("What an answer must say, e.g.\n{\"json\": [{\"pointer\": "
                                  "\"/status\", \"equals\": \"ok\"}]}\n(see docs/checks.md)"),
                               4, form)));
    layout->addRow(tr("Latency bu&dget (ms):"),
                   f.add(QStringLiteral("latency_budget_ms"), JsonForm::Kind::Number,
                         line(tr("none: slower answers are not degraded"), form)));
    layout->addRow(
        tr("SLA tar&get (%):"),
        f.add(QStringLiteral("sla_target"), JsonForm::Kind::Number,
              line(tr("none, e.g. 99.5: the SLA report says whether it was met"), form)));
    return form;
}

QWidget *EndpointsDialog::makePolicyForm()
{
    auto *form = new QWidget;
    QFormLayout *layout = formOn(form);
    JsonForm &f = *m_policyFields;
    layout->addRow(tr("Policy &id:"),
                   f.add(kPolicyId, JsonForm::Kind::Text, line(tr("e.g. project-read-v1"), form)));
    layout->addRow(tr("Pa&rtition:"), f.add(QStringLiteral("partition"), JsonForm::Kind::Text,
                                            line(tr("e.g. project_id"), form)));
    layout->addRow(tr("Reso&urce:"),
                   f.add(QStringLiteral("resource"), JsonForm::Kind::Text, line(tr("any"), form)));
    layout->addRow(tr("&Method:"), f.add(QStringLiteral("method"), JsonForm::Kind::Text,
                                         choice({QStringLiteral("GET"), QStringLiteral("POST"),
                                                 QStringLiteral("PUT"), QStringLiteral("PATCH"),
                                                 QStringLiteral("DELETE")},
                                                tr("any"), form)));
    layout->addRow(tr("&Quota unit:"),
                   f.add(QStringLiteral("quota_unit"), JsonForm::Kind::Text,
                         choice({QStringLiteral("request"), QStringLiteral("byte"),
                                 QStringLiteral("concurrency")},
                                QStringLiteral("request"), form)));
    layout->addRow(tr("&Limit:"), f.add(QStringLiteral("limit"), JsonForm::Kind::Number,
                                        line(tr("required: units per window"), form)));
    layout->addRow(tr("&Window (seconds):"),
                   f.add(QStringLiteral("window_seconds"), JsonForm::Kind::Number,
                         line(tr("required, except for concurrency"), form)));
    layout->addRow(tr("&Burst:"), f.add(QStringLiteral("burst"), JsonForm::Kind::Number,
                                        line(QStringLiteral("0"), form)));
    layout->addRow(tr("Policy &version:"),
                   f.add(QStringLiteral("policy_version"), JsonForm::Kind::Number,
                         line(QStringLiteral("1"), form)));
    layout->addRow(
        tr("&X-RateLimit-Reset:"),
        f.add(QStringLiteral("x_ratelimit_reset"), JsonForm::Kind::Text,
              choice({QStringLiteral("auto"), QStringLiteral("delta"), QStringLiteral("epoch"),
                      QStringLiteral("epoch-ms"), QStringLiteral("http-date")},
                     QStringLiteral("auto"), form)));
    return form;
}

// The Credentials page's right side: what the selected row says, read-only, and for an
// OAuth credential a Test that asks its token endpoint for a token.
QWidget *EndpointsDialog::makeCredentialForm()
{
    auto *form = new QWidget;
    auto *outer = new QVBoxLayout(form);
    m_credentialTitle = new QLabel(form);
    m_credentialTitle->setObjectName(QStringLiteral("credentialTitle"));
    QFont bold = m_credentialTitle->font();
    bold.setBold(true);
    m_credentialTitle->setFont(bold);
    outer->addWidget(m_credentialTitle);
    m_credentialRows = new QFormLayout;
    outer->addLayout(m_credentialRows);

    auto *testRow = new QHBoxLayout;
    m_testButton = new QPushButton(tr("&Test"), form);
    m_testButton->setObjectName(QStringLiteral("testButton"));
    m_testButton->setAutoDefault(false);
    m_testButton->setToolTip(tr("Ask the token endpoint for a token now, as the engine would. "
                                "The token itself is never shown, and is dropped."));
    testRow->addWidget(m_testButton);
    testRow->addStretch(1);
    outer->addLayout(testRow);
    m_testResult = new QLabel(form);
    m_testResult->setObjectName(QStringLiteral("testResult"));
    m_testResult->setWordWrap(true);
    m_testResult->setTextInteractionFlags(Qt::TextSelectableByMouse);
    outer->addWidget(m_testResult);

    auto *about = new QLabel(
        tr("Secrets are read from the environment when the workspace is loaded and are never "
           "shown here: only the names of the variables. These sections are edited in the "
           "workspace file; an endpoint names what it uses in its own form."),
        form);
    about->setObjectName(QStringLiteral("credentialsAbout"));
    about->setWordWrap(true);
    about->setForegroundRole(QPalette::PlaceholderText);
    outer->addSpacing(12);
    outer->addWidget(about);
    outer->addStretch(1);
    connect(m_testButton, &QPushButton::clicked, this, &EndpointsDialog::testCredential);
    return form;
}

void EndpointsDialog::showCredential(int row)
{
    m_row = -1;
    m_formProblem.clear();
    m_formProblemKey.clear();
    updateButtons();
    if (row < 0 || row >= m_credentialsModel->rowCount()) {
        m_credentialShown.clear();
        m_forms->setCurrentWidget(m_emptyForm);
        return;
    }
    m_forms->setCurrentWidget(m_credentialForm);
    const CredentialsModel::Item &item = m_credentialsModel->itemAt(row);
    const QJsonObject &o = item.object;
    const QString id = item.id();
    m_credentialShown = item.kind == CredentialsModel::Kind::Credential ? id : QString();
    while (m_credentialRows->rowCount() > 0)
        m_credentialRows->removeRow(0);
    const auto addRow = [this](const QString &label, const QString &value, bool problem = false) {
        auto *text = new QLabel(value, m_credentialRows->parentWidget());
        text->setTextFormat(Qt::PlainText);
        text->setWordWrap(true);
        text->setTextInteractionFlags(Qt::TextSelectableByMouse);
        if (problem)
            palette::showAsProblem(text);
        m_credentialRows->addRow(label, text);
    };
    const auto written = [&o](const char *key) {
        return o.value(QLatin1String(key)).toString();
    };
    const QJsonArray endpoints = m_document.root().value(QStringLiteral("endpoints")).toArray();
    const QJsonArray alerts = m_document.root().value(QStringLiteral("alerts")).toArray();
    const auto usersOf = [&](const QString &key, const QString &value) {
        QStringList names;
        for (const QJsonArray &list : {endpoints, alerts}) {
            for (const QJsonValue &v : list) {
                const QJsonObject e = v.toObject();
                if (e.value(key).toString() == value)
                    names.append(e.value(kId).toString());
            }
        }
        return names;
    };
    const auto variables = [&](const QStringList &names) {
        if (names.isEmpty())
            return;
        QStringList lines;
        for (const QString &name : names) {
            // Whether it is set, never what it holds.
            const bool set = m_environment ? !m_environment->value(name).isEmpty()
                                           : !qEnvironmentVariableIsEmpty(qPrintable(name));
            lines.append(set ? tr("%1 (set)").arg(name) : tr("%1 (not set)").arg(name));
        }
        addRow(tr("Environment:"), lines.join(QLatin1Char('\n')));
    };
    const auto usedBy = [&](const QStringList &names) {
        addRow(tr("Used by:"),
               names.isEmpty() ? tr("nothing yet") : names.join(QStringLiteral(", ")));
    };

    const bool oauth = item.kind == CredentialsModel::Kind::Credential &&
                       written("type") == QLatin1String("oauth2_client_credentials");
    switch (item.kind) {
    case CredentialsModel::Kind::Credential: {
        m_credentialTitle->setText(tr("Credentials %1").arg(id));
        const QString type = written("type");
        QString typeText = type;
        if (oauth)
            typeText = tr("OAuth 2.0 client credentials (%1)").arg(type);
        else if (type == QLatin1String("bearer"))
            typeText = tr("Bearer token (%1)").arg(type);
        else if (type == QLatin1String("basic"))
            typeText = tr("HTTP Basic (%1)").arg(type);
        else if (type == QLatin1String("header"))
            typeText = tr("A header of its own (%1)").arg(type);
        addRow(tr("Type:"), typeText);
        if (oauth) {
            addRow(tr("Token URL:"), written("token_url"));
            addRow(tr("Client ID:"), written("client_id"));
            const QString auth = written("client_auth");
            addRow(tr("Client authentication:"),
                   auth.isEmpty() ? tr("client_secret_basic (the default)") : auth);
            addRow(tr("Scope:"), written("scope").isEmpty() ? tr("none") : written("scope"));
            if (!written("audience").isEmpty())
                addRow(tr("Audience:"), written("audience"));
            const QJsonObject extra = o.value(QStringLiteral("extra_parameters")).toObject();
            if (!extra.isEmpty()) {
                QStringList lines;
                for (auto it = extra.begin(); it != extra.end(); ++it)
                    lines.append(QStringLiteral("%1=%2").arg(it.key(), it.value().toString()));
                addRow(tr("Extra parameters:"), lines.join(QLatin1Char('\n')));
            }
            // The road of the token request: its own, else that of the first endpoint that
            // uses it (WorkspaceConfig resolves it the same way).
            const QStringList users = usersOf(kCredentials, id);
            QJsonObject first;
            for (const QJsonArray &list : {endpoints, alerts}) {
                for (const QJsonValue &v : list) {
                    if (first.isEmpty() && v.toObject().value(kCredentials).toString() == id)
                        first = v.toObject();
                }
            }
            const QString tls = o.contains(kTls) ? written("tls") : first.value(kTls).toString();
            QJsonValue proxy = o.value(kProxy);
            if (proxy.isUndefined())
                proxy =
                    first.contains(kProxy) ? first.value(kProxy) : m_document.root().value(kProxy);
            QString road =
                tr("TLS: %1; proxy: %2")
                    .arg(tls.isEmpty() ? tr("the system's CAs") : tls,
                         proxy.isUndefined() ? tr("none") : CredentialsModel::proxyText(proxy));
            if (!o.contains(kTls) && !o.contains(kProxy) && !first.isEmpty())
                road = tr("%1 (those of %2)").arg(road, first.value(kId).toString());
            addRow(tr("Token request:"), road);
        } else if (type == QLatin1String("header")) {
            addRow(tr("Header:"), written("name"));
        } else {
            addRow(tr("Header:"), QStringLiteral("Authorization"));
            if (type == QLatin1String("basic"))
                addRow(tr("User name:"), written("username"));
        }
        variables(CredentialsModel::variablesIn(o));
        usedBy(usersOf(kCredentials, id));
        const auto state = m_credentialStates.constFind(id);
        if (oauth && state != m_credentialStates.constEnd()) {
            const QString trouble = format::credentialTrouble(*state, m_credentialStatesAtMs);
            QString text = trouble;
            if (text.isEmpty() && state->phase == CredentialState::Phase::Valid)
                text = tr("token valid until %1, scope %2")
                           .arg(format::localTime(state->validUntilMs, m_credentialStatesAtMs),
                                state->scope.isEmpty() ? tr("none stated") : state->scope);
            else if (text.isEmpty() && state->phase == CredentialState::Phase::Renewing)
                text = tr("asking for a token");
            else if (text.isEmpty())
                text = tr("no token held");
            text += QLatin1Char('\n') +
                    tr("%n token request(s) since Cooldown started", nullptr, state->tokenRequests);
            addRow(tr("In the engine:"), text, format::credentialRefused(*state));
        }
        break;
    }
    case CredentialsModel::Kind::Tls: {
        m_credentialTitle->setText(tr("TLS settings %1").arg(id));
        const std::pair<const char *, QString> files[] = {
            {"ca_file", tr("CA file:")},
            {"client_certificate", tr("Client certificate:")},
            {"client_key", tr("Client key:")},
            {"client_pkcs12", tr("PKCS#12 file:")},
        };
        for (const auto &[key, label] : files) {
            if (!written(key).isEmpty())
                addRow(label, written(key));
        }
        const bool anyCertificate = !o.value(QStringLiteral("verify_certificate")).toBool(true);
        if (anyCertificate)
            addRow(tr("Trusts:"),
                   tr("any certificate (verify_certificate: false): anyone on the way can read "
                      "and change the exchanges"),
                   true);
        else if (written("ca_file").isEmpty())
            addRow(tr("Trusts:"), tr("the system's CAs"));
        const bool verify = o.value(QStringLiteral("verify_hostname")).toBool(true);
        addRow(tr("Host names:"),
               verify ? tr("checked")
                      : tr("not checked (verify_hostname: false): a certificate issued for "
                           "another name is accepted"),
               !verify);
        variables(CredentialsModel::variablesIn(o));
        QStringList users = usersOf(kTls, id);
        for (const QJsonValue &v : m_document.root().value(kCredentials).toArray()) {
            if (v.toObject().value(kTls).toString() == id)
                users.append(
                    tr("the token requests of %1").arg(v.toObject().value(kId).toString()));
        }
        usedBy(users);
        break;
    }
    case CredentialsModel::Kind::Proxy: {
        m_credentialTitle->setText(tr("The workspace's proxy"));
        const QJsonValue proxy = o.value(kProxy);
        addRow(tr("Proxy:"), CredentialsModel::proxyText(proxy));
        variables(CredentialsModel::variablesIn(proxy));
        QStringList users;
        for (const QJsonValue &v : endpoints) {
            if (!v.toObject().contains(kProxy))
                users.append(v.toObject().value(kId).toString());
        }
        usedBy(users);
        break;
    }
    }
    m_testButton->setVisible(oauth);
    m_testButton->setEnabled(oauth && !m_test);
    showTestResult(m_credentialShown);
    validate();
}

void EndpointsDialog::showTestResult(const QString &id)
{
    if (id != m_credentialShown)
        return;
    const auto result = m_testResults.constFind(id);
    // No room is kept for a result that is not there.
    m_testResult->setVisible(result != m_testResults.constEnd());
    if (result == m_testResults.constEnd()) {
        m_testResult->clear();
        m_testResult->setPalette(QPalette());
        return;
    }
    m_testResult->setText(result->first);
    if (result->second)
        palette::showAsProblem(m_testResult);
    else
        m_testResult->setPalette(QPalette());
}

QString EndpointsDialog::testResult() const
{
    return m_testResults.value(m_credentialShown).first;
}

void EndpointsDialog::testCredential()
{
    const QString id = m_credentialShown;
    if (id.isEmpty() || m_test)
        return;
    // The document as it is now, edits not saved included, read as the engine would.
    QString error;
    const std::optional<WorkspaceConfig> config =
        m_document.validate(&error, m_variables, m_environment);
    const CredentialConfig *credential = config ? config->credential(id) : nullptr;
    if (!credential || !credential->isOAuth()) {
        const QString why = config ? tr("%1 is no OAuth credential").arg(id) : m_problem;
        m_testResults.insert(id, {tr("Not tested: %1").arg(why), true});
        showTestResult(id);
        emit credentialTested(id, false);
        return;
    }
    m_test = new CredentialTest(*config, id, *m_testClock, *m_testRandom, this);
    connect(m_test, &CredentialTest::finished, this,
            [this, id](const CredentialTestResult &result) { onTested(id, result); });
    m_testResults.insert(
        id, {tr("Asking %1 for a token…").arg(credential->tokenUrl.toDisplayString()), false});
    showTestResult(id);
    m_testButton->setEnabled(false);
    m_test->start();
}

void EndpointsDialog::onTested(const QString &id, const CredentialTestResult &result)
{
    m_test.clear(); // it deletes itself later; another test may start now
    QString text;
    if (result.ok) {
        const qint64 seconds = (result.lifetimeMs + 500) / 1000;
        text = tr("Token valid until %1 (expires in %2 s), scope %3. The token endpoint answered "
                  "in %4.")
                   .arg(QDateTime::fromMSecsSinceEpoch(result.validUntilMs)
                            .toString(QStringLiteral("HH:mm:ss")))
                   .arg(seconds)
                   .arg(result.scope.isEmpty() ? tr("none stated") : result.scope,
                        format::duration(result.durationMs));
    } else if (result.status > 0) {
        text = tr("No token: the token endpoint answered HTTP %1: %2")
                   .arg(result.status)
                   .arg(result.error);
    } else {
        text = tr("No token: %1").arg(result.error);
    }
    m_testResults.insert(id, {text, !result.ok});
    showTestResult(id);
    m_testButton->setEnabled(true);
    emit credentialTested(id, result.ok);
}

void EndpointsDialog::setCredentialStates(const QList<CredentialState> &states, qint64 nowMs)
{
    QHash<QString, CredentialState> byId;
    for (const CredentialState &s : states)
        byId.insert(s.id, s);
    m_credentialStatesAtMs = nowMs;
    // Rebuilt only when what it says changed: the engine reports every second.
    bool changed = byId.size() != m_credentialStates.size();
    for (auto it = byId.cbegin(); !changed && it != byId.cend(); ++it) {
        const CredentialState old = m_credentialStates.value(it.key());
        changed = old.phase != it->phase || old.validUntilMs != it->validUntilMs ||
                  old.nextTryAtMs != it->nextTryAtMs || old.lastError != it->lastError ||
                  old.tokenRequests != it->tokenRequests || old.scope != it->scope;
    }
    m_credentialStates = byId;
    if (changed && currentPage() == Page::Credentials &&
        m_credentialsView->currentIndex().isValid())
        showCredential(m_credentialsView->currentIndex().row());
}

void EndpointsDialog::setTestClock(const Clock &clock, RandomSource &random)
{
    m_testClock = &clock;
    m_testRandom = &random;
}

void EndpointsDialog::setResolution(const QHash<QString, QString> &variables,
                                    const std::optional<QHash<QString, QString>> &environment)
{
    m_variables = variables;
    m_environment = environment;
    validate();
}

void EndpointsDialog::setDrifts(const QList<PolicyDrift> &drifts, qint64 nowMs)
{
    // The row chosen stays chosen, and the form is left alone: it may be mid-edit.
    const QModelIndex current = m_driftView->currentIndex();
    const QString policyId = current.data(DriftModel::PolicyIdRole).toString();
    const QString partitionKey = current.data(DriftModel::PartitionKeyRole).toString();
    const QSignalBlocker blocker(m_driftView->selectionModel());
    m_driftModel->setDrifts(drifts, nowMs);
    m_policiesModel->setDrifts(drifts);
    for (int row = 0; current.isValid() && row < m_driftModel->rowCount(); ++row) {
        const PolicyDrift &d = m_driftModel->driftAt(row);
        if (d.policyId == policyId && d.partitionKey == partitionKey)
            m_driftView->setCurrentIndex(m_driftModel->index(row, 0));
    }
}

void EndpointsDialog::setFileChooser(std::function<QString()> chooser)
{
    m_chooseFile = std::move(chooser);
}

void EndpointsDialog::setConfirmation(
    std::function<bool(const QString &question, const QString &action)> confirm)
{
    m_confirm = std::move(confirm);
}

bool EndpointsDialog::isModified() const
{
    return m_document.toJson() != m_savedJson;
}

void EndpointsDialog::showPage(Page page)
{
    m_pages->setCurrentIndex(int(page));
    if (page == Page::Drift && !m_driftView->currentIndex().isValid() &&
        m_driftModel->rowCount() > 0)
        m_driftView->setCurrentIndex(m_driftModel->index(0, 0));
}

EndpointsDialog::Page EndpointsDialog::currentPage() const
{
    return Page(m_pages->currentIndex());
}

void EndpointsDialog::selectItem(Page page, int row)
{
    if (page == Page::Drift) {
        showPage(page);
        return;
    }
    if (page == Page::Credentials) {
        m_pages->setCurrentIndex(int(page));
        m_credentialsView->setCurrentIndex(m_credentialsModel->index(row, 0));
        showCredential(m_credentialsView->currentIndex().row());
        return;
    }
    const bool endpoint = page == Page::Endpoints;
    QTableView *view = endpoint ? m_endpointsView : m_policiesView;
    m_pages->setCurrentIndex(int(page));
    view->setCurrentIndex(view->model()->index(row, 0));
    editItem(endpoint, view->currentIndex().row());
}

void EndpointsDialog::selectCredential(const QString &id)
{
    for (int row = 0; row < m_credentialsModel->rowCount(); ++row) {
        const CredentialsModel::Item &item = m_credentialsModel->itemAt(row);
        if (item.kind == CredentialsModel::Kind::Credential && item.id() == id) {
            selectItem(Page::Credentials, row);
            return;
        }
    }
    showPage(Page::Credentials);
}

void EndpointsDialog::showCurrentItem()
{
    const Page page = Page(m_pages->currentIndex());
    switch (page) {
    case Page::Endpoints:
    case Page::Policies: {
        // A list shown for the first time opens on its first item.
        QTableView *view = page == Page::Endpoints ? m_endpointsView : m_policiesView;
        if (!view->currentIndex().isValid() && view->model()->rowCount() > 0)
            view->setCurrentIndex(view->model()->index(0, 0));
        editItem(page == Page::Endpoints, view->currentIndex().row());
        break;
    }
    case Page::Credentials: {
        if (!m_credentialsView->currentIndex().isValid() && m_credentialsModel->rowCount() > 0)
            m_credentialsView->setCurrentIndex(m_credentialsModel->index(0, 0));
        showCredential(m_credentialsView->currentIndex().row());
        break;
    }
    case Page::Drift: {
        const QModelIndex current = m_driftView->currentIndex();
        editItem(false, current.isValid() ? m_document.policyIndex(
                                                current.data(DriftModel::PolicyIdRole).toString())
                                          : -1);
        break;
    }
    }
}

void EndpointsDialog::editItem(bool endpoint, int row)
{
    const QList<QJsonObject> items = endpoint ? m_document.endpoints() : m_document.policies();
    m_editingEndpoint = endpoint;
    m_row = row >= 0 && row < items.size() ? row : -1;
    m_formProblem.clear();
    m_formProblemKey.clear();
    if (m_row < 0) {
        m_forms->setCurrentWidget(m_emptyForm);
    } else {
        m_forms->setCurrentWidget(endpoint ? m_endpointForm : m_policyForm);
        (endpoint ? m_endpointFields : m_policyFields)->load(items.at(m_row));
    }
    updateButtons();
    validate();
}

void EndpointsDialog::updateButtons()
{
    const bool list = m_pages->currentIndex() == int(Page::Endpoints) ||
                      m_pages->currentIndex() == int(Page::Policies);
    m_addButton->setEnabled(list);
    m_duplicateButton->setEnabled(list && m_row >= 0);
    m_removeButton->setEnabled(list && m_row >= 0);
}

void EndpointsDialog::onEdited()
{
    if (m_row < 0)
        return;
    QString problem;
    QString problemKey;
    if (m_editingEndpoint) {
        const QJsonObject item =
            m_endpointFields->read(m_document.endpoints().value(m_row), &problem, &problemKey);
        m_document.setEndpointAt(m_row, item);
        m_endpointsModel->setItem(m_row, item);
        m_credentialsModel->setDocument(m_document.root());
    } else {
        const QJsonObject item =
            m_policyFields->read(m_document.policies().value(m_row), &problem, &problemKey);
        m_document.setPolicyAt(m_row, item);
        m_policiesModel->setItem(m_row, item);
        refreshChoices();
    }
    m_formProblem = problem;
    m_formProblemKey = problemKey;
    validate();
}

void EndpointsDialog::refreshChoices()
{
    QStringList policies;
    for (const QJsonObject &p : m_document.policies()) {
        const QString id = p.value(kPolicyId).toString();
        if (!id.isEmpty() && !policies.contains(id))
            policies.append(id);
    }
    m_endpointFields->setChoices(QStringLiteral("policy"), policies);
    m_endpointFields->setChoices(QStringLiteral("retry"), m_document.retryProfileNames());
    // Ids as the file has them, in its order; the workspace's check says which is wrong.
    const auto ids = [this](const QString &key) {
        QStringList out;
        for (const QJsonValue &v : m_document.root().value(key).toArray()) {
            const QString id = v.toObject().value(kId).toString();
            if (!id.isEmpty() && !out.contains(id))
                out.append(id);
        }
        return out;
    };
    m_endpointFields->setChoices(QStringLiteral("credentials"), ids(QStringLiteral("credentials")));
    m_endpointFields->setChoices(QStringLiteral("tls"), ids(QStringLiteral("tls")));
    m_endpointFields->setChoices(QStringLiteral("proxy"),
                                 {QStringLiteral("system"), QStringLiteral("none")});
}

void EndpointsDialog::validate()
{
    QString error;
    const bool valid = m_document.validate(&error, m_variables, m_environment).has_value();
    if (!m_formProblem.isEmpty()) {
        m_problemPath =
            QStringLiteral("%1[%2].%3")
                .arg(m_editingEndpoint ? QStringLiteral("endpoints") : QStringLiteral("policies"))
                .arg(m_row)
                .arg(m_formProblemKey);
        m_problem = QStringLiteral("%1: %2").arg(m_problemPath, m_formProblem);
    } else if (!valid) {
        m_problemPath = m_document.problemPath(error);
        const QString prefix = m_document.sourceName() + QStringLiteral(": ");
        m_problem = error.startsWith(prefix) ? error.mid(prefix.size()) : error;
    } else {
        m_problemPath.clear();
        m_problem.clear();
    }
    m_saveButton->setEnabled(m_problem.isEmpty());
    markProblem();
}

void EndpointsDialog::markProblem()
{
    static const QRegularExpression kItem(
        QStringLiteral(R"(^(endpoints|policies)\[(\d+)\](?:\.([^.]+))?)"));
    const QRegularExpressionMatch m = kItem.match(m_problemPath);
    const bool inEndpoint = m.hasMatch() && m.captured(1) == QLatin1String("endpoints");
    const int row = m.hasMatch() ? m.captured(2).toInt() : -1;
    const QString key = m.captured(3);
    m_endpointsModel->setProblem(inEndpoint ? row : -1, m_problem);
    m_policiesModel->setProblem(m.hasMatch() && !inEndpoint ? row : -1, m_problem);
    m_credentialsModel->setProblem(m.hasMatch() ? QString() : m_problemPath, m_problem);
    const int credentialRow = m.hasMatch() ? -1 : m_credentialsModel->rowOfPath(m_problemPath);

    const bool here = m.hasMatch() && row == m_row && inEndpoint == m_editingEndpoint;
    for (JsonForm *form : {m_endpointFields, m_policyFields}) {
        const bool current = form == (m_editingEndpoint ? m_endpointFields : m_policyFields);
        form->mark(current && here ? key : QString(), m_problem);
    }

    if (m_problem.isEmpty()) {
        m_problemLabel->clear();
        m_problemLabel->hide();
        return;
    }
    QString text = tr("<b>Not saved until this is fixed:</b> %1").arg(m_problem.toHtmlEscaped());
    const bool credentialShown = credentialRow >= 0 && currentPage() == Page::Credentials &&
                                 m_credentialsView->currentIndex().row() == credentialRow;
    if ((m.hasMatch() && !here) || (credentialRow >= 0 && !credentialShown))
        text += QStringLiteral(" <a href=\"#problem\">%1</a>").arg(tr("Show"));
    m_problemLabel->setText(text);
    m_problemLabel->show();
}

void EndpointsDialog::goToProblem()
{
    static const QRegularExpression kItem(
        QStringLiteral(R"(^(endpoints|policies)\[(\d+)\](?:\.([^.]+))?)"));
    const QRegularExpressionMatch m = kItem.match(m_problemPath);
    if (!m.hasMatch()) {
        const int row = m_credentialsModel->rowOfPath(m_problemPath);
        if (row >= 0)
            selectItem(Page::Credentials, row);
        return;
    }
    const bool endpoint = m.captured(1) == QLatin1String("endpoints");
    selectItem(endpoint ? Page::Endpoints : Page::Policies, m.captured(2).toInt());
    if (QWidget *field = (endpoint ? m_endpointFields : m_policyFields)->widget(m.captured(3)))
        field->setFocus();
}

void EndpointsDialog::updateNote()
{
    QString text;
    if (!m_savedNote.isEmpty())
        text = m_savedNote + QLatin1Char(' ');
    if (m_filePath.isEmpty()) {
        text += tr("The demo workspace is built into the application: <b>Save as…</b> writes "
                   "your version to a file, which the running engine then takes up and "
                   "<code>cooldown --config FILE</code> opens.");
    } else {
        text += tr("Editing <b>%1</b>. Each change is checked as you type; Save writes the file "
                   "and the running engine takes it up without a restart.")
                    .arg(QDir::toNativeSeparators(m_filePath).toHtmlEscaped());
    }
    m_note->setText(text);
}

QString EndpointsDialog::uniqueId(const QString &base, bool endpoint) const
{
    QSet<QString> taken;
    for (const QJsonObject &o : endpoint ? m_document.endpoints() : m_document.policies())
        taken.insert(o.value(endpoint ? kId : kPolicyId).toString());
    if (!taken.contains(base))
        return base;
    for (int n = 2;; ++n) {
        const QString candidate = QStringLiteral("%1-%2").arg(base).arg(n);
        if (!taken.contains(candidate))
            return candidate;
    }
}

void EndpointsDialog::addItem()
{
    const Page page = Page(m_pages->currentIndex());
    if (page == Page::Drift)
        return;
    const bool endpoint = page == Page::Endpoints;
    if (endpoint) {
        const QJsonObject item{{kId, uniqueId(QStringLiteral("endpoint"), true)},
                               {QStringLiteral("method"), QStringLiteral("GET")},
                               {QStringLiteral("url"), QStringLiteral("https://")}};
        m_document.addEndpoint(item);
        m_endpointsModel->insertItem(m_endpointsModel->rowCount(), item);
    } else {
        const QJsonObject item{{kPolicyId, uniqueId(QStringLiteral("policy"), false)},
                               {QStringLiteral("limit"), 60},
                               {QStringLiteral("window_seconds"), 60}};
        m_document.addPolicy(item);
        m_policiesModel->insertItem(m_policiesModel->rowCount(), item);
        refreshChoices();
    }
    WorkspaceItemsModel *model = endpoint ? m_endpointsModel : m_policiesModel;
    selectItem(page, model->rowCount() - 1);
    QWidget *id = endpoint ? m_endpointFields->widget(kId) : m_policyFields->widget(kPolicyId);
    id->setFocus();
    static_cast<QLineEdit *>(id)->selectAll();
}

void EndpointsDialog::duplicateItem()
{
    const Page page = Page(m_pages->currentIndex());
    if (page == Page::Drift || m_row < 0)
        return;
    const bool endpoint = page == Page::Endpoints;
    const QString idKey = endpoint ? kId : kPolicyId;
    QJsonObject item =
        endpoint ? m_document.endpoints().value(m_row) : m_document.policies().value(m_row);
    item.insert(idKey, uniqueId(item.value(idKey).toString() + QStringLiteral("-copy"), endpoint));
    WorkspaceItemsModel *model = endpoint ? m_endpointsModel : m_policiesModel;
    if (endpoint) {
        m_document.addEndpoint(item);
    } else {
        m_document.addPolicy(item);
    }
    model->insertItem(model->rowCount(), item);
    if (!endpoint)
        refreshChoices();
    selectItem(page, model->rowCount() - 1);
}

void EndpointsDialog::removeItem()
{
    const Page page = Page(m_pages->currentIndex());
    if (page == Page::Drift || m_row < 0)
        return;
    const bool endpoint = page == Page::Endpoints;
    const int row = m_row;
    WorkspaceItemsModel *model = endpoint ? m_endpointsModel : m_policiesModel;
    if (endpoint) {
        m_document.removeEndpointAt(row);
    } else {
        m_document.removePolicyAt(row);
    }
    model->removeItem(row);
    if (!endpoint)
        refreshChoices();
    selectItem(page, std::min(row, model->rowCount() - 1));
}

bool EndpointsDialog::save()
{
    if (!m_problem.isEmpty())
        return false;
    const QString path = m_filePath.isEmpty() ? m_chooseFile() : m_filePath;
    if (path.isEmpty())
        return false;
    // An editor (or another Cooldown) may have written the file since it was read.
    if (path == m_filePath && fileContents(path) != m_fileSeen &&
        !m_confirm(tr("%1 was changed by another program after it was opened here. Saving "
                      "replaces those changes with what this dialog shows.")
                       .arg(QDir::toNativeSeparators(path)),
                   tr("Overwrite")))
        return false;
    QString error;
    if (!m_document.save(path, &error, m_variables, m_environment)) {
        m_problemLabel->setText(tr("<b>Not saved:</b> %1").arg(error.toHtmlEscaped()));
        m_problemLabel->show();
        return false;
    }
    m_filePath = path;
    m_fileSeen = fileContents(path);
    m_document.setSourceName(path);
    m_savedJson = m_document.toJson();
    m_saveButton->setText(tr("&Save"));
    m_savedNote = tr("Saved at %1.").arg(QTime::currentTime().toString(QStringLiteral("HH:mm:ss")));
    updateNote();
    emit saved(path);
    return true;
}

void EndpointsDialog::reject()
{
    if (isModified() && !m_confirm(tr("Discard the changes that are not saved?"), tr("Discard")))
        return;
    QDialog::reject();
}

} // namespace cooldown
