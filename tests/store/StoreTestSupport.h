// SPDX-License-Identifier: Apache-2.0
#pragma once

// Throw-away databases for the store tests: a SQLite file in a temporary folder, or a
// fresh PostgreSQL database on the server named by COOLDOWN_TEST_PG_URL (scripts/test
// starts one with scripts/pg). Without that server the PostgreSQL rows are skipped
// with the reason, never passed.

#include <QProcessEnvironment>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QString>
#include <QTemporaryDir>
#include <QUrl>

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

} // namespace cooldown::test
