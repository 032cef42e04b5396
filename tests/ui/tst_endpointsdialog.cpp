// SPDX-License-Identifier: Apache-2.0
#include "core/config/WorkspaceConfig.h"
#include "core/config/WorkspaceDocument.h"
#include "support/ScriptedHttpServer.h"
#include "ui/CredentialsModel.h"
#include "ui/DriftModel.h"
#include "ui/EndpointsDialog.h"
#include "ui/WorkspaceItemsModel.h"

#include <QAbstractItemModelTester>
#include <QAbstractItemView>
#include <QComboBox>
#include <QDateTime>
#include <QFile>
#include <QFormLayout>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

using namespace cooldown;

// Declared before the JSON below, which moc cannot read through.
class tst_EndpointsDialog : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void invalidUrlDisablesSaveUntilFixed();
    void saveWritesTheFile();
    void refusedDocumentIsNeverWritten();
    void numbersAndHeaderLines();
    void checksAreEditedAsJson();
    void policyFieldsAreChecked();
    void addDuplicateRemove();
    void removingAUsedPolicyPointsAtTheEndpoint();
    void demoIsSavedAs();
    void driftRowsAppear();
    void closingAsksBeforeDroppingChanges();
    void saveAsksBeforeReplacingChangesOnDisk();
    void credentialsModelReadsTheFileAsWritten();
    void credentialsPageListsWithoutSecrets();
    void testFetchesATokenAndShowsNoToken();
    void endpointFormNamesCredentialsTlsAndProxy();

private:
    std::unique_ptr<EndpointsDialog> openDialog(const QString &path = QString());
    template <typename T> T *field(EndpointsDialog &dialog, const char *name);
    void retype(QLineEdit *edit, const QString &text);

    std::unique_ptr<QTemporaryDir> m_dir;
    QString m_path;
    std::unique_ptr<QAbstractItemModelTester> m_endpointsTester;
    std::unique_ptr<QAbstractItemModelTester> m_policiesTester;
    std::unique_ptr<QAbstractItemModelTester> m_driftTester;
};

namespace {

const QHash<QString, QString> kEnv = {{"UI_TEST_TOKEN", "s3cr3t"}};

const QByteArray kWorkspace = R"({
  "version": 1,
  "concurrency": { "max_in_flight": 4, "per_host": 2 },
  "policies": [ { "policy_id": "read-v1", "limit": 120, "window_seconds": 60 } ],
  "endpoints": [
    { "id": "measurements", "url": "https://api.example.com/measurements",
      "headers": { "Authorization": "Bearer ${env:UI_TEST_TOKEN}" },
      "every_seconds": 30, "policy": "read-v1", "partition_key": "p1" },
    { "id": "report", "method": "GET", "url": "https://api.example.com/report" }
  ]
})";

QByteArray readAll(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

PolicyDrift drift(const char *policy, const char *key, qint64 configured, qint64 advertised)
{
    PolicyDrift d;
    d.policyId = QString::fromLatin1(policy);
    d.partitionKey = QString::fromLatin1(key);
    d.configuredLimit = configured;
    d.configuredWindowMs = 60000;
    d.advertised.name = d.policyId;
    d.advertised.quota = advertised;
    d.advertised.windowSeconds = 60;
    if (configured != advertised)
        d.differences.append(
            QStringLiteral("quota: server %1, configured %2").arg(advertised).arg(configured));
    d.observedAtMs = 1000;
    return d;
}

// Secrets the credentials page must never show, by the variables that hold them.
const QHash<QString, QString> kCredentialEnv = {{"UI_PLM_SECRET", "PLM-SECRET-VALUE-123"},
                                                {"UI_TEST_TOKEN", "BEARER-SECRET-456"},
                                                {"UI_PROXY_PASS", "PROXY-PASS-789"}};
const QStringList kSecrets = {"PLM-SECRET-VALUE-123", "BEARER-SECRET-456", "PROXY-PASS-789",
                              "SECRET-TOKEN"};

// An OAuth credential whose token endpoint is tokenUrl, a bearer and a header credential,
// a tls entry that does not check host names, and a proxy with a password.
QByteArray credentialWorkspace(const QString &tokenUrl)
{
    return QStringLiteral(R"({
  "version": 1,
  "credentials": [
    { "id": "plm", "type": "oauth2_client_credentials", "token_url": "%1",
      "client_id": "cooldown", "client_secret": "${env:UI_PLM_SECRET}", "scope": "a b",
      "proxy": "none" },
    { "id": "static", "type": "bearer", "token": "${env:UI_TEST_TOKEN}" },
    { "id": "key", "type": "header", "name": "X-Api-Key", "value": "k ${env:UI_TEST_TOKEN}" }
  ],
  "tls": [ { "id": "lab", "verify_hostname": false } ],
  "proxy": "http://alice:${env:UI_PROXY_PASS}@127.0.0.1:3128",
  "endpoints": [
    { "id": "bom", "url": "https://plm.example.com/api/boms", "credentials": "plm",
      "tls": "lab" },
    { "id": "parts", "url": "https://plm.example.com/api/parts", "credentials": "static",
      "proxy": { "url": "http://127.0.0.1:3129", "no_proxy": [ "localhost" ] } }
  ]
})")
        .arg(tokenUrl)
        .toUtf8();
}

