// Export of 1,000,000 attempt rows: `cooldown export` against `sqlite3 -csv` on the
// same database, in the same run. Both run as child processes; their times are wall
// times and their peak memory is each child's own high-water mark (wait4). Then both
// files are parsed and compared cell by cell.
//
//   bench_export [--smoke] [--rows N] [--sqlite3 PATH] [--cooldown PATH] [--keep]

#include "bench/BenchSupport.h"
#include "bench/CsvStream.h"
#include "core/store/Store.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QTemporaryDir>

#include <algorithm>
#include <cstring>

using namespace cooldown;
using namespace cooldown::bench;

namespace {

const char *const kColumns[] = {
    "attempt_id", "operation_id", "endpoint_id", "attempt", "started_at", "finished_at",
    "duration_ms", "method", "url", "status", "error", "decision", "reason", "wait_ms",
    "wait_source", "retry_after_raw", "problem_type", "problem_instance",
    "rate_limit_remaining", "idempotency_key", "worker_id", "policy_id", "policy_version",
    "forced", "lease_conflict", "operation_state",
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

// Cells that a spreadsheet could misread, quoting trouble, and non-ASCII text: mixed
// into the rows so that the comparison has something to catch.
const char *const kHostile[] = {
    "=HYPERLINK(\"http://x\",\"y\")", "+1+2", "-3", "@SUM(A1)", "\ttabbed", "comma, inside",
    "line\nbreak", "quote \" inside", "caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac", "\r\nleading CRLF",
};

void seed(const QString &path, qint64 rows)
{
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    {
        QString error;
        std::unique_ptr<Store> store = Store::open(path, &error);
        if (!store)
            die(error);
    }
    Database db(path);
    db.useStoreSettings();
    const qint64 perOperation = 10;
    const qint64 operations = (rows + perOperation - 1) / perOperation;
    const char *const states[] = {"succeeded", "failed", "waiting", "parked", "cancelled"};
    const char *const endpoints[] = {"measurements", "uploads", "reports", "health"};
    db.exec("BEGIN");
    {
        Statement op(db.handle(),
                     "INSERT INTO operations (id, endpoint_id, state, attempt, created_at,"
                     " next_attempt_at, idempotency_key) VALUES (?, ?, ?, ?, ?, ?, ?)");
        for (qint64 i = 1; i <= operations; ++i) {
            op.bind(1, i);
            op.bind(2, std::string(endpoints[i % 4]));
            op.bind(3, std::string(states[i % 5]));
            op.bind(4, perOperation);
            op.bind(5, now - 86400000 + i);
            op.bind(6, qint64(-1));
            op.bind(7, "key-" + std::to_string(i));
            op.step();
            op.reset();
        }
    }
    Statement insert(
        db.handle(),
        "INSERT INTO attempts (operation_id, endpoint_id, attempt, started_at, finished_at,"
        " method, url, status, error, decision, reason, wait_ms, wait_source, retry_after_raw,"
        " problem_type, problem_instance, rate_limit_remaining, idempotency_key, duration_ms,"
        " worker_id, policy_id, policy_version, forced, request_headers, response_headers,"
        " lease_conflict) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,"
        " ?, ?, ?, ?, ?)");
    const std::string empty;
    for (qint64 i = 0; i < rows; ++i) {
        const qint64 operation = 1 + i / perOperation;
        const qint64 attempt = 1 + i % perOperation;
        const bool throttled = i % 7 == 3;
        const bool broken = i % 11 == 5;
        const int status = broken ? 0 : throttled ? 429 : i % 13 == 0 ? 503 : 200;
        const qint64 started = now - 86400000 + i * 37;
        const std::string hostile = kHostile[i % 10];
        const bool odd = i % 101 == 0;
        insert.bind(1, operation);
        insert.bind(2, std::string(endpoints[operation % 4]));
        insert.bind(3, attempt);
        insert.bind(4, started);
        insert.bind(5, started + 40 + i % 200);
        insert.bind(6, std::string(i % 3 == 0 ? "POST" : "GET"));
        insert.bind(7, "https://api.example.com/v1/measurements?page=" + std::to_string(i % 500) +
                           "&sort=desc");
        insert.bind(8, qint64(status));
        insert.bind(9, broken ? std::string("connection_closed") : empty);
        insert.bind(10, std::string(status == 200 ? "success" : broken ? "park" : "retry"));
        insert.bind(11, odd ? hostile : std::string(status == 200 ? "ok" : "throttled"));
        insert.bind(12, status == 200 ? qint64(-1) : qint64(1000 + i % 60000));
        insert.bind(13, std::string(status == 200 ? "none" : throttled ? "retry_after" : "backoff"));
        insert.bind(14, throttled ? (i % 2 ? std::string("Wed, 21 Oct 2026 07:28:00 GMT")
                                           : std::to_string(i % 120))
                                  : empty);
        insert.bind(15, throttled ? std::string("https://iana.org/assignments/http-problem-types#quota-exceeded")
                                  : empty);
        insert.bind(16, throttled ? "/requests/" + std::to_string(i) : empty);
        insert.bind(17, i % 5 == 0 ? qint64(-1) : qint64(i % 120));
        insert.bind(18, "9f0c4a2e-1b7d-4c55-8e21-" + std::to_string(100000000000 + operation));
        insert.bind(19, qint64(40 + i % 200));
        insert.bind(20, odd ? hostile : std::string("worker-a:4242:00017"));
        insert.bind(21, std::string(i % 4 == 0 ? "" : "project-read-v1"));
        insert.bind(22, qint64(i % 4 == 0 ? 0 : 1 + i % 3));
        insert.bind(23, qint64(i % 97 == 0 ? 1 : 0));
        insert.bind(24, std::string("Accept: */*\n"));
        insert.bind(25, std::string("Server: nginx\nContent-Type: application/json\n"));
        insert.bind(26, qint64(i % 499 == 0 ? 1 : 0));
        insert.step();
        insert.reset();
    }
    db.exec("COMMIT");
    db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
}

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
        std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d.%3d%c", &y, &mo, &d, &h, &mi, &s,
                    &milli, &z) != 8 ||
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
        if (int(a.size()) != kColumnCount || int(b.size()) != kColumnCount || a[size_t(c)] != kColumns[c] ||
            b[size_t(c)] != kColumns[c]) {
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
            result.problem = QStringLiteral("row %1 has %2 and %3 cells").arg(result.rows).arg(a.size()).arg(b.size());
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

QString option(const QStringList &args, const QString &name, const QString &fallback)
{
    const qsizetype at = args.indexOf(name);
    return at >= 0 && at + 1 < args.size() ? args.at(at + 1) : fallback;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments();
    g_smoke = args.contains(QStringLiteral("--smoke"));
    const qint64 rows = option(args, QStringLiteral("--rows"), g_smoke ? QStringLiteral("5000")
                                                                       : QStringLiteral("1000000"))
                            .toLongLong();
    const QString sqlite3 = option(args, QStringLiteral("--sqlite3"), QStringLiteral("sqlite3"));
    const QString cooldown = option(args, QStringLiteral("--cooldown"), QStringLiteral(COOLDOWN_BINARY));
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
    seed(db, rows);
    note(QStringLiteral("seeded %1 attempts in %2 s").arg(rows).arg(number(seconds(seedTimer), 1)));

    // Alternating runs, best time of each: the page cache is equally warm for both.
    const int runs = g_smoke ? 1 : 2;
    ChildRun best[2];
    qint64 peak[2] = {0, 0};
    for (int run = 0; run < runs; ++run) {
        const ChildRun ref = runChild({sqlite3, QStringLiteral("-csv"), QStringLiteral("-header"), db,
                                       QString::fromLatin1(kReferenceSql)},
                                      reference);
        const ChildRun ours = runChild({cooldown, QStringLiteral("export"), QStringLiteral("--db"), db,
                                        QStringLiteral("--out"), exported},
                                       dir.filePath(QStringLiteral("export.log")));
        if (ref.exitCode != 0 || ours.exitCode != 0)
            die(QStringLiteral("sqlite3 exited %1, cooldown export exited %2").arg(ref.exitCode).arg(ours.exitCode));
        note(QStringLiteral("run %1: sqlite3 -csv %2 s (cpu %3 s), %4 peak; cooldown export %5 s"
                            " (cpu %6 s), %7 peak")
                 .arg(run + 1)
                 .arg(number(ref.seconds, 2), number(ref.cpuSeconds, 2), megabytes(ref.peakRssBytes),
                      number(ours.seconds, 2), number(ours.cpuSeconds, 2),
                      megabytes(ours.peakRssBytes)));
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
           QStringLiteral("%1 (%2%3)").arg(megabytes(peak[1]), extra >= 0 ? QStringLiteral("+") : QString(), megabytes(extra)),
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
