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

// The command's options, made once: the steps below read what they hold.
struct ExplainOptions
{
    QCommandLineOption method{QStringLiteral("method"), Text::tr("Request method."),
                              QStringLiteral("M"), QStringLiteral("GET")};
    QCommandLineOption status{QStringLiteral("status"), Text::tr("Response status."),
                              QStringLiteral("N")};
    QCommandLineOption error{QStringLiteral("error"),
                             Text::tr("Transport failure instead of a response: "
                                      "refused, dns, timeout, closed, tls, worker_died."),
                             QStringLiteral("KIND")};
    QCommandLineOption header{QStringLiteral("header"),
                              Text::tr("A response header field (repeatable)."),
                              QStringLiteral("Name: value")};
    QCommandLineOption bodyFile{QStringLiteral("body-file"),
                                Text::tr("File holding the response body."), QStringLiteral("F")};
    QCommandLineOption now{QStringLiteral("now"),
                           Text::tr("The client's time (HTTP-date or ISO 8601)."),
                           QStringLiteral("DATE")};
    QCommandLineOption attempt{QStringLiteral("attempt"),
                               Text::tr("Number of the attempt that got this response."),
                               QStringLiteral("N"), QStringLiteral("1")};
    QCommandLineOption throttled{QStringLiteral("throttled"),
                                 Text::tr("Earlier attempts answered 429 or 503."),
                                 QStringLiteral("N"), QStringLiteral("0")};
    QCommandLineOption elapsed{QStringLiteral("elapsed"),
                               Text::tr("Seconds since the first attempt."), QStringLiteral("S"),
                               QStringLiteral("0")};
    QCommandLineOption key{QStringLiteral("idempotency-key"),
                           Text::tr("The idempotency key the request carried."),
                           QStringLiteral("K")};
    QCommandLineOption keyValid{
        QStringLiteral("key-valid"),
        Text::tr("Seconds the server keeps an idempotency key (an endpoint's "
                 "idempotency.key_valid_seconds); with --idempotency-key."),
        QStringLiteral("S")};
    QCommandLineOption seed{QStringLiteral("seed"),
                            Text::tr("Seed for jitter and spread (reproducible output)."),
                            QStringLiteral("N")};
    QCommandLineOption set{QStringLiteral("set"),
                           Text::tr("Override a retry-profile field (repeatable)."),
                           QStringLiteral("key=value")};
    QCommandLineOption xRateLimitReset{
        QStringLiteral("x-ratelimit-reset"),
        Text::tr("What X-RateLimit-Reset means: auto, delta, epoch, epoch-ms or http-date."),
        QStringLiteral("MEANING"), QStringLiteral("auto")};
    QCommandLineOption url{
        QStringLiteral("url"),
        Text::tr("The request's URL: names the bucket an endpoint without a policy learns into."),
        QStringLiteral("URL")};

    void addTo(QCommandLineParser &parser) const
    {
        parser.addOptions({method, status, error, header, bodyFile, now, attempt, throttled,
                           elapsed, key, keyValid, seed, set, xRateLimitReset, url});
    }
};

