// SPDX-License-Identifier: Apache-2.0
// Export of 1,000,000 attempt rows: `cooldown export` against `sqlite3 -csv` on the
// same database, in the same run. Both run as child processes; their times are wall
// times and their peak memory is each child's own high-water mark (wait4). Then both
// files are parsed and compared cell by cell.
//
//   bench_export [--smoke] [--rows N] [--sqlite3 PATH] [--cooldown PATH] [--keep]

#include "bench/AttemptSeed.h"
#include "bench/BenchSupport.h"
#include "bench/CsvStream.h"

#include <QCoreApplication>
#include <QTemporaryDir>

#include <algorithm>
#include <cstring>

using namespace cooldown;
using namespace cooldown::bench;

namespace {

const char *const kColumns[] = {
    "attempt_id",
    "operation_id",
    "endpoint_id",
    "attempt",
    "started_at",
    "finished_at",
    "duration_ms",
    "method",
    "url",
    "status",
    "error",
    "decision",
    "reason",
    "wait_ms",
    "wait_source",
    "retry_after_raw",
    "problem_type",
    "problem_instance",
    "rate_limit_remaining",
    "idempotency_key",
    "worker_id",
    "policy_id",
    "policy_version",
    "forced",
    "lease_conflict",
    "operation_state",
};
constexpr int kColumnCount = int(sizeof kColumns / sizeof kColumns[0]);

// The reference query: the same rows and columns, as stored.
const char kReferenceSql[] =
    "SELECT a.id AS attempt_id, a.operation_id, a.endpoint_id, a.attempt, a.started_at,"
    " a.finished_at, a.duration_ms, a.method, a.url, a.status, a.error, a.decision, a.reason,"
    " a.wait_ms, a.wait_source, a.retry_after_raw, a.problem_type, a.problem_instance,"
    " a.rate_limit_remaining, a.idempotency_key, a.worker_id, a.policy_id, a.policy_version,"
    " a.forced, a.lease_conflict, o.state AS operation_state"
    " FROM attempts AS a JOIN operations AS o ON o.id = a.operation_id ORDER BY a.id";

// days since 1970-01-01 of a civil date (H. Hinnant's algorithm).
qint64 daysFromCivil(qint64 y, unsigned m, unsigned d)
{
    y -= m <= 2;
    const qint64 era = (y >= 0 ? y : y - 399) / 400;
    const unsigned yoe = unsigned(y - era * 400);
    const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + qint64(doe) - 719468;
}

// "2026-11-29T12:00:00.000Z" to milliseconds; false when it is not that shape.
bool parseIso(const std::string &text, qint64 *ms)
{
    int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0, milli = 0;
    char z = 0;
    if (text.size() != 24 ||
        std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d.%3d%c", &y, &mo, &d, &h, &mi, &s, &milli,
                    &z) != 8 ||
        z != 'Z')
        return false;
    *ms = ((daysFromCivil(y, unsigned(mo), unsigned(d)) * 24 + h) * 60 + mi) * 60000 +
          qint64(s) * 1000 + milli;
    return true;
}

enum class Kind
{
    Integer,     // as stored
    Time,        // ISO 8601 UTC with ms; empty for a negative time
    Optional,    // empty for a negative value
    OptionalPos, // empty for zero or less
    Boolean,     // true / false for 1 / 0
    Text,        // a leading apostrophe for cells a spreadsheet would run
};

Kind kindOf(int column)
{
    switch (column) {
    case 0:
    case 1:
    case 3:
        return Kind::Integer;
    case 4:
    case 5:
        return Kind::Time;
    case 6:
    case 13:
    case 18:
        return Kind::Optional;
    case 9:
    case 22:
        return Kind::OptionalPos;
    case 23:
    case 24:
        return Kind::Boolean;
    default:
        return Kind::Text;
    }
}

