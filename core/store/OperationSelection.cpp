// SPDX-License-Identifier: Apache-2.0
#include "core/store/OperationSelection.h"

#include "core/time/IsoTime.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QRegularExpression>

namespace cooldown {

namespace {

class Text final
{
    Q_DECLARE_TR_FUNCTIONS(cooldown::store)
};

// One word of the text: a key=value term, or a further value of the term before it.
struct Word
{
    int column = 0; // from 1
    QString raw;    // as written, for messages
    QString key;    // empty for a further value
    QString value;
    bool hasKey = false;
    bool quoted = false; // the value was written in quotes (so "" is a value)
};

bool isSeparator(QChar c)
{
    return c.isSpace() || c == u',';
}

// Splits the text into words; false with *error on an unterminated quote.
bool splitWords(QStringView text, QList<Word> *words, QString *error)
{
    qsizetype i = 0;
    const qsizetype n = text.size();
    while (i < n) {
        if (isSeparator(text[i])) {
            ++i;
            continue;
        }
        Word word;
        word.column = int(i) + 1;
        const qsizetype start = i;
        QString current; // the key until '=', then the value
        bool quotedValue = false;
        while (i < n && !isSeparator(text[i])) {
            const QChar c = text[i];
            if (c == u'"') {
                const qsizetype quoteAt = i++;
                bool closed = false;
                while (i < n) {
                    if (text[i] == u'\\' && i + 1 < n) {
                        current += text[i + 1];
                        i += 2;
                        continue;
                    }
                    if (text[i] == u'"') {
                        closed = true;
                        ++i;
                        break;
                    }
                    current += text[i++];
                }
                if (!closed) {
                    *error = Text::tr("column %1: '%2': the quote opened here is not closed")
                                 .arg(quoteAt + 1)
                                 .arg(text.mid(start).toString());
                    return false;
                }
                quotedValue = true;
                continue;
            }
            if (c == u'=' && !word.hasKey) {
                word.hasKey = true;
                word.key = current;
                current.clear();
                ++i;
                continue;
            }
            current += c;
            ++i;
        }
        word.raw = text.mid(start, i - start).toString();
        word.value = current;
        word.quoted = quotedValue;
        words->append(word);
    }
    return true;
}

std::optional<qint64> parseTime(const QString &text, qint64 nowMs)
{
    static const QRegularExpression kAgo(QStringLiteral("^([0-9]{1,9})([smhd])$"));
    const QRegularExpressionMatch ago = kAgo.match(text);
    if (ago.hasMatch()) {
        const qint64 count = ago.captured(1).toLongLong();
        const QChar unit = ago.captured(2).at(0);
        const qint64 unitMs = unit == u's'   ? 1000
                              : unit == u'm' ? 60'000
                              : unit == u'h' ? 3'600'000
                                             : 86'400'000;
        return nowMs - count * unitMs;
    }
    return parseIsoTimeMs(text);
}

std::optional<StatusMatch> parseStatus(const QString &text)
{
    if (text == QLatin1String("error"))
        return StatusMatch{};
    static const QRegularExpression kClass(QStringLiteral("^([1-5])xx$"));
    const QRegularExpressionMatch klass = kClass.match(text);
    if (klass.hasMatch()) {
        const int hundreds = klass.captured(1).toInt();
        return StatusMatch{hundreds * 100, hundreds * 100 + 99};
    }
    static const QRegularExpression kExact(QStringLiteral("^[1-5][0-9][0-9]$"));
    if (kExact.match(text).hasMatch()) {
        const int status = text.toInt();
        return StatusMatch{status, status};
    }
    return std::nullopt;
}

QString stateNames()
{
    QStringList names;
    for (const OperationState state : allOperationStates())
        names.append(toString(state));
    return names.join(QStringLiteral(", "));
}

QString quoted(const QString &value)
{
    const bool plain = !value.isEmpty() && !value.contains(u' ') && !value.contains(u',') &&
                       !value.contains(u'"') && !value.contains(u'\\') && !value.contains(u'=') &&
                       !value.contains(u'\t') && !value.contains(u'\n');
    if (plain)
        return value;
    QString out = QStringLiteral("\"");
    for (const QChar c : value) {
        if (c == u'"' || c == u'\\')
            out += u'\\';
        out += c;
    }
    return out + u'"';
}

QString timeText(qint64 ms)
{
    const QDateTime t = QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC);
    return t.toString(ms % 1000 == 0 ? Qt::ISODate : Qt::ISODateWithMs);
}

} // namespace

QString toString(const StatusMatch &match)
{
    if (match.isError())
        return QStringLiteral("error");
    if (match.min == match.max)
        return QString::number(match.min);
    return QString::number(match.min / 100) + QStringLiteral("xx");
}

