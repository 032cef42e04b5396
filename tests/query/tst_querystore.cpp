// SPDX-License-Identifier: Apache-2.0
#include "core/query/QueryStore.h"
#include "core/store/Store.h"
#include "store/StoreTestSupport.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace cooldown;

namespace {

constexpr qint64 kNow = 1795953600000; // 2026-11-29T12:00:00Z

} // namespace

class tst_QueryStore : public QObject
{
    Q_OBJECT

private slots:
    void refusesAMissingDatabaseAndSaysSoOnce();
    void createsOneWhenAsked();
    void readsWhatAnotherConnectionWrote();
    void aFailureIsSaidByItsReadAlone();
};

void tst_QueryStore::refusesAMissingDatabaseAndSaysSoOnce()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString url = dir.filePath(QStringLiteral("missing.db"));
    QueryStore store(url, QueryStore::IfMissing::Refuse);
    QStringList reports;
    const auto report = [&reports](const QString &error) {
        reports.append(error);
    };
    QVERIFY(!store.ensureOpen(report));
    QCOMPARE(reports.size(), 1);
    QVERIFY(!reports.constFirst().isEmpty());
    QCOMPARE(store.openError(), reports.constFirst());
    // Not tried again, not said again; and no empty database left behind.
    QVERIFY(!store.ensureOpen(report));
    QCOMPARE(reports.size(), 1);
    QVERIFY(!QFile::exists(url));
}

void tst_QueryStore::createsOneWhenAsked()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString url = dir.filePath(QStringLiteral("new.db"));
    QueryStore store(url, QueryStore::IfMissing::Create);
    int reports = 0;
    const auto report = [&reports](const QString &) {
        ++reports;
    };
    QVERIFY(store.ensureOpen(report));
    QVERIFY(store.ensureOpen(report));
    QCOMPARE(reports, 0);
    QVERIFY(QFile::exists(url));
    QVERIFY(store.changeToken().ok());
    QCOMPARE(store.newestAttemptId().value(), 0);
    QVERIFY(store.openError().isEmpty());
}

void tst_QueryStore::readsWhatAnotherConnectionWrote()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString url = dir.filePath(QStringLiteral("shared.db"));
    QString error;
    const std::unique_ptr<Store> writer = Store::open(url, &error);
    QVERIFY2(writer, qPrintable(error));

    QueryStore store(url, QueryStore::IfMissing::Refuse);
    QVERIFY(store.ensureOpen([](const QString &error) { QFAIL(qPrintable(error)); }));
    const StoreResult<QByteArray> before = store.changeToken();
    QVERIFY(before.ok());
    const StoreResult<bool> notYet = store.isEndpointPaused(QStringLiteral("search"));
    QVERIFY2(notYet.ok(), qPrintable(notYet.error()));
    QCOMPARE(*notYet, false);

    QVERIFY(writer->setEndpointPaused(QStringLiteral("search"), true, kNow));
    const StoreResult<QByteArray> after = store.changeToken();
    QVERIFY(after.ok());
    QVERIFY(*after != *before);
    QCOMPARE(store.isEndpointPaused(QStringLiteral("search")).value(), true);
    const auto paused = store.pausedEndpointIds();
    QVERIFY(paused.ok());
    QVERIFY(paused->contains(QStringLiteral("search")));
}

void tst_QueryStore::aFailureIsSaidByItsReadAlone()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString url = dir.filePath(QStringLiteral("broken.db"));
    QString error;
    QVERIFY2(Store::open(url, &error), qPrintable(error));
    QueryStore store(url, QueryStore::IfMissing::Refuse);
    QVERIFY(store.ensureOpen([](const QString &error) { QFAIL(qPrintable(error)); }));

    // An empty answer is an answer.
    const StoreResult<QList<qint64>> none = store.attemptIds({});
    QVERIFY2(none.ok(), qPrintable(none.error()));
    QVERIFY(none->isEmpty());
    QVERIFY(none.error().isEmpty());
    const StoreResult<QList<AuditRecord>> noActions = store.operatorActions(0, -1, 10, true);
    QVERIFY2(noActions.ok(), qPrintable(noActions.error()));

    // A table gone (another program's doing): the read that needs it fails and says so.
    QVERIFY2(test::rawExec(url, {QStringLiteral("DROP TABLE operator_audit")}, &error),
             qPrintable(error));
    const StoreResult<QList<AuditRecord>> broken = store.operatorActions(0, -1, 10, true);
    QVERIFY(!broken.ok());
    QVERIFY2(broken.error().contains(QLatin1String("operator_audit")), qPrintable(broken.error()));

    // The reads after it answer for themselves: its error does not make their empty
    // answers failures.
    const StoreResult<QList<qint64>> stillNone = store.attemptIds({});
    QVERIFY2(stillNone.ok(), qPrintable(stillNone.error()));
    QVERIFY(stillNone->isEmpty());
    const StoreResult<qint64> count = store.countAttempts({});
    QVERIFY2(count.ok(), qPrintable(count.error()));
    QCOMPARE(*count, qint64(0));
    const StoreResult<void> visit =
        store.forEachRollup(0, kNow, 60'000, [](const RollupRecord &) { return false; });
    QVERIFY2(visit.ok(), qPrintable(visit.error()));
}

QTEST_GUILESS_MAIN(tst_QueryStore)
#include "tst_querystore.moc"
