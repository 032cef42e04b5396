// SPDX-License-Identifier: Apache-2.0
// The HTTP/1.1 listener of `cooldown run --listen` (app/LocalListener), in this process:
// requests read whole and answered in order on one connection, bodies that arrive in
// pieces, and the refusals that close the connection without calling the handler.

#include "app/LocalListener.h"

#include <QHostAddress>
#include <QTcpSocket>
#include <QTest>

#include <memory>

using namespace cooldown;

namespace {

// A client on loopback that keeps everything it receives.
struct Client
{
    std::unique_ptr<QTcpSocket> socket = std::make_unique<QTcpSocket>();
    QByteArray received;

    bool connectTo(quint16 port)
    {
        QObject::connect(socket.get(), &QTcpSocket::readyRead, socket.get(),
                         [this] { received += socket->readAll(); });
        socket->connectToHost(QHostAddress::LocalHost, port);
        return QTest::qWaitFor(
            [this] { return socket->state() == QAbstractSocket::ConnectedState; }, 5000);
    }
    bool closedByServer()
    {
        return QTest::qWaitFor(
            [this] { return socket->state() == QAbstractSocket::UnconnectedState; }, 5000);
    }
    int responses() const { return int(received.count("HTTP/1.1 ")); }
};

} // namespace

class tst_LocalListener : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void parsesAddresses_data();
    void parsesAddresses();
    void answersPipelinedRequestsInOrder();
    void readsABodyThatArrivesInPieces();
    void headGetsNoBodyAndHttp10Closes();
    void refusesWithoutCallingTheHandler_data();
    void refusesWithoutCallingTheHandler();

private:
    std::unique_ptr<LocalListener> m_listener;
    QList<LocalRequest> m_seen;
};

void tst_LocalListener::init()
{
    m_seen.clear();
    m_listener = std::make_unique<LocalListener>(
        [this](const LocalRequest &request) {
            m_seen.append(request);
            LocalResponse r = LocalResponse::text(200, "seen " + request.path);
            r.headers.append({"X-Count", QByteArray::number(m_seen.size())});
            return r;
        },
        16);
    QString error;
    QVERIFY2(m_listener->listen(QHostAddress::LocalHost, 0, &error), qPrintable(error));
    QVERIFY(m_listener->port() > 0);
}

void tst_LocalListener::parsesAddresses_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<bool>("ok");
    QTest::addColumn<QString>("host");
    QTest::addColumn<int>("port");
    QTest::addColumn<QString>("error");
    QTest::newRow("ipv4") << "127.0.0.1:9464" << true << "127.0.0.1" << 9464 << QString();
    QTest::newRow("ipv6 in brackets") << "[::1]:8080" << true << "::1" << 8080 << QString();
    QTest::newRow("localhost") << "localhost:0" << true << "127.0.0.1" << 0 << QString();
    QTest::newRow("no port") << "127.0.0.1" << false << QString() << 0 << "expected HOST:PORT";
    QTest::newRow("port too large")
        << "127.0.0.1:65536" << false << QString() << 0 << "expected HOST:PORT";
    QTest::newRow("no host") << ":9464" << false << QString() << 0 << "expected HOST:PORT";
    QTest::newRow("a name") << "example.com:80" << false << QString() << 0
                            << "'example.com' is not an IP address";
}

void tst_LocalListener::parsesAddresses()
{
    QFETCH(QString, text);
    QFETCH(bool, ok);
    QFETCH(QString, host);
    QFETCH(int, port);
    QFETCH(QString, error);
    QHostAddress address;
    quint16 parsedPort = 1;
    QString why;
    QCOMPARE(LocalListener::parseAddress(text, &address, &parsedPort, &why), ok);
    if (ok) {
        QCOMPARE(address, QHostAddress(host));
        QCOMPARE(int(parsedPort), port);
    } else {
        QVERIFY2(why.contains(error), qPrintable(why));
        QVERIFY2(why.contains(text) || why.contains(u"example.com"), qPrintable(why));
    }
}

