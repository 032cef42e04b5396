// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QJsonArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QString>
#include <QStringList>

#include <optional>

namespace cooldown {

// Reads typed members out of a JSON object while keeping the JSON path of what it
// reads, so that every refusal names exactly where the problem is
// ("endpoints[2].timeout_seconds: expected a number above 0"). The first error wins;
// after it every read returns a default and the caller checks ok() once.
class JsonReader
{
public:
    explicit JsonReader(QString *error) : m_error(error) {}

    bool ok() const { return m_error->isEmpty(); }
    void fail(const QString &path, const QString &what);

    // Refuses members not in `known`: a typo must not silently become a default.
    void checkKnownKeys(const QJsonObject &object, const QString &path, const QStringList &known);

    std::optional<QJsonObject> object(const QJsonValue &value, const QString &path);
    std::optional<QJsonArray> array(const QJsonValue &value, const QString &path);
    QString string(const QJsonObject &o, const QString &key, const QString &path, bool required,
                   const QString &fallback = {});
    double number(const QJsonObject &o, const QString &key, const QString &path, double min,
                  double max, double fallback, bool wholeNumber = false);
    bool boolean(const QJsonObject &o, const QString &key, const QString &path, bool fallback);

    static QString join(const QString &path, const QString &key);
    static QString index(const QString &path, qsizetype i);

private:
    QString *m_error;
};

} // namespace cooldown