// The response (or the failure) and the request's key, as given; the usage error's
// text when something given is not one.
std::optional<QString> readOutcome(const QCommandLineParser &parser, const ExplainOptions &o,
                                   AttemptOutcome *outcome)
{
    const QString methodName = parser.value(o.method);
    if (!isToken(methodName))
        return Text::tr("--method: '%1' is not an HTTP method").arg(methodName);
    outcome->method = methodName.toUpper().toLatin1();

    if (parser.isSet(o.status) == parser.isSet(o.error))
        return Text::tr("give exactly one of --status or --error");
    if (parser.isSet(o.status)) {
        const auto code = parseInteger(parser.value(o.status), 100, 599);
        if (!code)
            return Text::tr("--status: expected a number from 100 to 599, got '%1'")
                .arg(parser.value(o.status));
        outcome->status = int(*code);
    } else {
        // What can end an exchange on the wire; a bad URL never starts one.
        const auto kind = transportErrorFromString(parser.value(o.error));
        if (!kind || *kind == TransportError::None || *kind == TransportError::BadUrl ||
            *kind == TransportError::UnsupportedScheme)
            return Text::tr("--error: expected refused, dns, timeout, closed, tls "
                            "or worker_died, got '%1'")
                .arg(parser.value(o.error));
        outcome->error = *kind;
    }

    for (const QString &line : parser.values(o.header)) {
        if (!outcome->headers.appendLine(line.toUtf8()))
            return Text::tr("--header: expected \"Name: value\", got '%1'").arg(line);
    }
    if (parser.isSet(o.bodyFile)) {
        QFile file(parser.value(o.bodyFile));
        if (!file.open(QIODevice::ReadOnly))
            return Text::tr("--body-file: cannot read '%1': %2")
                .arg(file.fileName(), file.errorString());
        outcome->body = file.read(1 << 20);
    }
    if (parser.isSet(o.key)) {
        if (parser.value(o.key).isEmpty())
            return Text::tr("--idempotency-key: the key is empty");
        outcome->idempotencyKeySent = true;
    }
    if (parser.isSet(o.keyValid)) {
        bool ok = false;
        const double s = parser.value(o.keyValid).toDouble(&ok);
        if (!ok || !std::isfinite(s) || s < 1 || s > 366.0 * 86400)
            return Text::tr("--key-valid: expected seconds from 1 to 31622400, got '%1'")
                .arg(parser.value(o.keyValid));
        if (!parser.isSet(o.key))
            return Text::tr("--key-valid needs --idempotency-key");
        outcome->keyValidMs = qint64(s * 1000);
    }
    return std::nullopt;
}

// The attempts before this one, as of nowMs; the usage error's text when something
// given is not one.
std::optional<QString> readHistory(const QCommandLineParser &parser, const ExplainOptions &o,
                                   qint64 nowMs, AttemptHistory *history)
{
    const auto attemptNumber = parseInteger(parser.value(o.attempt), 1, 1000000);
    if (!attemptNumber)
        return Text::tr("--attempt: expected a number from 1, got '%1'")
            .arg(parser.value(o.attempt));
    history->attempt = int(*attemptNumber);
    const auto throttledCount = parseInteger(parser.value(o.throttled), 0, history->attempt - 1);
    if (!throttledCount)
        return Text::tr("--throttled: expected a number from 0 to %1, got '%2'")
            .arg(history->attempt - 1)
            .arg(parser.value(o.throttled));
    history->throttledBefore = int(*throttledCount);
    bool elapsedOk = false;
    const double elapsedSeconds = parser.value(o.elapsed).toDouble(&elapsedOk);
    if (!elapsedOk || !std::isfinite(elapsedSeconds) || elapsedSeconds < 0 || elapsedSeconds > 1e9)
        return Text::tr("--elapsed: expected seconds (0 or more), got '%1'")
            .arg(parser.value(o.elapsed));
    history->firstAttemptAtMs = nowMs - qint64(std::llround(elapsedSeconds * 1000));
    return std::nullopt;
}

// What the engine learns from the response: the quota it paces the partition by, for
// every worker, until the server stops stating it; or, from a 429 that states none,
// that the host's pace is measured. host names the learned bucket, when given.
std::optional<QJsonObject> learnedFrom(const AttemptOutcome &outcome, qint64 nowMs,
                                       XRateLimitResetMeaning meaning, const QString &host)
{
    QJsonObject learned;
    if (const auto statement = QuotaStatement::fromHeaders(outcome.headers, nowMs, meaning)) {
        ServerWindow window;
        window.observe(*statement, 0, nowMs);
        learned = statement->toJson();
        if (window.quota > 0) {
            learned.insert(QStringLiteral("window_seconds"), double(window.windowMs) / 1000);
            learned.insert(QStringLiteral("forgotten_at"),
                           QDateTime::fromMSecsSinceEpoch(window.knownUntilMs, Qt::UTC)
                               .toString(Qt::ISODateWithMs));
        } else {
            learned.insert(QStringLiteral("note"),
                           QStringLiteral("no quota stated: nothing to pace by"));
        }
    } else if (outcome.status == 429) {
        learned.insert(QStringLiteral("note"),
                       QStringLiteral("no quota stated: the pace is measured from the answers "
                                      "accepted before this 429, over no less than its wait "
                                      "(docs/fleet.md, servers that state nothing)"));
    } else {
        return std::nullopt;
    }
    if (!host.isEmpty())
        learned.insert(QStringLiteral("bucket"), learnedPolicyId(host));
    return learned;
}

} // namespace

