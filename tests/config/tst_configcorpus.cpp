// SPDX-License-Identifier: Apache-2.0
// Every file in tests/config/corpus/ is a broken workspace config. Each must be refused
// whole, with a message that names the file and where in it the problem is (the JSON
// path, or the line and column when the file is not JSON at all), and `cooldown run`
// must refuse it before it writes anything.

#include "core/config/WorkspaceConfig.h"

#include <QDir>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace cooldown;

namespace {
// Not JSON: the parser's position is all there is to name.
const QString kSyntax = QStringLiteral("line 1, column ");

// file -> where the message must say the problem is (followed by ": ").
const QList<QPair<QString, QString>> kExpected = {
    {"wrong-type-version.json", "version"},
    {"wrong-type-endpoints.json", "endpoints"},
    {"wrong-type-endpoint.json", "endpoints[0]"},
    {"wrong-type-timeout.json", "endpoints[0].timeout_seconds"},
    {"wrong-type-headers.json", "endpoints[0].headers"},
    {"wrong-type-header-value.json", "endpoints[0].headers.X-Trace"},
    {"wrong-type-concurrency.json", "concurrency"},
    {"wrong-type-max-attempts.json", "retry_profiles.default.max_attempts"},
    {"wrong-type-policy-limit.json", "policies[0].limit"},
    {"wrong-type-idempotency.json", "endpoints[0].idempotency"},
    {"wrong-type-body.json", "endpoints[0].body"},
    {"unknown-top-key.json", "endpoint"},
    {"unknown-endpoint-key.json", "endpoints[0].timeout"},
    {"unknown-concurrency-key.json", "concurrency.max_inflight"},
    {"unknown-profile-key.json", "retry_profiles.default.max_attempt"},
    {"unknown-idempotency-key.json", "endpoints[0].idempotency.name"},
    {"missing-endpoints.json", "endpoints"},
    {"empty-endpoints.json", "endpoints"},
    {"missing-version.json", "version"},
    {"missing-url.json", "endpoints[0].url"},
    {"missing-id.json", "endpoints[0].id"},
    {"duplicate-ids.json", "endpoints[1].id"},
    {"bad-url-scheme.json", "endpoints[0].url"},
    {"bad-url-relative.json", "endpoints[0].url"},
    {"bad-url-no-host.json", "endpoints[0].url"},
    {"bad-url-space.json", "endpoints[0].url"},
    {"bad-url-port.json", "endpoints[0].url"},
    {"huge-every-seconds.json", "endpoints[0].every_seconds"},
    {"huge-max-in-flight.json", "concurrency.max_in_flight"},
    {"huge-per-host.json", "concurrency.per_host"},
    {"huge-version.json", "version"},
    {"huge-number-overflow.json", kSyntax}, // beyond a double: not a JSON number to Qt
    {"huge-max-attempts.json", "retry_profiles.default.max_attempts"},
    {"negative-timeout.json", "endpoints[0].timeout_seconds"},
    {"fractional-every-seconds.json", "endpoints[0].every_seconds"},
    {"version-2.json", "version"},
    {"cap-below-base.json", "retry_profiles.default.cap_seconds"},
    {"unknown-retry-profile.json", "endpoints[0].retry"},
    {"unknown-policy.json", "endpoints[0].policy"},
    {"bad-header-name.json", "endpoints[0].headers.Bad Header"},
    {"header-line-break.json", "endpoints[0].headers.X-Trace"},
    {"bad-method.json", "endpoints[0].method"},
    {"bad-id.json", "endpoints[0].id"},
    {"id-too-long.json", "endpoints[0].id"},
    {"unset-env.json", "endpoints[0].headers.Authorization"},
    {"malformed-reference.json", "endpoints[0].url"},
    {"credentials-secret-in-file.json", "credentials[0].client_secret"},
    {"credentials-unknown-type.json", "credentials[0].type"},
    {"credentials-unset-env.json", "credentials[0].token"},
    {"unknown-credentials.json", "endpoints[0].credentials"},
    {"unknown-tls.json", "endpoints[0].tls"},
    {"tls-missing-ca-file.json", "tls[0].ca_file"},
    {"tls-certificate-without-key.json", "tls[0].client_key"},
    {"proxy-literal-password.json", "proxy"},
    {"proxy-no-port.json", "endpoints[0].proxy"},
    {"top-level-array.json", "$"},
    {"top-level-string.json", kSyntax}, // Qt reads only an object or an array
    {"invalid-utf8.json", kSyntax},
    {"overlong-utf8.json", kSyntax},
    {"empty.json", kSyntax},
    {"whitespace-only.json", QStringLiteral("line 3, column ")},
    {"trailing-garbage.json", kSyntax},
    {"two-documents.json", kSyntax},
    {"comment.json", kSyntax},
    {"single-quotes.json", kSyntax},
    {"truncated.json", kSyntax},
    {"trailing-comma.json", kSyntax},
    {"deep-nesting.json", kSyntax},
};
} // namespace

