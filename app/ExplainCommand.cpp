// SPDX-License-Identifier: Apache-2.0
#include "app/ExplainCommand.h"

#include "app/CommandLine.h"
#include "core/http/AuthChallenge.h"
#include "core/http/HttpToken.h"
#include "core/http/QuotaStatement.h"
#include "core/ratelimit/ServerWindow.h"
#include "core/retry/RetryDecision.h"
#include "core/time/Clock.h"
#include "core/time/RandomSource.h"

#include <QDateTime>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QUrl>

#include <cmath>
#include <memory>

namespace cooldown::cli {

namespace {

const QString kCommand = QStringLiteral("explain");

// What a 401 means to an endpoint with credentials (docs/credentials.md): the
// challenges the server sent, and what the engine does with them.
QJsonObject explainUnauthorized(const HttpHeaders &headers)
{
    QJsonObject out;
    QJsonArray challenges;
    for (const AuthChallenge &c : AuthChallenge::parse(headers)) {
        QJsonObject o;
        o.insert(QStringLiteral("scheme"), QString::fromLatin1(c.scheme));
        for (const auto &p : c.params)
            o.insert(QString::fromLatin1(p.first), p.second);
        challenges.append(o);
    }
    out.insert(QStringLiteral("challenges"), challenges);
    const auto bearer = AuthChallenge::bearer(headers);
    const bool invalidToken = bearer && bearer->param("error") == QStringLiteral("invalid_token");
    out.insert(
        QStringLiteral("with_oauth2_credentials"),
        invalidToken
            ? QStringLiteral("renew: the token is dropped, a new one fetched and the request sent "
                             "once more; that is no attempt. A second 401 to the new token fails "
                             "(auth_failed)")
            : QStringLiteral("renew only when the token sent was not the newest or had expired; "
                             "otherwise fail (auth_failed)"));
    out.insert(QStringLiteral("otherwise"),
               QStringLiteral("fail: without credentials to renew, a retry cannot fix what "
                              "the server refuses"));
    return out;
}

} // namespace

int runExplain(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        Text::tr("Prints the decision Cooldown makes for a response, as JSON."));
    parser.addHelpOption();
    const QCommandLineOption method(QStringLiteral("method"), Text::tr("Request method."),
                                    QStringLiteral("M"), QStringLiteral("GET"));
    const QCommandLineOption status(QStringLiteral("status"), Text::tr("Response status."),
                                    QStringLiteral("N"));
    const QCommandLineOption error(QStringLiteral("error"),
                                   Text::tr("Transport failure instead of a response: "
                                            "refused, dns, timeout, closed, tls, worker_died."),
                                   QStringLiteral("KIND"));
    const QCommandLineOption header(QStringLiteral("header"),
                                    Text::tr("A response header field (repeatable)."),
                                    QStringLiteral("Name: value"));
    const QCommandLineOption bodyFile(QStringLiteral("body-file"),
                                      Text::tr("File holding the response body."),
                                      QStringLiteral("F"));
    const QCommandLineOption now(QStringLiteral("now"),
                                 Text::tr("The client's time (HTTP-date or ISO 8601)."),
                                 QStringLiteral("DATE"));
    const QCommandLineOption attempt(QStringLiteral("attempt"),
                                     Text::tr("Number of the attempt that got this response."),
                                     QStringLiteral("N"), QStringLiteral("1"));
    const QCommandLineOption throttled(QStringLiteral("throttled"),
                                       Text::tr("Earlier attempts answered 429 or 503."),
                                       QStringLiteral("N"), QStringLiteral("0"));
    const QCommandLineOption elapsed(QStringLiteral("elapsed"),
                                     Text::tr("Seconds since the first attempt."),
                                     QStringLiteral("S"), QStringLiteral("0"));
    const QCommandLineOption key(QStringLiteral("idempotency-key"),
                                 Text::tr("The idempotency key the request carried."),
                                 QStringLiteral("K"));
    const QCommandLineOption keyValid(
        QStringLiteral("key-valid"),
        Text::tr("Seconds the server keeps an idempotency key (an endpoint's "
                 "idempotency.key_valid_seconds); with --idempotency-key."),
        QStringLiteral("S"));
    const QCommandLineOption seed(QStringLiteral("seed"),
                                  Text::tr("Seed for jitter and spread (reproducible output)."),
                                  QStringLiteral("N"));
    const QCommandLineOption set(QStringLiteral("set"),
                                 Text::tr("Override a retry-profile field (repeatable)."),
                                 QStringLiteral("key=value"));
    const QCommandLineOption xRateLimitReset(
        QStringLiteral("x-ratelimit-reset"),
        Text::tr("What X-RateLimit-Reset means: auto, delta, epoch, epoch-ms or http-date."),
        QStringLiteral("MEANING"), QStringLiteral("auto"));
    const QCommandLineOption url(
        QStringLiteral("url"),
        Text::tr("The request's URL: names the bucket an endpoint without a policy learns into."),
        QStringLiteral("URL"));
    parser.addOptions({method, status, error, header, bodyFile, now, attempt, throttled, elapsed,
                       key, keyValid, seed, set, xRateLimitReset, url});

