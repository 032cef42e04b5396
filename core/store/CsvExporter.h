// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/store/Store.h"

#include <QByteArray>
#include <QObject>
#include <QString>
#include <QStringList>

#include <functional>
#include <memory>

class QSaveFile;

namespace cooldown {

// Writes the attempt history as CSV: RFC 4180 quoting, CRLF line ends, UTF-8
// without a byte order mark, a header row, one row per attempt, times as ISO 8601
// UTC with milliseconds. Text cells that a spreadsheet would run as a formula (a
// first character of = + - @ tab CR LF) get a leading apostrophe.
//
// Rows stream from a forward-only query in chunks, one chunk per turn of the event
// loop, so memory stays flat and the caller's thread stays responsive. The file
// appears, whole, only when the export succeeds: it is written to a temporary file
// in the same folder and renamed at the end. finished() is emitted exactly once per
// start(), always from the event loop, never from inside start().
class CsvExporter final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(CsvExporter)

public:
    enum Error
    {
        NoError = 0,
        OpenFailed,
        QueryFailed,
        WriteFailed,
        Cancelled
    };
    Q_ENUM(Error)

    explicit CsvExporter(QObject *parent = nullptr);
    ~CsvExporter() override;

    // Rows written per turn of the event loop.
    void setChunkSize(int rows) { m_chunkSize = rows > 0 ? rows : 1; }

    // The store must outlive the export and should not be used for writes meanwhile
    // (on SQLite the export holds a read transaction): give the export a Store of
    // its own. Does nothing while an export runs.
    void start(Store *store, const AttemptFilter &filter, const QString &fileName);
    // Stops at the next chunk; finished(Cancelled, ...) follows and no file is left.
    void cancel();
    bool isRunning() const { return m_running; }
    qint64 rowsWritten() const { return m_rowsWritten; }

    // The header row, in column order.
    static QStringList columnNames();

    // The store's rollups of the minutes that start in [fromMs, toMs) (-1: unbounded),
    // of one endpoint when endpointId is not empty, as CSV with the same rules: one
    // row per minute and key, oldest minute first (docs/rollups.md lists the
    // columns). Synchronous and streaming; cancelled() is asked every few thousand
    // rows. The file appears only when complete. Returns the rows written, or -1 with
    // the reason in *error (a cancelled export too).
    static qint64 writeRollups(Store *store, qint64 fromMs, qint64 toMs, const QString &endpointId,
                               const QString &fileName, QString *error,
                               const std::function<bool()> &cancelled = {});
    static QStringList rollupColumnNames();
    // The audit table's rows (Store::operatorActions) as CSV with the same rules, one
    // row per operator action: id, at, actor, worker_id, action, target, asked,
    // changed. The table stays small (one row per action), so it is built whole.
    static QByteArray auditCsv(const QList<AuditRecord> &rows);
    static QStringList auditColumnNames();
    // One cell as written: neutralised against formulas and quoted when it must be.
    static QByteArray textCell(const QString &value);
    // "2026-11-29T12:00:00.000Z"; empty for a negative time.
    static QByteArray isoTime(qint64 msSinceEpoch);

Q_SIGNALS:
    void progress(qint64 rowsWritten, qint64 totalRows);
    void finished(int error, const QString &text);

private:
    void writeChunk();
    static void appendRow(const AttemptCursor &row, QByteArray *out);
    void finish(Error error, const QString &text);

    int m_chunkSize = 5000;
    bool m_running = false;
    bool m_cancelRequested = false;
    qint64 m_rowsWritten = 0;
    qint64 m_totalRows = 0;
    QString m_fileName;
    std::unique_ptr<QSaveFile> m_file;
    std::unique_ptr<AttemptCursor> m_cursor;
};

} // namespace cooldown
