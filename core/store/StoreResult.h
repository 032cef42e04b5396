// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QString>

#include <optional>
#include <utility>

namespace cooldown {

// What a read of the store answers: its value, or why it failed. An empty list, a zero
// count or a missing row are values like any other; a failure is only ever said by
// error(). Tested in tests/query/tst_querystore.cpp.
template <typename T> class [[nodiscard]] StoreResult
{
public:
    StoreResult(T value) : m_value(std::move(value)) {} // NOLINT: implicit, as a value
    static StoreResult failure(QString error)
    {
        StoreResult result;
        result.m_error = error.isEmpty() ? QStringLiteral("the read failed") : std::move(error);
        return result;
    }

    bool ok() const { return m_value.has_value(); }
    explicit operator bool() const { return ok(); }
    // Only when ok().
    const T &value() const & { return *m_value; }
    T &value() & { return *m_value; }
    T &&value() && { return std::move(*m_value); }
    const T &operator*() const & { return *m_value; }
    T &operator*() & { return *m_value; }
    const T *operator->() const { return &*m_value; }
    T *operator->() { return &*m_value; }
    // Empty when ok().
    const QString &error() const { return m_error; }

private:
    StoreResult() = default;

    std::optional<T> m_value;
    QString m_error;
};

// A read that answers nothing but whether it went through (a visit of rows).
template <> class [[nodiscard]] StoreResult<void>
{
public:
    static StoreResult done() { return StoreResult(QString()); }
    static StoreResult failure(QString error)
    {
        return StoreResult(error.isEmpty() ? QStringLiteral("the read failed") : std::move(error));
    }

    bool ok() const { return m_error.isEmpty(); }
    explicit operator bool() const { return ok(); }
    const QString &error() const { return m_error; }

private:
    explicit StoreResult(QString error) : m_error(std::move(error)) {}

    QString m_error;
};

} // namespace cooldown
