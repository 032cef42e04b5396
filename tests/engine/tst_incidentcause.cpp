// SPDX-License-Identifier: Apache-2.0
#include "core/engine/IncidentCause.h"

#include <QTest>

using namespace cooldown;

namespace {

ProxyConfig explicitProxy()
{
    ProxyConfig proxy;
    proxy.kind = ProxyConfig::Kind::Explicit;
    proxy.url = QUrl(QStringLiteral("http://Proxy.Corp.example:3128"));
    proxy.noProxy = {QStringLiteral("internal.example")};
    return proxy;
}

} // namespace

Q_DECLARE_METATYPE(cooldown::TransportError)

// What one exchange says of the causes endpoints share (docs/incidents.md).
class tst_IncidentCause : public QObject
{
    Q_OBJECT

private slots:
    void causes_data();
    void causes();
    void text();
};

void tst_IncidentCause::causes_data()
{
    QTest::addColumn<QString>("host");
    QTest::addColumn<bool>("viaProxy");
    QTest::addColumn<int>("status");
    QTest::addColumn<TransportError>("error");
    QTest::addColumn<bool>("requestLeft");
    QTest::addColumn<QString>("failed");
    QTest::addColumn<QStringList>("cleared");

    const QString host = QStringLiteral("host:api.example.com");
    const QString proxy = QStringLiteral("proxy:proxy.corp.example:3128");
    const QString api = QStringLiteral("API.example.com");
    using E = TransportError;
    // The host not reached, or no answer before the whole request was written: the
    // host's cause, whatever went wrong on the way.
    for (const E e : {E::ConnectionRefused, E::HostNotFound, E::Timeout, E::Tls})
        QTest::addRow("direct %s", textOf(e))
            << api << false << 0 << e << false << host << QStringList();
    // Its own server errors are the host's too; 503 is a throttle, and the host there.
    for (const int s : {500, 502, 504})
        QTest::addRow("direct %d", s)
            << api << false << s << E::None << false << host << QStringList();
    for (const int s : {200, 204, 301, 400, 404, 409, 422, 429, 503})
        QTest::addRow("direct %d", s)
            << api << false << s << E::None << false << QString() << QStringList{host};
    // The machine's, or the endpoint's own: no cause to share.
    for (const E e :
         {E::NetworkUnreachable, E::Interrupted, E::WorkerDied, E::BadUrl, E::UnsupportedScheme})
        QTest::addRow("direct %s", textOf(e))
            << api << false << 0 << e << false << QString() << QStringList();
    // Through a proxy: no answer at all is the proxy's; its 502 and 504 are the host's,
    // and say the proxy works.
    QTest::newRow("proxy refused")
        << api << true << 0 << E::ConnectionRefused << false << proxy << QStringList();
    QTest::newRow("proxy timeout")
        << api << true << 0 << E::Timeout << false << proxy << QStringList();
    QTest::newRow("proxy 502") << api << true << 502 << E::None << false << host
                               << QStringList{proxy};
    QTest::newRow("proxy 200") << api << true << 200 << E::None << false << QString()
                               << QStringList{host, proxy};
    // A host the proxy does not serve goes direct.
    QTest::newRow("no_proxy refused")
        << QStringLiteral("internal.example") << true << 0 << E::ConnectionRefused << false
        << QStringLiteral("host:internal.example") << QStringList();
    QTest::newRow("no host") << QString() << false << 0 << E::ConnectionRefused << false
                             << QString() << QStringList();
    // The server (or the proxy) took the whole request and gave no answer in time, or it
    // closed a connection it had accepted (whether or not the request was all written):
    // that endpoint's own trouble, not a host that is away. It clears nothing either:
    // one hung handler says nothing of the others.
    QTest::newRow("request left, timeout")
        << api << false << 0 << E::Timeout << true << QString() << QStringList();
    QTest::newRow("request left via proxy, timeout")
        << api << true << 0 << E::Timeout << true << QString() << QStringList();
    for (const bool left : {false, true}) {
        QTest::addRow("closed, request left %d", left)
            << api << false << 0 << E::ConnectionClosed << left << QString() << QStringList();
        QTest::addRow("closed via proxy, request left %d", left)
            << api << true << 0 << E::ConnectionClosed << left << QString() << QStringList();
    }
}

void tst_IncidentCause::causes()
{
    QFETCH(QString, host);
    QFETCH(bool, viaProxy);
    QFETCH(int, status);
    QFETCH(TransportError, error);
    QFETCH(bool, requestLeft);
    QFETCH(QString, failed);
    QFETCH(QStringList, cleared);
    const ExchangeCauses causes = incidentCausesOf(host, viaProxy ? explicitProxy() : ProxyConfig(),
                                                   status, error, requestLeft);
    QCOMPARE(causes.failed, failed);
    QCOMPARE(causes.cleared, cleared);
}

void tst_IncidentCause::text()
{
    QCOMPARE(incidentCauseText(QStringLiteral("host:api.example.com")),
             QStringLiteral("host api.example.com"));
    QCOMPARE(incidentCauseText(QStringLiteral("proxy:p:3128")), QStringLiteral("proxy p:3128"));
}

QTEST_GUILESS_MAIN(tst_IncidentCause)
#include "tst_incidentcause.moc"
