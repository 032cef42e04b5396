// SPDX-License-Identifier: Apache-2.0
#include "ui/AttemptInspector.h"

#include "core/http/Redaction.h"
#include "core/retry/RetryDecision.h"
#include "core/time/RandomSource.h"
#include "ui/Format.h"

#include <QDateTime>
#include <QJsonDocument>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace cooldown {

namespace {

QString escaped(const QString &text)
{
    return text.toHtmlEscaped();
}

QString row(const QString &name, const QString &value)
{
    return QStringLiteral(
               "<tr><td style='color:#5f6368;padding-right:12px'>%1</td><td>%2</td></tr>")
        .arg(escaped(name), escaped(value));
}

QString isoTime(qint64 ms)
{
    return ms < 0 ? QString()
                  : QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC).toString(Qt::ISODateWithMs);
}

} // namespace

QJsonObject explainAttempt(const AttemptRecord &a, const WorkspaceConfig &config,
                           const std::optional<KeptExchange> &kept)
{
    AttemptOutcome outcome;
    outcome.method = a.method.toLatin1();
    outcome.status = a.status;
    // "timeout,body_truncated": the first word is the transport's.
    outcome.error =
        a.status > 0
            ? TransportError::None
            : transportErrorFromString(a.error.section(u',', 0, 0)).value_or(TransportError::None);
    for (const QString &line : a.responseHeaders.split(QLatin1Char('\n'), Qt::SkipEmptyParts))
        outcome.headers.appendLine(line.toUtf8());
    outcome.idempotencyKeySent = !a.idempotencyKey.isEmpty();

    AttemptHistory history;
    history.attempt = std::max(1, a.attempt);
    history.firstAttemptAtMs = a.startedAtMs;

    const EndpointConfig *endpoint = config.endpoint(a.endpointId);
    // The checks on the body can be run again only where the body was kept.
    if (endpoint && kept) {
        outcome.expect = endpoint->expect.get();
        outcome.body = kept->responseBody.toUtf8();
        outcome.bodyTruncated = kept->responseTruncated;
    }
    if (endpoint) {
        outcome.durationMs = a.durationMs;
        outcome.latencyBudgetMs = endpoint->latencyBudgetMs;
    }
    const RetryProfile profile =
        config.retryProfile(endpoint ? endpoint->retry : QStringLiteral("default"));
    ServerWaitOptions hints;
    if (const RateLimitPolicy *policy = config.policy(a.policyId)) {
        hints.xRateLimitReset = policy->xRateLimitReset;
        hints.policyWindowMs = policy->windowMs;
    }
    // The same jitter every time this attempt is shown.
    SeededRandom random(quint64(a.id));
    const qint64 now = a.finishedAtMs >= 0 ? a.finishedAtMs : a.startedAtMs;
    return RetryDecision::decide(profile, outcome, history, now, random, hints).toJson();
}

AttemptInspector::AttemptInspector(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_view = new QTextBrowser(this);
    m_view->setObjectName(QStringLiteral("attemptInspector"));
    m_view->setOpenLinks(false);
    layout->addWidget(m_view);
    showAttempt(std::nullopt);
}

QString AttemptInspector::text() const
{
    return m_view->toPlainText();
}

void AttemptInspector::showAttempt(const std::optional<AttemptRecord> &attempt,
                                   const std::optional<KeptExchange> &kept)
{
    if (!attempt) {
        m_view->setHtml(tr("<p style='color:#5f6368'>Select an attempt to see what was sent, "
                           "what came back and why the engine decided as it did.</p>"));
        return;
    }
    const AttemptRecord &a = *attempt;
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    QString html;
    html += tr("<h3>Attempt %1 of operation %2</h3>").arg(a.attempt).arg(a.operationId);
    html += QStringLiteral("<table>");
    html += row(tr("Endpoint"), a.endpointId);
    html += row(tr("Request"), a.method + QLatin1Char(' ') + redaction::redactUrl(a.url));
    html += row(tr("Started"), format::localTime(a.startedAtMs, now) + QStringLiteral("  (") +
                                   isoTime(a.startedAtMs) + QLatin1Char(')'));
    html += row(tr("Duration"), format::duration(a.durationMs));
    html += row(tr("Outcome"), format::outcome(a.status, a.error));
    html += row(tr("Decision"),
                format::decisionName(a.decision) +
                    (a.reason.isEmpty() ? QString() : QStringLiteral(" — ") + a.reason));
    if (a.waitMs >= 0)
        html += row(
            tr("Wait"),
            tr("%1 from %2").arg(format::duration(a.waitMs), QLatin1String(textOf(a.waitSource))));
    html += row(tr("Raw Retry-After"), a.retryAfterRaw.isEmpty() ? tr("(none)") : a.retryAfterRaw);
    if (!a.problemType.isEmpty())
        html += row(tr("Problem type"), a.problemType);
    if (!a.problemInstance.isEmpty())
        html += row(tr("Problem instance"), a.problemInstance);
    if (a.rateLimitRemaining >= 0)
        html += row(tr("Quota remaining"), QString::number(a.rateLimitRemaining));
    if (!a.idempotencyKey.isEmpty())
        html += row(tr("Idempotency key"), a.idempotencyKey);
    if (!a.policyId.isEmpty())
        html += row(tr("Policy"), QStringLiteral("%1 v%2").arg(a.policyId).arg(a.policyVersion));
    html += row(tr("Worker"), a.workerId);
    if (a.forced)
        html += row(tr("Forced"), tr("yes: an operator bypassed the token bucket"));
    if (a.leaseConflict)
        html += row(tr("Lease"), tr("lost: this exchange did not change the operation"));
    if (!a.checkFailure.isEmpty())
        html += row(tr("Check failed"), a.checkFailure);
    html += QStringLiteral("</table>");

    const QString pre = QStringLiteral("<pre style='background:#f4f5f7;padding:6px'>%1</pre>");
    html += tr("<h4>Request headers</h4>");
    html += pre.arg(escaped(redaction::redactHeaderLines(a.requestHeaders).trimmed()));
    if (kept) {
        html += tr("<h4>Request body (%1 bytes)</h4>").arg(kept->requestBytes);
        html += pre.arg(escaped(kept->requestBody));
    }
    html += tr("<h4>Response headers</h4>");
    html += pre.arg(escaped(redaction::redactHeaderLines(a.responseHeaders).trimmed()));
    if (kept) {
        html += tr("<h4>Response body (%1 bytes)</h4>").arg(kept->responseBytes);
        html += pre.arg(escaped(kept->responseBody));
    }
    if (kept)
        html += tr("<h4>Why: the rules applied to this response</h4>"
                   "<p style='color:#5f6368'>As the engine decided, from the stored status, "
                   "headers and the body kept (the jitter is drawn again).</p>");
    else
        html += tr("<h4>Why: the rules applied to this response</h4>"
                   "<p style='color:#5f6368'>As <code>cooldown explain</code> prints it, from the "
                   "stored status and headers (the body is not kept, and the jitter is drawn "
                   "again).</p>");
    const QJsonObject why = explainAttempt(a, m_config, kept);
    html += pre.arg(escaped(QString::fromUtf8(QJsonDocument(why).toJson(QJsonDocument::Indented))));
    m_view->setHtml(html);
}

} // namespace cooldown
