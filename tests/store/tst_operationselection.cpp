// SPDX-License-Identifier: Apache-2.0
// The text form of a bulk action's filter (docs/bulk-actions.md): what it selects, and
// errors that name the bad term and its column.

#include "core/store/OperationSelection.h"

#include <QDateTime>
#include <QTest>

using namespace cooldown;

namespace {

constexpr qint64 kNow = 1'800'000'000'000;

qint64 utc(const char *iso)
{
    QDateTime t = QDateTime::fromString(QString::fromLatin1(iso), Qt::ISODate);
    t.setTimeSpec(Qt::UTC);
    return t.toMSecsSinceEpoch();
}

} // namespace

Q_DECLARE_METATYPE(cooldown::OperationSelection)

class tst_OperationSelection : public QObject
{
    Q_OBJECT

private slots:
    void parses_data();
    void parses();
    void refuses_data();
    void refuses();
    void textRoundTrips_data();
    void textRoundTrips();
    void emptyMatchesEverything();
};

void tst_OperationSelection::parses_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<OperationSelection>("expected");

    OperationSelection full;
    full.endpointIds = {QStringLiteral("upload")};
    full.states = {OperationState::Waiting, OperationState::Parked};
    full.statuses = {StatusMatch{429, 429}};
    full.sinceMs = utc("2026-12-01T10:00:00");
    QTest::newRow("the example") << "endpoint=upload state=waiting,parked status=429 "
                                    "since=2026-12-01T10:00:00Z"
                                 << full;
    QTest::newRow("commas between terms")
        << "endpoint=upload,state=waiting,parked,status=429,since=2026-12-01T10:00:00Z" << full;
    QTest::newRow("spaces between values")
        << "  endpoint=upload state=waiting parked status=429 since=2026-12-01T10:00:00Z  " << full;

    OperationSelection classes;
    classes.statuses = {StatusMatch{400, 499}, StatusMatch{500, 599}, StatusMatch{}};
    QTest::newRow("classes and error") << "status=4xx,5xx,error" << classes;

    OperationSelection repeated;
    repeated.endpointIds = {QStringLiteral("a"), QStringLiteral("b")};
    repeated.states = {OperationState::Failed};
    QTest::newRow("a key twice adds values")
        << "endpoint=a state=failed endpoint=b state=failed" << repeated;

    OperationSelection quoted;
    quoted.partitionKeys = {QStringLiteral("tenant 7, north"), QStringLiteral("")};
    quoted.reasons = {QStringLiteral("say \"why\"")};
    QTest::newRow("quoted values")
        << R"(partition="tenant 7, north","" reason="say \"why\"")" << quoted;

    OperationSelection ago;
    ago.sinceMs = kNow - 2 * 3'600'000;
    ago.untilMs = kNow - 30 * 60'000;
    QTest::newRow("times ago") << "since=2h until=30m" << ago;

    OperationSelection offset;
    offset.untilMs = utc("2026-12-01T08:00:00");
    QTest::newRow("an offset") << "until=2026-12-01T10:00:00+02:00" << offset;

    OperationSelection reason;
    reason.reasons = {QStringLiteral("idempotency_key_expired")};
    QTest::newRow("reason") << "reason=idempotency_key_expired" << reason;
}

void tst_OperationSelection::parses()
{
    QFETCH(QString, text);
    QFETCH(OperationSelection, expected);
    QString error;
    const auto parsed = OperationSelection::parse(text, kNow, &error);
    QVERIFY2(parsed, qPrintable(error));
    QCOMPARE(parsed->toText(), expected.toText());
    QVERIFY(*parsed == expected);
}

void tst_OperationSelection::refuses_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("error");

    QTest::newRow("unknown key") << "endpoint=a stat=waiting"
                                 << "column 12: 'stat=waiting': unknown key 'stat' (expected "
                                    "endpoint, state, partition, status, reason, since, until)";
    QTest::newRow("unknown state")
        << "state=waiting,sleeping"
        << "column 15: 'sleeping': unknown state 'sleeping' (expected one of scheduled, running, "
           "waiting, succeeded, failed, parked, cancelled)";
    QTest::newRow("not a status")
        << "status=42"
        << "column 1: 'status=42': '42' is not a status (expected a code such as 429, a class "
           "such as 5xx, or error)";
    QTest::newRow("6xx") << "status=6xx"
                         << "column 1: 'status=6xx': '6xx' is not a status (expected a code "
                            "such as 429, a class such as 5xx, or error)";
    QTest::newRow("no value") << "endpoint= state=failed"
                              << "column 1: 'endpoint=': 'endpoint' has no value";
    QTest::newRow("a value first") << "waiting"
                                   << "column 1: 'waiting': expected key=value (keys: endpoint, "
                                      "state, partition, status, reason, since, until)";
    QTest::newRow("not a time")
        << "since=yesterday"
        << "column 1: 'since=yesterday': 'yesterday' is not a time (expected ISO 8601 such as "
           "2026-12-01T10:00:00Z, or a time ago such as 2h)";
    QTest::newRow("two times") << "since=2h since=1h"
                               << "column 10: 'since=1h': 'since' takes one time";
    QTest::newRow("unclosed quote")
        << "endpoint=a partition=\"t 1"
        << "column 22: 'partition=\"t 1': the quote opened here is not closed";
    QTest::newRow("until before since") << "since=1h until=2h"
                                        << "'until' must be later than 'since'";
}

void tst_OperationSelection::refuses()
{
    QFETCH(QString, text);
    QFETCH(QString, error);
    QString problem;
    QVERIFY(!OperationSelection::parse(text, kNow, &problem));
    QCOMPARE(problem, error);
}

void tst_OperationSelection::textRoundTrips_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("normalised");
    QTest::newRow("order") << "status=5xx,429 state=parked endpoint=x"
                           << "endpoint=x state=parked status=5xx,429";
    QTest::newRow("quotes") << R"(partition="a b",c reason=x=y)"
                            << R"(partition="a b",c reason="x=y")";
    QTest::newRow("times") << "since=2026-12-01T10:00:00.250Z until=2026-12-02T00:00:00Z"
                           << "since=2026-12-01T10:00:00.250Z until=2026-12-02T00:00:00Z";
}

void tst_OperationSelection::textRoundTrips()
{
    QFETCH(QString, text);
    QFETCH(QString, normalised);
    QString error;
    const auto parsed = OperationSelection::parse(text, kNow, &error);
    QVERIFY2(parsed, qPrintable(error));
    QCOMPARE(parsed->toText(), normalised);
    const auto again = OperationSelection::parse(parsed->toText(), kNow, &error);
    QVERIFY2(again, qPrintable(error));
    QVERIFY(*again == *parsed);
}

void tst_OperationSelection::emptyMatchesEverything()
{
    QString error;
    const auto parsed = OperationSelection::parse(u"  , ", kNow, &error);
    QVERIFY(parsed);
    QVERIFY(parsed->isEmpty());
    QVERIFY(!OperationSelection::parse(u"state=failed", kNow, &error)->isEmpty());
}

QTEST_GUILESS_MAIN(tst_OperationSelection)
#include "tst_operationselection.moc"
