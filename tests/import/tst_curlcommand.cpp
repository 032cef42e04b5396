// SPDX-License-Identifier: Apache-2.0
#include "core/import/CurlCommand.h"
#include "core/import/ShellWords.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace cooldown;

// curl's options read into the request they make, and the ones that cannot be
// represented refused by name.
class tst_CurlCommand : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;

    std::optional<CurlRequest> parse(const QString &command, QString *error)
    {
        const std::optional<ShellWords> words = splitShellWords(command, error);
        return words ? parseCurl(words->words, m_dir.path(), error) : std::nullopt;
    }
    static QString headersText(const CurlRequest &r)
    {
        QStringList out;
        for (const auto &[name, value] : r.headers)
            out.append(QString::fromUtf8(name + ": " + value));
        return out.join(QLatin1Char('|'));
    }

private slots:
    void initTestCase();
    void requests_data();
    void requests();
    void multipart();
    void refused_data();
    void refused();
};

void tst_CurlCommand::initTestCase()
{
    QVERIFY(m_dir.isValid());
    QFile file(m_dir.filePath(QStringLiteral("order.json")));
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("{\"a\": 1,\r\n \"b\": 2}\n");
}

void tst_CurlCommand::requests_data()
{
    QTest::addColumn<QString>("command");
    QTest::addColumn<QString>("method");
    QTest::addColumn<QString>("url");
    QTest::addColumn<QString>("headers");
    QTest::addColumn<QByteArray>("body");

    QTest::newRow("a GET") << "curl https://a.example/v1/items?page=2"
                           << "GET"
                           << "https://a.example/v1/items?page=2"
                           << "" << QByteArray();
    QTest::newRow("no scheme is http") << "curl a.example:8080/x"
                                       << "GET"
                                       << "http://a.example:8080/x"
                                       << "" << QByteArray();
    QTest::newRow("data makes a form POST")
        << "curl -d name=bolt -d qty=3 https://a.example/orders"
        << "POST"
        << "https://a.example/orders"
        << "Content-Type: application/x-www-form-urlencoded" << QByteArray("name=bolt&qty=3");
    QTest::newRow("a JSON body keeps its type")
        << "curl -X PUT https://a.example/o/1 -H 'Content-Type: application/json' --data-raw "
           "'{\"a\":1}'"
        << "PUT"
        << "https://a.example/o/1"
        << "Content-Type: application/json" << QByteArray("{\"a\":1}");
    QTest::newRow("-d @file drops line ends")
        << "curl -d @order.json https://a.example/o"
        << "POST"
        << "https://a.example/o"
        << "Content-Type: application/x-www-form-urlencoded" << QByteArray("{\"a\": 1, \"b\": 2}");
    QTest::newRow("--data-binary @file keeps them")
        << "curl --data-binary @order.json -H 'Content-Type: application/json' https://a.example/o"
        << "POST"
        << "https://a.example/o"
        << "Content-Type: application/json" << QByteArray("{\"a\": 1,\r\n \"b\": 2}\n");
    QTest::newRow("--data-raw takes @ as text")
        << "curl --data-raw @me https://a.example/o"
        << "POST"
        << "https://a.example/o"
        << "Content-Type: application/x-www-form-urlencoded" << QByteArray("@me");
    QTest::newRow("--data-urlencode")
        << "curl --data-urlencode 'q=bolt & nut' --data-urlencode '=a b' https://a.example/s"
        << "POST"
        << "https://a.example/s"
        << "Content-Type: application/x-www-form-urlencoded" << QByteArray("q=bolt+%26+nut&a+b");
    QTest::newRow("-G puts the data in the query")
        << "curl -G https://a.example/s?x=1 -d q=bolt --data-urlencode 'w=a b'"
        << "GET"
        << "https://a.example/s?x=1&q=bolt&w=a+b"
        << "" << QByteArray();
    QTest::newRow("--json") << "curl --json '{\"a\":1}' https://a.example/j"
                            << "POST"
                            << "https://a.example/j"
                            << "Content-Type: application/json|Accept: application/json"
                            << QByteArray("{\"a\":1}");
    QTest::newRow("-I is HEAD") << "curl -I https://a.example/"
                                << "HEAD"
                                << "https://a.example/"
                                << "" << QByteArray();
    QTest::newRow("flags run together and -XPOST") << "curl -sSLXPOST https://a.example/p"
                                                   << "POST"
                                                   << "https://a.example/p"
                                                   << "" << QByteArray();
    QTest::newRow("user agent, referer, cookies")
        << "curl -A 'tool/1' -e https://r.example/ -b 'a=1' -b 'b=2' https://a.example/"
        << "GET"
        << "https://a.example/"
        << "User-Agent: tool/1|Referer: https://r.example/|Cookie: a=1; b=2" << QByteArray();
    QTest::newRow("a header taken away, an empty one sent")
        << "curl -H 'Accept: x' -H 'Accept:' -H 'X-Empty;' https://a.example/"
        << "GET"
        << "https://a.example/"
        << "X-Empty: " << QByteArray();
    QTest::newRow("ignored options")
        << "curl -s -v -L -o out.json -w '%{http_code}' --max-time 5 --url https://a.example/u"
        << "GET"
        << "https://a.example/u"
        << "" << QByteArray();
    QTest::newRow("long options with =") << "curl --request=DELETE --url=https://a.example/d"
                                         << "DELETE"
                                         << "https://a.example/d"
                                         << "" << QByteArray();
}