// Every text the dialog shows or would show on hovering: labels, buttons, fields,
// tooltips, and what its lists hold.
QStringList textsOf(QWidget *root)
{
    QStringList texts;
    QList<QWidget *> widgets = root->findChildren<QWidget *>();
    widgets.prepend(root);
    for (QWidget *w : std::as_const(widgets)) {
        texts << w->toolTip() << w->windowTitle();
        if (auto *label = qobject_cast<QLabel *>(w))
            texts << label->text();
        if (auto *button = qobject_cast<QPushButton *>(w))
            texts << button->text();
        if (auto *edit = qobject_cast<QLineEdit *>(w))
            texts << edit->text();
        if (auto *edit = qobject_cast<QPlainTextEdit *>(w))
            texts << edit->toPlainText();
        if (auto *combo = qobject_cast<QComboBox *>(w)) {
            texts << combo->currentText();
            for (int i = 0; i < combo->count(); ++i)
                texts << combo->itemText(i);
        }
        if (auto *view = qobject_cast<QAbstractItemView *>(w); view && view->model()) {
            const QAbstractItemModel *model = view->model();
            for (int r = 0; r < model->rowCount(); ++r)
                for (int c = 0; c < model->columnCount(); ++c)
                    for (int role : {int(Qt::DisplayRole), int(Qt::ToolTipRole)})
                        texts << model->index(r, c).data(role).toString();
        }
    }
    return texts;
}

// What the credentials page shows beside a label ("Used by:").
QString detail(QWidget *dialog, const QString &label)
{
    for (const QFormLayout *form : dialog->findChildren<QFormLayout *>()) {
        for (int row = 0; row < form->rowCount(); ++row) {
            const QLayoutItem *name = form->itemAt(row, QFormLayout::LabelRole);
            const QLayoutItem *value = form->itemAt(row, QFormLayout::FieldRole);
            const auto *nameLabel = name ? qobject_cast<QLabel *>(name->widget()) : nullptr;
            const auto *valueLabel = value ? qobject_cast<QLabel *>(value->widget()) : nullptr;
            if (nameLabel && valueLabel && nameLabel->text() == label)
                return valueLabel->text();
        }
    }
    return QStringLiteral("(no %1)").arg(label);
}

QString secretIn(const QStringList &texts)
{
    for (const QString &text : texts)
        for (const QString &secret : kSecrets)
            if (text.contains(secret))
                return text;
    return QString();
}

} // namespace

void tst_EndpointsDialog::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_path = m_dir->filePath("workspace.json");
    QFile file(m_path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    QCOMPARE(file.write(kWorkspace), kWorkspace.size());
}