    if (const auto problem = parseStrict(parser, kCommand, arguments))
        return usageError(kCommand, *problem);
    if (parser.isSet(QStringLiteral("help"))) {
        printOut(helpText(parser, kCommand));
        return ExitOk;
    }

    AttemptOutcome outcome;
    const QString methodName = parser.value(method);
    if (!isToken(methodName))
        return usageError(kCommand,
                          Text::tr("--method: '%1' is not an HTTP method").arg(methodName));
    outcome.method = methodName.toUpper().toLatin1();

    if (parser.isSet(status) == parser.isSet(error))
        return usageError(kCommand, Text::tr("give exactly one of --status or --error"));
    if (parser.isSet(status)) {
        const auto code = parseInteger(parser.value(status), 100, 599);
        if (!code)
            return usageError(kCommand,
                              Text::tr("--status: expected a number from 100 to 599, got '%1'")
                                  .arg(parser.value(status)));
        outcome.status = int(*code);
    } else {
        // What can end an exchange on the wire; a bad URL never starts one.
        const auto kind = transportErrorFromString(parser.value(error));
        if (!kind || *kind == TransportError::None || *kind == TransportError::BadUrl ||
            *kind == TransportError::UnsupportedScheme)
            return usageError(kCommand,
                              Text::tr("--error: expected refused, dns, timeout, closed, tls "
                                       "or worker_died, got '%1'")
                                  .arg(parser.value(error)));
        outcome.error = *kind;
    }

    for (const QString &line : parser.values(header)) {
        if (!outcome.headers.appendLine(line.toUtf8()))
            return usageError(kCommand,
                              Text::tr("--header: expected \"Name: value\", got '%1'").arg(line));
    }
    if (parser.isSet(bodyFile)) {
        QFile file(parser.value(bodyFile));
        if (!file.open(QIODevice::ReadOnly))
            return usageError(kCommand, Text::tr("--body-file: cannot read '%1': %2")
                                            .arg(file.fileName(), file.errorString()));
        outcome.body = file.read(1 << 20);
    }
    if (parser.isSet(key)) {
        if (parser.value(key).isEmpty())
            return usageError(kCommand, Text::tr("--idempotency-key: the key is empty"));
        outcome.idempotencyKeySent = true;
    }
    if (parser.isSet(keyValid)) {
        bool ok = false;
        const double s = parser.value(keyValid).toDouble(&ok);
        if (!ok || !std::isfinite(s) || s < 1 || s > 366.0 * 86400)
            return usageError(kCommand,
                              Text::tr("--key-valid: expected seconds from 1 to 31622400, got '%1'")
                                  .arg(parser.value(keyValid)));
        if (!parser.isSet(key))
            return usageError(kCommand, Text::tr("--key-valid needs --idempotency-key"));
        outcome.keyValidMs = qint64(s * 1000);
    }

    qint64 nowMs = SystemClock::instance().nowMs();
    if (parser.isSet(now)) {
        const auto parsed = parseTimeMs(parser.value(now));
        if (!parsed)
            return usageError(kCommand,
                              Text::tr("--now: expected an HTTP-date or ISO 8601 time, got '%1'")
                                  .arg(parser.value(now)));
        nowMs = *parsed;
    }

