// SPDX-License-Identifier: Apache-2.0
// CSV cell quoting: the input is a row of cells separated by 0x1F (unit separator).
// Written as the exporter writes a row, it must read back, with a strict RFC 4180
// reader, as exactly the same cells, neutralised against formulas where they must be.

#include "FuzzCheck.h"

#include "core/store/CsvExporter.h"
#include "store/CsvReader.h"

using namespace cooldown;

namespace {
bool startsLikeAFormula(const QString &cell)
{
    if (cell.isEmpty())
        return false;
    const QChar first = cell.front();
    return first == u'=' || first == u'+' || first == u'-' || first == u'@' || first == u'\t' ||
           first == u'\r' || first == u'\n';
}
} // namespace

COOLDOWN_FUZZ_SILENCE_QT

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QStringList cells = QString::fromUtf8(fuzz::bytes(data, size)).split(QChar(0x1F));

    QByteArray row;
    for (qsizetype i = 0; i < cells.size(); ++i) {
        if (i > 0)
            row += ',';
        row += CsvExporter::textCell(cells[i]);
    }
    row += "\r\n";

    QList<QStringList> rows;
    QString error;
    FUZZ_CHECK(test::parseCsv(row, &rows, &error));
    FUZZ_CHECK(rows.size() == 1);
    const QStringList read = rows.first();
    FUZZ_CHECK(read.size() == cells.size());
    for (qsizetype i = 0; i < cells.size(); ++i) {
        const QString expected =
            startsLikeAFormula(cells[i]) ? QLatin1Char('\'') + cells[i] : cells[i];
        FUZZ_CHECK(read[i] == expected);
        // A spreadsheet would run nothing a cell begins with.
        FUZZ_CHECK(!startsLikeAFormula(read[i]));
    }
    return 0;
}
