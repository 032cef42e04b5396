// SPDX-License-Identifier: Apache-2.0
// `cooldown import curl` against curl itself (issue 45): each command of
// tests/data/curl-corpus/ (shapes from public API documentation and browsers' "Copy as
// cURL", README.md there names the sources) is run by the real curl binary against a
// loopback echo server, then imported, and the endpoint run by `cooldown run` against
// the same server. Both requests must agree in method, path, query, headers and body
// bytes; the secrets the import moved out come back from the environment, and none of
// them may be written into the workspace file.

#include "support/CooldownRun.h"

#include <QDir>
#include <QDirIterator>
#include <QEventLoop>
#include <QHostAddress>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

namespace {

using HeaderList = QList<QPair<QByteArray, QByteArray>>;

struct EchoedRequest
{
    QByteArray method;
    QByteArray target; // as on the request line: path and query, still encoded
    HeaderList headers;
    QByteArray body;

    QByteArray header(const QByteArray &name) const
    {
        for (const auto &h : headers) {
            if (h.first.compare(name, Qt::CaseInsensitive) == 0)
                return h.second;
        }
        return {};
    }
};

// Keeps every request as it came and answers 200. It answers "Expect: 100-continue"
// (curl asks before a body of more than 1 KiB) and reads bodies by Content-Length: both
// clients send files and forms with one.
class EchoServer final : public QTcpServer
{
    Q_OBJECT

public:
    explicit EchoServer(QObject *parent = nullptr) : QTcpServer(parent)
    {
        listen(QHostAddress::LocalHost, 0);
    }

    QString base() const { return QStringLiteral("http://127.0.0.1:%1").arg(serverPort()); }

    QList<EchoedRequest> received;

protected:
    void incomingConnection(qintptr descriptor) override
    {
        auto *socket = new QTcpSocket(this);
        socket->setSocketDescriptor(descriptor);
        connect(socket, &QTcpSocket::readyRead, this, [this, socket] { onRead(socket); });
        connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
    }

private:
    void onRead(QTcpSocket *socket)
    {
        QByteArray &buffer = m_buffers[socket];
        buffer += socket->readAll();
        for (;;) {
            const qsizetype end = buffer.indexOf("\r\n\r\n");
            if (end < 0)
                return;
            EchoedRequest r;
            const QList<QByteArray> lines = buffer.left(end).split('\n');
            const QList<QByteArray> requestLine = lines.value(0).trimmed().split(' ');
            r.method = requestLine.value(0);
            r.target = requestLine.value(1);
            qsizetype length = 0;
            for (qsizetype i = 1; i < lines.size(); ++i) {
                const QByteArray line = lines.at(i).trimmed();
                const qsizetype colon = line.indexOf(':');
                if (colon <= 0)
                    continue;
                r.headers.append({line.left(colon).trimmed(), line.mid(colon + 1).trimmed()});
            }
            length = r.header("Content-Length").toLongLong();
            if (buffer.size() < end + 4 + length) {
                if (r.header("Expect").compare("100-continue", Qt::CaseInsensitive) == 0 &&
                    !m_continued.contains(socket)) {
                    m_continued.insert(socket);
                    socket->write("HTTP/1.1 100 Continue\r\n\r\n");
                }
                return;
            }
            m_continued.remove(socket);
            r.body = buffer.mid(end + 4, length);
            buffer.remove(0, end + 4 + length);
            const QByteArray body = r.method == "HEAD" ? QByteArray() : QByteArray("{}");
            received.append(r);
            socket->write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                          "Content-Length: 2\r\n\r\n" +
                          body);
        }
    }

    QHash<QTcpSocket *, QByteArray> m_buffers;
    QSet<QTcpSocket *> m_continued;
};

struct Finished
{
    bool ok = false;
    QByteArray out;
    QByteArray err;
};

