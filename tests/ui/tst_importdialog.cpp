// SPDX-License-Identifier: Apache-2.0
#include "ui/ImportDialog.h"

#include "core/import/ApiDocument.h"

#include <QComboBox>
#include <QFile>
#include <QHostAddress>
#include <QPlainTextEdit>
#include <QProcessEnvironment>
#include <QPushButton>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>
#include <QTranslator>

using namespace cooldown;

// COOLDOWN_IMPORT_SCREENSHOT=FILE.png also saves a picture of the dialog with its
// preview to look at, in Japanese with COOLDOWN_IMPORT_SCREENSHOT_QM=cooldown_ja.qm.

// File > Import endpoints… driven as a user would: a source pasted, the preview, Import
// writing the workspace only when the preview says it loads, and nothing changed before.
class tst_ImportDialog : public QObject
{
    Q_OBJECT

private:
    static QByteArray read(const QString &path)
    {
        QFile file(path);
        return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
    }

    QTemporaryDir m_dir;

private slots:
    void openApiPreviewThenImport();
    void curlSecretsStayOut();
    void unreadableSourceImportsNothing();
    void postmanWithEnvironment();
    void openApiFromLoopbackUrl();
};

void tst_ImportDialog::openApiPreviewThenImport()
{
    const QString ws = m_dir.filePath(QStringLiteral("ws.json"));
    const QByteArray hand = "{\n  \"version\": 1,\n  \"endpoints\": [\n    { \"id\": "
                            "\"list-invoices\", \"url\": \"https://hand.example.com/\" }\n  ]\n}\n";
    QFile out(ws);
    QVERIFY(out.open(QIODevice::WriteOnly) && out.write(hand) == hand.size());
    out.close();

    const QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    QTranslator translator;
    if (env.contains(QStringLiteral("COOLDOWN_IMPORT_SCREENSHOT_QM"))) {
        QVERIFY(translator.load(env.value(QStringLiteral("COOLDOWN_IMPORT_SCREENSHOT_QM"))));
        QCoreApplication::installTranslator(&translator);
    }
    ImportDialog dialog(ws);
    auto *kind = dialog.findChild<QComboBox *>(QStringLiteral("importKind"));
    auto *source = dialog.findChild<QPlainTextEdit *>(QStringLiteral("importSource"));
    auto *previewButton = dialog.findChild<QPushButton *>(QStringLiteral("importPreviewButton"));
    auto *importButton = dialog.findChild<QPushButton *>(QStringLiteral("importApplyButton"));
    QVERIFY(kind && source && previewButton && importButton);
    QVERIFY(!importButton->isEnabled()); // nothing previewed yet

    kind->setCurrentIndex(int(ImportDialog::Kind::OpenApi));
    source->setPlainText(
        QString::fromUtf8(read(QStringLiteral(COOLDOWN_TEST_DATA "/openapi/billing.json"))));
    QTest::mouseClick(previewButton, Qt::LeftButton);
    const QString picture = env.value(QStringLiteral("COOLDOWN_IMPORT_SCREENSHOT"));
    if (!picture.isEmpty()) {
        dialog.show();
        QTest::qWait(50); // a frame for the layout (not for time to pass)
        QVERIFY(dialog.grab().save(picture));
    }
    const QString text = dialog.previewText();
    QVERIFY2(text.contains(QStringLiteral(
                 "add create-invoice: POST https://api.billing.example.com/v1/invoices")),
             qPrintable(text));
    // The hand-written endpoint keeps its id; the imported one takes another.
    QVERIFY2(text.contains(QStringLiteral("add list-invoices-2: GET")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral(
                 "left as they are: 1 endpoint(s) this source did not make: list-invoices\n")),
             qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("export BILLING_OAUTH_CLIENT_SECRET=")),
             qPrintable(text));
    QVERIFY(importButton->isEnabled());
    QCOMPARE(read(ws), hand); // a preview writes nothing

    // An edit after the preview: Import waits for the next one. With the variables it
    // names set by then, the workspace is handed on to run.
    source->appendPlainText(QStringLiteral(" "));
    QVERIFY(!importButton->isEnabled());
    qputenv("BILLING_OAUTH_CLIENT_ID", "billing-client");
    qputenv("BILLING_OAUTH_CLIENT_SECRET", "from-the-environment");
    QTest::mouseClick(previewButton, Qt::LeftButton);
    qunsetenv("BILLING_OAUTH_CLIENT_ID");
    qunsetenv("BILLING_OAUTH_CLIENT_SECRET");

    QSignalSpy saved(&dialog, &ImportDialog::saved);
    QTest::mouseClick(importButton, Qt::LeftButton);
    QCOMPARE(saved.count(), 1);
    QCOMPARE(saved.at(0).at(0).toString(), ws);
    QCOMPARE(dialog.result(), int(QDialog::Accepted));
    const QByteArray written = read(ws);
    QVERIFY(written.contains("\"imported_from\": \"openapi:Billing#createInvoice\""));
    QVERIFY(written.contains("https://hand.example.com/"));
}

