// SPDX-License-Identifier: Apache-2.0
#include "core/time/RandomSource.h"

#include <QRandomGenerator>

namespace cooldown {

double RandomSource::uniform01()
{
    // The top 53 bits fill a double's mantissa exactly.
    return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0);
}

qint64 RandomSource::uniformInt(qint64 lo, qint64 hi)
{
    Q_ASSERT(lo <= hi);
    const quint64 span = static_cast<quint64>(hi) - static_cast<quint64>(lo);
    if (span == ~quint64(0))
        return static_cast<qint64>(next());
    const quint64 range = span + 1;
    // Rejection sampling keeps the result unbiased for ranges that do not divide 2^64.
    const quint64 limit = ~quint64(0) - (~quint64(0) % range) - 1;
    quint64 value = next();
    while (value > limit)
        value = next();
    return static_cast<qint64>(static_cast<quint64>(lo) + value % range);
}

quint64 SeededRandom::next()
{
    quint64 z = (m_state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

quint64 SystemRandom::next()
{
    return QRandomGenerator::system()->generate64();
}

SystemRandom &SystemRandom::instance()
{
    static SystemRandom random;
    return random;
}

} // namespace cooldown