class tst_ConfigCorpus : public QObject
{
    Q_OBJECT

private:
    QString m_corpus;
    QString m_binary;

private slots:
    void initTestCase();
    void everyFileHasAnExpectation();
    void refused_data();
    void refused();
    void runWritesNothing_data();
    void runWritesNothing();
    void byteOrderMarkIsIgnored();
};

void tst_ConfigCorpus::initTestCase()
{
    m_corpus = QFINDTESTDATA("corpus");
    QVERIFY2(!m_corpus.isEmpty(), "tests/config/corpus not found");
    m_binary = QStringLiteral(COOLDOWN_BINARY);
    // unset-env.json refers to it; it must really be missing.
    qunsetenv("COOLDOWN_CORPUS_UNSET_VARIABLE");
}

void tst_ConfigCorpus::everyFileHasAnExpectation()
{
    QStringList listed;
    for (const auto &entry : kExpected)
        listed.append(entry.first);
    listed.sort();
    QStringList present = QDir(m_corpus).entryList(QDir::Files, QDir::Name);
    QCOMPARE(present, listed);
}

void tst_ConfigCorpus::refused_data()
{
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("where");
    for (const auto &entry : kExpected)
        QTest::newRow(qPrintable(entry.first))
            << QDir(m_corpus).filePath(entry.first) << entry.second;
}

void tst_ConfigCorpus::refused()
{
    QFETCH(QString, path);
    QFETCH(QString, where);
    QString error;
    const auto config = WorkspaceConfig::load(path, &error);
    QVERIFY2(!config, qPrintable(QStringLiteral("accepted: ") + path));
    const QString prefix = path + QStringLiteral(": ") + where;
    QVERIFY2(error.startsWith(prefix), qPrintable(error));
    // The place is followed by what was wrong there.
    const QString rest = error.mid(prefix.size());
    QVERIFY2(where.endsWith(QLatin1Char(' ')) ? !rest.isEmpty()
                                              : rest.startsWith(QStringLiteral(": ")),
             qPrintable(error));
    QVERIFY2(rest.size() > 8, qPrintable(error));
    QVERIFY2(!error.contains(QLatin1Char('\n')), qPrintable(error));
}

void tst_ConfigCorpus::runWritesNothing_data()
{
    refused_data();
}

void tst_ConfigCorpus::runWritesNothing()
{
    QFETCH(QString, path);
    QFETCH(QString, where);
    QVERIFY2(QFileInfo(m_binary).isExecutable(), "COOLDOWN_BINARY must name the cooldown binary");
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QProcess run;
    run.setProcessChannelMode(QProcess::SeparateChannels);
    run.start(m_binary, {QStringLiteral("run"), QStringLiteral("--config"), path,
                         QStringLiteral("--db"), dir.filePath(QStringLiteral("ops.db")),
                         QStringLiteral("--for"), QStringLiteral("1")});
    QVERIFY(run.waitForFinished(30000));
    QCOMPARE(run.exitStatus(), QProcess::NormalExit);
    QCOMPARE(run.exitCode(), 2);
    const QString stderrText = QString::fromUtf8(run.readAllStandardError());
    QVERIFY2(stderrText.contains(path + QStringLiteral(": ") + where), qPrintable(stderrText));
    QCOMPARE(QDir(dir.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden),
             QStringList());
}

// RFC 8259 §8.1 lets a parser ignore a UTF-8 byte order mark, and editors on Windows
// write one; refusing such a file would refuse a correct config.
void tst_ConfigCorpus::byteOrderMarkIsIgnored()
{
    QString error;
    const auto config =
        WorkspaceConfig::parse("\xef\xbb\xbf{\"version\": 1, \"endpoints\": [{\"id\": \"m\", "
                               "\"url\": \"https://a.example/\"}]}",
                               "bom.json", &error, {}, QHash<QString, QString>{});
    QVERIFY2(config, qPrintable(error));
    QCOMPARE(config->endpoints.size(), 1);
}

QTEST_GUILESS_MAIN(tst_ConfigCorpus)
#include "tst_configcorpus.moc"
