// SPDX-License-Identifier: Apache-2.0
// JsonForm: the widgets of a form bound to the members of one JSON object.

#include "ui/JsonForm.h"

#include <QComboBox>
#include <QJsonDocument>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QTest>

using namespace cooldown;

namespace {

QJsonObject object(const char *json)
{
    return QJsonDocument::fromJson(json).object();
}

} // namespace

class JsonFormTest : public QObject
{
    Q_OBJECT

private slots:
    void init()
    {
        m_form = std::make_unique<JsonForm>(QStringLiteral("endpoint"));
        m_url = new QLineEdit(&m_parent);
        m_every = new QLineEdit(&m_parent);
        m_idempotency = new QLineEdit(&m_parent);
        m_headers = new QPlainTextEdit(&m_parent);
        m_retry = new QComboBox(&m_parent);
        m_retry->setEditable(true);
        QCOMPARE(m_form->add(QStringLiteral("url"), JsonForm::Kind::Text, m_url), m_url);
        m_form->add(QStringLiteral("every_seconds"), JsonForm::Kind::Number, m_every);
        m_form->add(QStringLiteral("idempotency"), JsonForm::Kind::Header, m_idempotency);
        m_form->add(QStringLiteral("headers"), JsonForm::Kind::Headers, m_headers);
        m_form->add(QStringLiteral("retry"), JsonForm::Kind::Text, m_retry);
    }
    void cleanup()
    {
        m_form.reset();
        qDeleteAll(m_parent.findChildren<QWidget *>(QString(), Qt::FindDirectChildrenOnly));
    }

    void widgetsAreNamedAndFound()
    {
        QCOMPARE(m_url->objectName(), QStringLiteral("endpoint:url"));
        QCOMPARE(m_form->widget(QStringLiteral("headers")), m_headers);
        QCOMPARE(m_form->widget(QStringLiteral("nothing")), nullptr);
    }

    void loadShowsEachKindAndIsNoEdit()
    {
        QSignalSpy edited(m_form.get(), &JsonForm::edited);
        // Escaped rather than raw: moc reads a raw string's "//" as a comment.
        m_form->load(object("{\"url\": \"https://a.example/x\", \"every_seconds\": 30,"
                            " \"idempotency\": {\"header\": \"Idempotency-Key\","
                            " \"key_valid_seconds\": 86400}, \"headers\": {\"Accept\":"
                            " \"application/json\", \"X-Trace\": \"on\"},"
                            " \"retry\": \"gentle\"}"));
        QCOMPARE(edited.count(), 0);
        QCOMPARE(m_url->text(), QStringLiteral("https://a.example/x"));
        QCOMPARE(m_every->text(), QStringLiteral("30"));
        QCOMPARE(m_idempotency->text(), QStringLiteral("Idempotency-Key"));
        QCOMPARE(m_headers->toPlainText(), QStringLiteral("Accept: application/json\nX-Trace: on"));
        QCOMPARE(m_retry->currentText(), QStringLiteral("gentle"));

        m_url->setText(QStringLiteral("https://b.example/"));
        QCOMPARE(edited.count(), 1);
    }

