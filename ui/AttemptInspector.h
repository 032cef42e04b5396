// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/config/WorkspaceConfig.h"
#include "core/query/QueryRecords.h"

#include <QJsonObject>
#include <QWidget>

#include <optional>

class QTextBrowser;

namespace cooldown {

// What `cooldown explain` would print for a stored attempt: the outcome is rebuilt
// from the stored status, transport error and response headers, and the endpoint's
// retry profile decides again. The response body is not stored, so a wait that came
// from a problem body cannot be re-derived; the stored decision stays the authority.
QJsonObject explainAttempt(const AttemptRecord &attempt, const WorkspaceConfig &config,
                           const std::optional<KeptExchange> &kept = std::nullopt);

// Shows one attempt: what was sent and received (headers redacted), the raw
// Retry-After, the decision the engine recorded and the explanation of the rules.
class AttemptInspector final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(AttemptInspector)

public:
    explicit AttemptInspector(QWidget *parent = nullptr);

    void setConfig(const WorkspaceConfig &config) { m_config = config; }
    // kept: the bodies, for the last failed or degraded exchanges (docs/checks.md).
    void showAttempt(const std::optional<AttemptRecord> &attempt,
                     const std::optional<KeptExchange> &kept = std::nullopt);
    QString text() const;

private:
    QTextBrowser *m_view = nullptr;
    WorkspaceConfig m_config;
};

} // namespace cooldown
