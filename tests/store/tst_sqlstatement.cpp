// SPDX-License-Identifier: Apache-2.0
// SqlStatement on SQLite's own API behaves as the QSqlQuery it stands in for: every test
// runs on both, on one SQLite connection opened by Qt's driver.

#include "core/store/SqlStatement.h"

#include <QSqlDatabase>
#include <QSqlDriver>
#include <QSqlQuery>
#include <QTest>

#include <sqlite3.h>

#include <memory>

using namespace cooldown;

class tst_SqlStatement : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase_data();
    void init();
    void cleanup();

    void boundValuesStayBound();
    void rowsOneByOne();
    void cellsKeepTheirTypes();
    void writesCountTheirRows();
    void finishEndsTheStatement();
    void errorsNameTheProblem();

private:
    std::unique_ptr<SqlStatement> statement(const QString &sql);
    void run(const QString &sql);

    QSqlDatabase m_db;
};

namespace {

const QString kConnection = QStringLiteral("tst_sqlstatement");

} // namespace

void tst_SqlStatement::initTestCase_data()
{
    QTest::addColumn<bool>("ownApi");
    QTest::newRow("sqlite3") << true;
    QTest::newRow("QSqlQuery") << false;
}

void tst_SqlStatement::init()
{
    m_db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), kConnection);
    m_db.setDatabaseName(QStringLiteral(":memory:"));
    QVERIFY(m_db.open());
    run(QStringLiteral("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT UNIQUE, n INTEGER,"
                       " r REAL, b BLOB)"));
    run(QStringLiteral("INSERT INTO t (name, n, r, b) VALUES ('a', 1, 0.5, x'00ff'),"
                       " ('b', 2, NULL, NULL), ('ç', 3, NULL, NULL)"));
}

void tst_SqlStatement::cleanup()
{
    m_db.close();
    m_db = QSqlDatabase();
    QSqlDatabase::removeDatabase(kConnection);
}

std::unique_ptr<SqlStatement> tst_SqlStatement::statement(const QString &sql)
{
    QFETCH_GLOBAL(bool, ownApi);
    sqlite3 *handle = nullptr;
    if (ownApi) {
        const QVariant driverHandle = m_db.driver()->handle();
        if (qstrcmp(driverHandle.typeName(), "sqlite3*") == 0)
            handle = *static_cast<sqlite3 *const *>(driverHandle.constData());
    }
    if (ownApi && !handle)
        qFatal("Qt's SQLite driver gave no handle");
    return std::make_unique<SqlStatement>(m_db, handle, sql);
}

void tst_SqlStatement::run(const QString &sql)
{
    QSqlQuery query(m_db);
    if (!query.exec(sql))
        qFatal("%s", qPrintable(sql));
}

