// SPDX-License-Identifier: Apache-2.0
#include "core/http/Redaction.h"
#include "core/time/RandomSource.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QUrl>

#include <QTest>

using namespace cooldown;

class tst_Redaction : public QObject
{
    Q_OBJECT

private slots:
    void secretNames_data();
    void secretNames();
    void urls_data();
    void urls();
    void headerLines_data();
    void headerLines();
    void freeText_data();
    void freeText();
    void parsedHeaders();
    void idempotent();
    void bodies_data();
    void bodies();
    void secretValuesOfHeaders();
    void keptBodiesHoldNoSecret();
};

void tst_Redaction::secretNames_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<bool>("secret");

    const char *const secrets[] = {
        "Authorization",
        "authorization",
        "Proxy-Authorization",
        "Cookie",
        "Set-Cookie",
        "api_key",
        "apikey",
        "API-KEY",
        "X-API-Key",
        "X-Goog-Api-Key",
        "key",
        "access_token",
        "accessToken",
        "refresh_token",
        "id_token",
        "token",
        "X-Auth-Token",
        "X-CSRF-Token",
        "client_secret",
        "clientSecret",
        "secret",
        "password",
        "passwd",
        "pwd",
        "sig",
        "signature",
        "X-Amz-Signature",
        "X-Amz-Security-Token",
        "X-Hub-Signature-256",
        "private_key",
        "session_id",
        "JSESSIONID",
        "credentials",
        "x-apikey",
    };
    for (const char *name : secrets)
        QTest::newRow(name) << QString::fromLatin1(name) << true;

    const char *const plain[] = {
        "Idempotency-Key",
        "idempotency_key",
        "Content-Type",
        "Retry-After",
        "RateLimit",
        "X-RateLimit-Remaining",
        "X-RateLimit-Reset",
        "Date",
        "Location",
        "page",
        "sort",
        "monkey",
        "author",
        "Keep-Alive",
        "Accept",
        "WWW-Authenticate",
        "x-ratelimit-remaining-tokens",
        "",
    };
    for (const char *name : plain)
        QTest::newRow(qPrintable(QStringLiteral("plain %1").arg(QLatin1String(name))))
            << QString::fromLatin1(name) << false;
}

void tst_Redaction::secretNames()
{
    QFETCH(QString, name);
    QFETCH(bool, secret);
    QCOMPARE(redaction::isSecretName(name), secret);
}

void tst_Redaction::urls_data()
{
    QTest::addColumn<QString>("url");
    QTest::addColumn<QString>("expected");

    QTest::newRow("no query") << "https://api.example.com/v1/items"
                              << "https://api.example.com/v1/items";
    QTest::newRow("plain query") << "https://h/x?page=2&sort=name"
                                 << "https://h/x?page=2&sort=name";
    QTest::newRow("api_key") << "https://h/x?api_key=S3CRET&page=2"
                             << "https://h/x?api_key=[redacted]&page=2";
    QTest::newRow("several")
        << "https://h/x?access_token=a&sig=b&x=1&client_secret=c"
        << "https://h/x?access_token=[redacted]&sig=[redacted]&x=1&client_secret=[redacted]";
    QTest::newRow("percent-encoded name") << "https://h/x?api%5Fkey=S3CRET"
                                          << "https://h/x?api%5Fkey=[redacted]";
    QTest::newRow("semicolon separated") << "https://h/x?a=1;token=T"
                                         << "https://h/x?a=1;token=[redacted]";
    QTest::newRow("empty value") << "https://h/x?token="
                                 << "https://h/x?token=[redacted]";
    QTest::newRow("name without value") << "https://h/x?token"
                                        << "https://h/x?token";
    QTest::newRow("fragment token") << "https://h/cb#access_token=T&state=1"
                                    << "https://h/cb#access_token=[redacted]&state=1";
    QTest::newRow("query and fragment") << "https://h/x?key=K#frag"
                                        << "https://h/x?key=[redacted]#frag";
    QTest::newRow("user and password") << "https://bob:hunter2@h/x"
                                       << "https://bob:[redacted]@h/x";
    QTest::newRow("token as user") << "https://ghp_abc@github.com/r"
                                   << "https://[redacted]@github.com/r";
    QTest::newRow("postgres user kept") << "postgresql://cooldown@db:5432/c"
                                        << "postgresql://cooldown@db:5432/c";
    QTest::newRow("postgres password") << "postgresql://cooldown:pw@db:5432/c"
                                       << "postgresql://cooldown:[redacted]@db:5432/c";
    QTest::newRow("relative") << "/x?password=p&q=1"
                              << "/x?password=[redacted]&q=1";
    QTest::newRow("idempotency key kept") << "https://h/x?idempotency_key=abc"
                                          << "https://h/x?idempotency_key=abc";
}

void tst_Redaction::urls()
{
    QFETCH(QString, url);
    QFETCH(QString, expected);
    QCOMPARE(redaction::redactUrl(url), expected);
}