// Runs a program to its end while this thread's event loop turns, so that the echo
// server in it answers. Killed after 60 s.
Finished runServed(const QString &program, const QStringList &arguments,
                   const QProcessEnvironment &environment, const QString &directory)
{
    QProcess process;
    process.setProcessEnvironment(environment);
    process.setWorkingDirectory(directory);
    QEventLoop loop;
    QObject::connect(&process, &QProcess::finished, &loop, &QEventLoop::quit);
    QObject::connect(&process, &QProcess::errorOccurred, &loop, &QEventLoop::quit);
    QTimer limit;
    limit.setSingleShot(true);
    QObject::connect(&limit, &QTimer::timeout, &loop, &QEventLoop::quit);
    limit.start(60000);
    process.start(program, arguments);
    if (process.state() != QProcess::NotRunning)
        loop.exec();
    Finished f;
    if (process.state() != QProcess::NotRunning) {
        process.kill();
        process.waitForFinished(5000);
        f.err = "killed after 60 s\n";
    }
    f.out = process.readAllStandardOutput();
    f.err += process.readAllStandardError() + process.errorString().toUtf8();
    f.ok = process.exitStatus() == QProcess::NormalExit && process.exitCode() == 0 &&
           process.error() == QProcess::UnknownError;
    return f;
}

// The words cmd.exe and then the C runtime make of a command line, written from their
// documentation rather than from the import's code: cmd's ^ escapes the next character
// outside "…" (and, before a line end, joins the lines, the next character taken as it
// is); then CommandLineToArgvW: blanks outside "…" separate, 2n backslashes and a quote
// give n backslashes and a quote that groups, 2n+1 give n and a literal quote.
QStringList cmdWords(const QString &text)
{
    QString line;
    bool quoted = false;
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text.at(i);
        if (c == QLatin1Char('"')) {
            quoted = !quoted;
            line += c;
        } else if (c == QLatin1Char('^') && !quoted && i + 1 < text.size()) {
            ++i;
            if (text.at(i) == QLatin1Char('\r') && i + 1 < text.size())
                ++i;
            if (text.at(i) == QLatin1Char('\n')) {
                if (i + 1 < text.size())
                    line += text.at(++i);
            } else {
                line += text.at(i);
            }
        } else if (c == QLatin1Char('\n') && !quoted) {
            break; // the command's end
        } else {
            line += c;
        }
    }
    QStringList words;
    QString word;
    bool inWord = false;
    quoted = false;
    for (qsizetype i = 0; i < line.size();) {
        const QChar c = line.at(i);
        if (c == QLatin1Char('\\')) {
            qsizetype n = 0;
            while (i + n < line.size() && line.at(i + n) == QLatin1Char('\\'))
                ++n;
            const bool quoteFollows = i + n < line.size() && line.at(i + n) == QLatin1Char('"');
            word += QString(quoteFollows ? n / 2 : n, QLatin1Char('\\'));
            i += n;
            if (quoteFollows && n % 2 == 1) {
                word += QLatin1Char('"');
                ++i;
            }
            inWord = true;
        } else if (c == QLatin1Char('"')) {
            quoted = !quoted;
            inWord = true;
            ++i;
        } else if ((c == QLatin1Char(' ') || c == QLatin1Char('\t')) && !quoted) {
            if (inWord)
                words.append(word);
            word.clear();
            inWord = false;
            ++i;
        } else {
            word += c;
            inWord = true;
            ++i;
        }
    }
    if (inWord)
        words.append(word);
    return words;
}

// The query as decoded name=value lines, in order.
QString decodedQuery(const QByteArray &target)
{
    QString pairs;
    const qsizetype mark = target.indexOf('?');
    if (mark < 0)
        return pairs;
    for (const QByteArray &item : target.mid(mark + 1).split('&')) {
        const qsizetype eq = item.indexOf('=');
        pairs +=
            QUrl::fromPercentEncoding(eq < 0 ? item : item.left(eq)) +
            (eq < 0 ? QString() : QLatin1Char('=') + QUrl::fromPercentEncoding(item.mid(eq + 1))) +
            QLatin1Char('\n');
    }
    return pairs;
}

QString decodedPath(const QByteArray &target)
{
    const qsizetype mark = target.indexOf('?');
    return QUrl::fromPercentEncoding(mark < 0 ? target : target.left(mark));
}