void tst_ImportDialog::curlSecretsStayOut()
{
    const QString ws = m_dir.filePath(QStringLiteral("curl.json"));
    ImportDialog dialog(ws);
    dialog.setKind(ImportDialog::Kind::Curl);
    dialog.setSource(QStringLiteral("curl https://api.example.com/v1/orders -H 'Authorization: "
                                    "Bearer sk_live_dialog_1'"));
    QVERIFY(dialog.preview());
    QVERIFY2(dialog.previewText().contains(QStringLiteral("export GET_ORDERS_TOKEN=")),
             qPrintable(dialog.previewText()));
    QSignalSpy saved(&dialog, &ImportDialog::saved);
    QSignalSpy savedWithout(&dialog, &ImportDialog::savedWithoutVariables);
    auto *importButton = dialog.findChild<QPushButton *>(QStringLiteral("importApplyButton"));
    QTest::mouseClick(importButton, Qt::LeftButton);
    const QByteArray written = read(ws);
    QVERIFY(written.contains("${env:GET_ORDERS_TOKEN}"));
    QVERIFY(!written.contains("sk_live_dialog_1"));
    // GET_ORDERS_TOKEN is not set here: written, not handed on to run, and the dialog
    // stays open saying what to set.
    QCOMPARE(saved.count(), 0);
    QCOMPARE(savedWithout.count(), 1);
    QCOMPARE(savedWithout.at(0).at(0).toString(), ws);
    QVERIFY2(dialog.previewText().contains(QStringLiteral("export GET_ORDERS_TOKEN=…")),
             qPrintable(dialog.previewText()));
    QVERIFY2(dialog.previewText().contains(QStringLiteral("start Cooldown again")),
             qPrintable(dialog.previewText()));
    QVERIFY(!importButton->isEnabled());
    QVERIFY(dialog.result() != int(QDialog::Accepted));
}

void tst_ImportDialog::unreadableSourceImportsNothing()
{
    const QString ws = m_dir.filePath(QStringLiteral("none.json"));
    ImportDialog dialog(ws);
    dialog.setKind(ImportDialog::Kind::OpenApi);
    dialog.setSource(QString::fromUtf8(
        read(QStringLiteral(COOLDOWN_TEST_DATA "/openapi/errors/bad-indent.yaml"))));
    QVERIFY(!dialog.preview());
    QCOMPARE(dialog.previewText(), QStringLiteral("source: line 10: end of map flow not found"));
    QVERIFY(!dialog.findChild<QPushButton *>(QStringLiteral("importApplyButton"))->isEnabled());
    QVERIFY(!QFile::exists(ws));
}

void tst_ImportDialog::postmanWithEnvironment()
{
    const QString ws = m_dir.filePath(QStringLiteral("shop.json"));
    ImportDialog dialog(ws);
    dialog.setKind(ImportDialog::Kind::Postman);
    dialog.setSource(QString::fromUtf8(
        read(QStringLiteral(COOLDOWN_TEST_DATA "/postman/shop.postman_collection.json"))));
    QString error;
    const auto environment = readApiDocument(
        read(QStringLiteral(COOLDOWN_TEST_DATA "/postman/shop.postman_environment.json")),
        QStringLiteral("env"), &error);
    QVERIFY2(environment, qPrintable(error));
    dialog.setEnvironment(*environment, QStringLiteral("shop.postman_environment.json"));
    QVERIFY2(dialog.preview(), qPrintable(dialog.previewText()));
    QVERIFY(dialog.previewText().contains(
        QStringLiteral("add ping: GET https://staging.shop.example.com/v3/ping")));
    QVERIFY(!dialog.previewText().contains(QStringLiteral("staging-token-7f3a")));
}

// A URL on this machine: fetched in the background, the preview when it has come, its
// relative server taken from where the document was.
void tst_ImportDialog::openApiFromLoopbackUrl()
{
    QTcpServer server;
    QVERIFY(server.listen(QHostAddress::LocalHost, 0));
    const QByteArray body =
        read(QStringLiteral(COOLDOWN_TEST_DATA "/openapi/basic-and-unsupported.yaml"));
    int requests = 0;
    connect(&server, &QTcpServer::newConnection, this, [&] {
        QTcpSocket *socket = server.nextPendingConnection();
        connect(socket, &QTcpSocket::readyRead, socket, [&, socket] {
            socket->readAll();
            ++requests;
            socket->write("HTTP/1.1 200 OK\r\nContent-Length: " + QByteArray::number(body.size()) +
                          "\r\nConnection: close\r\n\r\n" + body);
            socket->disconnectFromHost();
        });
    });
    const QString base = QStringLiteral("http://127.0.0.1:%1").arg(server.serverPort());
    ImportDialog dialog(m_dir.filePath(QStringLiteral("erp.json")));
    dialog.setKind(ImportDialog::Kind::OpenApi);
    dialog.setSource(base + QStringLiteral("/specs/erp.yaml"));
    QVERIFY(!dialog.preview()); // fetching
    QVERIFY(dialog.previewText().startsWith(QStringLiteral("Fetching ")));
    auto *importButton = dialog.findChild<QPushButton *>(QStringLiteral("importApplyButton"));
    QTRY_VERIFY_WITH_TIMEOUT(importButton->isEnabled(), 10000);
    QVERIFY2(dialog.previewText().contains(base + QStringLiteral("/erp/api/orders")),
             qPrintable(dialog.previewText()));
    // Previewed again without a change: from what was fetched.
    QVERIFY(dialog.preview());
    QCOMPARE(requests, 1);
}

QTEST_MAIN(tst_ImportDialog)
#include "tst_importdialog.moc"
