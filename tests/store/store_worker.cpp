// SPDX-License-Identifier: Apache-2.0
// A worker process for tst_storeprocesses: it claims and finishes operations in a loop
// and reports each durable step on stdout, so that the test can count claims across
// processes or kill it mid-run. Time is a fixed argument: nothing here reads a clock.
//
//   store_worker claim DB WORKER NOW_MS LEASE_MS BATCH   says "ready", waits for "go" on
//                                                         stdin, claims until nothing is due
//   store_worker write DB WORKER NOW_MS LEASE_MS         claim and record forever

#include "core/store/Store.h"
#include "support/AttemptFixture.h"

#include <QCoreApplication>
#include <QTextStream>

#include <cstdio>

using namespace cooldown;

namespace {

AttemptRecord attemptFor(const OperationRecord &op, const QString &worker, qint64 nowMs)
{
    AttemptRecord a = test::nextAttempt(op, nowMs, nowMs + 1);
    a.durationMs = 1;
    a.method = QStringLiteral("GET");
    a.url = QStringLiteral("https://h/x");
    a.status = 503;
    a.decision = Decision::Retry;
    a.workerId = worker;
    return a;
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments();
    if (args.size() < 6) {
        std::fprintf(stderr,
                     "usage: store_worker open|claim|write DB WORKER NOW_MS LEASE_MS [BATCH]\n");
        return 2;
    }
    const QString mode = args.at(1);
    const QString worker = args.at(3);
    const qint64 nowMs = args.at(4).toLongLong();
    const qint64 leaseMs = args.at(5).toLongLong();
    const int batch = args.size() > 6 ? args.at(6).toInt() : 1;
    QString error;
    std::unique_ptr<Store> store = Store::open(args.at(2), &error);
    if (!store) {
        std::fprintf(stderr, "%s\n", qPrintable(error));
        return 1;
    }
    QTextStream out(stdout);
    if (mode == QLatin1String("open"))
        return 0; // opening (creating, migrating) was the work
    if (mode == QLatin1String("claim")) {
        // Workers that compete start together: each says it is ready and waits for
        // the test's "go" on stdin.
        out << "ready\n";
        out.flush();
        QTextStream in(stdin);
        if (in.readLine() != QLatin1String("go"))
            return 2;
    }
    while (true) {
        const QList<OperationRecord> claimed =
            store->claims().claimDue(worker, nowMs, leaseMs, batch);
        if (claimed.isEmpty()) {
            if (!store->lastError().isEmpty()) {
                std::fprintf(stderr, "claim failed: %s\n", qPrintable(store->lastError()));
                return 1;
            }
            if (mode == QLatin1String("claim"))
                return 0;
            continue;
        }
        for (const OperationRecord &op : claimed) {
            if (mode == QLatin1String("claim"))
                out << "claimed " << op.id << '\n';
            const AttemptRecord attempt = attemptFor(op, worker, nowMs);
            // claim: each operation ends; write: it is due again at once, forever.
            const OperationRecord next =
                test::leftIn(op, attempt,
                             mode == QLatin1String("claim") ? OperationState::Succeeded
                                                            : OperationState::Waiting,
                             nowMs);
            if (test::finishAttempt(*store, attempt, next, worker) !=
                Store::FinishResult::Committed) {
                std::fprintf(stderr, "finish failed: %s\n", qPrintable(store->lastError()));
                return 1;
            }
            if (mode == QLatin1String("write"))
                out << "committed " << op.id << ' ' << attempt.attempt << '\n';
            out.flush();
        }
    }
}