QByteArray boundaryOf(const QByteArray &contentType)
{
    static const QRegularExpression boundary(
        QStringLiteral("^multipart/form-data;\\s*boundary=\"?([^\";]+)"),
        QRegularExpression::CaseInsensitiveOption);
    return boundary.match(QString::fromLatin1(contentType)).captured(1).toLatin1();
}

// Each side's multipart boundary replaced by the same word, in the body and the header.
void normaliseBoundary(EchoedRequest &r)
{
    const QByteArray boundary = boundaryOf(r.header("Content-Type"));
    if (boundary.isEmpty())
        return;
    r.body.replace("--" + boundary, "--BOUNDARY");
    for (auto &h : r.headers) {
        if (h.first.compare("Content-Type", Qt::CaseInsensitive) == 0)
            h.second.replace(boundary, "BOUNDARY");
    }
}

// Headers by lower-case name, a repeated one's values joined with ", " (the workspace
// keeps one value per name and joins them so), without those the comparison ignores.
QByteArray comparedHeaders(const HeaderList &headers, const QSet<QByteArray> &ignored)
{
    QMap<QByteArray, QByteArray> out;
    for (const auto &[name, value] : headers) {
        const QByteArray key = name.toLower();
        if (ignored.contains(key))
            continue;
        out[key] = out.contains(key) ? out[key] + ", " + value : value;
    }
    QByteArray text;
    for (auto it = out.cbegin(); it != out.cend(); ++it)
        text += it.key() + ": " + it.value() + '\n';
    return text;
}

// Whether the command sets header name itself (-H "Name: …", or the options that do).
bool commandSets(const QString &command, const QString &name)
{
    const QRegularExpression header(QStringLiteral("[\\s\"'^]%1\\s*:").arg(name),
                                    QRegularExpression::CaseInsensitiveOption);
    if (header.match(command).hasMatch())
        return true;
    if (name == QLatin1String("user-agent"))
        return command.contains(QLatin1String(" -A ")) ||
               command.contains(QLatin1String("--user-agent"));
    if (name == QLatin1String("accept"))
        return command.contains(QLatin1String("--json"));
    return false;
}

// ${env:NAME} in a written template, matched against what curl sent there: each name's
// value. False when the template does not fit the value.
bool learnValues(const QString &written, const QString &sent, QHash<QString, QString> *values)
{
    static const QRegularExpression reference(QStringLiteral("\\$\\{env:([A-Za-z0-9_]+)\\}"));
    QString pattern = QStringLiteral("^");
    QStringList names;
    qsizetype at = 0;
    for (auto it = reference.globalMatch(written); it.hasNext();) {
        const QRegularExpressionMatch m = it.next();
        pattern += QRegularExpression::escape(written.mid(at, m.capturedStart() - at)) +
                   QStringLiteral("(.*?)");
        names.append(m.captured(1));
        at = m.capturedEnd();
    }
    if (names.isEmpty())
        return true;
    pattern += QRegularExpression::escape(written.mid(at)) + QLatin1Char('$');
    const QRegularExpressionMatch m = QRegularExpression(pattern).match(sent);
    if (!m.hasMatch())
        return false;
    for (qsizetype i = 0; i < names.size(); ++i) {
        const QString value = m.captured(int(i) + 1);
        if (values->contains(names.at(i)) && values->value(names.at(i)) != value)
            return false;
        values->insert(names.at(i), value);
    }
    return true;
}

QJsonObject findById(const QJsonArray &list, const QString &id)
{
    for (const QJsonValue &v : list) {
        if (v.toObject().value(QStringLiteral("id")).toString() == id)
            return v.toObject();
    }
    return {};
}

bool copyTree(const QString &from, const QString &to)
{
    QDirIterator it(from, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        const QString target = to + QLatin1Char('/') + QDir(from).relativeFilePath(path);
        if (!QDir().mkpath(QFileInfo(target).absolutePath()) || !QFile::copy(path, target))
            return false;
    }
    return true;
}

} // namespace

class tst_ImportCurl : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void sameRequestAsCurl_data();
    void sameRequestAsCurl();

private:
    QString m_curl;
};

