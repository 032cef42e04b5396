// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QtGlobal>

namespace cooldown {

// Randomness is injected like time: jitter and spread take a RandomSource so that a
// seeded run is reproducible and tests can check distributions.
class RandomSource
{
public:
    virtual ~RandomSource() = default;

    // 64 uniformly distributed bits.
    virtual quint64 next() = 0;

    // Uniform in [0, 1).
    double uniform01();
    // Uniform integer in [lo, hi]; lo <= hi.
    qint64 uniformInt(qint64 lo, qint64 hi);
};

// SplitMix64: tiny, fast, and the same sequence for the same seed on every platform.
class SeededRandom final : public RandomSource
{
public:
    explicit SeededRandom(quint64 seed) : m_state(seed) {}
    quint64 next() override;

private:
    quint64 m_state;
};

// Backed by the operating system's entropy (QRandomGenerator::system()).
class SystemRandom final : public RandomSource
{
public:
    quint64 next() override;
    static SystemRandom &instance();
};

} // namespace cooldown