    AttemptHistory history;
    const auto attemptNumber = parseInteger(parser.value(attempt), 1, 1000000);
    if (!attemptNumber)
        return usageError(
            kCommand,
            Text::tr("--attempt: expected a number from 1, got '%1'").arg(parser.value(attempt)));
    history.attempt = int(*attemptNumber);
    const auto throttledCount = parseInteger(parser.value(throttled), 0, history.attempt - 1);
    if (!throttledCount)
        return usageError(kCommand,
                          Text::tr("--throttled: expected a number from 0 to %1, got '%2'")
                              .arg(history.attempt - 1)
                              .arg(parser.value(throttled)));
    history.throttledBefore = int(*throttledCount);
    bool elapsedOk = false;
    const double elapsedSeconds = parser.value(elapsed).toDouble(&elapsedOk);
    if (!elapsedOk || !std::isfinite(elapsedSeconds) || elapsedSeconds < 0 || elapsedSeconds > 1e9)
        return usageError(kCommand, Text::tr("--elapsed: expected seconds (0 or more), got '%1'")
                                        .arg(parser.value(elapsed)));
    history.firstAttemptAtMs = nowMs - qint64(std::llround(elapsedSeconds * 1000));

    RetryProfile profile;
    for (const QString &assignment : parser.values(set)) {
        QString why;
        if (!profile.setFieldFromText(assignment, &why))
            return usageError(kCommand, Text::tr("--set: %1").arg(why));
    }

    std::unique_ptr<RandomSource> seeded;
    RandomSource *random = &SystemRandom::instance();
    if (parser.isSet(seed)) {
        const auto value = parseInteger(parser.value(seed), 0, std::numeric_limits<qint64>::max());
        if (!value)
            return usageError(
                kCommand,
                Text::tr("--seed: expected a whole number, got '%1'").arg(parser.value(seed)));
        seeded = std::make_unique<SeededRandom>(quint64(*value));
        random = seeded.get();
    }

    ServerWaitOptions hints;
    const auto meaning = xRateLimitResetMeaningFromString(parser.value(xRateLimitReset));
    if (!meaning)
        return usageError(kCommand, Text::tr("--x-ratelimit-reset: expected auto, delta, epoch, "
                                             "epoch-ms or http-date, got '%1'")
                                        .arg(parser.value(xRateLimitReset)));
    hints.xRateLimitReset = *meaning;

    const QUrl requestUrl(parser.value(url), QUrl::StrictMode);
    if (parser.isSet(url) && (!requestUrl.isValid() || requestUrl.host().isEmpty()))
        return usageError(kCommand,
                          Text::tr("--url: expected an absolute URL with a host, got '%1'")
                              .arg(parser.value(url)));
    const RetryDecision decision =
        RetryDecision::decide(profile, outcome, history, nowMs, *random, hints);
    QJsonObject explained = decision.toJson();
    // What the engine learns from the response: the quota it paces the partition by,
    // for every worker, until the server stops stating it.
    if (const auto statement = QuotaStatement::fromHeaders(outcome.headers, nowMs, *meaning)) {
        ServerWindow window;
        window.observe(*statement, 0, nowMs);
        QJsonObject learned = statement->toJson();
        if (window.quota > 0) {
            learned.insert(QStringLiteral("window_seconds"), double(window.windowMs) / 1000);
            learned.insert(QStringLiteral("forgotten_at"),
                           QDateTime::fromMSecsSinceEpoch(window.knownUntilMs, Qt::UTC)
                               .toString(Qt::ISODateWithMs));
        } else {
            learned.insert(QStringLiteral("note"),
                           QStringLiteral("no quota stated: nothing to pace by"));
        }
        if (parser.isSet(url))
            learned.insert(QStringLiteral("bucket"), learnedPolicyId(requestUrl.host()));
        explained.insert(QStringLiteral("learned"), learned);
    } else if (outcome.status == 429) {
        // A 429 that states no quota: the host's pace is measured from it.
        QJsonObject learned;
        learned.insert(QStringLiteral("note"),
                       QStringLiteral("no quota stated: the pace is measured from the answers "
                                      "accepted before this 429, over no less than its wait "
                                      "(docs/fleet.md, servers that state nothing)"));
        if (parser.isSet(url))
            learned.insert(QStringLiteral("bucket"), learnedPolicyId(requestUrl.host()));
        explained.insert(QStringLiteral("learned"), learned);
    }
    if (outcome.status == 401)
        explained.insert(QStringLiteral("authentication"), explainUnauthorized(outcome.headers));
    printOut(QString::fromUtf8(QJsonDocument(explained).toJson(QJsonDocument::Indented)));
    return ExitOk;
}

} // namespace cooldown::cli