void tst_LocalListener::answersPipelinedRequestsInOrder()
{
    Client client;
    QVERIFY(client.connectTo(m_listener->port()));
    client.socket->write("GET /a?x=1&y=%20 HTTP/1.1\r\nHost: h\r\nX-Thing:  V \r\n\r\n"
                         "POST /b HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello"
                         "DELETE /c HTTP/1.1\r\n\r\n");
    QVERIFY(QTest::qWaitFor([&] { return client.responses() == 3; }, 5000));
    QCOMPARE(m_seen.size(), 3);
    QCOMPARE(m_seen.at(0).method, QByteArray("GET"));
    QCOMPARE(m_seen.at(0).path, QByteArray("/a"));
    QCOMPARE(m_seen.at(0).query, QByteArray("x=1&y=%20"));
    QCOMPARE(m_seen.at(0).header("x-thing"), QByteArray("V")); // names lower-cased, trimmed
    QCOMPARE(m_seen.at(0).header("host"), QByteArray("h"));
    QVERIFY(m_seen.at(0).body.isEmpty());
    QCOMPARE(m_seen.at(1).method, QByteArray("POST"));
    QCOMPARE(m_seen.at(1).body, QByteArray("hello"));
    QCOMPARE(m_seen.at(2).method, QByteArray("DELETE"));
    // Answered in order, each whole, and the connection kept.
    const qsizetype first = client.received.indexOf("seen /a");
    const qsizetype second = client.received.indexOf("seen /b");
    const qsizetype third = client.received.indexOf("seen /c");
    QVERIFY(first > 0 && first < second && second < third);
    QVERIFY(client.received.startsWith("HTTP/1.1 200 OK\r\n"));
    QVERIFY(client.received.contains("X-Count: 3\r\n"));
    QVERIFY(client.received.contains("Content-Length: 7\r\n"));
    QVERIFY(!client.received.contains("Connection: close"));
    QCOMPARE(client.socket->state(), QAbstractSocket::ConnectedState);
}

void tst_LocalListener::readsABodyThatArrivesInPieces()
{
    Client client;
    QVERIFY(client.connectTo(m_listener->port()));
    client.socket->write("PUT /piece HTTP/1.1\r\nContent-Le");
    QVERIFY(QTest::qWaitFor([&] { return client.socket->bytesToWrite() == 0; }, 5000));
    client.socket->write("ngth: 10\r\n\r\n0123");
    QVERIFY(QTest::qWaitFor([&] { return client.socket->bytesToWrite() == 0; }, 5000));
    // Nothing is answered before the body is whole.
    QTest::qWait(50);
    QVERIFY(m_seen.isEmpty());
    QCOMPARE(client.responses(), 0);
    client.socket->write("456789");
    QVERIFY(QTest::qWaitFor([&] { return client.responses() == 1; }, 5000));
    QCOMPARE(m_seen.size(), 1);
    QCOMPARE(m_seen.at(0).body, QByteArray("0123456789"));
}

void tst_LocalListener::headGetsNoBodyAndHttp10Closes()
{
    Client client;
    QVERIFY(client.connectTo(m_listener->port()));
    client.socket->write("HEAD /h HTTP/1.1\r\n\r\n");
    QVERIFY(QTest::qWaitFor([&] { return client.received.contains("\r\n\r\n"); }, 5000));
    QVERIFY(client.received.contains("Content-Length: 7\r\n"));
    QVERIFY(!client.received.contains("seen /h"));
    QCOMPARE(client.socket->state(), QAbstractSocket::ConnectedState);

    Client old;
    QVERIFY(old.connectTo(m_listener->port()));
    old.socket->write("GET /old HTTP/1.0\r\n\r\n");
    QVERIFY(old.closedByServer());
    QVERIFY(old.received.contains("Connection: close\r\n"));
    QVERIFY(old.received.endsWith("seen /old"));
}

void tst_LocalListener::refusesWithoutCallingTheHandler_data()
{
    QTest::addColumn<QByteArray>("request");
    QTest::addColumn<int>("status");
    QTest::newRow("chunked") << QByteArray("POST /j HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
                                           "5\r\nhello\r\n0\r\n\r\n")
                             << 411;
    // The cap is 16 bytes: refused from Content-Length alone, before the body is sent.
    QTest::newRow("body over the cap")
        << QByteArray("POST /j HTTP/1.1\r\nContent-Length: 17\r\n\r\n") << 413;
    QTest::newRow("head over 16 KiB")
        << (QByteArray("GET /j HTTP/1.1\r\nX-Big: ") + QByteArray(17 * 1024, 'a') + "\r\n\r\n")
        << 431;
    QTest::newRow("request line") << QByteArray("GARBAGE\r\n\r\n") << 400;
    QTest::newRow("not http") << QByteArray("GET /j SPDY/3\r\n\r\n") << 400;
    QTest::newRow("header line") << QByteArray("GET /j HTTP/1.1\r\nno colon here\r\n\r\n") << 400;
    QTest::newRow("content-length")
        << QByteArray("POST /j HTTP/1.1\r\nContent-Length: ten\r\n\r\n") << 400;
    QTest::newRow("negative length")
        << QByteArray("POST /j HTTP/1.1\r\nContent-Length: -1\r\n\r\n") << 400;
}

void tst_LocalListener::refusesWithoutCallingTheHandler()
{
    QFETCH(QByteArray, request);
    QFETCH(int, status);
    Client client;
    QVERIFY(client.connectTo(m_listener->port()));
    client.socket->write(request);
    QVERIFY(client.closedByServer());
    QVERIFY2(client.received.startsWith("HTTP/1.1 " + QByteArray::number(status) + ' '),
             client.received.left(80).constData());
    QVERIFY(client.received.contains("Connection: close\r\n"));
    QVERIFY(m_seen.isEmpty());
}

QTEST_GUILESS_MAIN(tst_LocalListener)
#include "tst_locallistener.moc"
