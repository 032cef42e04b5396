// SPDX-License-Identifier: Apache-2.0
// The command line's language: the system locale's, or --lang's. Messages follow it;
// what scripts read (JSON, CSV, log lines) never does.
#include <QFile>
#include <QProcess>
#include <QProcessEnvironment>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>

namespace {

struct Result
{
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

// The environment of a machine whose language is `lang` (a POSIX locale name).
QProcessEnvironment machine(const QString &lang)
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("LC_ALL"));
    env.remove(QStringLiteral("LC_MESSAGES"));
    env.remove(QStringLiteral("LANGUAGE"));
    env.insert(QStringLiteral("LANG"), lang);
    return env;
}

Result cooldown(const QStringList &arguments, const QString &lang = QStringLiteral("C.UTF-8"))
{
    QProcess p;
    p.setProcessEnvironment(machine(lang));
    p.start(QStringLiteral(COOLDOWN_BINARY), arguments);
    Result r;
    if (!p.waitForFinished(30000) || p.exitStatus() != QProcess::NormalExit)
        return r;
    r.exitCode = p.exitCode();
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

QString text(const QByteArray &bytes)
{
    return QString::fromUtf8(bytes);
}

} // namespace

class tst_CliLanguage : public QObject
{
    Q_OBJECT

private slots:
    void usageErrorFollowsTheSystemLocale_data();
    void usageErrorFollowsTheSystemLocale();
    void langOverridesTheSystemLocale_data();
    void langOverridesTheSystemLocale();
    void badLangIsAUsageError_data();
    void badLangIsAUsageError();
    void helpIsJapanese();
    void workspaceErrorsAreJapanese();
    void explainJsonIsTheSameInEveryLanguage();
    void csvAndLogLinesAreTheSameInEveryLanguage();
};

void tst_CliLanguage::usageErrorFollowsTheSystemLocale_data()
{
    QTest::addColumn<QString>("lang");
    QTest::addColumn<QString>("expected");
    QTest::newRow("Japanese") << QStringLiteral("ja_JP.UTF-8")
                              << QStringLiteral("cooldown export: --out は必須です\n");
    QTest::newRow("English") << QStringLiteral("en_US.UTF-8")
                             << QStringLiteral("cooldown export: --out is required\n");
    // A language Cooldown does not speak: English.
    QTest::newRow("German") << QStringLiteral("de_DE.UTF-8")
                            << QStringLiteral("cooldown export: --out is required\n");
    QTest::newRow("C") << QStringLiteral("C")
                       << QStringLiteral("cooldown export: --out is required\n");
}

void tst_CliLanguage::usageErrorFollowsTheSystemLocale()
{
    QFETCH(QString, lang);
    QFETCH(QString, expected);
    const Result r = cooldown({QStringLiteral("export")}, lang);
    QCOMPARE(r.exitCode, 2);
    QCOMPARE(text(r.err), expected);
}

void tst_CliLanguage::langOverridesTheSystemLocale_data()
{
    QTest::addColumn<QString>("lang");
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("expected");
    const QString japanese = QStringLiteral("cooldown run: --config は必須です\n");
    const QString english = QStringLiteral("cooldown run: --config is required\n");
    QTest::newRow("ja before the command")
        << QStringLiteral("C.UTF-8")
        << QStringList{QStringLiteral("--lang"), QStringLiteral("ja"), QStringLiteral("run")}
        << japanese;
    QTest::newRow("ja after the command")
        << QStringLiteral("C.UTF-8")
        << QStringList{QStringLiteral("run"), QStringLiteral("--lang"), QStringLiteral("ja")}
        << japanese;
    QTest::newRow("--lang=ja") << QStringLiteral("en_US.UTF-8")
                               << QStringList{QStringLiteral("run"), QStringLiteral("--lang=ja")}
                               << japanese;
    QTest::newRow("en on a Japanese machine")
        << QStringLiteral("ja_JP.UTF-8")
        << QStringList{QStringLiteral("run"), QStringLiteral("--lang"), QStringLiteral("en")}
        << english;
    // Unknown commands are told in the chosen language too.
    QTest::newRow("unknown command")
        << QStringLiteral("C.UTF-8")
        << QStringList{QStringLiteral("--lang=ja"), QStringLiteral("frobnicate")}
        << QStringLiteral(
               "cooldown frobnicate: 不明なコマンドです ('cooldown --help' を参照してください)\n");
}