void tst_Redaction::headerLines_data()
{
    QTest::addColumn<QString>("lines");
    QTest::addColumn<QString>("expected");

    QTest::newRow("authorization") << "Authorization: Bearer abc.def\nAccept: */*\n"
                                   << "Authorization: [redacted]\nAccept: */*\n";
    QTest::newRow("cookies") << "Cookie: sid=1; theme=dark\nSet-Cookie: a=b; HttpOnly"
                             << "Cookie: [redacted]\nSet-Cookie: [redacted]";
    QTest::newRow("api key header")
        << "X-API-Key: K\r\nDate: Sun, 29 Nov 2026 12:00:00 GMT\r\n"
        << "X-API-Key: [redacted]\r\nDate: Sun, 29 Nov 2026 12:00:00 GMT\r\n";
    QTest::newRow("no space after colon") << "authorization:Basic Zm9v"
                                          << "authorization:[redacted]";
    QTest::newRow("location with token") << "Location: https://h/next?token=T&page=3"
                                         << "Location: https://h/next?token=[redacted]&page=3";
    QTest::newRow("idempotency key kept") << "Idempotency-Key: 5f0c"
                                          << "Idempotency-Key: 5f0c";
    QTest::newRow("not a header") << "just text"
                                  << "just text";
}

void tst_Redaction::headerLines()
{
    QFETCH(QString, lines);
    QFETCH(QString, expected);
    QCOMPARE(redaction::redactHeaderLines(lines), expected);
}

void tst_Redaction::freeText_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("expected");

    QTest::newRow("qt network error")
        << "Error transferring https://api.example.com/m?api_key=S3CRET - server replied: Too Many "
           "Requests"
        << "Error transferring https://api.example.com/m?api_key=[redacted] - server replied: Too "
           "Many Requests";
    QTest::newRow("quoted url") << "redirect to \"http://h/?secret=x\" refused"
                                << "redirect to \"http://h/?secret=[redacted]\" refused";
    QTest::newRow("two urls") << "from https://a/?token=1 to https://b/?sig=2"
                              << "from https://a/?token=[redacted] to https://b/?sig=[redacted]";
    QTest::newRow("quoted request") << "request was:\nAuthorization: Bearer T\nHost: h"
                                    << "request was:\nAuthorization: [redacted]\nHost: h";
    QTest::newRow("bare url") << "https://h/?password=p"
                              << "https://h/?password=[redacted]";
    QTest::newRow("nothing to do") << "Connection refused"
                                   << "Connection refused";
}

void tst_Redaction::freeText()
{
    QFETCH(QString, text);
    QFETCH(QString, expected);
    QCOMPARE(redaction::redactText(text), expected);
}

void tst_Redaction::parsedHeaders()
{
    const HttpHeaders headers{{"Authorization", "Bearer T0KEN"},
                              {"X-Api-Key", "K3Y"},
                              {"Retry-After", "120"},
                              {"Link", "<https://h/p?access_token=AT>; rel=next"}};
    const QString lines = redaction::headerLines(headers);
    QCOMPARE(lines,
             QStringLiteral("Authorization: [redacted]\nX-Api-Key: [redacted]\nRetry-After: 120\n"
                            "Link: <https://h/p?access_token=[redacted]>; rel=next\n"));
    const HttpHeaders redacted = redaction::redactHeaders(headers);
    QCOMPARE(redacted.value("authorization").value_or(QByteArray()), QByteArray("[redacted]"));
    QCOMPARE(redacted.value("retry-after").value_or(QByteArray()), QByteArray("120"));
    QVERIFY(!lines.contains(QLatin1String("T0KEN")));
    QVERIFY(!lines.contains(QLatin1String("K3Y")));
    QVERIFY(!lines.contains(QLatin1String("=AT")));
}

void tst_Redaction::idempotent()
{
    const QString once = redaction::redactText(
        QStringLiteral("Authorization: Bearer x\nsee https://u:p@h/?token=t#access_token=a"));
    QCOMPARE(redaction::redactText(once), once);
    QCOMPARE(redaction::redactUrl(redaction::redactUrl(QStringLiteral("https://h/?key=1"))),
             QStringLiteral("https://h/?key=[redacted]"));
}

