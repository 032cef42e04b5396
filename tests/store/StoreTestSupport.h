// SPDX-License-Identifier: Apache-2.0
#pragma once

// Throw-away databases for the store tests: a SQLite file in a temporary folder, or a
// fresh PostgreSQL database on the server named by COOLDOWN_TEST_PG_URL (scripts/test
// starts one with scripts/pg). Without that server the PostgreSQL rows are skipped
// with the reason, never passed. And raw access to them, outside any store, for the
// migration tests' rows as an older version wrote them.

#include <QProcessEnvironment>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlField>
#include <QSqlQuery>
#include <QSqlRecord>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>
#include <QUrl>

#include <functional>

namespace cooldown::test {

inline QString postgresServerUrl()
{
    return QProcessEnvironment::systemEnvironment().value(QStringLiteral("COOLDOWN_TEST_PG_URL"));
}

// Creates (or recreates) database `name` on the test server and returns its URL; on
// failure returns an empty string and the reason in *why.
inline QString freshPostgresDatabase(const QString &name, QString *why)
{
    const QString server = postgresServerUrl();
    if (server.isEmpty()) {
        *why = QStringLiteral("COOLDOWN_TEST_PG_URL is not set (scripts/test starts a server "
                              "with scripts/pg)");
        return {};
    }
    const QUrl url(server);
    if (!QSqlDatabase::isDriverAvailable(QStringLiteral("QPSQL"))) {
        *why = QStringLiteral("the Qt PostgreSQL driver QPSQL is not installed");
        return {};
    }
    QString error;
    {
        const QString connection = QStringLiteral("test-admin-%1").arg(name);
        {
            QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QPSQL"), connection);
            db.setHostName(url.host());
            db.setPort(url.port(5432));
            db.setUserName(url.userName());
            db.setPassword(url.password());
            db.setDatabaseName(url.path().mid(1));
            db.setConnectOptions(QStringLiteral("connect_timeout=5"));
            if (!db.open()) {
                error = QStringLiteral("PostgreSQL at %1 is not reachable: %2")
                            .arg(server, db.lastError().text());
            } else {
                QSqlQuery query(db);
                if (!query.exec(
                        QStringLiteral("DROP DATABASE IF EXISTS %1 WITH (FORCE)").arg(name)) ||
                    !query.exec(QStringLiteral("CREATE DATABASE %1").arg(name)))
                    error = QStringLiteral("cannot create database %1: %2")
                                .arg(name, query.lastError().text());
            }
        }
        QSqlDatabase::removeDatabase(connection);
    }
    if (!error.isEmpty()) {
        *why = error;
        return {};
    }
    QUrl database = url;
    database.setPath(QLatin1Char('/') + name);
    return database.toString();
}

// A QtSql connection named `name` to the database at url (a SQLite path or a
// postgresql:// URL), added but not opened: outside any store.
inline QSqlDatabase addRawConnection(const QString &url, const QString &name)
{
    QSqlDatabase db;
    if (url.startsWith(QLatin1String("postgres"))) {
        const QUrl parsed(url);
        db = QSqlDatabase::addDatabase(QStringLiteral("QPSQL"), name);
        db.setHostName(parsed.host());
        db.setPort(parsed.port(5432));
        db.setUserName(parsed.userName());
        db.setPassword(parsed.password());
        db.setDatabaseName(parsed.path().mid(1));
    } else {
        db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), name);
        db.setDatabaseName(url);
    }
    return db;
}

// Runs body on a connection of its own to the database at url (a SQLite path or a
// postgresql:// URL), outside any store: for rows as an older version wrote them.
inline bool withRawConnection(const QString &url,
                              const std::function<bool(QSqlDatabase &, QString *)> &body,
                              QString *error)
{
    static int made = 0;
    const QString name = QStringLiteral("test-raw-%1").arg(++made);
    bool ok = true;
    {
        QSqlDatabase db = addRawConnection(url, name);
        if (!db.open()) {
            *error = QStringLiteral("cannot open %1: %2").arg(url, db.lastError().text());
            ok = false;
        }
        ok = ok && body(db, error);
        db.close();
    }
    QSqlDatabase::removeDatabase(name);
    return ok;
}

inline bool rawExec(const QString &url, const QStringList &statements, QString *error)
{
    return withRawConnection(
        url,
        [&statements](QSqlDatabase &db, QString *why) {
            QSqlQuery query(db);
            for (const QString &statement : statements) {
                if (!query.exec(statement)) {
                    *why = statement + QStringLiteral(": ") + query.lastError().text();
                    return false;
                }
            }
            return true;
        },
        error);
}

// Copies every row of each table from the database at fromUrl into the same table of
// the one at toUrl, in the columns the target's table has (a database of an older
// version has fewer), ids included; tables the target lacks are left out. On
// PostgreSQL the ids' sequences then continue after the copied rows.
inline bool copyRows(const QString &fromUrl, const QString &toUrl, const QStringList &tables,
                     QString *error)
{
    return withRawConnection(
        fromUrl,
        [&](QSqlDatabase &from, QString *why) {
            return withRawConnection(
                toUrl,
                [&](QSqlDatabase &to, QString *whyTo) {
                    const bool postgres = to.driverName() == QLatin1String("QPSQL");
                    const QStringList present = to.tables();
                    if (!to.transaction()) {
                        *whyTo = to.lastError().text();
                        return false;
                    }
                    for (const QString &table : tables) {
                        if (!present.contains(table))
                            continue;
                        const QSqlRecord record = to.record(table);
                        QStringList columns;
                        QStringList marks;
                        for (int i = 0; i < record.count(); ++i) {
                            columns.append(record.fieldName(i));
                            marks.append(QStringLiteral("?"));
                        }
                        QSqlQuery read(from);
                        QSqlQuery write(to);
                        if (!read.exec(QStringLiteral("SELECT %1 FROM %2")
                                           .arg(columns.join(QStringLiteral(", ")), table))) {
                            *whyTo = table + QStringLiteral(": ") + read.lastError().text();
                            return false;
                        }
                        write.prepare(QStringLiteral("INSERT INTO %1 (%2) VALUES (%3)")
                                          .arg(table, columns.join(QStringLiteral(", ")),
                                               marks.join(QStringLiteral(", "))));
                        while (read.next()) {
                            for (int i = 0; i < columns.size(); ++i)
                                write.bindValue(i, read.value(i));
                            if (!write.exec()) {
                                *whyTo = table + QStringLiteral(": ") + write.lastError().text();
                                return false;
                            }
                        }
                        const bool serialId = record.contains(QStringLiteral("id")) &&
                                              record.field(QStringLiteral("id")).metaType().id() ==
                                                  QMetaType::LongLong;
                        if (postgres && serialId &&
                            !write.exec(
                                QStringLiteral("SELECT setval(pg_get_serial_sequence('%1', 'id'),"
                                               " (SELECT COALESCE(MAX(id), 0) + 1 FROM %1), false)")
                                    .arg(table))) {
                            *whyTo = table + QStringLiteral(": ") + write.lastError().text();
                            return false;
                        }
                    }
                    if (!to.commit()) {
                        *whyTo = to.lastError().text();
                        return false;
                    }
                    return true;
                },
                why);
        },
        error);
}

} // namespace cooldown::test