void tst_CliLanguage::langOverridesTheSystemLocale()
{
    QFETCH(QString, lang);
    QFETCH(QStringList, arguments);
    QFETCH(QString, expected);
    const Result r = cooldown(arguments, lang);
    QCOMPARE(r.exitCode, 2);
    QCOMPARE(text(r.err), expected);
}

void tst_CliLanguage::badLangIsAUsageError_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("expected");
    QTest::newRow("unknown language")
        << QStringList{QStringLiteral("export"), QStringLiteral("--lang"), QStringLiteral("fr")}
        << QStringLiteral("cooldown export: --lang: expected en or ja, got 'fr'\n");
    QTest::newRow("no value") << QStringList{QStringLiteral("status"), QStringLiteral("--lang")}
                              << QStringLiteral(
                                     "cooldown status: --lang: expected en or ja, got ''\n");
    QTest::newRow("the dashboard's")
        << QStringList{QStringLiteral("--lang=jp")}
        << QStringLiteral("cooldown dashboard: --lang: expected en or ja, got 'jp'\n");
}

void tst_CliLanguage::badLangIsAUsageError()
{
    QFETCH(QStringList, arguments);
    QFETCH(QString, expected);
    const Result r = cooldown(arguments);
    QCOMPARE(r.exitCode, 2);
    // The dashboard's platform may say something of its own first.
    QVERIFY2(text(r.err).endsWith(expected), r.err.constData());
    QVERIFY(r.out.isEmpty());
}

void tst_CliLanguage::helpIsJapanese()
{
    const Result r =
        cooldown({QStringLiteral("run"), QStringLiteral("--help")}, QStringLiteral("ja_JP.UTF-8"));
    QCOMPARE(r.exitCode, 0);
    const QString help = text(r.out);
    const QString firstLine = help.section(QLatin1Char('\n'), 0, 0);
    // Qt's "Usage:" is Qt's to translate; the program is named as the command, not as a path.
    QVERIFY2(firstLine.contains(QStringLiteral(" cooldown run ")), qPrintable(firstLine));
    QVERIFY2(!help.contains(QStringLiteral(COOLDOWN_BINARY)), qPrintable(help));
    QVERIFY2(help.contains(QStringLiteral("ウィンドウなしでエンジンを実行します。")),
             qPrintable(help));
    QVERIFY2(help.contains(QStringLiteral("S 秒後に停止します。")), qPrintable(help));
    // Option names stay as they are typed.
    QVERIFY2(help.contains(QStringLiteral("--until-idle")), qPrintable(help));

    const Result all =
        cooldown({QStringLiteral("--help"), QStringLiteral("--lang"), QStringLiteral("ja")});
    QCOMPARE(all.exitCode, 0);
    QVERIFY2(text(all.out).startsWith(QStringLiteral("使い方: cooldown [COMMAND] [OPTIONS]\n")),
             all.out.constData());
    QVERIFY2(text(all.out).contains(
                 QStringLiteral("  run           ウィンドウなしでエンジンを実行する\n")),
             all.out.constData());
}

// What is wrong with a workspace file or a retry profile, in the chosen language; the
// file, the JSON path and the numbers as they are.
void tst_CliLanguage::workspaceErrorsAreJapanese()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString config = dir.filePath(QStringLiteral("broken.json"));
    {
        QFile f(config);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"version": 1, "endpoints": [{"id": "a", "url": "http://127.0.0.1:1/",
                    "timeout_seconds": 0}]})");
    }
    const Result checked =
        cooldown({QStringLiteral("check-config"), config}, QStringLiteral("ja_JP.UTF-8"));
    QCOMPARE(checked.exitCode, 2);
    QCOMPARE(text(checked.err),
             QStringLiteral("cooldown check-config: %1: endpoints[0].timeout_seconds: "
                            "0.001〜3600 の数を指定してください\n")
                 .arg(config));

    const Result set =
        cooldown({QStringLiteral("explain"), QStringLiteral("--status"), QStringLiteral("429"),
                  QStringLiteral("--set"), QStringLiteral("deadline_seconds=400000000"),
                  QStringLiteral("--lang"), QStringLiteral("ja")});
    QCOMPARE(set.exitCode, 2);
    QCOMPARE(text(set.err), QStringLiteral("cooldown explain: --set: deadline_seconds: "
                                           "0〜31622400 (366 日) の秒数を指定してください\n"));
}