std::unique_ptr<EndpointsDialog> tst_EndpointsDialog::openDialog(const QString &path)
{
    QString error;
    auto document = path.isEmpty() ? WorkspaceDocument::fromJson(kWorkspace, "demo.json", &error)
                                   : WorkspaceDocument::load(path, &error);
    if (!document) {
        qWarning("%s", qPrintable(error));
        return nullptr;
    }
    auto dialog = std::make_unique<EndpointsDialog>(std::move(*document), path);
    dialog->setResolution({}, kEnv);
    m_endpointsTester = std::make_unique<QAbstractItemModelTester>(
        dialog->endpointsModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    m_policiesTester = std::make_unique<QAbstractItemModelTester>(
        dialog->policiesModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    m_driftTester = std::make_unique<QAbstractItemModelTester>(
        dialog->driftModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    dialog->show();
    return dialog;
}

template <typename T> T *tst_EndpointsDialog::field(EndpointsDialog &dialog, const char *name)
{
    return dialog.findChild<T *>(QString::fromLatin1(name));
}

void tst_EndpointsDialog::retype(QLineEdit *edit, const QString &text)
{
    edit->setFocus();
    edit->selectAll();
    QTest::keyClick(edit, Qt::Key_Backspace);
    QTest::keyClicks(edit, text);
}

void tst_EndpointsDialog::invalidUrlDisablesSaveUntilFixed()
{
    auto dialog = openDialog(m_path);
    QVERIFY(dialog);
    QVERIFY(QTest::qWaitForWindowExposed(dialog.get()));
    QVERIFY2(dialog->problem().isEmpty(), qPrintable(dialog->problem()));
    QVERIFY(dialog->saveButton()->isEnabled());

    dialog->selectItem(EndpointsDialog::Page::Endpoints, 1);
    auto *url = field<QLineEdit>(*dialog, "endpoint:url");
    QVERIFY(url);
    QCOMPARE(url->text(), "https://api.example.com/report");
    retype(url, "api.example.com/report");

    QVERIFY(!dialog->saveButton()->isEnabled());
    QCOMPARE(dialog->problemPath(), "endpoints[1].url");
    QVERIFY2(
        dialog->problem().startsWith("endpoints[1].url: expected an absolute http or https URL"),
        qPrintable(dialog->problem()));
    auto *problem = field<QLabel>(*dialog, "problemLabel");
    QVERIFY(problem && problem->isVisible());
    QVERIFY(problem->text().contains("endpoints[1].url"));
    QVERIFY(url->property("invalid").toBool());
    QCOMPARE(
        dialog->endpointsModel()->index(1, 0).data(WorkspaceItemsModel::ProblemRole).toString(),
        dialog->problem());
    QVERIFY(!dialog->save());

    retype(url, "https://api.example.com/v2/report");
    QVERIFY(dialog->saveButton()->isEnabled());
    QVERIFY(dialog->problem().isEmpty());
    QVERIFY(!problem->isVisible());
    QVERIFY(!url->property("invalid").toBool());
    QVERIFY(dialog->endpointsModel()->index(1, 0).data(WorkspaceItemsModel::ProblemRole).isNull() ||
            dialog->endpointsModel()
                ->index(1, 0)
                .data(WorkspaceItemsModel::ProblemRole)
                .toString()
                .isEmpty());
    QCOMPARE(
        dialog->endpointsModel()->index(1, WorkspaceItemsModel::SummaryColumn).data().toString(),
        "GET https://api.example.com/v2/report");
}

void tst_EndpointsDialog::saveWritesTheFile()
{
    auto dialog = openDialog(m_path);
    QVERIFY(dialog);
    QCOMPARE(dialog->saveButton()->text(), "&Save");
    dialog->selectItem(EndpointsDialog::Page::Endpoints, 0);
    retype(field<QLineEdit>(*dialog, "endpoint:every_seconds"), "45");
    retype(field<QLineEdit>(*dialog, "endpoint:name"), "Read measurements");
    QVERIFY(dialog->isModified());
    QSignalSpy saved(dialog.get(), &EndpointsDialog::saved);
    QTest::mouseClick(dialog->saveButton(), Qt::LeftButton);
    QCOMPARE(saved.size(), 1);
    QCOMPARE(saved.first().first().toString(), m_path);
    QVERIFY(!dialog->isModified());

    const QByteArray written = readAll(m_path);
    QVERIFY(written.contains("Bearer ${env:UI_TEST_TOKEN}"));
    QVERIFY(!written.contains("s3cr3t"));
    QString error;
    const auto config = WorkspaceConfig::parse(written, m_path, &error, {}, kEnv);
    QVERIFY2(config, qPrintable(error));
    QCOMPARE(config->endpoint("measurements")->everySeconds, 45);
    QCOMPARE(config->endpoint("measurements")->name, "Read measurements");
    QCOMPARE(config->endpoint("measurements")->headers.value("Authorization"), "Bearer s3cr3t");
    QCOMPARE(config->concurrency.perHost, 2);
    QCOMPARE(config->endpoint("report")->url.toString(), "https://api.example.com/report");
}

void tst_EndpointsDialog::refusedDocumentIsNeverWritten()
{
    auto dialog = openDialog(m_path);
    QVERIFY(dialog);
    retype(field<QLineEdit>(*dialog, "endpoint:id"), "has spaces");
    QCOMPARE(dialog->problemPath(), "endpoints[0].id");
    QVERIFY(!dialog->saveButton()->isEnabled());
    QVERIFY(!dialog->save());
    QCOMPARE(readAll(m_path), kWorkspace);
}

void tst_EndpointsDialog::numbersAndHeaderLines()
{
    auto dialog = openDialog(m_path);
    QVERIFY(dialog);
    auto *every = field<QLineEdit>(*dialog, "endpoint:every_seconds");
    retype(every, "soon");
    QCOMPARE(dialog->problemPath(), "endpoints[0].every_seconds");
    QVERIFY(every->property("invalid").toBool());
    retype(every, "2.5");
    QVERIFY2(dialog->problem().startsWith("endpoints[0].every_seconds: expected a whole number"),
             qPrintable(dialog->problem()));
    every->clear(); // absent: runs once per database
    QVERIFY2(dialog->problem().isEmpty(), qPrintable(dialog->problem()));
    QVERIFY(!dialog->document().endpoints().first().contains("every_seconds"));

    auto *headers = field<QPlainTextEdit>(*dialog, "endpoint:headers");
    QVERIFY(headers);
    QCOMPARE(headers->toPlainText(), "Authorization: Bearer ${env:UI_TEST_TOKEN}");
    headers->setPlainText("Authorization: Bearer ${env:UI_TEST_TOKEN}\nno colon here");
    QCOMPARE(dialog->problem(), "endpoints[0].headers: line 2: expected 'Name: value'");
    QVERIFY(headers->property("invalid").toBool());
    QVERIFY(!dialog->saveButton()->isEnabled());
    headers->setPlainText("Authorization: Bearer ${env:UNSET_VARIABLE}\nX-Trace: 1");
    QCOMPARE(dialog->problemPath(), "endpoints[0].headers.Authorization");
    QVERIFY(dialog->problem().contains("environment variable UNSET_VARIABLE is not set"));
    headers->setPlainText("Authorization: Bearer ${env:UI_TEST_TOKEN}\nX-Trace: 1");
    QVERIFY2(dialog->problem().isEmpty(), qPrintable(dialog->problem()));
    const QJsonObject written = dialog->document().endpoints().first().value("headers").toObject();
    QCOMPARE(written.value("X-Trace").toString(), "1");
    QCOMPARE(written.value("Authorization").toString(), "Bearer ${env:UI_TEST_TOKEN}");

    auto *idempotency = field<QLineEdit>(*dialog, "endpoint:idempotency");
    retype(idempotency, "Idempotency Key");
    QCOMPARE(dialog->problemPath(), "endpoints[0].idempotency.header");
    QVERIFY(idempotency->property("invalid").toBool());
    retype(idempotency, "Idempotency-Key");
    QVERIFY(dialog->problem().isEmpty());
    QCOMPARE(dialog->document().endpoints().first().value("idempotency").toObject(),
             QJsonObject({{"header", "Idempotency-Key"}}));
}

// docs/checks.md: an endpoint's expect as JSON text, checked as the workspace checks it.
void tst_EndpointsDialog::checksAreEditedAsJson()
{
    auto dialog = openDialog(m_path);
    QVERIFY(dialog);
    auto *expect = field<QPlainTextEdit>(*dialog, "endpoint:expect");
    QVERIFY(expect);
    QVERIFY(expect->toPlainText().isEmpty());
    expect->setPlainText("{\"json\": [{\"pointer\": \"/status\", \"equals\": \"ok\"}");
    QVERIFY2(dialog->problem().startsWith("endpoints[0].expect: not JSON:"),
             qPrintable(dialog->problem()));
    QVERIFY(expect->property("invalid").toBool());
    QVERIFY(!dialog->saveButton()->isEnabled());
    expect->setPlainText("{\"json\": [{\"pointer\": \"status\"}]}");
    QCOMPARE(dialog->problemPath(), "endpoints[0].expect.json[0].pointer");
    QVERIFY(!dialog->saveButton()->isEnabled());
    expect->setPlainText("{\"json\": [{\"pointer\": \"/status\", \"equals\": \"ok\"}]}");
    QVERIFY2(dialog->problem().isEmpty(), qPrintable(dialog->problem()));
    const QJsonObject written = dialog->document().endpoints().first().value("expect").toObject();
    QCOMPARE(written.value("json").toArray().first().toObject().value("equals").toString(), "ok");

    auto *budget = field<QLineEdit>(*dialog, "endpoint:latency_budget_ms");
    retype(budget, "0");
    QVERIFY2(
        dialog->problem().startsWith("endpoints[0].latency_budget_ms: expected a whole number"),
        qPrintable(dialog->problem()));
    retype(budget, "2000");
    QVERIFY(dialog->problem().isEmpty());
    QCOMPARE(dialog->document().endpoints().first().value("latency_budget_ms").toDouble(), 2000.0);
    // The SLA report's target, a share in percent.
    auto *target = field<QLineEdit>(*dialog, "endpoint:sla_target");
    QVERIFY(target);
    retype(target, "101");
    QVERIFY2(dialog->problem().startsWith("endpoints[0].sla_target:"),
             qPrintable(dialog->problem()));
    QVERIFY(!dialog->saveButton()->isEnabled());
    retype(target, "99.5");
    QVERIFY2(dialog->problem().isEmpty(), qPrintable(dialog->problem()));
    QCOMPARE(dialog->document().endpoints().first().value("sla_target").toDouble(), 99.5);
    expect->clear();
    QVERIFY(!dialog->document().endpoints().first().contains("expect"));
}

void tst_EndpointsDialog::policyFieldsAreChecked()
{
    auto dialog = openDialog(m_path);
    QVERIFY(dialog);
    dialog->selectItem(EndpointsDialog::Page::Policies, 0);
    auto *limit = field<QLineEdit>(*dialog, "policy:limit");
    QVERIFY(limit);
    QCOMPARE(limit->text(), "120");
    retype(limit, "0");
    QCOMPARE(dialog->problemPath(), "policies[0].limit");
    QVERIFY(limit->property("invalid").toBool());
    retype(limit, "50");
    auto *unit = field<QComboBox>(*dialog, "policy:quota_unit");
    QVERIFY(unit);
    unit->setEditText("requests");
    QCOMPARE(dialog->problemPath(), "policies[0].quota_unit");
    unit->setCurrentIndex(unit->findText("request"));
    QVERIFY2(dialog->problem().isEmpty(), qPrintable(dialog->problem()));
    QCOMPARE(
        dialog->policiesModel()->index(0, WorkspaceItemsModel::SummaryColumn).data().toString(),
        "50 per 60 s");
}

void tst_EndpointsDialog::addDuplicateRemove()
{
    auto dialog = openDialog(m_path);
    QVERIFY(dialog);
    QTest::mouseClick(field<QPushButton>(*dialog, "addButton"), Qt::LeftButton);
    QCOMPARE(dialog->endpointsModel()->rowCount(), 3);
    QCOMPARE(dialog->document().endpoints().at(2).value("id").toString(), "endpoint");
    // A new endpoint has no host yet: nothing is saved until it has one.
    QCOMPARE(dialog->problemPath(), "endpoints[2].url");
    QVERIFY(!dialog->saveButton()->isEnabled());
    auto *url = field<QLineEdit>(*dialog, "endpoint:url");
    QCOMPARE(url->text(), "https://");
    url->setFocus();
    url->end(false);
    QTest::keyClicks(url, "api.example.com/new");
    QVERIFY2(dialog->problem().isEmpty(), qPrintable(dialog->problem()));

    QTest::mouseClick(field<QPushButton>(*dialog, "duplicateButton"), Qt::LeftButton);
    QCOMPARE(dialog->endpointsModel()->rowCount(), 4);
    QCOMPARE(dialog->document().endpoints().at(3).value("id").toString(), "endpoint-copy");
    QCOMPARE(field<QLineEdit>(*dialog, "endpoint:id")->text(), "endpoint-copy");
    QVERIFY(dialog->problem().isEmpty());

    // Giving the copy the id of another endpoint is refused at the copy's id.
    retype(field<QLineEdit>(*dialog, "endpoint:id"), "report");
    QCOMPARE(dialog->problemPath(), "endpoints[3].id");
    QVERIFY(dialog->problem().contains("duplicate id 'report'"));

    QTest::mouseClick(field<QPushButton>(*dialog, "removeButton"), Qt::LeftButton);
    QCOMPARE(dialog->endpointsModel()->rowCount(), 3);
    QVERIFY(dialog->problem().isEmpty());
    QCOMPARE(field<QLineEdit>(*dialog, "endpoint:id")->text(), "endpoint");

    dialog->selectItem(EndpointsDialog::Page::Policies, 0);
    QTest::mouseClick(field<QPushButton>(*dialog, "addButton"), Qt::LeftButton);
    QCOMPARE(dialog->policiesModel()->rowCount(), 2);
    QCOMPARE(dialog->document().policies().at(1).value("policy_id").toString(), "policy");
    QVERIFY(dialog->problem().isEmpty());
    // The new policy is offered to endpoints.
    auto *policy = field<QComboBox>(*dialog, "endpoint:policy");
    QVERIFY(policy->findText("policy") >= 0);
}

void tst_EndpointsDialog::removingAUsedPolicyPointsAtTheEndpoint()
{
    auto dialog = openDialog(m_path);
    QVERIFY(dialog);
    dialog->selectItem(EndpointsDialog::Page::Policies, 0);
    QTest::mouseClick(field<QPushButton>(*dialog, "removeButton"), Qt::LeftButton);
    QCOMPARE(dialog->policiesModel()->rowCount(), 0);
    QCOMPARE(dialog->problemPath(), "endpoints[0].policy");
    QVERIFY(!dialog->saveButton()->isEnabled());
    auto *problem = field<QLabel>(*dialog, "problemLabel");
    QVERIFY(problem->text().contains("href"));

    // "Show" goes to the endpoint and marks its policy.
    emit problem->linkActivated("#problem");
    QCOMPARE(dialog->currentPage(), EndpointsDialog::Page::Endpoints);
    auto *policy = field<QComboBox>(*dialog, "endpoint:policy");
    QCOMPARE(policy->currentText(), "read-v1");
    QVERIFY(policy->property("invalid").toBool());
    policy->setEditText(QString());
    QVERIFY2(dialog->problem().isEmpty(), qPrintable(dialog->problem()));
    QVERIFY(!dialog->document().endpoints().first().contains("policy"));
}

void tst_EndpointsDialog::demoIsSavedAs()
{
    auto dialog = openDialog();
    QVERIFY(dialog);
    QCOMPARE(dialog->saveButton()->text(), "Save &as…");
    QVERIFY(field<QLabel>(*dialog, "noteLabel")->text().contains("cooldown --config"));

    int asked = 0;
    dialog->setFileChooser([&asked] {
        ++asked;
        return QString();
    });
    QVERIFY(!dialog->save()); // cancelled
    QCOMPARE(asked, 1);

    const QString copy = m_dir->filePath("copy.json");
    dialog->setFileChooser([&copy] { return copy; });
    QVERIFY(dialog->save());
    QCOMPARE(dialog->filePath(), copy);
    QCOMPARE(dialog->saveButton()->text(), "&Save");
    QString error;
    const auto config = WorkspaceConfig::parse(readAll(copy), copy, &error, {}, kEnv);
    QVERIFY2(config, qPrintable(error));
    QCOMPARE(config->endpoints.size(), 2);
}

void tst_EndpointsDialog::driftRowsAppear()
{
    auto dialog = openDialog(m_path);
    QVERIFY(dialog);
    auto *noDrift = field<QLabel>(*dialog, "noDriftLabel");
    dialog->showPage(EndpointsDialog::Page::Drift);
    QVERIFY(noDrift->isVisible());

    dialog->setDrifts({drift("read-v1", "p1", 120, 50), drift("read-v1", "p2", 120, 120),
                       drift("other", "", 10, 20)},
                      2000);
    DriftModel *model = dialog->driftModel();
    QCOMPARE(model->rowCount(), 2); // the comparison that matched is no drift
    QVERIFY(!noDrift->isVisible());
    QCOMPARE(model->index(0, DriftModel::PolicyColumn).data().toString(), "other");
    QCOMPARE(model->index(1, DriftModel::PolicyColumn).data().toString(), "read-v1");
    QCOMPARE(model->index(1, DriftModel::PartitionKeyColumn).data().toString(), "p1");
    QCOMPARE(model->index(1, DriftModel::ConfiguredColumn).data().toString(), "120 per 60 s");
    QCOMPARE(model->index(1, DriftModel::AdvertisedColumn).data().toString(), "50 per 60 s");
    QCOMPARE(model->index(1, DriftModel::DifferencesColumn).data().toString(),
             "quota: server 50, configured 120");
    QVERIFY(model->index(1, 0).data(DriftModel::ServerIsStricterRole).toBool());
    QVERIFY(!model->index(0, 0).data(DriftModel::ServerIsStricterRole).toBool());
    QCOMPARE(dialog->policiesModel()->index(0, WorkspaceItemsModel::DriftColumn).data().toString(),
             "differs for 1 partition(s), server stricter");

    // Selecting a drift row opens its policy in the form.
    auto *table = dialog->findChild<QTableView *>("driftTable");
    table->setCurrentIndex(model->index(1, 0));
    QCOMPARE(field<QLineEdit>(*dialog, "policy:policy_id")->text(), "read-v1");
    QCOMPARE(dialog->currentPage(), EndpointsDialog::Page::Drift);

    dialog->setDrifts({}, 3000);
    QCOMPARE(model->rowCount(), 0);
    QVERIFY(noDrift->isVisible());
    QVERIFY(dialog->policiesModel()
                ->index(0, WorkspaceItemsModel::DriftColumn)
                .data()
                .toString()
                .isEmpty());
}

void tst_EndpointsDialog::closingAsksBeforeDroppingChanges()
{
    auto dialog = openDialog(m_path);
    QVERIFY(dialog);
    QStringList asked;
    bool discard = false;
    dialog->setConfirmation([&](const QString &question, const QString &action) {
        asked.append(question);
        return action == "Discard" && discard;
    });
    dialog->reject(); // nothing changed: closes without asking
    QVERIFY(asked.isEmpty());
    QVERIFY(!dialog->isVisible());

    dialog->show();
    retype(field<QLineEdit>(*dialog, "endpoint:name"), "Renamed");
    dialog->reject();
    QCOMPARE(asked.size(), 1);
    QVERIFY(dialog->isVisible());
    discard = true;
    dialog->reject();
    QVERIFY(!dialog->isVisible());
    QCOMPARE(readAll(m_path), kWorkspace);
}

void tst_EndpointsDialog::saveAsksBeforeReplacingChangesOnDisk()
{
    auto dialog = openDialog(m_path);
    QVERIFY(dialog);
    QStringList asked;
    bool overwrite = false;
    dialog->setConfirmation([&](const QString &question, const QString &action) {
        asked.append(question);
        return action == "Overwrite" && overwrite;
    });
    // Saving what this dialog read and wrote asks nothing.
    retype(field<QLineEdit>(*dialog, "endpoint:name"), "First");
    QVERIFY(dialog->save());
    QVERIFY(asked.isEmpty());

    // Another program writes the file; Save asks, and No leaves its bytes alone.
    const QByteArray theirs = readAll(m_path).replace("First", "Theirs");
    {
        QFile file(m_path);
        QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
        file.write(theirs);
    }
    retype(field<QLineEdit>(*dialog, "endpoint:name"), "Mine");
    QVERIFY(!dialog->save());
    QCOMPARE(asked.size(), 1);
    QVERIFY2(asked.first().contains("changed by another program"), qPrintable(asked.first()));
    QCOMPARE(readAll(m_path), theirs);
    QVERIFY(dialog->isModified());

    // Yes writes this dialog's document, and the next Save asks nothing again.
    overwrite = true;
    QVERIFY(dialog->save());
    QVERIFY(readAll(m_path).contains("\"Mine\""));
    retype(field<QLineEdit>(*dialog, "endpoint:name"), "Again");
    QVERIFY(dialog->save());
    QCOMPARE(asked.size(), 2);
}

// What a row says comes from the file's text: a tls entry's files and whether it checks
// host names, a credential's token URL or header, a proxy without its password.
void tst_EndpointsDialog::credentialsModelReadsTheFileAsWritten()
{
    CredentialsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QJsonObject root =
        QJsonDocument::fromJson(credentialWorkspace("https://idp.example/token")).object();
    root.insert("tls", QJsonArray{QJsonObject{{"id", "corp"},
                                              {"ca_file", "/etc/corp/ca.pem"},
                                              {"client_certificate", "certs/me.pem"},
                                              {"client_key", "certs/me.key"}},
                                  QJsonObject{{"id", "lab"}, {"verify_hostname", false}}});
    model.setDocument(root);
    QCOMPARE(model.rowCount(), 6);
    const auto cell = [&model](int row, int column) {
        return model.index(row, column).data().toString();
    };
    QCOMPARE(cell(0, CredentialsModel::IdColumn), "plm");
    QCOMPARE(cell(0, CredentialsModel::TypeColumn), "oauth2_client_credentials");
    QCOMPARE(cell(0, CredentialsModel::SummaryColumn), "https://idp.example/token");
    QCOMPARE(cell(1, CredentialsModel::SummaryColumn), "Authorization");
    QCOMPARE(cell(2, CredentialsModel::SummaryColumn), "X-Api-Key");
    QCOMPARE(cell(3, CredentialsModel::IdColumn), "corp");
    QCOMPARE(cell(3, CredentialsModel::TypeColumn), "tls");
    QCOMPARE(cell(3, CredentialsModel::SummaryColumn), "ca.pem, me.pem, me.key");
    QCOMPARE(cell(4, CredentialsModel::SummaryColumn), "host names not checked");
    QCOMPARE(cell(5, CredentialsModel::TypeColumn), "proxy");
    QCOMPARE(cell(5, CredentialsModel::SummaryColumn), "http://alice@127.0.0.1:3128");
    QCOMPARE(model.index(5, 0).data(CredentialsModel::KindRole).toInt(),
             int(CredentialsModel::Kind::Proxy));
    QCOMPARE(CredentialsModel::variablesIn(root.value("credentials")),
             QStringList({"UI_PLM_SECRET", "UI_TEST_TOKEN"}));
    QCOMPARE(CredentialsModel::proxyText(root.value("endpoints")[1].toObject().value("proxy")),
             "http://127.0.0.1:3129 (not for: localhost)");

    // A problem's path marks its row; the same rows again change in place.
    model.setProblem("tls[1].verify_hostname", "expected true or false");
    QCOMPARE(model.index(4, 0).data(CredentialsModel::ProblemRole).toString(),
             "expected true or false");
    QCOMPARE(model.rowOfPath("credentials[2]"), 2);
    QCOMPARE(model.rowOfPath("endpoints[0].proxy"), -1);
    QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
    root.insert("proxy", "system");
    model.setDocument(root);
    QCOMPARE(resets.count(), 0);
    QCOMPARE(cell(5, CredentialsModel::SummaryColumn), "system");
    root.remove("proxy");
    model.setDocument(root);
    QCOMPARE(resets.count(), 1);
    QCOMPARE(model.rowCount(), 5);
}

// The page lists every credential, tls entry and the proxy with what it reads from the
// environment, by name; the values are nowhere in the dialog.
void tst_EndpointsDialog::credentialsPageListsWithoutSecrets()
{
    QFile file(m_path);
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    file.write(credentialWorkspace("https://idp.example/oauth2/token"));
    file.close();
    QString error;
    auto document = WorkspaceDocument::load(m_path, &error);
    QVERIFY2(document, qPrintable(error));
    EndpointsDialog dialog(std::move(*document), m_path);
    QAbstractItemModelTester tester(dialog.credentialsModel(),
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
    dialog.setResolution({}, kCredentialEnv);
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    QVERIFY2(dialog.problem().isEmpty(), qPrintable(dialog.problem()));

    dialog.showPage(EndpointsDialog::Page::Credentials);
    QCOMPARE(dialog.currentPage(), EndpointsDialog::Page::Credentials);
    QCOMPARE(dialog.credentialsModel()->rowCount(), 5);
    auto *add = field<QPushButton>(dialog, "addButton");
    QVERIFY(add && !add->isEnabled());
    const QStringList ids = {"plm", "static", "key", "lab", "proxy"};
    QStringList shown;
    QStringList usedBy;
    for (int row = 0; row < ids.size(); ++row) {
        QCOMPARE(dialog.credentialsModel()->index(row, 0).data().toString(), ids.at(row));
        dialog.selectItem(EndpointsDialog::Page::Credentials, row);
        const QStringList texts = textsOf(&dialog);
        const QString leak = secretIn(texts);
        QVERIFY2(leak.isEmpty(), qPrintable(ids.at(row) + ": " + leak));
        shown << ids.at(row) + ": " + texts.join('|');
        usedBy << detail(&dialog, "Used by:");
    }
    const auto rowShows = [&shown](int row, const QString &text) {
        return shown.at(row).contains(text);
    };
    QVERIFY2(rowShows(0, "UI_PLM_SECRET (set)"), qPrintable(shown.at(0)));
    QVERIFY(rowShows(0, "https://idp.example/oauth2/token"));
    QVERIFY(rowShows(0, "client_secret_basic (the default)"));
    QVERIFY(rowShows(0, "a b"));
    QVERIFY(rowShows(0, "TLS: lab; proxy: none"));
    QCOMPARE(usedBy, QStringList({"bom", "parts", "nothing yet", "bom", "bom"}));
    QVERIFY(rowShows(1, "UI_TEST_TOKEN (set)"));
    QVERIFY(rowShows(2, "X-Api-Key"));
    QVERIFY(rowShows(2, "nothing yet"));
    QVERIFY2(rowShows(3, "not checked (verify_hostname: false)"), qPrintable(shown.at(3)));
    QVERIFY(rowShows(4, "http://alice@127.0.0.1:3128"));
    QVERIFY(rowShows(4, "UI_PROXY_PASS (set)"));
    // Only an OAuth credential has a token to fetch.
    dialog.selectItem(EndpointsDialog::Page::Credentials, 1);
    QVERIFY(dialog.testButton()->isHidden());
    dialog.selectItem(EndpointsDialog::Page::Credentials, 0);
    QVERIFY(!dialog.testButton()->isHidden());

    // A variable that is not set is named as such, and its row shows the problem.
    dialog.setResolution({}, QHash<QString, QString>{{"UI_TEST_TOKEN", "BEARER-SECRET-456"},
                                                     {"UI_PROXY_PASS", "PROXY-PASS-789"}});
    QVERIFY(dialog.problemPath().startsWith("credentials[0].client_secret"));
    QVERIFY2(dialog.problem().contains("UI_PLM_SECRET"), qPrintable(dialog.problem()));
    QVERIFY(!dialog.credentialsModel()->index(0, 0).data(CredentialsModel::ProblemRole).isNull());
    dialog.selectItem(EndpointsDialog::Page::Credentials, 0);
    QVERIFY(textsOf(&dialog).join('|').contains("UI_PLM_SECRET (not set)"));
}

// Test asks the token endpoint for a token as the engine would and shows its expiry and
// scope; never the token. A refusal shows the token endpoint's error.
void tst_EndpointsDialog::testFetchesATokenAndShowsNoToken()
{
    ScriptedHttpServer server;
    QVERIFY(server.isListening());
    const QList<QPair<QByteArray, QByteArray>> json = {{"Content-Type", "application/json"}};
    server.script(
        "/token",
        {{200, json, R"({"access_token":"SECRET-TOKEN","expires_in":3600,"scope":"a b"})"},
         {401, json,
          R"({"error":"invalid_client","error_description":"Client authentication failed"})"}});
    QFile file(m_path);
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    file.write(credentialWorkspace(server.url("/token")));
    file.close();
    QString error;
    auto document = WorkspaceDocument::load(m_path, &error);
    QVERIFY2(document, qPrintable(error));
    EndpointsDialog dialog(std::move(*document), m_path);
    dialog.setResolution({}, kCredentialEnv);
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    dialog.selectItem(EndpointsDialog::Page::Credentials, 0);

    QSignalSpy tested(&dialog, &EndpointsDialog::credentialTested);
    const qint64 before = QDateTime::currentMSecsSinceEpoch();
    QTest::mouseClick(dialog.testButton(), Qt::LeftButton);
    QVERIFY(tested.wait(20000));
    QCOMPARE(tested.first().at(0).toString(), "plm");
    QVERIFY(tested.first().at(1).toBool());
    QString result = dialog.testResult();
    QVERIFY2(result.contains("(expires in 3600 s), scope a b."), qPrintable(result));
    const QRegularExpressionMatch until =
        QRegularExpression("^Token valid until (\\d\\d:\\d\\d:\\d\\d) ").match(result);
    QVERIFY2(until.hasMatch(), qPrintable(result));
    const QStringList expected = {
        QDateTime::fromMSecsSinceEpoch(before + 3600000).toString("HH:mm:ss"),
        QDateTime::fromMSecsSinceEpoch(QDateTime::currentMSecsSinceEpoch() + 3600000)
            .toString("HH:mm:ss")};
    QVERIFY2(expected.contains(until.captured(1)), qPrintable(result));
    QVERIFY(dialog.testButton()->isEnabled());
    QString leak = secretIn(textsOf(&dialog));
    QVERIFY2(leak.isEmpty(), qPrintable(leak));

    // The request was the engine's: a client credentials grant with the scope, the
    // client authenticated by HTTP Basic.
    QCOMPARE(server.received.size(), 1);
    const ReceivedRequest &request = server.received.first();
    QCOMPARE(request.method, "POST");
    QVERIFY(request.body.contains("grant_type=client_credentials"));
    QVERIFY(request.body.contains("scope=a%20b"));
    QCOMPARE(request.header("Authorization"),
             "Basic " + QByteArray("cooldown:PLM-SECRET-VALUE-123").toBase64());

    // The second answer refuses the client.
    tested.clear();
    QTest::mouseClick(dialog.testButton(), Qt::LeftButton);
    QVERIFY(tested.wait(20000));
    QVERIFY(!tested.first().at(1).toBool());
    result = dialog.testResult();
    QCOMPARE(result, "No token: the token endpoint answered HTTP 401: invalid_client: Client "
                     "authentication failed");
    leak = secretIn(textsOf(&dialog));
    QVERIFY2(leak.isEmpty(), qPrintable(leak));
}

// An endpoint's form names its credential, tls entry and proxy from those of the file,
// and a proxy given as an object is kept as it is while other fields are edited.
void tst_EndpointsDialog::endpointFormNamesCredentialsTlsAndProxy()
{
    QFile file(m_path);
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    file.write(credentialWorkspace("https://idp.example/oauth2/token"));
    file.close();
    QString error;
    auto document = WorkspaceDocument::load(m_path, &error);
    QVERIFY2(document, qPrintable(error));
    EndpointsDialog dialog(std::move(*document), m_path);
    dialog.setResolution({}, kCredentialEnv);
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));

    dialog.selectItem(EndpointsDialog::Page::Endpoints, 0);
    auto *credentials = field<QComboBox>(dialog, "endpoint:credentials");
    auto *tls = field<QComboBox>(dialog, "endpoint:tls");
    auto *proxy = field<QComboBox>(dialog, "endpoint:proxy");
    QVERIFY(credentials && tls && proxy);
    QCOMPARE(credentials->currentText(), "plm");
    QCOMPARE(tls->currentText(), "lab");
    QCOMPARE(proxy->currentText(), "");
    QStringList choices;
    for (int i = 0; i < credentials->count(); ++i)
        choices << credentials->itemText(i);
    QCOMPARE(choices, QStringList({"plm", "static", "key"}));

    credentials->setEditText("nobody");
    QCOMPARE(dialog.problemPath(), "endpoints[0].credentials");
    QVERIFY(!dialog.saveButton()->isEnabled());
    credentials->setEditText("static");
    QVERIFY2(dialog.problem().isEmpty(), qPrintable(dialog.problem()));
    QCOMPARE(dialog.document().endpoints().at(0).value("credentials").toString(), "static");
    proxy->setEditText("system");
    QCOMPARE(dialog.document().endpoints().at(0).value("proxy").toString(), "system");

    dialog.selectItem(EndpointsDialog::Page::Endpoints, 1);
    auto *name = field<QLineEdit>(dialog, "endpoint:name");
    QVERIFY(name);
    retype(name, "Parts");
    const QJsonObject parts = dialog.document().endpoints().at(1);
    QCOMPARE(parts.value("name").toString(), "Parts");
    QVERIFY(parts.value("proxy").isObject());
    QCOMPARE(parts.value("proxy").toObject().value("url").toString(), "http://127.0.0.1:3129");
    QVERIFY2(dialog.problem().isEmpty(), qPrintable(dialog.problem()));
}

QTEST_MAIN(tst_EndpointsDialog)
#include "tst_endpointsdialog.moc"