void tst_SqlStatement::boundValuesStayBound()
{
    auto s = statement(QStringLiteral("SELECT name FROM t WHERE n >= :low AND n <= :high"
                                      " ORDER BY n"));
    QVERIFY(s->isValid());
    s->bindValue(QStringLiteral(":low"), 2);
    s->bindValue(QStringLiteral(":high"), qint64(3));
    QVERIFY(s->exec());
    QVERIFY(s->next());
    QCOMPARE(s->value(0).toString(), QStringLiteral("b"));
    // Binding one value again keeps the other.
    s->bindValue(QStringLiteral(":low"), 3);
    QVERIFY(s->exec());
    QVERIFY(s->next());
    QCOMPARE(s->value(0).toString(), QStringLiteral("ç"));
    QVERIFY(!s->next());

    // Text bound from a value that is gone by the time the statement runs, and run
    // again after another value was bound, still says what it said.
    auto named = statement(QStringLiteral("SELECT n FROM t WHERE name = :name AND n >= :low"));
    QVERIFY(named->isValid());
    {
        QString name = QStringLiteral("xç");
        named->bindValue(QStringLiteral(":name"), name.mid(1));
        name.fill(u'?');
    }
    named->bindValue(QStringLiteral(":low"), 0);
    QVERIFY(named->exec());
    QVERIFY(named->next());
    QCOMPARE(named->value(0).toLongLong(), 3);
    named->bindValue(QStringLiteral(":low"), 1);
    QVERIFY(named->exec());
    QVERIFY(named->next());
    QCOMPARE(named->value(0).toLongLong(), 3);

    // Texts bound at a low index, then a higher one, then in between, and one bound
    // again shorter: each reads back as bound (under ASan, a text read where it no
    // longer is would also be reported).
    auto joined = statement(QStringLiteral("SELECT :a || '|' || :b || '|' || :c"));
    QVERIFY(joined->isValid());
    joined->bindValue(QStringLiteral(":a"), QStringLiteral("first ç"));
    joined->bindValue(QStringLiteral(":c"), QString(300, u'c'));
    joined->bindValue(QStringLiteral(":b"), QStringLiteral("second"));
    QVERIFY(joined->exec());
    QVERIFY(joined->next());
    QCOMPARE(joined->value(0).toString(), QStringLiteral("first ç|second|") + QString(300, u'c'));
    joined->bindValue(QStringLiteral(":c"), QStringLiteral("3"));
    QVERIFY(joined->exec());
    QVERIFY(joined->next());
    QCOMPARE(joined->value(0).toString(), QStringLiteral("first ç|second|3"));
}

void tst_SqlStatement::rowsOneByOne()
{
    auto s = statement(QStringLiteral("SELECT n FROM t WHERE n > :n ORDER BY n"));
    s->bindValue(QStringLiteral(":n"), 0);
    QVERIFY(s->exec());
    QList<qint64> seen;
    while (s->next())
        seen.append(s->value(0).toLongLong());
    QCOMPARE(seen, (QList<qint64>{1, 2, 3}));
    QVERIFY(!s->lastError().isValid());
    // Nothing found: exec succeeds, next() has nothing.
    s->bindValue(QStringLiteral(":n"), 9);
    QVERIFY(s->exec());
    QVERIFY(!s->next());
    QVERIFY(!s->lastError().isValid());
}

void tst_SqlStatement::cellsKeepTheirTypes()
{
    auto s = statement(QStringLiteral("SELECT id, name, n, r, b, NULL FROM t WHERE name = :name"));
    s->bindValue(QStringLiteral(":name"), QStringLiteral("a"));
    QVERIFY(s->exec());
    QVERIFY(s->next());
    QCOMPARE(s->columnCount(), 6);
    QCOMPARE(s->value(0).toLongLong(), 1);
    QCOMPARE(s->value(1).toString(), QStringLiteral("a"));
    QCOMPARE(s->value(2).toInt(), 1);
    QCOMPARE(s->value(3).toDouble(), 0.5);
    QCOMPARE(s->value(4).toByteArray(), QByteArray("\x00\xff", 2));
    QVERIFY(s->value(5).isNull());
    s->finish();

    // Text other than ASCII goes in and comes back as it was.
    s->bindValue(QStringLiteral(":name"), QStringLiteral("ç"));
    QVERIFY(s->exec());
    QVERIFY(s->next());
    QCOMPARE(s->value(1).toString(), QStringLiteral("ç"));
    QVERIFY(s->value(3).isNull());
    s->finish();

    // A null QVariant binds as NULL, which equals nothing.
    s->bindValue(QStringLiteral(":name"), QVariant());
    QVERIFY(s->exec());
    QVERIFY(!s->next());

    // So do a null QString and a null QByteArray; empty ones are empty text and blob.
    auto isNull = statement(QStringLiteral("SELECT :v IS NULL, typeof(:w)"));
    const QList<std::pair<QVariant, QString>> cases = {
        {QVariant(QString()), QStringLiteral("null")},
        {QVariant(QStringLiteral("")), QStringLiteral("text")},
        {QVariant(QByteArray()), QStringLiteral("null")},
        {QVariant(QByteArray("")), QStringLiteral("blob")},
        {QVariant(qint64(0)), QStringLiteral("integer")},
        {QVariant(false), QStringLiteral("integer")},
        {QVariant(1.5), QStringLiteral("real")},
    };
    for (const auto &[value, type] : cases) {
        isNull->bindValue(QStringLiteral(":v"), value);
        isNull->bindValue(QStringLiteral(":w"), value);
        QVERIFY(isNull->exec());
        QVERIFY(isNull->next());
        QCOMPARE(isNull->value(0).toBool(), type == u"null");
        QCOMPARE(isNull->value(1).toString(), type);
        isNull->finish();
    }
}

