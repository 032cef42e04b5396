// SPDX-License-Identifier: Apache-2.0
// The attempt history is private by default: the data folder Cooldown creates is
// 0700 and the database files it creates (with -wal and -shm) are 0600, whatever the
// umask; a folder that already exists is left as it is.

#include "core/store/Store.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

using namespace cooldown;

namespace {

int modeOf(const QString &path)
{
    struct stat st = {};
    if (::stat(QFile::encodeName(path).constData(), &st) != 0)
        return -1;
    return int(st.st_mode & 07777);
}

QString octal(int mode)
{
    return QString::number(mode, 8);
}

} // namespace

class tst_CliDataFiles : public QObject
{
    Q_OBJECT

private slots:
    void newDatabaseIsPrivate_data();
    void newDatabaseIsPrivate();
    void defaultDataFolderIsPrivate();
};

void tst_CliDataFiles::newDatabaseIsPrivate_data()
{
    QTest::addColumn<int>("umask");
    QTest::newRow("umask 022") << 022;
    QTest::newRow("umask 002") << 002;
    QTest::newRow("umask 000") << 000;
}

// Through the store, as the window and every command open it.
void tst_CliDataFiles::newDatabaseIsPrivate()
{
    QFETCH(int, umask);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("history.db"));
    const mode_t before = ::umask(mode_t(umask));
    {
        QString error;
        auto store = Store::open(path, &error);
        QVERIFY2(store, qPrintable(error));
        // A write, so that the write-ahead log and its index exist.
        QVERIFY(store->createOperation(QStringLiteral("e"), QStringLiteral("k"), 1000));
        for (const QString &file :
             {path, path + QStringLiteral("-wal"), path + QStringLiteral("-shm")})
            QVERIFY2(modeOf(file) == 0600,
                     qPrintable(QStringLiteral("%1: %2").arg(file, octal(modeOf(file)))));
    }
    ::umask(before);
}

// `cooldown run` with no --db: the platform's data folder, created for its owner.
void tst_CliDataFiles::defaultDataFolderIsPrivate()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    // XDG_DATA_HOME exists already, readable by all: it is not Cooldown's to change.
    const QString home = dir.filePath(QStringLiteral("share"));
    QVERIFY(QDir().mkdir(home));
    QVERIFY(QFile::setPermissions(home, QFileDevice::ReadOwner | QFileDevice::WriteOwner |
                                            QFileDevice::ExeOwner | QFileDevice::ReadGroup |
                                            QFileDevice::ExeGroup | QFileDevice::ReadOther |
                                            QFileDevice::ExeOther));
    const QString config = dir.filePath(QStringLiteral("workspace.json"));
    {
        QFile f(config);
        QVERIFY(f.open(QIODevice::WriteOnly));
        // Port 1 on loopback refuses at once; what matters here is the database.
        f.write(R"({"version": 1, "endpoints": [{"id": "a", "url": "http://127.0.0.1:1/"}]})");
    }
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("XDG_DATA_HOME"), home);
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(COOLDOWN_BINARY),
            {QStringLiteral("run"), QStringLiteral("--config"), config, QStringLiteral("--for"),
             QStringLiteral("1")});
    QVERIFY(p.waitForFinished(30000));
    QVERIFY2(p.exitStatus() == QProcess::NormalExit, p.readAllStandardError().constData());

    const QString folder = home + QStringLiteral("/Cooldown/cooldown");
    const QString db = folder + QStringLiteral("/cooldown.db");
    QVERIFY2(QFileInfo::exists(db), p.readAllStandardError().constData());
    for (const QString &created : {home + QStringLiteral("/Cooldown"), folder})
        QVERIFY2(modeOf(created) == 0700,
                 qPrintable(QStringLiteral("%1: %2").arg(created, octal(modeOf(created)))));
    QCOMPARE(octal(modeOf(db)), octal(0600));
    QCOMPARE(octal(modeOf(home)), octal(0755));
}

QTEST_GUILESS_MAIN(tst_CliDataFiles)
#include "tst_cli_datafiles.moc"
