// SPDX-License-Identifier: Apache-2.0
#include "ui/BulkEstimateReader.h"

#include "core/store/Store.h"

namespace cooldown {

BulkEstimateReader::BulkEstimateReader(QString databaseUrl) : m_databaseUrl(std::move(databaseUrl))
{
    // The answer crosses to the dialog's thread by a queued signal.
    qRegisterMetaType<BulkPreview>();
}

BulkEstimateReader::~BulkEstimateReader() = default;

bool BulkEstimateReader::ensureOpen(quint64 generation)
{
    if (m_store)
        return true;
    QString error;
    StoreOptions options;
    options.createIfMissing = false;
    m_store = Store::open(m_databaseUrl, &error, options);
    if (!m_store) {
        emit failed(generation, error);
        return false;
    }
    return true;
}

void BulkEstimateReader::estimate(quint64 generation, const OperationSelection &selection,
                                  OperatorAction action, qint64 nowMs, int maxInFlight)
{
    if (!ensureOpen(generation))
        return;
    BulkPreview preview;
    preview.matched = m_store->countMatching(selection);
    if (preview.matched < 0) {
        emit failed(generation, m_store->lastError());
        return;
    }
    QString error;
    const auto input = readDrainInput(*m_store, selection, action, nowMs, maxInFlight, &error);
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
        preview.keyExpired = m_store->countMatching(expired);
        if (preview.keyExpired < 0) {
            emit failed(generation, m_store->lastError());
            return;
        }
    }
    emit estimated(generation, preview);
}

} // namespace cooldown
