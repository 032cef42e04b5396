// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>

namespace cooldown::test {

// A strict RFC 4180 reader, written apart from the exporter so that the test does not
// trust the code it checks. Fails on anything malformed.
inline bool parseCsv(const QByteArray &data, QList<QStringList> *rows, QString *error)
{
    QStringList row;
    QByteArray cell;
    qsizetype i = 0;
    bool cellStarted = false;
    while (i < data.size()) {
        const char c = data.at(i);
        if (c == '"' && cell.isEmpty() && !cellStarted) {
            ++i;
            while (true) {
                if (i >= data.size()) {
                    *error = QStringLiteral("unterminated quoted cell");
                    return false;
                }
                if (data.at(i) == '"') {
                    if (i + 1 < data.size() && data.at(i + 1) == '"') {
                        cell.append('"');
                        i += 2;
                        continue;
                    }
                    ++i;
                    break;
                }
                cell.append(data.at(i++));
            }
            cellStarted = true;
            if (i < data.size() && data.at(i) != ',' && data.at(i) != '\r') {
                *error = QStringLiteral("text after a closing quote at byte %1").arg(i);
                return false;
            }
            continue;
        }
        if (c == ',') {
            row.append(QString::fromUtf8(cell));
            cell.clear();
            cellStarted = false;
            ++i;
        } else if (c == '\r') {
            if (i + 1 >= data.size() || data.at(i + 1) != '\n') {
                *error = QStringLiteral("bare CR at byte %1").arg(i);
                return false;
            }
            row.append(QString::fromUtf8(cell));
            rows->append(row);
            row.clear();
            cell.clear();
            cellStarted = false;
            i += 2;
        } else if (c == '\n' || c == '"') {
            *error = QStringLiteral("unquoted %1 at byte %2")
                         .arg(c == '"' ? QStringLiteral("quote") : QStringLiteral("LF"))
                         .arg(i);
            return false;
        } else {
            cell.append(c);
            ++i;
        }
    }
    if (!row.isEmpty() || !cell.isEmpty()) {
        *error = QStringLiteral("last row does not end with CRLF");
        return false;
    }
    return true;
}

} // namespace cooldown::test
