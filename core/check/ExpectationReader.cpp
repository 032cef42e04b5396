// SPDX-License-Identifier: Apache-2.0
#include "core/check/ExpectationReader.h"

#include "core/config/JsonReader.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonObject>
#include <QRegularExpression>

namespace cooldown {

namespace {

// The words of this file, for translators.
class Text final
{
    Q_DECLARE_TR_FUNCTIONS(cooldown::config)
};

constexpr double kMaxBodyBytes = 64.0 * 1024 * 1024;

const QStringList kExpectKeys = {QStringLiteral("status"),
                                 QStringLiteral("headers"),
                                 QStringLiteral("json"),
                                 QStringLiteral("body_regex"),
                                 QStringLiteral("min_body_bytes"),
                                 QStringLiteral("max_body_bytes"),
                                 QStringLiteral("retry_on_failure")};
const QStringList kHeaderKeys = {QStringLiteral("present"), QStringLiteral("equals"),
                                 QStringLiteral("matches")};
const QStringList kJsonKeys = {
    QStringLiteral("pointer"), QStringLiteral("exists"),    QStringLiteral("equals"),
    QStringLiteral("matches"), QStringLiteral("one_of"),    QStringLiteral("min"),
    QStringLiteral("max"),     QStringLiteral("min_items"), QStringLiteral("max_items")};

// A pattern compiled once, at load; an invalid one fails the reader.
QRegularExpression pattern(const QString &text, const QString &path, JsonReader &r)
{
    QRegularExpression re(text);
    if (!re.isValid())
        r.fail(path, Text::tr("not a valid regular expression: %1 at offset %2")
                         .arg(re.errorString())
                         .arg(re.patternErrorOffset()));
    re.optimize();
    return re;
}

std::optional<StatusRange> statusRange(const QJsonValue &v)
{
    static const QRegularExpression kRange(QStringLiteral("^([1-5][0-9][0-9])-([1-5][0-9][0-9])$"));
    static const QRegularExpression kClass(QStringLiteral("^([1-5])[xX][xX]$"));
    if (v.isDouble()) {
        const double d = v.toDouble();
        if (d >= 100 && d <= 599 && d == double(int(d)))
            return StatusRange{int(d), int(d)};
        return std::nullopt;
    }
    const QString text = v.toString().trimmed();
    if (const auto m = kRange.match(text); m.hasMatch()) {
        const int low = m.captured(1).toInt();
        const int high = m.captured(2).toInt();
        if (low <= high)
            return StatusRange{low, high};
    } else if (const auto c = kClass.match(text); c.hasMatch()) {
        const int hundred = c.captured(1).toInt() * 100;
        return StatusRange{hundred, hundred + 99};
    } else if (bool ok = false; text.size() == 3 && (text.toInt(&ok), ok)) {
        const int status = text.toInt();
        if (status >= 100 && status <= 599)
            return StatusRange{status, status};
    }
    return std::nullopt;
}

void readStatuses(const QJsonValue &v, const QString &path, JsonReader &r, Expectation &e)
{
    const QJsonArray list = v.isArray() ? v.toArray() : QJsonArray{v};
    if (list.isEmpty())
        r.fail(path, Text::tr("expected at least one status"));
    for (qsizetype i = 0; i < list.size() && r.ok(); ++i) {
        const auto range = statusRange(list.at(i));
        if (!range)
            r.fail(v.isArray() ? JsonReader::index(path, i) : path,
                   Text::tr("expected a status (200), a range (200-299) or a class (2xx)"));
        else
            e.statuses.append(*range);
    }
}

void readHeaderChecks(const QJsonValue &v, const QString &path, JsonReader &r, Expectation &e)
{
    const auto object = r.object(v, path);
    if (!object)
        return;
    for (auto it = object->begin(); it != object->end() && r.ok(); ++it) {
        const QString fieldPath = JsonReader::join(path, it.key());
        HeaderCheck c;
        c.name = it.key().toLatin1();
        if (it.value().isString()) { // "Content-Type": "application/json"
            c.op = HeaderCheck::Op::Equals;
            c.text = it.value().toString();
            e.headers.append(c);
            continue;
        }
        const auto spec = r.object(it.value(), fieldPath);
        if (!spec)
            return;
        r.checkKnownKeys(*spec, fieldPath, kHeaderKeys);
        if (spec->size() != 1) {
            r.fail(fieldPath, Text::tr("expected one of: present, equals, matches"));
            return;
        }
        if (spec->contains(QStringLiteral("present"))) {
            const bool present = r.boolean(*spec, QStringLiteral("present"), fieldPath, true);
            c.op = present ? HeaderCheck::Op::Present : HeaderCheck::Op::Absent;
        } else if (spec->contains(QStringLiteral("equals"))) {
            c.op = HeaderCheck::Op::Equals;
            c.text = r.string(*spec, QStringLiteral("equals"), fieldPath, true);
        } else {
            c.op = HeaderCheck::Op::Matches;
            c.text = r.string(*spec, QStringLiteral("matches"), fieldPath, true);
            c.pattern = pattern(c.text, JsonReader::join(fieldPath, QStringLiteral("matches")), r);
        }
        e.headers.append(c);
    }
}

// One entry of `json`: a pointer and any number of conditions on what it names, each
// a check of its own; none means "exists".
void readJsonCheck(const QJsonObject &o, const QString &path, const QString &shortPath,
                   JsonReader &r, Expectation &e)
{
    r.checkKnownKeys(o, path, kJsonKeys);
    const QString pointerText = r.string(o, QStringLiteral("pointer"), path, true);
    if (!r.ok())
        return;
    QString error;
    const auto pointer = JsonPointer::parse(pointerText, &error);
    if (!pointer) {
        r.fail(JsonReader::join(path, QStringLiteral("pointer")), error);
        return;
    }
    JsonCheck base;
    base.path = shortPath;
    base.pointer = *pointer;
    auto add = [&](JsonCheck::Op op) {
        JsonCheck c = base;
        c.op = op;
        return c;
    };
    bool any = false;
    for (auto it = o.begin(); it != o.end() && r.ok(); ++it) {
        const QString key = it.key();
        const QString keyPath = JsonReader::join(path, key);
        if (key == QLatin1String("pointer"))
            continue;
        any = true;
        if (key == QLatin1String("exists")) {
            if (!it.value().isBool())
                return r.fail(keyPath, Text::tr("expected true or false"));
            e.json.append(add(it.value().toBool() ? JsonCheck::Op::Exists : JsonCheck::Op::Absent));
        } else if (key == QLatin1String("equals")) {
            JsonCheck c = add(JsonCheck::Op::Equals);
            c.value = it.value();
            e.json.append(c);
        } else if (key == QLatin1String("matches")) {
            JsonCheck c = add(JsonCheck::Op::Matches);
            c.pattern = pattern(r.string(o, key, path, true), keyPath, r);
            e.json.append(c);
        } else if (key == QLatin1String("one_of")) {
            JsonCheck c = add(JsonCheck::Op::OneOf);
            const auto values = r.array(it.value(), keyPath);
            if (values && values->isEmpty())
                r.fail(keyPath, Text::tr("expected at least one value"));
            c.value = values.value_or(QJsonArray());
            e.json.append(c);
        } else {
            const bool items = key.endsWith(QLatin1String("_items"));
            JsonCheck c = add(key == QLatin1String("min")         ? JsonCheck::Op::Min
                              : key == QLatin1String("max")       ? JsonCheck::Op::Max
                              : key == QLatin1String("min_items") ? JsonCheck::Op::MinItems
                                                                  : JsonCheck::Op::MaxItems);
            c.number = items ? r.number(o, key, path, 0, 1e9, 0, true)
                             : r.number(o, key, path, -1e300, 1e300, 0);
            e.json.append(c);
        }
    }
    if (!any)
        e.json.append(add(JsonCheck::Op::Exists));
}

void readJsonChecks(const QJsonValue &v, const QString &path, JsonReader &r, Expectation &e)
{
    const auto list = r.array(v, path);
    if (!list)
        return;
    for (qsizetype i = 0; i < list->size() && r.ok(); ++i) {
        const QString itemPath = JsonReader::index(path, i);
        if (const auto o = r.object(list->at(i), itemPath))
            readJsonCheck(*o, itemPath, QStringLiteral("json[%1]").arg(i), r, e);
    }
}

} // namespace

Expectation readExpectation(const QJsonValue &value, const QString &path, JsonReader &r)
{
    Expectation e;
    const auto o = r.object(value, path);
    if (!o)
        return e;
    r.checkKnownKeys(*o, path, kExpectKeys);
    if (o->contains(QStringLiteral("status")))
        readStatuses(o->value(QStringLiteral("status")),
                     JsonReader::join(path, QStringLiteral("status")), r, e);
    if (r.ok() && o->contains(QStringLiteral("headers")))
        readHeaderChecks(o->value(QStringLiteral("headers")),
                         JsonReader::join(path, QStringLiteral("headers")), r, e);
    if (r.ok() && o->contains(QStringLiteral("json")))
        readJsonChecks(o->value(QStringLiteral("json")),
                       JsonReader::join(path, QStringLiteral("json")), r, e);
    e.bodyPatternText = r.string(*o, QStringLiteral("body_regex"), path, false);
    if (r.ok() && !e.bodyPatternText.isEmpty())
        e.bodyPattern =
            pattern(e.bodyPatternText, JsonReader::join(path, QStringLiteral("body_regex")), r);
    e.minBodyBytes =
        qint64(r.number(*o, QStringLiteral("min_body_bytes"), path, 0, kMaxBodyBytes, -1, true));
    e.maxBodyBytes =
        qint64(r.number(*o, QStringLiteral("max_body_bytes"), path, 0, kMaxBodyBytes, -1, true));
    if (r.ok() && e.minBodyBytes >= 0 && e.maxBodyBytes >= 0 && e.minBodyBytes > e.maxBodyBytes)
        r.fail(JsonReader::join(path, QStringLiteral("min_body_bytes")),
               Text::tr("larger than max_body_bytes"));
    e.retryOnFailure = r.boolean(*o, QStringLiteral("retry_on_failure"), path, false);
    return e;
}

} // namespace cooldown