bool OperationSelection::isEmpty() const
{
    return endpointIds.isEmpty() && states.isEmpty() && partitionKeys.isEmpty() &&
           statuses.isEmpty() && reasons.isEmpty() && sinceMs < 0 && untilMs < 0;
}

bool operator==(const OperationSelection &a, const OperationSelection &b)
{
    return a.endpointIds == b.endpointIds && a.states == b.states &&
           a.partitionKeys == b.partitionKeys && a.statuses == b.statuses &&
           a.reasons == b.reasons && a.sinceMs == b.sinceMs && a.untilMs == b.untilMs;
}

std::optional<OperationSelection> OperationSelection::parse(QStringView text, qint64 nowMs,
                                                            QString *error)
{
    QString problem;
    QList<Word> words;
    if (!splitWords(text, &words, &problem)) {
        if (error)
            *error = problem;
        return std::nullopt;
    }
    OperationSelection out;
    QString key; // the term the next further value belongs to
    const auto bad = [&](const Word &word, const QString &why) {
        if (error)
            *error = Text::tr("column %1: '%2': %3").arg(word.column).arg(word.raw, why);
        return std::nullopt;
    };
    for (const Word &word : std::as_const(words)) {
        if (word.hasKey) {
            key = word.key;
        } else if (key.isEmpty()) {
            return bad(word, Text::tr("expected key=value (keys: endpoint, state, partition, "
                                      "status, reason, since, until)"));
        }
        const QString &value = word.value;
        // An empty value is only taken when it was written as "": a bare "key=" is a
        // slip more often than a wish to select the empty partition key.
        if (value.isEmpty() && !word.quoted)
            return bad(word, Text::tr("'%1' has no value").arg(key));
        if (key == QLatin1String("endpoint")) {
            out.endpointIds.append(value);
        } else if (key == QLatin1String("partition")) {
            out.partitionKeys.append(value);
        } else if (key == QLatin1String("reason")) {
            out.reasons.append(value);
        } else if (key == QLatin1String("state")) {
            const auto state = operationStateFromString(value);
            if (!state)
                return bad(
                    word,
                    Text::tr("unknown state '%1' (expected one of %2)").arg(value, stateNames()));
            if (!out.states.contains(*state))
                out.states.append(*state);
        } else if (key == QLatin1String("status")) {
            const auto status = parseStatus(value);
            if (!status)
                return bad(word, Text::tr("'%1' is not a status (expected a code such as 429, a "
                                          "class such as 5xx, or error)")
                                     .arg(value));
            if (!out.statuses.contains(*status))
                out.statuses.append(*status);
        } else if (key == QLatin1String("since") || key == QLatin1String("until")) {
            qint64 &bound = key == QLatin1String("since") ? out.sinceMs : out.untilMs;
            if (bound >= 0)
                return bad(word, Text::tr("'%1' takes one time").arg(key));
            const auto ms = parseTime(value, nowMs);
            if (!ms || *ms < 0)
                return bad(word, Text::tr("'%1' is not a time (expected ISO 8601 such as "
                                          "2026-12-01T10:00:00Z, or a time ago such as 2h)")
                                     .arg(value));
            bound = *ms;
        } else {
            return bad(word, Text::tr("unknown key '%1' (expected endpoint, state, partition, "
                                      "status, reason, since, until)")
                                 .arg(key));
        }
    }
    if (out.sinceMs >= 0 && out.untilMs >= 0 && out.untilMs <= out.sinceMs) {
        if (error)
            *error = Text::tr("'until' must be later than 'since'");
        return std::nullopt;
    }
    return out;
}

QString OperationSelection::toText() const
{
    QStringList terms;
    const auto term = [&terms](const char *key, const QStringList &values) {
        if (values.isEmpty())
            return;
        QStringList written;
        for (const QString &v : values)
            written.append(quoted(v));
        terms.append(QLatin1String(key) + u'=' + written.join(u','));
    };
    term("endpoint", endpointIds);
    QStringList stateTexts;
    for (const OperationState s : states)
        stateTexts.append(toString(s));
    term("state", stateTexts);
    term("partition", partitionKeys);
    QStringList statusTexts;
    for (const StatusMatch &s : statuses)
        statusTexts.append(toString(s));
    term("status", statusTexts);
    term("reason", reasons);
    if (sinceMs >= 0)
        terms.append(QStringLiteral("since=") + timeText(sinceMs));
    if (untilMs >= 0)
        terms.append(QStringLiteral("until=") + timeText(untilMs));
    return terms.join(u' ');
}

} // namespace cooldown
