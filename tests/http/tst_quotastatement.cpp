// SPDX-License-Identifier: Apache-2.0
#include "core/http/QuotaStatement.h"

#include <QTest>

Q_DECLARE_METATYPE(cooldown::HttpHeaders)

using namespace cooldown;

// What express-rate-limit (npm) sends, in each of its header modes, for 5 requests per
// 10 s with 4 left.
class tst_QuotaStatement : public QObject
{
    Q_OBJECT

private slots:
    void revisions_data();
    void revisions();
    void tightestOfSeveralPolicies();
    void nothingStated();
    void laterRevisionWins();
};

namespace {

constexpr qint64 kNow = 1'800'000'000'000LL;

HttpHeaders headers(std::initializer_list<std::pair<const char *, const char *>> fields)
{
    HttpHeaders h;
    for (const auto &[name, value] : fields)
        h.append(name, value);
    return h;
}

} // namespace

void tst_QuotaStatement::revisions_data()
{
    QTest::addColumn<HttpHeaders>("fields");
    QTest::addColumn<QString>("format");
    QTest::addColumn<qint64>("quota");
    QTest::addColumn<qint64>("windowMs");
    QTest::addColumn<qint64>("resetAtMs");
    QTest::addColumn<QString>("name");

    QTest::newRow("draft-8") << headers({{"RateLimit-Policy", R"("api"; q=5; w=10; pk=:MTJj:)"},
                                         {"RateLimit", R"("api"; r=4; t=10)"}})
                             << "draft-8" << 5LL << 10000LL << kNow + 10000 << "api";
    QTest::newRow("draft-7") << headers({{"RateLimit-Policy", "5;w=10"},
                                         {"RateLimit", "limit=5, remaining=4, reset=10"}})
                             << "draft-7" << 5LL << 10000LL << kNow + 10000 << "";
    QTest::newRow("draft-6") << headers({{"RateLimit-Policy", "5;w=10"},
                                         {"RateLimit-Limit", "5"},
                                         {"RateLimit-Remaining", "4"},
                                         {"RateLimit-Reset", "10"}})
                             << "draft-6" << 5LL << 10000LL << kNow + 10000 << "";
    QTest::newRow("x-ratelimit, epoch reset") << headers({{"X-RateLimit-Limit", "5"},
                                                          {"X-RateLimit-Remaining", "4"},
                                                          {"X-RateLimit-Reset", "1800000010"}})
                                              << "x-ratelimit" << 5LL << 0LL << kNow + 10000 << "";
    QTest::newRow("draft-8 without a policy field")
        << headers({{"RateLimit", R"("api"; r=4; t=10)"}}) << "draft-8" << 0LL << 0LL
        << kNow + 10000 << "api";
}

void tst_QuotaStatement::revisions()
{
    QFETCH(HttpHeaders, fields);
    const auto s = QuotaStatement::fromHeaders(fields, kNow);
    QVERIFY(s);
    QTEST(s->format, "format");
    QTEST(s->quota, "quota");
    QTEST(s->windowMs, "windowMs");
    QTEST(s->resetAtMs, "resetAtMs");
    QTEST(s->name, "name");
    QCOMPARE(s->remaining, 4);
    QVERIFY2(!s->fields.isEmpty() && s->fields.endsWith(QLatin1Char('\n')), qPrintable(s->fields));
}

void tst_QuotaStatement::tightestOfSeveralPolicies()
{
    const auto s = QuotaStatement::fromHeaders(
        headers({{"RateLimit-Policy", R"("burst"; q=100; w=60, "day"; q=1000; w=86400; pk=:YWJj:)"},
                 {"RateLimit", R"("burst"; r=80; t=30, "day"; r=3; t=4000)"}}),
        kNow);
    QVERIFY(s);
    QCOMPARE(s->name, QStringLiteral("day"));
    QCOMPARE(s->quota, 1000);
    QCOMPARE(s->windowMs, 86400000);
    QCOMPARE(s->remaining, 3);
    QCOMPARE(s->resetAtMs, kNow + 4000000);
    QCOMPARE(s->partitionKey, QByteArrayLiteral("abc"));
}

void tst_QuotaStatement::nothingStated()
{
    QVERIFY(!QuotaStatement::fromHeaders(headers({{"Retry-After", "10"}}), kNow));
    QVERIFY(!QuotaStatement::fromHeaders(headers({{"RateLimit", "garbage;;"}}), kNow));
    QVERIFY(!QuotaStatement::fromHeaders(headers({{"X-RateLimit-Limit", "5"}}), kNow));
}

void tst_QuotaStatement::laterRevisionWins()
{
    // express-rate-limit sends its legacy fields beside the standard ones; the draft's
    // are read first, and its window comes only from there.
    const auto s = QuotaStatement::fromHeaders(headers({{"X-RateLimit-Limit", "5"},
                                                        {"X-RateLimit-Remaining", "2"},
                                                        {"X-RateLimit-Reset", "1800000010"},
                                                        {"RateLimit-Policy", R"("api"; q=5; w=10)"},
                                                        {"RateLimit", R"("api"; r=2; t=10)"}}),
                                               kNow);
    QVERIFY(s);
    QCOMPARE(s->format, QStringLiteral("draft-8"));
    QCOMPARE(s->windowMs, 10000);
}

QTEST_APPLESS_MAIN(tst_QuotaStatement)
#include "tst_quotastatement.moc"
