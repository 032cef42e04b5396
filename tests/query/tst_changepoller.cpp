// SPDX-License-Identifier: Apache-2.0
#include "core/query/ChangePoller.h"
#include "core/store/Store.h"

#include <QDir>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace cooldown;

namespace {

constexpr qint64 kNow = 1795953600000; // 2026-11-29T12:00:00Z

ChangeToken lastToken(const QSignalSpy &spy)
{
    return spy.isEmpty() ? ChangeToken() : spy.last().first().value<ChangeToken>();
}

} // namespace

class tst_ChangePoller : public QObject
{
    Q_OBJECT

private slots:
    void startPollsAtOnce();
    void tokenChangesWithAnotherConnectionsCommit();
    void everyListenerHearsOnePoll();
    void storeThatDoesNotOpenIsReportedOnce();
};

void tst_ChangePoller::startPollsAtOnce()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    ChangePoller poller(dir.filePath(QStringLiteral("start.db")));
    QSignalSpy polled(&poller, &ChangePoller::polled);
    // The interval is far beyond the test: only the first poll, made at once, counts.
    poller.start(3600 * 1000);
    QCOMPARE(polled.size(), 1);
    QVERIFY(lastToken(polled).value.has_value());
}

void tst_ChangePoller::tokenChangesWithAnotherConnectionsCommit()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString url = dir.filePath(QStringLiteral("changes.db"));
    QString error;
    const std::unique_ptr<Store> writer = Store::open(url, &error);
    QVERIFY2(writer, qPrintable(error));
    ChangePoller poller(url);
    QSignalSpy polled(&poller, &ChangePoller::polled);

    poller.poll();
    const std::optional<QByteArray> first = lastToken(polled).value;
    QVERIFY(first.has_value());
    // Nothing written: the same token.
    poller.poll();
    QCOMPARE(lastToken(polled).value, first);
    // A commit elsewhere: another.
    QVERIFY(writer->setEndpointPaused(QStringLiteral("search"), true, kNow));
    poller.poll();
    QCOMPARE(polled.size(), 3);
    QVERIFY(lastToken(polled).value.has_value());
    QVERIFY(lastToken(polled).value != first);
}

void tst_ChangePoller::everyListenerHearsOnePoll()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    ChangePoller poller(dir.filePath(QStringLiteral("listeners.db")));
    QList<QByteArray> heardByA;
    QList<QByteArray> heardByB;
    connect(&poller, &ChangePoller::polled, this,
            [&heardByA](const ChangeToken &token) { heardByA.append(token.value.value_or("")); });
    connect(&poller, &ChangePoller::polled, this,
            [&heardByB](const ChangeToken &token) { heardByB.append(token.value.value_or("")); });
    poller.poll();
    QCOMPARE(heardByA.size(), 1);
    QCOMPARE(heardByA, heardByB);
}

void tst_ChangePoller::storeThatDoesNotOpenIsReportedOnce()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    // A folder is no database.
    QVERIFY(QDir(dir.path()).mkdir(QStringLiteral("folder.db")));
    ChangePoller poller(dir.filePath(QStringLiteral("folder.db")));
    QSignalSpy polled(&poller, &ChangePoller::polled);
    QSignalSpy failed(&poller, &ChangePoller::failed);
    poller.start(3600 * 1000);
    poller.poll();
    QCOMPARE(failed.size(), 1);
    QVERIFY(!failed.first().first().toString().isEmpty());
    QCOMPARE(polled.size(), 0);
}

QTEST_GUILESS_MAIN(tst_ChangePoller)
#include "tst_changepoller.moc"