void tst_CliLanguage::explainJsonIsTheSameInEveryLanguage()
{
    const QStringList arguments{QStringLiteral("explain"),
                                QStringLiteral("--status"),
                                QStringLiteral("429"),
                                QStringLiteral("--header"),
                                QStringLiteral("Retry-After: 120"),
                                QStringLiteral("--seed"),
                                QStringLiteral("1"),
                                QStringLiteral("--now"),
                                QStringLiteral("2026-11-29T12:00:00Z")};
    const Result english = cooldown(arguments, QStringLiteral("en_US.UTF-8"));
    const Result japanese = cooldown(arguments, QStringLiteral("ja_JP.UTF-8"));
    QCOMPARE(english.exitCode, 0);
    QCOMPARE(japanese.exitCode, 0);
    QCOMPARE(japanese.out, english.out);
    QVERIFY2(english.out.contains("\"not_before\": \"2026-11-29T12:0"), english.out.constData());
}

void tst_CliLanguage::csvAndLogLinesAreTheSameInEveryLanguage()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString config = dir.filePath(QStringLiteral("workspace.json"));
    {
        QFile f(config);
        QVERIFY(f.open(QIODevice::WriteOnly));
        // Port 1 on loopback refuses at once: an attempt to record, without a server.
        f.write(R"({"version": 1, "endpoints": [{"id": "a", "url": "http://127.0.0.1:1/"}]})");
    }
    const QString db = dir.filePath(QStringLiteral("history.db"));
    const Result run =
        cooldown({QStringLiteral("run"), QStringLiteral("--config"), config, QStringLiteral("--db"),
                  db, QStringLiteral("--for"), QStringLiteral("1"), QStringLiteral("--lang"),
                  QStringLiteral("ja")});
    QCOMPARE(run.exitCode, 0);
    // One line per attempt, as scripts read it: English words, ISO 8601 times, C numbers.
    static const QRegularExpression attemptLine(
        QStringLiteral(
            "^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z op 1 a attempt 1: refused -> "),
        QRegularExpression::MultilineOption);
    QVERIFY2(attemptLine.match(text(run.out)).hasMatch(), run.out.constData());

    QByteArray csv[2];
    for (int i = 0; i < 2; ++i) {
        const QString out = dir.filePath(QStringLiteral("attempts-%1.csv").arg(i));
        const Result exported = cooldown(
            {QStringLiteral("export"), QStringLiteral("--db"), db, QStringLiteral("--out"), out,
             QStringLiteral("--lang"), i == 0 ? QStringLiteral("en") : QStringLiteral("ja")},
            i == 0 ? QStringLiteral("en_US.UTF-8") : QStringLiteral("ja_JP.UTF-8"));
        QCOMPARE(exported.exitCode, 0);
        QFile f(out);
        QVERIFY(f.open(QIODevice::ReadOnly));
        csv[i] = f.readAll();
    }
    QCOMPARE(csv[1], csv[0]);

    // cooldown status: the report is for people, --json for programs.
    const Result report = cooldown({QStringLiteral("status"), QStringLiteral("--db"), db,
                                    QStringLiteral("--lang"), QStringLiteral("ja")});
    QCOMPARE(report.exitCode, 0);
    QVERIFY2(text(report.out).startsWith(QStringLiteral("データベース ")), report.out.constData());
    QVERIFY2(text(report.out).contains(QStringLiteral("\nオペレーション: scheduled=")),
             report.out.constData());
    const Result json =
        cooldown({QStringLiteral("status"), QStringLiteral("--db"), db, QStringLiteral("--json")},
                 QStringLiteral("ja_JP.UTF-8"));
    QCOMPARE(json.exitCode, 0);
    const QString jsonText = text(json.out);
    QVERIFY2(
        std::all_of(jsonText.cbegin(), jsonText.cend(), [](QChar c) { return c.unicode() < 0x80; }),
        json.out.constData());
    QVERIFY2(jsonText.contains(QStringLiteral("\"scheduled\"")), json.out.constData());
    static const QRegularExpression isoTime(
        QStringLiteral(",\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z,"));
    QVERIFY2(isoTime.match(text(csv[1])).hasMatch(), csv[1].constData());
}

QTEST_GUILESS_MAIN(tst_CliLanguage)
#include "tst_cli_language.moc"
