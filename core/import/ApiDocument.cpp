// SPDX-License-Identifier: Apache-2.0
#include "core/import/ApiDocument.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>

namespace cooldown {

namespace {

class Text final
{
    Q_DECLARE_TR_FUNCTIONS(cooldown::import)
};

constexpr int kMaxDepth = 200;

// A document without aliases has fewer values than bytes; a few repeated blocks are
// fine, a billion laughs is not, and is refused before it takes seconds to expand.
qint64 maxValuesFor(qint64 bytes)
{
    return std::min<qint64>(4 * bytes + 100000, 4000000);
}

struct Conversion
{
    qint64 maxValues = 0;
    qint64 values = 0;
    QString error;
    int line = 0;
};

// A plain scalar as YAML 1.2's core schema types it.
QJsonValue plainScalar(const QString &text)
{
    static const QRegularExpression null(QStringLiteral("^(~|null|Null|NULL)?$"));
    static const QRegularExpression boolean(QStringLiteral("^(true|True|TRUE|false|False|FALSE)$"));
    static const QRegularExpression integer(QStringLiteral("^[-+]?[0-9]+$"));
    static const QRegularExpression number(
        QStringLiteral("^[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?$"));
    if (null.match(text).hasMatch())
        return QJsonValue::Null;
    if (boolean.match(text).hasMatch())
        return text.at(0).toLower() == QLatin1Char('t');
    bool ok = false;
    const double value = text.toDouble(&ok);
    // An integer past 2^53 would not read back the same as a JSON number: it stays text.
    if (ok && integer.match(text).hasMatch() && std::abs(value) < 9007199254740992.0)
        return value;
    if (ok && !integer.match(text).hasMatch() && number.match(text).hasMatch())
        return value;
    return text;
}

QJsonValue convert(const YAML::Node &node, int depth, Conversion &c)
{
    if (!c.error.isEmpty())
        return {};
    if (depth > kMaxDepth || ++c.values > c.maxValues) {
        c.error =
            depth > kMaxDepth
                ? Text::tr("nested deeper than %1 levels").arg(kMaxDepth)
                : Text::tr("more than %1 values once its aliases are expanded").arg(c.maxValues);
        c.line = node.Mark().line + 1;
        return {};
    }
    switch (node.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null:
        return QJsonValue::Null;
    case YAML::NodeType::Scalar: {
        const QString text = QString::fromStdString(node.Scalar());
        // "?" is a plain scalar's tag; a quoted one has "!" and stays text.
        return node.Tag() == "?" ? plainScalar(text) : QJsonValue(text);
    }
    case YAML::NodeType::Sequence: {
        QJsonArray array;
        for (const YAML::Node &item : node)
            array.append(convert(item, depth + 1, c));
        return array;
    }
    case YAML::NodeType::Map: {
        QJsonObject object;
        for (const auto &pair : node) {
            if (!pair.first.IsScalar()) {
                c.error = Text::tr("a key that is not a plain value");
                c.line = pair.first.Mark().line + 1;
                return {};
            }
            const QString key = QString::fromStdString(pair.first.Scalar());
            // "<<" merges keys in YAML 1.1; OpenAPI documents use $ref instead.
            object.insert(key, convert(pair.second, depth + 1, c));
        }
        return object;
    }
    }
    return {};
}

std::optional<QJsonValue> readJson(const QByteArray &text, const QString &sourceName,
                                   QString *error)
{
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(text, &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        const QByteArray before = text.left(parseError.offset);
        const qsizetype line = before.count('\n') + 1;
        const qsizetype column = parseError.offset - (before.lastIndexOf('\n') + 1) + 1;
        *error = Text::tr("%1: line %2, column %3: %4")
                     .arg(sourceName)
                     .arg(line)
                     .arg(column)
                     .arg(parseError.errorString());
        return std::nullopt;
    }
    return document.isArray() ? QJsonValue(document.array()) : QJsonValue(document.object());
}

} // namespace

std::optional<QJsonValue> readApiDocument(const QByteArray &text, const QString &sourceName,
                                          QString *error)
{
    const QByteArray start = text.trimmed().left(1);
    if (start == "{" || start == "[")
        return readJson(text, sourceName, error);
    Conversion c;
    c.maxValues = maxValuesFor(text.size());
    QJsonValue value;
    try {
        const YAML::Node root = YAML::Load(text.toStdString());
        value = convert(root, 0, c);
    } catch (const YAML::Exception &e) {
        c.error = QString::fromStdString(e.msg);
        c.line = e.mark.line + 1;
    }
    if (!c.error.isEmpty()) {
        *error = c.line > 0 ? Text::tr("%1: line %2: %3").arg(sourceName).arg(c.line).arg(c.error)
                            : Text::tr("%1: %2").arg(sourceName, c.error);
        return std::nullopt;
    }
    if (!value.isObject() && !value.isArray()) {
        *error =
            Text::tr("%1: expected a YAML or JSON document of keys and values").arg(sourceName);
        return std::nullopt;
    }
    return value;
}

} // namespace cooldown