void tst_SqlStatement::writesCountTheirRows()
{
    auto update = statement(QStringLiteral("UPDATE t SET n = n + 10 WHERE n >= :n"));
    update->bindValue(QStringLiteral(":n"), 2);
    QVERIFY(update->exec());
    QCOMPARE(update->numRowsAffected(), 2);
    update->bindValue(QStringLiteral(":n"), 100);
    QVERIFY(update->exec());
    QCOMPARE(update->numRowsAffected(), 0);

    auto insert = statement(QStringLiteral("INSERT INTO t (name, n) VALUES (:name, :n)"));
    insert->bindValue(QStringLiteral(":name"), QStringLiteral("d"));
    insert->bindValue(QStringLiteral(":n"), true);
    QVERIFY(insert->exec());
    QCOMPARE(insert->numRowsAffected(), 1);
    QCOMPARE(insert->lastInsertId().toLongLong(), 4);
    QSqlQuery check(m_db);
    QVERIFY(check.exec(QStringLiteral("SELECT n FROM t WHERE id = 4")));
    QVERIFY(check.next());
    QCOMPARE(check.value(0).toInt(), 1);
}

void tst_SqlStatement::finishEndsTheStatement()
{
    auto s = statement(QStringLiteral("SELECT n FROM t ORDER BY n"));
    QVERIFY(s->exec());
    QVERIFY(s->next());
    QCOMPARE(s->value(0).toInt(), 1);
    s->finish();
    QVERIFY(!s->next());
    // Run again, it starts from the first row.
    QVERIFY(s->exec());
    QVERIFY(s->next());
    QCOMPARE(s->value(0).toInt(), 1);
    // A statement left on a row does not keep a write on the same connection out.
    auto update = statement(QStringLiteral("UPDATE t SET n = n + 1"));
    QVERIFY(update->exec());
    QCOMPARE(update->numRowsAffected(), 3);
    s->finish();
    QVERIFY(s->exec());
    QVERIFY(s->next());
    QCOMPARE(s->value(0).toInt(), 2);
    s->finish();
}

void tst_SqlStatement::errorsNameTheProblem()
{
    auto bad = statement(QStringLiteral("SELECT nothere FROM t"));
    QVERIFY(!bad->isValid());
    QVERIFY2(bad->lastError().databaseText().contains(QStringLiteral("nothere")) ||
                 bad->lastError().text().contains(QStringLiteral("nothere")),
             qPrintable(bad->lastError().text()));

    auto insert = statement(QStringLiteral("INSERT INTO t (name) VALUES (:name)"));
    insert->bindValue(QStringLiteral(":name"), QStringLiteral("a"));
    QVERIFY(!insert->exec());
    QVERIFY2(insert->lastError().databaseText().contains(QStringLiteral("UNIQUE")),
             qPrintable(insert->lastError().databaseText()));
    // The next run clears the error.
    insert->bindValue(QStringLiteral(":name"), QStringLiteral("e"));
    QVERIFY(insert->exec());
    QVERIFY(!insert->lastError().isValid());
}

QTEST_GUILESS_MAIN(tst_SqlStatement)
#include "tst_sqlstatement.moc"
