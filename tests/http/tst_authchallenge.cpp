// SPDX-License-Identifier: Apache-2.0
#include "core/http/AuthChallenge.h"

#include <QTest>

using namespace cooldown;

class tst_AuthChallenge : public QObject
{
    Q_OBJECT

private slots:
    void parse_data();
    void parse();
    void bearerAmongSeveralFields();
    void noChallenge();
};

void tst_AuthChallenge::parse_data()
{
    QTest::addColumn<QByteArray>("field");
    // scheme|param=value|... for each challenge, joined by " ; "
    QTest::addColumn<QString>("expected");

    QTest::newRow("bare scheme") << QByteArray("Bearer") << "Bearer";
    QTest::newRow("RFC 6750 expired")
        << QByteArray(R"(Bearer realm="example", error="invalid_token", )"
                      R"(error_description="The access token expired")")
        << "Bearer|realm=example|error=invalid_token|error_description=The access token expired";
    QTest::newRow("token values") << QByteArray("Bearer error=invalid_token")
                                  << "Bearer|error=invalid_token";
    QTest::newRow("case and spaces")
        << QByteArray(R"(bearer   ERROR = "insufficient_scope" ,scope="a b")")
        << "bearer|error=insufficient_scope|scope=a b";
    QTest::newRow("two challenges")
        << QByteArray(R"(Basic realm="x", Bearer error="invalid_token")")
        << "Basic|realm=x ; Bearer|error=invalid_token";
    QTest::newRow("escaped quote")
        << QByteArray(R"(Bearer error_description="say \"hi\", then go")")
        << R"(Bearer|error_description=say "hi", then go)";
    QTest::newRow("token68") << QByteArray("Negotiate abc+/def==") << "Negotiate|#abc+/def==";
    QTest::newRow("unterminated quote skipped")
        << QByteArray(R"(Bearer error="invalid_token)") << "Bearer";
    QTest::newRow("garbage then bearer")
        << QByteArray(R"(=== , Bearer error="invalid_token")") << "Bearer|error=invalid_token";
    QTest::newRow("empty") << QByteArray("") << "";
    QTest::newRow("commas only") << QByteArray(" , ,, ") << "";
}

void tst_AuthChallenge::parse()
{
    QFETCH(QByteArray, field);
    QFETCH(QString, expected);
    QStringList got;
    for (const AuthChallenge &c : AuthChallenge::parse(field)) {
        QString text = QString::fromLatin1(c.scheme);
        if (!c.token68.isEmpty())
            text += QStringLiteral("|#") + QString::fromLatin1(c.token68);
        for (const auto &p : c.params)
            text += QLatin1Char('|') + QString::fromLatin1(p.first) + QLatin1Char('=') + p.second;
        got.append(text);
    }
    QCOMPARE(got.join(QStringLiteral(" ; ")), expected);
}

void tst_AuthChallenge::bearerAmongSeveralFields()
{
    HttpHeaders headers;
    headers.append("Content-Type", "application/json");
    headers.append("WWW-Authenticate", R"(Basic realm="api")");
    headers.append("www-authenticate", R"(Bearer error="invalid_token", error_description="gone")");
    const auto bearer = AuthChallenge::bearer(headers);
    QVERIFY(bearer.has_value());
    QCOMPARE(bearer->param("error"), std::optional<QString>(QStringLiteral("invalid_token")));
    QCOMPARE(bearer->param("ERROR_DESCRIPTION"), std::optional<QString>(QStringLiteral("gone")));
    QVERIFY(!bearer->param("scope").has_value());
}

void tst_AuthChallenge::noChallenge()
{
    HttpHeaders headers;
    headers.append("WWW-Authenticate", R"(Basic realm="api")");
    QVERIFY(!AuthChallenge::bearer(headers).has_value());
    QVERIFY(!AuthChallenge::bearer(HttpHeaders()).has_value());
}

QTEST_GUILESS_MAIN(tst_AuthChallenge)
#include "tst_authchallenge.moc"