int runExplain(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        Text::tr("Prints the decision Cooldown makes for a response, as JSON."));
    parser.addHelpOption();
    const ExplainOptions o;
    o.addTo(parser);
    if (const auto problem = parseStrict(parser, kCommand, arguments))
        return usageError(kCommand, *problem);
    if (parser.isSet(QStringLiteral("help"))) {
        printOut(helpText(parser, kCommand));
        return ExitOk;
    }

    AttemptOutcome outcome;
    if (const auto problem = readOutcome(parser, o, &outcome))
        return usageError(kCommand, *problem);
    qint64 nowMs = SystemClock::instance().nowMs();
    if (parser.isSet(o.now)) {
        const auto parsed = parseTimeMs(parser.value(o.now));
        if (!parsed)
            return usageError(kCommand,
                              Text::tr("--now: expected an HTTP-date or ISO 8601 time, got '%1'")
                                  .arg(parser.value(o.now)));
        nowMs = *parsed;
    }
    AttemptHistory history;
    if (const auto problem = readHistory(parser, o, nowMs, &history))
        return usageError(kCommand, *problem);

    RetryProfile profile;
    for (const QString &assignment : parser.values(o.set)) {
        QString why;
        if (!profile.setFieldFromText(assignment, &why))
            return usageError(kCommand, Text::tr("--set: %1").arg(why));
    }

    std::unique_ptr<RandomSource> seeded;
    RandomSource *random = &SystemRandom::instance();
    if (parser.isSet(o.seed)) {
        const auto value =
            parseInteger(parser.value(o.seed), 0, std::numeric_limits<qint64>::max());
        if (!value)
            return usageError(
                kCommand,
                Text::tr("--seed: expected a whole number, got '%1'").arg(parser.value(o.seed)));
        seeded = std::make_unique<SeededRandom>(quint64(*value));
        random = seeded.get();
    }

    ServerWaitOptions hints;
    const auto meaning = xRateLimitResetMeaningFromString(parser.value(o.xRateLimitReset));
    if (!meaning)
        return usageError(kCommand, Text::tr("--x-ratelimit-reset: expected auto, delta, epoch, "
                                             "epoch-ms or http-date, got '%1'")
                                        .arg(parser.value(o.xRateLimitReset)));
    hints.xRateLimitReset = *meaning;

    const QUrl requestUrl(parser.value(o.url), QUrl::StrictMode);
    if (parser.isSet(o.url) && (!requestUrl.isValid() || requestUrl.host().isEmpty()))
        return usageError(kCommand,
                          Text::tr("--url: expected an absolute URL with a host, got '%1'")
                              .arg(parser.value(o.url)));
    const RetryDecision decision =
        RetryDecision::decide(profile, outcome, history, nowMs, *random, hints);
    QJsonObject explained = decision.toJson();
    if (const auto learned = learnedFrom(outcome, nowMs, *meaning,
                                         parser.isSet(o.url) ? requestUrl.host() : QString()))
        explained.insert(QStringLiteral("learned"), *learned);
    if (outcome.status == 401)
        explained.insert(QStringLiteral("authentication"), explainUnauthorized(outcome.headers));
    printOut(QString::fromUtf8(QJsonDocument(explained).toJson(QJsonDocument::Indented)));
    return ExitOk;
}

} // namespace cooldown::cli