// Whether cooldown's cell says what the stored value (sqlite3's cell) says.
bool sameCell(Kind kind, const std::string &exported, const std::string &stored)
{
    switch (kind) {
    case Kind::Integer:
        return exported == stored;
    case Kind::Time: {
        const qint64 value = std::stoll(stored);
        qint64 ms = 0;
        return value < 0 ? exported.empty() : parseIso(exported, &ms) && ms == value;
    }
    case Kind::Optional:
        return std::stoll(stored) < 0 ? exported.empty() : exported == stored;
    case Kind::OptionalPos:
        return std::stoll(stored) <= 0 ? exported.empty() : exported == stored;
    case Kind::Boolean:
        return exported == (stored == "1" ? "true" : "false");
    case Kind::Text:
        if (!stored.empty() && std::strchr("=+-@\t\r\n", stored.front()))
            return exported == "'" + stored;
        return exported == stored;
    }
    return false;
}

struct Comparison
{
    bool identical = false;
    qint64 rows = 0;
    QString problem;
};

Comparison compare(const QString &exportedPath, const QString &referencePath, qint64 expectedRows)
{
    Comparison result;
    CsvStream exported(exportedPath.toLocal8Bit().constData());
    CsvStream reference(referencePath.toLocal8Bit().constData());
    if (!exported.isOpen() || !reference.isOpen()) {
        result.problem = QStringLiteral("cannot read the CSV files");
        return result;
    }
    std::vector<std::string> a;
    std::vector<std::string> b;
    if (!exported.nextRow(&a) || !reference.nextRow(&b)) {
        result.problem = QStringLiteral("a file has no header row");
        return result;
    }
    for (int c = 0; c < kColumnCount; ++c) {
        if (int(a.size()) != kColumnCount || int(b.size()) != kColumnCount ||
            a[size_t(c)] != kColumns[c] || b[size_t(c)] != kColumns[c]) {
            result.problem = QStringLiteral("the header rows differ from the documented columns");
            return result;
        }
    }
    while (true) {
        const bool moreA = exported.nextRow(&a);
        const bool moreB = reference.nextRow(&b);
        if (!moreA || !moreB) {
            if (!exported.error().empty() || !reference.error().empty())
                result.problem = QString::fromStdString(exported.error() + reference.error());
            else if (moreA != moreB)
                result.problem = QStringLiteral("row counts differ after %1 rows").arg(result.rows);
            break;
        }
        ++result.rows;
        if (a.size() != b.size() || int(a.size()) != kColumnCount) {
            result.problem = QStringLiteral("row %1 has %2 and %3 cells")
                                 .arg(result.rows)
                                 .arg(a.size())
                                 .arg(b.size());
            return result;
        }
        for (int c = 0; c < kColumnCount; ++c) {
            if (!sameCell(kindOf(c), a[size_t(c)], b[size_t(c)])) {
                result.problem = QStringLiteral("row %1, column %2: exported '%3', stored '%4'")
                                     .arg(result.rows)
                                     .arg(QLatin1String(kColumns[c]))
                                     .arg(QString::fromStdString(a[size_t(c)]),
                                          QString::fromStdString(b[size_t(c)]));
                return result;
            }
        }
    }
    if (result.problem.isEmpty() && result.rows != expectedRows)
        result.problem = QStringLiteral("%1 rows, expected %2").arg(result.rows).arg(expectedRows);
    result.identical = result.problem.isEmpty();
    return result;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments();
    g_smoke = args.contains(QStringLiteral("--smoke"));
    const qint64 rows = option(args, QStringLiteral("--rows"),
                               g_smoke ? QStringLiteral("5000") : QStringLiteral("1000000"))
                            .toLongLong();
    const QString sqlite3 = option(args, QStringLiteral("--sqlite3"), QStringLiteral("sqlite3"));
    const QString cooldown =
        option(args, QStringLiteral("--cooldown"), QStringLiteral(COOLDOWN_BINARY));
    QTemporaryDir dir;
    if (!dir.isValid() || rows <= 0)
        die(QStringLiteral("no temporary folder, or a bad --rows"));
    if (args.contains(QStringLiteral("--keep"))) {
        dir.setAutoRemove(false);
        note(QStringLiteral("files kept in %1").arg(dir.path()));
    }
    const QString db = dir.filePath(QStringLiteral("export.db"));
    const QString exported = dir.filePath(QStringLiteral("cooldown.csv"));
    const QString reference = dir.filePath(QStringLiteral("sqlite3.csv"));

    note(QStringLiteral("load average: %1").arg(loadAverage()));
    QElapsedTimer seedTimer;
    seedTimer.start();
    seedAttempts(db, rows);
    note(QStringLiteral("seeded %1 attempts in %2 s").arg(rows).arg(number(seconds(seedTimer), 1)));

    // Alternating runs, best time of each: the page cache is equally warm for both.
    const int runs = g_smoke ? 1 : 2;
    ChildRun best[2];
    qint64 peak[2] = {0, 0};
    for (int run = 0; run < runs; ++run) {
        const ChildRun ref = runChild({sqlite3, QStringLiteral("-csv"), QStringLiteral("-header"),
                                       db, QString::fromLatin1(kReferenceSql)},
                                      reference);
        const ChildRun ours = runChild({cooldown, QStringLiteral("export"), QStringLiteral("--db"),
                                        db, QStringLiteral("--out"), exported},
                                       dir.filePath(QStringLiteral("export.log")));
        if (ref.exitCode != 0 || ours.exitCode != 0)
            die(QStringLiteral("sqlite3 exited %1, cooldown export exited %2")
                    .arg(ref.exitCode)
                    .arg(ours.exitCode));
        note(QStringLiteral("run %1: sqlite3 -csv %2 s (cpu %3 s), %4 peak; cooldown export %5 s"
                            " (cpu %6 s), %7 peak")
                 .arg(run + 1)
                 .arg(number(ref.seconds, 2), number(ref.cpuSeconds, 2),
                      megabytes(ref.peakRssBytes), number(ours.seconds, 2),
                      number(ours.cpuSeconds, 2), megabytes(ours.peakRssBytes)));
        const ChildRun both[2] = {ref, ours};
        for (int k = 0; k < 2; ++k) {
            if (run == 0 || both[k].seconds < best[k].seconds)
                best[k] = both[k];
            peak[k] = std::max(peak[k], both[k].peakRssBytes);
        }
    }

    QElapsedTimer compareTimer;
    compareTimer.start();
    const Comparison same = compare(exported, reference, rows);
    note(QStringLiteral("compared %1 rows x %2 columns in %3 s")
             .arg(same.rows)
             .arg(kColumnCount)
             .arg(number(seconds(compareTimer), 1)));

    const double speed = best[0].seconds / best[1].seconds;
    const qint64 extra = peak[1] - peak[0];
    report(QStringLiteral("export %1 rows: cooldown export, speed").arg(rows),
           QStringLiteral("sqlite3 -csv: %1 s").arg(number(best[0].seconds, 2)),
           QStringLiteral("%1 s").arg(number(best[1].seconds, 2)), ratioText(speed),
           QStringLiteral(">= 0.50x"), speed >= 0.5);
    report(QStringLiteral("export %1 rows: cooldown export, peak memory").arg(rows),
           QStringLiteral("sqlite3 -csv: %1").arg(megabytes(peak[0])),
           QStringLiteral("%1 (%2%3)")
               .arg(megabytes(peak[1]), extra >= 0 ? QStringLiteral("+") : QString(),
                    megabytes(extra)),
           ratioText(double(peak[1]) / double(peak[0])), QStringLiteral("<= +64 MB"),
           extra <= 64LL * 1024 * 1024);
    report(QStringLiteral("export %1 rows: parsed content").arg(rows),
           QStringLiteral("sqlite3 -csv cells"),
           same.identical ? QStringLiteral("identical, %1 rows").arg(same.rows) : same.problem,
           QStringLiteral("-"), QStringLiteral("identical"), same.identical);
    if (g_smoke && !same.identical)
        die(same.problem);
    return g_failures > 0 ? 1 : 0;
}
