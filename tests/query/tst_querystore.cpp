// SPDX-License-Identifier: Apache-2.0
#include "core/query/QueryStore.h"
#include "core/store/Store.h"

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
    QCOMPARE(store.lastError(), reports.constFirst());
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
    QVERIFY(store.changeToken().has_value());
    QCOMPARE(store.newestAttemptId(), 0);
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
    const std::optional<QByteArray> before = store.changeToken();
    QVERIFY(before.has_value());
    QCOMPARE(store.isEndpointPaused(QStringLiteral("search")).value_or(true), false);

    QVERIFY(writer->setEndpointPaused(QStringLiteral("search"), true, kNow));
    const std::optional<QByteArray> after = store.changeToken();
    QVERIFY(after.has_value());
    QVERIFY(*after != *before);
    QCOMPARE(store.isEndpointPaused(QStringLiteral("search")).value_or(false), true);
    const auto paused = store.pausedEndpointIds();
    QVERIFY(paused.has_value());
    QVERIFY(paused->contains(QStringLiteral("search")));
}

QTEST_GUILESS_MAIN(tst_QueryStore)
#include "tst_querystore.moc"