void tst_ImportCurl::initTestCase()
{
    m_curl = QStandardPaths::findExecutable(QStringLiteral("curl"));
    if (m_curl.isEmpty())
        QSKIP("curl is not installed: the corpus is compared against what curl itself sends");
    if (QStandardPaths::findExecutable(QStringLiteral("bash")).isEmpty())
        QSKIP("bash is not installed: the bash-style commands of the corpus run in it");
}

void tst_ImportCurl::sameRequestAsCurl_data()
{
    QTest::addColumn<QString>("path");
    const QDir corpus(QStringLiteral(COOLDOWN_CURL_CORPUS));
    const QStringList names = corpus.entryList({QStringLiteral("*.sh"), QStringLiteral("*.cmd")},
                                               QDir::Files, QDir::Name);
    QVERIFY2(names.size() >= 30, qPrintable(corpus.path() + QStringLiteral(": too few commands")));
    for (const QString &name : names)
        QTest::newRow(qPrintable(name)) << corpus.filePath(name);
}

void tst_ImportCurl::sameRequestAsCurl()
{
    QFETCH(QString, path);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    EchoServer server;
    QVERIFY(server.isListening());

    // The command with its placeholder host made the echo server, in a folder of its own
    // with the corpus's data files, which @file names relative to the command.
    const bool cmd = path.endsWith(QLatin1String(".cmd"));
    QString command = QString::fromUtf8(readTextFile(path));
    command.replace(QStringLiteral("https://ECHO"), server.base());
    const QString commandFile = dir.filePath(QFileInfo(path).fileName());
    QVERIFY(writeTextFile(commandFile, command.toUtf8()));
    QVERIFY(copyTree(QStringLiteral(COOLDOWN_CURL_CORPUS "/files"), dir.filePath("files")));

    // Variables the command names itself ($TOKEN), set as "# env: NAME=value" lines say.
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    QHash<QString, QString> commandVariables;
    static const QRegularExpression envLine(QStringLiteral("^# env: ([A-Za-z0-9_]+)=(.*)$"),
                                            QRegularExpression::MultilineOption);
    for (auto it = envLine.globalMatch(command); it.hasNext();) {
        const QRegularExpressionMatch m = it.next();
        commandVariables.insert(m.captured(1), m.captured(2));
        environment.insert(m.captured(1), m.captured(2));
    }

    // 1. curl itself.
    Finished curl;
    if (cmd) {
        QStringList words = cmdWords(command);
        QVERIFY2(!words.isEmpty() && words.first() == QLatin1String("curl"),
                 qPrintable(words.join(QLatin1Char(' '))));
        words.removeFirst();
        curl = runServed(m_curl, words, environment, dir.path());
    } else {
        curl = runServed(QStringLiteral("bash"), {QStringLiteral("-c"), command}, environment,
                         dir.path());
    }
    QVERIFY2(curl.ok, curl.err.constData());
    QCOMPARE(server.received.size(), 1);
    EchoedRequest sent = server.received.takeFirst();

    // 2. The import of it, as its own endpoint of a workspace.
    const QString workspace = dir.filePath("ws.json");
    const CooldownResult import =
        runCooldown({QStringLiteral("import"), QStringLiteral("curl"), QStringLiteral("--file"),
                     commandFile, QStringLiteral("--config"), workspace, QStringLiteral("--id"),
                     QStringLiteral("c1"), QStringLiteral("--every"), QStringLiteral("86400")},
                    environment, 30000);
    QVERIFY2(import.ok(), import.tail().constData());
    const QByteArray written = readTextFile(workspace);
    const QJsonObject root = QJsonDocument::fromJson(written).object();
    const QJsonObject endpoint =
        findById(root.value(QStringLiteral("endpoints")).toArray(), QStringLiteral("c1"));
    QVERIFY2(!endpoint.isEmpty(), written.constData());

    // The variables' values, from where the workspace puts them and what curl sent there.
    QHash<QString, QString> values = commandVariables;
    const QString sentUrl = server.base() + QString::fromUtf8(sent.target);
    QVERIFY2(learnValues(endpoint.value(QStringLiteral("url")).toString(), sentUrl, &values),
             qPrintable(sentUrl));
    const QJsonObject headers = endpoint.value(QStringLiteral("headers")).toObject();
    for (auto it = headers.begin(); it != headers.end(); ++it) {
        const QString value = QString::fromUtf8(sent.header(it.key().toUtf8()));
        QVERIFY2(learnValues(it.value().toString(), value, &values),
                 qPrintable(it.key() + QStringLiteral(": ") + value));
    }
    QStringList secrets;
    const QByteArray authorization = sent.header("Authorization");
    if (authorization.startsWith("Basic ")) {
        const QString pair = QString::fromUtf8(QByteArray::fromBase64(authorization.mid(6)));
        const QString user = pair.section(QLatin1Char(':'), 0, 0);
        const QString password = pair.section(QLatin1Char(':'), 1);
        // A key given as the user with no password (-u KEY:) is the secret itself.
        secrets.append(password.isEmpty() ? user : password);
        const QJsonObject credential =
            findById(root.value(QStringLiteral("credentials")).toArray(),
                     endpoint.value(QStringLiteral("credentials")).toString());
        if (!credential.isEmpty()) {
            QVERIFY(learnValues(credential.value(QStringLiteral("username")).toString(), user,
                                &values));
            QVERIFY(learnValues(credential.value(QStringLiteral("password")).toString(), password,
                                &values));
        }
    }
    static const QRegularExpression printed(QStringLiteral("^export ([A-Za-z0-9_]+)="),
                                            QRegularExpression::MultilineOption);
    for (auto it = printed.globalMatch(QString::fromUtf8(import.out)); it.hasNext();) {
        const QString name = it.next().captured(1);
        QVERIFY2(values.contains(name), qPrintable(name + QStringLiteral(" printed, not found")));
        if (!commandVariables.contains(name))
            secrets.append(values.value(name));
    }
    // Nothing the import moved out is in the file, the commands' own variables aside.
    for (const QString &secret : std::as_const(secrets)) {
        bool own = false;
        for (const QString &v : std::as_const(commandVariables))
            own = own || v == secret;
        if (!own && !secret.isEmpty())
            QVERIFY2(!written.contains(secret.toUtf8()), qPrintable(secret));
    }

    // 3. The endpoint run once by the engine, the secrets from the environment.
    for (auto it = values.begin(); it != values.end(); ++it)
        environment.insert(it.key(), it.value());
    const Finished run = runServed(QStringLiteral(COOLDOWN_BINARY),
                                   {QStringLiteral("run"), QStringLiteral("--config"), workspace,
                                    QStringLiteral("--db"), dir.filePath("cooldown.db"),
                                    QStringLiteral("--until-idle")},
                                   environment, dir.path());
    QVERIFY2(run.ok, (run.out + run.err).constData());
    QCOMPARE(server.received.size(), 1);
    EchoedRequest ran = server.received.takeFirst();

    QCOMPARE(ran.method, sent.method);
    QCOMPARE(decodedPath(ran.target), decodedPath(sent.target));
    QCOMPARE(decodedQuery(ran.target), decodedQuery(sent.target));
    normaliseBoundary(sent);
    normaliseBoundary(ran);
    QCOMPARE(ran.body, sent.body);
    // What each client adds on its own, whatever the command says: the transport's
    // headers (Host, Content-Length, Connection, Expect, Accept-Encoding: curl offers
    // none without --compressed, Qt always its decoders), and the defaults of
    // User-Agent, Accept and Accept-Language (curl/x and */*, Qt's Mozilla/5.0 and
    // en,*) unless the command sets them.
    QSet<QByteArray> ignored = {"host", "content-length", "connection", "expect",
                                "accept-encoding"};
    for (const char *name : {"user-agent", "accept", "accept-language"}) {
        if (!commandSets(command, QString::fromLatin1(name)))
            ignored.insert(name);
    }
    QCOMPARE(comparedHeaders(ran.headers, ignored), comparedHeaders(sent.headers, ignored));
}

QTEST_GUILESS_MAIN(tst_ImportCurl)
#include "tst_import_curl.moc"