void tst_CurlCommand::requests()
{
    QFETCH(QString, command);
    QFETCH(QString, method);
    QFETCH(QString, url);
    QFETCH(QString, headers);
    QFETCH(QByteArray, body);
    QString error;
    const std::optional<CurlRequest> r = parse(command, &error);
    QVERIFY2(r, qPrintable(error));
    QCOMPARE(QString::fromLatin1(r->method), method);
    QCOMPARE(r->url.toString(QUrl::FullyEncoded), url);
    QCOMPARE(headersText(*r), headers);
    QCOMPARE(r->body, body);
    QCOMPARE(r->hasBody, !body.isEmpty());
}

void tst_CurlCommand::multipart()
{
    QString error;
    const std::optional<CurlRequest> r =
        parse(QStringLiteral("curl -F 'note=hello' -F 'file=@order.json;type=application/json' "
                             "--form-string 'raw=@not-a-file' https://a.example/upload"),
              &error);
    QVERIFY2(r, qPrintable(error));
    QCOMPARE(r->method, QByteArray("POST"));
    const QByteArray boundary = "------------------------cooldownimport";
    QCOMPARE(r->header("Content-Type"), "multipart/form-data; boundary=" + boundary);
    const QByteArray expected =
        "--" + boundary + "\r\nContent-Disposition: form-data; name=\"note\"\r\n\r\nhello\r\n" +
        "--" + boundary +
        "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"order.json\"\r\n"
        "Content-Type: application/json\r\n\r\n{\"a\": 1,\r\n \"b\": 2}\n\r\n" +
        "--" + boundary +
        "\r\nContent-Disposition: form-data; name=\"raw\"\r\n\r\n@not-a-file\r\n" + "--" +
        boundary + "--\r\n";
    QCOMPARE(r->body, expected);
}

void tst_CurlCommand::refused_data()
{
    QTest::addColumn<QString>("command");
    QTest::addColumn<QString>("message");

    QTest::newRow("not curl") << "wget https://a.example/"
                              << "expected a command that starts with curl, got 'wget'";
    QTest::newRow("no URL") << "curl -X POST"
                            << "no URL in the command";
    QTest::newRow("two URLs") << "curl https://a.example/1 https://a.example/2"
                              << "a second URL 'https://a.example/2'";
    QTest::newRow("unknown option") << "curl --proxy http://p:3128 https://a.example/"
                                    << "--proxy is not an option the import knows";
    QTest::newRow("unknown flag in a run") << "curl -sZ https://a.example/"
                                           << "-Z is not an option the import knows";
    QTest::newRow("missing value") << "curl https://a.example/ -H"
                                   << "-H needs a value";
    QTest::newRow("header without colon") << "curl -H 'Accept' https://a.example/"
                                          << "-H: expected \"Name: value\", got 'Accept'";
    QTest::newRow("missing file") << "curl -d @nope.json https://a.example/"
                                  << "-d: cannot read";
    QTest::newRow("standard input") << "curl --data-binary @- https://a.example/"
                                    << "@- reads standard input";
    QTest::newRow("cookie file") << "curl -b cookies.txt https://a.example/"
                                 << "a cookie file cannot be imported";
    QTest::newRow("form and data") << "curl -F a=1 -d b=2 https://a.example/"
                                   << "-F and -d together";
    QTest::newRow("not a URL") << "curl 'http://a b/'"
                               << "not a URL";
}

void tst_CurlCommand::refused()
{
    QFETCH(QString, command);
    QFETCH(QString, message);
    QString error;
    QVERIFY(!parse(command, &error));
    QVERIFY2(error.contains(message), qPrintable(error));
}

QTEST_APPLESS_MAIN(tst_CurlCommand)
#include "tst_curlcommand.moc"
