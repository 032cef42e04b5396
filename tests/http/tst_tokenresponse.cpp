// SPDX-License-Identifier: Apache-2.0
#include "core/http/TokenResponse.h"

#include <QTest>

using namespace cooldown;

Q_DECLARE_METATYPE(TokenResponse::Kind)

class tst_TokenResponse : public QObject
{
    Q_OBJECT

private slots:
    void parse_data();
    void parse();
};

void tst_TokenResponse::parse_data()
{
    using Kind = TokenResponse::Kind;
    QTest::addColumn<int>("status");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<Kind>("kind");
    QTest::addColumn<QByteArray>("token");
    QTest::addColumn<qint64>("expiresIn"); // -1: not given
    QTest::addColumn<QString>("error");

    QTest::newRow("token")
        << 200
        << QByteArray(R"({"access_token":"abc.def","token_type":"Bearer","expires_in":3600})")
        << Kind::Token << QByteArray("abc.def") << qint64(3600) << "";
    QTest::newRow("lowercase type, string expiry")
        << 200 << QByteArray(R"({"access_token":"t","token_type":"bearer","expires_in":"120"})")
        << Kind::Token << QByteArray("t") << qint64(120) << "";
    QTest::newRow("no type, no expiry") << 200 << QByteArray(R"({"access_token":"t"})")
                                        << Kind::Token << QByteArray("t") << qint64(-1) << "";
    QTest::newRow("negative expiry ignored")
        << 200 << QByteArray(R"({"access_token":"t","expires_in":-5})") << Kind::Token
        << QByteArray("t") << qint64(-1) << "";
    QTest::newRow("zero expiry ignored")
        << 200 << QByteArray(R"({"access_token":"t","expires_in":0})") << Kind::Token
        << QByteArray("t") << qint64(-1) << "";
    QTest::newRow("half a second ignored")
        << 200 << QByteArray(R"({"access_token":"t","expires_in":0.5})") << Kind::Token
        << QByteArray("t") << qint64(-1) << "";
    QTest::newRow("no token") << 200 << QByteArray(R"({"token_type":"Bearer"})") << Kind::Error
                              << QByteArray() << qint64(-1) << "token_response_unreadable";
    QTest::newRow("not json") << 200 << QByteArray("<html>login</html>") << Kind::Error
                              << QByteArray() << qint64(-1) << "token_response_unreadable";
    QTest::newRow("token with a line break")
        << 200 << QByteArray(R"({"access_token":"a\r\nX-Evil: 1"})") << Kind::Error << QByteArray()
        << qint64(-1) << "token_response_unreadable";
    QTest::newRow("mac token") << 200 << QByteArray(R"({"access_token":"t","token_type":"mac"})")
                               << Kind::Error << QByteArray() << qint64(-1)
                               << "token_type_unsupported";
    QTest::newRow("invalid_client")
        << 401 << QByteArray(R"({"error":"invalid_client","error_description":"bad secret"})")
        << Kind::Refused << QByteArray() << qint64(-1) << "invalid_client";
    QTest::newRow("invalid_scope")
        << 400 << QByteArray(R"({"error":"invalid_scope"})") << Kind::Refused << QByteArray()
        << qint64(-1) << "invalid_scope";
    QTest::newRow("wrong url") << 404 << QByteArray("not found") << Kind::Refused << QByteArray()
                               << qint64(-1) << "http_404";
    QTest::newRow("empty error code") << 401 << QByteArray(R"({"error":""})") << Kind::Refused
                                      << QByteArray() << qint64(-1) << "http_401";
    QTest::newRow("redirect") << 302 << QByteArray() << Kind::Refused << QByteArray() << qint64(-1)
                              << "http_302";
    QTest::newRow("unavailable") << 503 << QByteArray("") << Kind::Error << QByteArray()
                                 << qint64(-1) << "http_503";
    QTest::newRow("throttled with an error body")
        << 429 << QByteArray(R"({"error":"invalid_client"})") << Kind::Error << QByteArray()
        << qint64(-1) << "invalid_client";
    QTest::newRow("server error") << 500 << QByteArray(R"({"error":"temporarily_unavailable"})")
                                  << Kind::Error << QByteArray() << qint64(-1)
                                  << "temporarily_unavailable";
}

void tst_TokenResponse::parse()
{
    QFETCH(int, status);
    QFETCH(QByteArray, body);
    QFETCH(TokenResponse::Kind, kind);
    QFETCH(QByteArray, token);
    QFETCH(qint64, expiresIn);
    QFETCH(QString, error);
    const TokenResponse r = TokenResponse::parse(status, body);
    QCOMPARE(int(r.kind), int(kind));
    QCOMPARE(r.accessToken, token);
    QCOMPARE(r.expiresInSeconds.value_or(-1), expiresIn);
    QCOMPARE(r.error, error);
    if (kind == TokenResponse::Kind::Token)
        QCOMPARE(r.tokenType, QStringLiteral("Bearer"));
}

QTEST_GUILESS_MAIN(tst_TokenResponse)
#include "tst_tokenresponse.moc"
