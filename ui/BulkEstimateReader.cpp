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
    emit failed(generation, m_store.openError());
    return false;
}

void BulkEstimateReader::estimate(quint64 generation, const OperationSelection &selection,
                                  OperatorAction action, qint64 nowMs, int maxInFlight)
{
    if (!ensureOpen(generation))
        return;
    BulkPreview preview;
    const StoreResult<qint64> matched = m_store.countMatching(selection);
    if (!matched) {
        emit failed(generation, matched.error());
        return;
    }
    preview.matched = *matched;
    const StoreResult<DrainInput> input = m_store.drainInput(selection, action, nowMs, maxInFlight);
    if (!input) {
        emit failed(generation, input.error());
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
        const StoreResult<qint64> keyExpired = m_store.countMatching(expired);
        if (!keyExpired) {
            emit failed(generation, keyExpired.error());
            return;
        }
        preview.keyExpired = *keyExpired;
    }
    emit estimated(generation, preview);
}

} // namespace cooldown
