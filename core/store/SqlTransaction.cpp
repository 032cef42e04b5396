#include "core/store/SqlTransaction.h"

#include "core/Logging.h"

#include <QSqlError>
#include <QSqlQuery>

namespace cooldown {

SqlTransaction::SqlTransaction(QSqlDatabase database, Kind kind) : m_database(std::move(database))
{
    const bool sqlite = m_database.driverName() == QLatin1String("QSQLITE");
    QString begin = QStringLiteral("BEGIN");
    if (sqlite)
        begin = kind == Kind::Write ? QStringLiteral("BEGIN IMMEDIATE")
                                    : QStringLiteral("BEGIN DEFERRED");
    m_active = execute(begin);
}

SqlTransaction::~SqlTransaction()
{
    if (m_active)
        rollback();
}

bool SqlTransaction::commit()
{
    if (!m_active) {
        if (m_error.isEmpty())
            m_error = QStringLiteral("commit without an open transaction");
        return false;
    }
    if (!execute(QStringLiteral("COMMIT"))) {
        rollback();
        return false;
    }
    m_active = false;
    return true;
}

void SqlTransaction::rollback()
{
    if (!m_active)
        return;
    m_active = false;
    QSqlQuery query(m_database);
    if (!query.exec(QStringLiteral("ROLLBACK")))
        qCWarning(lcStore) << "rollback failed:" << query.lastError().text();
}

bool SqlTransaction::execute(const QString &statement)
{
    QSqlQuery query(m_database);
    if (query.exec(statement))
        return true;
    m_error = query.lastError().databaseText().isEmpty() ? query.lastError().text()
                                                         : query.lastError().databaseText();
    return false;
}

} // namespace cooldown