    void readKeepsWhatTheFormDoesNotShow()
    {
        const QJsonObject item = object(R"({"id": "e1", "every_seconds": 2.5,
            "idempotency": {"header": "Idempotency-Key", "key_valid_seconds": 86400}})");
        m_form->load(item);
        QCOMPARE(m_every->text(), QStringLiteral("2.5"));
        m_idempotency->setText(QStringLiteral("X-Request-Id"));
        QString problem;
        QString key;
        const QJsonObject read = m_form->read(item, &problem, &key);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        QCOMPARE(read.value(QStringLiteral("id")).toString(), QStringLiteral("e1"));
        QCOMPARE(read.value(QStringLiteral("every_seconds")).toDouble(), 2.5);
        const QJsonObject idempotency = read.value(QStringLiteral("idempotency")).toObject();
        QCOMPARE(idempotency.value(QStringLiteral("header")).toString(),
                 QStringLiteral("X-Request-Id"));
        QCOMPARE(idempotency.value(QStringLiteral("key_valid_seconds")).toInt(), 86400);
        // Empty fields are members left out, not empty strings.
        QVERIFY(!read.contains(QStringLiteral("url")));
        QVERIFY(!read.contains(QStringLiteral("headers")));
    }

    void textThatIsNoNumberStaysForTheCheckToName()
    {
        m_every->setText(QStringLiteral(" soon "));
        QString problem;
        QString key;
        const QJsonObject read = m_form->read({}, &problem, &key);
        QVERIFY(problem.isEmpty());
        QCOMPARE(read.value(QStringLiteral("every_seconds")), QJsonValue(QStringLiteral("soon")));
    }

    void headerLinesAreCheckedAndKept()
    {
        m_headers->setPlainText(QStringLiteral("Accept: text/csv\n\nno colon here\nAccept: again"));
        QString problem;
        QString key;
        const QJsonObject read = m_form->read({}, &problem, &key);
        QCOMPARE(problem, QStringLiteral("line 3: expected 'Name: value'"));
        QCOMPARE(key, QStringLiteral("headers"));
        // What was typed is kept, so that nothing the operator wrote is lost.
        const QJsonObject headers = read.value(QStringLiteral("headers")).toObject();
        QCOMPARE(headers.value(QStringLiteral("no colon here")), QJsonValue(QJsonValue::Null));
        QCOMPARE(headers.value(QStringLiteral("Accept")).toString(), QStringLiteral("again"));

        m_headers->setPlainText(QStringLiteral("Accept: text/csv\nAccept: again"));
        problem.clear();
        key.clear();
        m_form->read({}, &problem, &key);
        QCOMPARE(problem, QStringLiteral("line 2: Accept is already given"));
    }

    void markSetsOneFieldAndClearsTheOthers()
    {
        m_form->mark(QStringLiteral("url"), QStringLiteral("expected http or https"));
        QVERIFY(m_url->property("invalid").toBool());
        QCOMPARE(m_url->toolTip(), QStringLiteral("expected http or https"));
        QVERIFY(!m_every->property("invalid").toBool());
        m_form->mark(QStringLiteral("every_seconds"), QStringLiteral("expected a number"));
        QVERIFY(!m_url->property("invalid").toBool());
        QVERIFY(m_url->toolTip().isEmpty());
        QVERIFY(m_every->property("invalid").toBool());
        m_form->mark(QString(), QStringLiteral("ignored"));
        QVERIFY(!m_every->property("invalid").toBool());
    }

    // A member the form shows as text but the file holds otherwise (a proxy given as an
    // object) is written back as it was, unless the text is changed.
    void textOfAnObjectIsKeptAsTheObject()
    {
        QJsonObject proxy{{QStringLiteral("url"), QStringLiteral("http://127.0.0.1:3129")}};
        const QJsonObject item{{QStringLiteral("url"), proxy}};
        m_form->load(item);
        QCOMPARE(m_url->text(), QStringLiteral("{\"url\":\"http://127.0.0.1:3129\"}"));
        QString problem;
        QString key;
        QCOMPARE(m_form->read(item, &problem, &key).value(QStringLiteral("url")),
                 QJsonValue(proxy));
        m_url->setText(QStringLiteral("system"));
        QCOMPARE(m_form->read(item, &problem, &key).value(QStringLiteral("url")),
                 QJsonValue(QStringLiteral("system")));
    }

    void choicesKeepTheTextAndAreNoEdit()
    {
        QSignalSpy edited(m_form.get(), &JsonForm::edited);
        m_retry->setEditText(QStringLiteral("gentle"));
        QCOMPARE(edited.count(), 1);
        m_form->setChoices(QStringLiteral("retry"),
                           {QStringLiteral("default"), QStringLiteral("gentle")});
        QCOMPARE(edited.count(), 1);
        QCOMPARE(m_retry->count(), 2);
        QCOMPARE(m_retry->currentText(), QStringLiteral("gentle"));
        // A member without a combo box is left alone.
        m_form->setChoices(QStringLiteral("url"), {QStringLiteral("x")});
        QCOMPARE(m_url->text(), QString());
    }

private:
    QWidget m_parent;
    std::unique_ptr<JsonForm> m_form;
    QLineEdit *m_url = nullptr;
    QLineEdit *m_every = nullptr;
    QLineEdit *m_idempotency = nullptr;
    QPlainTextEdit *m_headers = nullptr;
    QComboBox *m_retry = nullptr;
};

QTEST_MAIN(JsonFormTest)
#include "tst_jsonform.moc"