// Bodies as kept for failed exchanges (docs/checks.md).
void tst_Redaction::bodies_data()
{
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<QByteArray>("contentType");
    QTest::addColumn<int>("maxBytes");
    QTest::addColumn<QString>("expected");

    QTest::newRow("json member") << QByteArray("{\"user\": \"ann\", \"password\": \"pw-1\"}")
                                 << QByteArray("application/json") << 1000
                                 << "{\"password\":\"[redacted]\",\"user\":\"ann\"}";
    QTest::newRow("json nested") << QByteArray("{\"a\": [{\"access_token\": \"t\"}]}")
                                 << QByteArray() << 1000
                                 << "{\"a\":[{\"access_token\":\"[redacted]\"}]}";
    QTest::newRow("json without secrets is kept as sent")
        << QByteArray("{\"user\":  \"ann\"}") << QByteArray("application/json") << 1000
        << "{\"user\":  \"ann\"}";
    QTest::newRow("json cut short")
        << QByteArray("{\"note\": \"x\", \"api_key\": \"k-123456\", \"z\": 1}")
        << QByteArray("application/json") << 34 << "{\"api_key\":\"[redacted]\",\"note\":\"x\"";
    QTest::newRow("json cut by the transport")
        << QByteArray("{\"note\": \"x\", \"api_key\": \"k-123456") << QByteArray("application/json")
        << 1000 << "{\"note\": \"x\", \"api_key\": \"[redacted]";
    QTest::newRow("secret percent-encoded in a form")
        << QByteArray("q=my-Secret-42%21") << QByteArray("application/x-www-form-urlencoded")
        << 1000 << "q=[redacted]%21";
    QTest::newRow("form") << QByteArray("user=ann&client_secret=cs-99&scope=a")
                          << QByteArray("application/x-www-form-urlencoded") << 1000
                          << "user=ann&client_secret=[redacted]&scope=a";
    QTest::newRow("url in text") << QByteArray("see https://h.example/x?token=abc123 now")
                                 << QByteArray("text/plain") << 1000
                                 << "see https://h.example/x?token=[redacted] now";
    QTest::newRow("known secret anywhere")
        << QByteArray("echo: my-Secret-42!") << QByteArray("text/plain") << 1000
        << "echo: [redacted]!";
}

void tst_Redaction::bodies()
{
    QFETCH(QByteArray, body);
    QFETCH(QByteArray, contentType);
    QFETCH(int, maxBytes);
    QFETCH(QString, expected);
    QCOMPARE(redaction::redactBody(body, contentType, maxBytes,
                                   {QStringLiteral("my-Secret-42"), QStringLiteral("ab")}),
             expected);
}

void tst_Redaction::secretValuesOfHeaders()
{
    const HttpHeaders headers{
        {"Authorization", "Bearer tok-1"}, {"Accept", "application/json"}, {"X-Api-Key", "key-2"}};
    QCOMPARE(redaction::secretValues(headers),
             QStringList({QStringLiteral("Bearer tok-1"), QStringLiteral("tok-1"),
                          QStringLiteral("key-2")}));
    // Short values would take ordinary words with them: they are left alone.
    QCOMPARE(redaction::scrub(QStringLiteral("a tok-1 abc"),
                              {QStringLiteral("tok-1"), QStringLiteral("abc")}),
             QStringLiteral("a [redacted] abc"));
}

// The property docs/checks.md promises: whatever the body's shape, wherever a secret of
// the workspace sits in it and wherever the body is cut, no kept body holds the secret,
// nor any 8 characters of it in a row. 2,000 bodies from a fixed seed.
void tst_Redaction::keptBodiesHoldNoSecret()
{
    SeededRandom random(20261206);
    const QString alphabet =
        QStringLiteral("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.~+/=");
    const auto word = [&](int length) {
        QString out;
        for (int i = 0; i < length; ++i)
            out += alphabet.at(int(random.uniformInt(0, alphabet.size() - 1)));
        return out;
    };
    const QStringList keys = {QStringLiteral("note"), QStringLiteral("token"),
                              QStringLiteral("client_secret"), QStringLiteral("data"),
                              QStringLiteral("echo")};
    for (int i = 0; i < 2000; ++i) {
        const QString secret = word(int(random.uniformInt(12, 40)));
        const QString key = keys.at(int(random.uniformInt(0, keys.size() - 1)));
        const QString filler = word(int(random.uniformInt(0, 60)));
        QByteArray body;
        QByteArray type;
        switch (random.uniformInt(0, 3)) {
        case 0: // JSON, the secret nested, its '/' escaped as some servers write it
            body = QJsonDocument(QJsonObject{{QStringLiteral("a"), filler},
                                             {QStringLiteral("n"), QJsonObject{{key, secret}}}})
                       .toJson(QJsonDocument::Compact);
            if (random.uniformInt(0, 1))
                body.replace("/", "\\/");
            type = "application/json";
            break;
        case 1: // a form, percent-encoded
            body = "a=" + QUrl::toPercentEncoding(filler) + '&' + key.toUtf8() + '=' +
                   QUrl::toPercentEncoding(secret);
            type = "application/x-www-form-urlencoded";
            break;
        case 2: // text quoting it
            body =
                (filler + QStringLiteral(" said ") + secret + QStringLiteral(" twice: ") + secret)
                    .toUtf8();
            type = "text/plain";
            break;
        default: // JSON cut short by the transport
            body = QJsonDocument(QJsonObject{{key, secret}, {QStringLiteral("z"), filler}})
                       .toJson(QJsonDocument::Compact);
            body.chop(int(random.uniformInt(1, 8)));
            type = "application/json";
            break;
        }
        const int maxBytes = int(random.uniformInt(8, 200));
        const QString kept = redaction::redactBody(body, type, maxBytes, {secret});
        QVERIFY(kept.toUtf8().size() <= maxBytes);
        for (qsizetype at = 0; at + 8 <= secret.size(); ++at)
            QVERIFY2(
                !kept.contains(secret.mid(at, 8)),
                qPrintable(
                    QStringLiteral("%1 in %2 from %3").arg(secret, kept, QString::fromUtf8(body))));
    }
}

QTEST_GUILESS_MAIN(tst_Redaction)
#include "tst_redaction.moc"
