// SPDX-License-Identifier: Apache-2.0
#include "ui/BulkEstimateReader.h"

namespace cooldown {

BulkEstimateReader::BulkEstimateReader(QString databaseUrl)
    : m_store(std::move(databaseUrl), QueryStore::IfMissing::Refuse)
{
    // The answer crosses to the dialog's thread by a queued signal.
    qRegisterMetaType<BulkPreview>();
}

BulkEstimateReader::~BulkEstimateReader() = default;

bool BulkEstimateReader::ensureOpen(quint64 generation)
{
    // Every question gets an answer, the reason the store did not open included: the
    // dialog waits for one per generation.
    if (m_store.ensureOpen([](const QString &) {}))
        return true;
    emit failed(generation, m_store.lastError());
    return false;
}

void BulkEstimateReader::estimate(quint64 generation, const OperationSelection &selection,
                                  OperatorAction action, qint64 nowMs, int maxInFlight)
{
    if (!ensureOpen(generation))
        return;
    BulkPreview preview;
    preview.matched = m_store.countMatching(selection);
    if (preview.matched < 0) {
        emit failed(generation, m_store.lastError());
        return;
    }
    QString error;
    const auto input = m_store.drainInput(selection, action, nowMs, maxInFlight, &error);
    if (!input) {
        emit failed(generation, error);
        return;
    }
    for (const SelectionGroup &g : input->groups) {
        preview.actionable += g.operations;
        if (!preview.endpoints.contains(g.endpointId))
            preview.endpoints.append(g.endpointId);
    }
    preview.estimate = estimateDrain(*input);
    // As the command line warns: a retry sends these with a key the server may have
    // forgotten.
    if (action != OperatorAction::Cancel &&
        (selection.reasons.isEmpty() ||
         selection.reasons.contains(QStringLiteral("idempotency_key_expired")))) {
        OperationSelection expired = selection;
        expired.reasons = {QStringLiteral("idempotency_key_expired")};
        preview.keyExpired = m_store.countMatching(expired);
        if (preview.keyExpired < 0) {
            emit failed(generation, m_store.lastError());
            return;
        }
    }
    emit estimated(generation, preview);
}

} // namespace cooldown
