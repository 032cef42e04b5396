// SPDX-License-Identifier: Apache-2.0
#include "core/store/CsvExporter.h"

#include "core/Logging.h"
#include "core/http/Redaction.h"
#include "core/store/StoreSql.h"

#include <QMetaObject>
#include <QSaveFile>

#include <limits>

namespace cooldown {

namespace {

// How a cell is written.
enum class Cell
{
    Number,   // always there
    Optional, // empty when it equals the column's "none" (or is negative)
    Time,     // ISO 8601 UTC with milliseconds; empty when negative
    Text,     // neutralised against formulas, quoted when it must be
    Url,      // as Text, redacted again
    Boolean,  // true / false
};

// The export's columns, in order: the header's names and where each cell comes from.
struct Column
{
    const char *name;
    AttemptColumn source;
    Cell cell;
    qint64 none = -1;
};

const Column kColumns[] = {
    {"attempt_id", AttemptColumn::Id, Cell::Number},
    {"operation_id", AttemptColumn::OperationId, Cell::Number},
    {"endpoint_id", AttemptColumn::EndpointId, Cell::Text},
    {"attempt", AttemptColumn::Attempt, Cell::Number},
    {"started_at", AttemptColumn::StartedAt, Cell::Time},
    {"finished_at", AttemptColumn::FinishedAt, Cell::Time},
    {"duration_ms", AttemptColumn::DurationMs, Cell::Optional},
    {"method", AttemptColumn::Method, Cell::Text},
    {"url", AttemptColumn::Url, Cell::Url},
    {"status", AttemptColumn::Status, Cell::Optional, 0},
    {"error", AttemptColumn::Error, Cell::Text},
    {"decision", AttemptColumn::Decision, Cell::Text},
    {"reason", AttemptColumn::Reason, Cell::Text},
    {"wait_ms", AttemptColumn::WaitMs, Cell::Optional},
    {"wait_source", AttemptColumn::WaitSource, Cell::Text},
    {"retry_after_raw", AttemptColumn::RetryAfterRaw, Cell::Text},
    {"problem_type", AttemptColumn::ProblemType, Cell::Text},
    {"problem_instance", AttemptColumn::ProblemInstance, Cell::Text},
    {"rate_limit_remaining", AttemptColumn::RateLimitRemaining, Cell::Optional},
    {"idempotency_key", AttemptColumn::IdempotencyKey, Cell::Text},
    {"worker_id", AttemptColumn::WorkerId, Cell::Text},
    {"policy_id", AttemptColumn::PolicyId, Cell::Text},
    {"policy_version", AttemptColumn::PolicyVersion, Cell::Optional, 0},
    {"forced", AttemptColumn::Forced, Cell::Boolean},
    {"lease_conflict", AttemptColumn::LeaseConflict, Cell::Boolean},
    {"operation_state", AttemptColumn::OperationState, Cell::Text},
};

// Days since 1970-01-01 to a civil date (proleptic Gregorian), as in H. Hinnant's
// "chrono-compatible low-level date algorithms"; QDateTime costs a microsecond a cell.
void civilFromDays(qint64 z, qint64 *y, unsigned *m, unsigned *d)
{
    z += 719468;
    const qint64 era = (z >= 0 ? z : z - 146096) / 146097;
    const unsigned doe = static_cast<unsigned>(z - era * 146097);
    const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const unsigned mp = (5 * doy + 2) / 153;
    *d = doy - (153 * mp + 2) / 5 + 1;
    *m = mp < 10 ? mp + 3 : mp - 9;
    *y = static_cast<qint64>(yoe) + era * 400 + (*m <= 2 ? 1 : 0);
}

void appendDigits(QByteArray *out, qint64 value, int width)
{
    char buffer[24];
    int length = 0;
    do {
        buffer[length++] = char('0' + value % 10);
        value /= 10;
    } while (value > 0 || length < width);
    while (length > 0)
        out->append(buffer[--length]);
}

void appendNumber(QByteArray *out, qint64 value)
{
    if (value < 0) {
        out->append('-');
        value = -value;
    }
    appendDigits(out, value, 1);
}

// Counts and times use -1 (or 0 for a status) for "none": those stay empty cells.
void appendOptional(QByteArray *out, qint64 value, qint64 none)
{
    if (value != none && value >= 0)
        appendNumber(out, value);
}

void appendTextCell(QByteArray *out, QByteArrayView utf8)
{
    if (utf8.isEmpty())
        return;
    const char first = utf8.front();
    const bool formula = first == '=' || first == '+' || first == '-' || first == '@' ||
                         first == '\t' || first == '\r' || first == '\n';
    bool quote = false;
    for (const char c : utf8) {
        if (c == ',' || c == '"' || c == '\r' || c == '\n') {
            quote = true;
            break;
        }
    }
    if (!quote) {
        if (formula)
            out->append('\'');
        out->append(utf8);
        return;
    }
    out->append('"');
    if (formula)
        out->append('\'');
    for (const char c : utf8) {
        if (c == '"')
            out->append('"');
        out->append(c);
    }
    out->append('"');
}

// A URL without user info, query or fragment has nothing to redact: most of them.
void appendUrlCell(QByteArray *out, QByteArrayView utf8)
{
    const bool plain = !utf8.contains('@') && !utf8.contains('?') && !utf8.contains('#');
    if (plain)
        appendTextCell(out, utf8);
    else
        appendTextCell(out, redaction::redactUrl(QString::fromUtf8(utf8)).toUtf8());
}

void appendTime(QByteArray *out, qint64 ms)
{
    if (ms < 0)
        return;
    const qint64 days = ms / 86400000;
    qint64 rest = ms % 86400000;
    qint64 year = 0;
    unsigned month = 0;
    unsigned day = 0;
    civilFromDays(days, &year, &month, &day);
    appendDigits(out, year, 4);
    out->append('-');
    appendDigits(out, month, 2);
    out->append('-');
    appendDigits(out, day, 2);
    out->append('T');
    appendDigits(out, rest / 3600000, 2);
    rest %= 3600000;
    out->append(':');
    appendDigits(out, rest / 60000, 2);
    rest %= 60000;
    out->append(':');
    appendDigits(out, rest / 1000, 2);
    out->append('.');
    appendDigits(out, rest % 1000, 3);
    out->append('Z');
}

} // namespace

CsvExporter::CsvExporter(QObject *parent) : QObject(parent) {}

CsvExporter::~CsvExporter() = default;

QStringList CsvExporter::columnNames()
{
    QStringList names;
    for (const Column &column : kColumns)
        names.append(QLatin1String(column.name));
    return names;
}

QByteArray CsvExporter::textCell(const QString &value)
{
    QByteArray out;
    appendTextCell(&out, value.toUtf8());
    return out;
}

QByteArray CsvExporter::isoTime(qint64 msSinceEpoch)
{
    QByteArray out;
    appendTime(&out, msSinceEpoch);
    return out;
}

QStringList CsvExporter::rollupColumnNames()
{
    return {QStringLiteral("minute"),       QStringLiteral("endpoint_id"),
            QStringLiteral("policy_id"),    QStringLiteral("partition_key"),
            QStringLiteral("status_class"), QStringLiteral("decision"),
            QStringLiteral("wait_source"),  QStringLiteral("reason"),
            QStringLiteral("attempts"),     QStringLiteral("wait_ms"),
            QStringLiteral("queue_ms"),     QStringLiteral("duration_ms")};
}

QStringList CsvExporter::auditColumnNames()
{
    return {QStringLiteral("id"),        QStringLiteral("at"),     QStringLiteral("actor"),
            QStringLiteral("worker_id"), QStringLiteral("action"), QStringLiteral("target"),
            QStringLiteral("asked"),     QStringLiteral("changed")};
}

QByteArray CsvExporter::auditCsv(const QList<AuditRecord> &rows)
{
    QByteArray out = auditColumnNames().join(QLatin1Char(',')).toUtf8() + "\r\n";
    for (const AuditRecord &row : rows) {
        appendNumber(&out, row.id);
        out += ',';
        appendTime(&out, row.atMs);
        // The actor comes from --as and the target from a filter an operator typed:
        // both are neutralised like any text cell.
        for (const QString &text : {row.actor, row.workerId, toString(row.action), row.target}) {
            out += ',';
            appendTextCell(&out, text.toUtf8());
        }
        for (const qint64 value : {row.asked, row.changed}) {
            out += ',';
            appendNumber(&out, value);
        }
        out += "\r\n";
    }
    return out;
}

qint64 CsvExporter::writeRollups(Store *store, qint64 fromMs, qint64 toMs,
                                 const QString &endpointId, const QString &fileName, QString *error,
                                 const std::function<bool()> &cancelled)
{
    QSaveFile file(fileName);
    if (!file.open(QIODevice::WriteOnly)) {
        *error = QStringLiteral("cannot write '%1': %2").arg(fileName, file.errorString());
        return -1;
    }
    QByteArray chunk = rollupColumnNames().join(QLatin1Char(',')).toUtf8() + "\r\n";
    qint64 rows = 0;
    bool writeFailed = false;
    bool stopped = false;
    const auto flush = [&] {
        if (file.write(chunk) != chunk.size())
            writeFailed = true;
        chunk.clear();
        return !writeFailed;
    };
    const bool read = store->forEachRollup(
        std::max<qint64>(0, fromMs), toMs >= 0 ? toMs : std::numeric_limits<qint64>::max(), 60000,
        [&](const RollupRecord &row) {
            if (!endpointId.isEmpty() && row.endpointId != endpointId)
                return true;
            appendTime(&chunk, row.minuteAtMs);
            for (const QString &text : {row.endpointId, row.policyId, row.partitionKey,
                                        row.statusClass, storesql::rollupDecisionText(row.decision),
                                        storesql::waitSourceText(row.waitSource), row.reason}) {
                chunk += ',';
                appendTextCell(&chunk, text.toUtf8());
            }
            for (const qint64 value : {row.attempts, row.waitMs, row.queueMs, row.durationMs}) {
                chunk += ',';
                appendNumber(&chunk, value);
            }
            chunk += "\r\n";
            if (++rows % 5000 == 0) {
                if (!flush())
                    return false;
                if (cancelled && cancelled()) {
                    stopped = true;
                    return false;
                }
            }
            return true;
        });
    if (stopped) {
        *error = QStringLiteral("cancelled");
        return -1;
    }
    if (!read && !writeFailed) {
        *error = QStringLiteral("cannot read rollups: %1").arg(store->lastError());
        return -1;
    }
    if (writeFailed || !flush() || !file.commit()) {
        *error = QStringLiteral("cannot write '%1': %2").arg(fileName, file.errorString());
        return -1;
    }
    return rows;
}

void CsvExporter::start(Store *store, const AttemptFilter &filter, const QString &fileName)
{
    if (m_running)
        return;
    m_running = true;
    m_cancelRequested = false;
    m_rowsWritten = 0;
    m_totalRows = 0;
    m_fileName = fileName;

    // Every outcome, early failures included, is reported from the event loop so that
    // a caller connecting after start() still hears it.
    auto later = [this](Error error, const QString &text) {
        QMetaObject::invokeMethod(
            this, [this, error, text] { finish(error, text); }, Qt::QueuedConnection);
    };
    if (!store) {
        later(QueryFailed, QStringLiteral("no database to export from"));
        return;
    }
    m_totalRows = store->countAttempts(filter);
    if (m_totalRows < 0) {
        later(QueryFailed, QStringLiteral("cannot count attempts: %1").arg(store->lastError()));
        return;
    }
    m_file = std::make_unique<QSaveFile>(fileName);
    if (!m_file->open(QIODevice::WriteOnly)) {
        later(OpenFailed,
              QStringLiteral("cannot write '%1': %2").arg(fileName, m_file->errorString()));
        return;
    }
    m_cursor = store->streamAttempts(filter, false);
    if (!m_cursor) {
        later(QueryFailed, QStringLiteral("cannot read attempts: %1").arg(store->lastError()));
        return;
    }
    QByteArray header;
    for (const Column &column : kColumns) {
        if (!header.isEmpty())
            header.append(',');
        header.append(column.name);
    }
    header.append("\r\n");
    if (m_file->write(header) != header.size()) {
        later(WriteFailed,
              QStringLiteral("cannot write '%1': %2").arg(fileName, m_file->errorString()));
        return;
    }
    QMetaObject::invokeMethod(this, &CsvExporter::writeChunk, Qt::QueuedConnection);
}

void CsvExporter::cancel()
{
    if (m_running)
        m_cancelRequested = true;
}

void CsvExporter::appendRow(const AttemptCursor &row, QByteArray *out)
{
    bool first = true;
    for (const Column &column : kColumns) {
        if (!first)
            out->append(',');
        first = false;
        switch (column.cell) {
        case Cell::Number:
            appendNumber(out, row.integer(column.source));
            break;
        case Cell::Optional:
            appendOptional(out, row.integer(column.source), column.none);
            break;
        case Cell::Time:
            appendTime(out, row.integer(column.source));
            break;
        case Cell::Text:
            appendTextCell(out, row.text(column.source));
            break;
        case Cell::Url:
            // The store redacted it on the way in; redacting again costs little and
            // keeps a database written by an older version from leaking through.
            appendUrlCell(out, row.text(column.source));
            break;
        case Cell::Boolean:
            out->append(row.integer(column.source) ? "true" : "false");
            break;
        }
    }
    out->append("\r\n");
}

void CsvExporter::writeChunk()
{
    if (!m_running)
        return;
    if (m_cancelRequested) {
        finish(
            Cancelled,
            QStringLiteral("export cancelled after %1 rows; no file written").arg(m_rowsWritten));
        return;
    }
    QByteArray chunk;
    chunk.reserve(m_chunkSize * 256);
    int rows = 0;
    bool atEnd = false;
    while (rows < m_chunkSize) {
        if (!m_cursor->next()) {
            atEnd = true;
            break;
        }
        appendRow(*m_cursor, &chunk);
        ++rows;
    }
    if (atEnd && !m_cursor->error().isEmpty()) {
        finish(QueryFailed, QStringLiteral("reading attempts failed after %1 rows: %2")
                                .arg(m_rowsWritten)
                                .arg(m_cursor->error()));
        return;
    }
    if (m_file->write(chunk) != chunk.size()) {
        finish(WriteFailed,
               QStringLiteral("cannot write '%1': %2").arg(m_fileName, m_file->errorString()));
        return;
    }
    m_rowsWritten += rows;
    Q_EMIT progress(m_rowsWritten, std::max(m_totalRows, m_rowsWritten));
    if (!atEnd) {
        QMetaObject::invokeMethod(this, &CsvExporter::writeChunk, Qt::QueuedConnection);
        return;
    }
    m_cursor.reset();
    if (!m_file->commit()) {
        finish(WriteFailed,
               QStringLiteral("cannot write '%1': %2").arg(m_fileName, m_file->errorString()));
        return;
    }
    finish(NoError,
           QStringLiteral("exported %1 attempts to '%2'").arg(m_rowsWritten).arg(m_fileName));
}

void CsvExporter::finish(Error error, const QString &text)
{
    if (!m_running)
        return;
    m_running = false;
    m_cursor.reset();
    // Dropping an uncommitted QSaveFile removes its temporary file: no half export.
    m_file.reset();
    if (error != NoError)
        qCWarning(lcStore).noquote() << text;
    Q_EMIT finished(error, text);
}

} // namespace cooldown
