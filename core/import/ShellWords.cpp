// SPDX-License-Identifier: Apache-2.0
#include "core/import/ShellWords.h"

#include <QCoreApplication>
#include <QRegularExpression>

namespace cooldown {

namespace {

class Text final
{
    Q_DECLARE_TR_FUNCTIONS(cooldown::import)
};

bool isBlank(QChar c)
{
    return c == QLatin1Char(' ') || c == QLatin1Char('\t') || c == QLatin1Char('\n') ||
           c == QLatin1Char('\r');
}

bool isNameChar(QChar c, bool first)
{
    return c == QLatin1Char('_') || (c.isLetter() && c.unicode() < 128) ||
           (!first && c.isDigit() && c.unicode() < 128);
}

// "line L, column C" of an offset, counted from 1.
QString where(const QString &text, qsizetype at)
{
    const qsizetype lineStart = text.lastIndexOf(QLatin1Char('\n'), at - 1) + 1;
    return Text::tr("line %1, column %2")
        .arg(text.left(at).count(QLatin1Char('\n')) + 1)
        .arg(at - lineStart + 1);
}

// $'...' from just after the opening quote; returns the offset after the closing one,
// or -1 when it is not closed.
qsizetype readAnsiC(const QString &t, qsizetype i, QString &word)
{
    while (i < t.size()) {
        const QChar c = t.at(i);
        if (c == QLatin1Char('\''))
            return i + 1;
        if (c != QLatin1Char('\\') || i + 1 >= t.size()) {
            word += c;
            ++i;
            continue;
        }
        const QChar e = t.at(i + 1);
        i += 2;
        switch (e.unicode()) {
        case 'n':
            word += QLatin1Char('\n');
            break;
        case 't':
            word += QLatin1Char('\t');
            break;
        case 'r':
            word += QLatin1Char('\r');
            break;
        case 'a':
            word += QChar(7);
            break;
        case 'b':
            word += QChar(8);
            break;
        case 'e':
        case 'E':
            word += QChar(27);
            break;
        case 'f':
            word += QChar(12);
            break;
        case 'v':
            word += QChar(11);
            break;
        case 'x':
        case 'u':
        case 'U': {
            const int maxDigits = e == QLatin1Char('x') ? 2 : e == QLatin1Char('u') ? 4 : 8;
            qsizetype end = i;
            while (end < t.size() && end - i < maxDigits &&
                   QStringLiteral("0123456789abcdefABCDEF").contains(t.at(end)))
                ++end;
            if (end == i) {
                word += QLatin1Char('\\');
                word += e;
                break;
            }
            const uint code = t.mid(i, end - i).toUInt(nullptr, 16);
            i = end;
            if (e == QLatin1Char('x'))
                word += QChar(ushort(code)); // a byte; Latin-1 is what it stands for
            else
                word += QString::fromUcs4(reinterpret_cast<const char32_t *>(&code), 1);
            break;
        }
        default: // \\ \' \" \? and anything else: the character itself
            word += e;
        }
    }
    return -1;
}

// $NAME or ${NAME} at i (t.at(i) is '$'): appends ${env:NAME}; returns the offset after
// it, or i when it is no variable (a lone $ stays itself).
qsizetype readVariable(const QString &t, qsizetype i, QString &word)
{
    const bool braced = i + 1 < t.size() && t.at(i + 1) == QLatin1Char('{');
    qsizetype from = i + (braced ? 2 : 1);
    qsizetype end = from;
    while (end < t.size() && isNameChar(t.at(end), end == from))
        ++end;
    if (end == from || (braced && (end >= t.size() || t.at(end) != QLatin1Char('}'))))
        return i;
    word += QStringLiteral("${env:%1}").arg(t.mid(from, end - from));
    return braced ? end + 1 : end;
}

std::optional<QStringList> splitBash(const QString &t, QString *error)
{
    QStringList words;
    QString word;
    bool inWord = false;
    qsizetype i = 0;
    const auto endWord = [&] {
        if (inWord)
            words.append(word);
        word.clear();
        inWord = false;
    };
    while (i < t.size()) {
        const QChar c = t.at(i);
        if (isBlank(c)) {
            endWord();
            ++i;
        } else if (c == QLatin1Char('\\')) {
            if (i + 1 < t.size() && t.at(i + 1) == QLatin1Char('\r') && i + 2 < t.size() &&
                t.at(i + 2) == QLatin1Char('\n'))
                i += 3; // a Windows line end after the continuation
            else if (i + 1 < t.size() && t.at(i + 1) == QLatin1Char('\n'))
                i += 2;
            else {
                if (i + 1 < t.size())
                    word += t.at(i + 1);
                inWord = true;
                i += 2;
            }
        } else if (c == QLatin1Char('\'')) {
            const qsizetype close = t.indexOf(QLatin1Char('\''), i + 1);
            if (close < 0) {
                *error = Text::tr("a ' opened at %1 is not closed").arg(where(t, i));
                return std::nullopt;
            }
            word += t.mid(i + 1, close - i - 1);
            inWord = true;
            i = close + 1;
        } else if (c == QLatin1Char('$') && i + 1 < t.size() && t.at(i + 1) == QLatin1Char('\'')) {
            const qsizetype after = readAnsiC(t, i + 2, word);
            if (after < 0) {
                *error = Text::tr("a $' opened at %1 is not closed").arg(where(t, i));
                return std::nullopt;
            }
            inWord = true;
            i = after;
        } else if (c == QLatin1Char('"')) {
            const qsizetype open = i++;
            inWord = true;
            for (;;) {
                if (i >= t.size()) {
                    *error = Text::tr("a \" opened at %1 is not closed").arg(where(t, open));
                    return std::nullopt;
                }
                const QChar d = t.at(i);
                if (d == QLatin1Char('"')) {
                    ++i;
                    break;
                }
                if (d == QLatin1Char('\\') && i + 1 < t.size() &&
                    QStringLiteral("\"\\$`\n").contains(t.at(i + 1))) {
                    if (t.at(i + 1) != QLatin1Char('\n'))
                        word += t.at(i + 1);
                    i += 2;
                } else if (d == QLatin1Char('$')) {
                    const qsizetype after = readVariable(t, i, word);
                    if (after == i)
                        word += d;
                    i = after == i ? i + 1 : after;
                } else {
                    word += d;
                    ++i;
                }
            }
        } else if (c == QLatin1Char('$')) {
            const qsizetype after = readVariable(t, i, word);
            if (after == i)
                word += c;
            inWord = true;
            i = after == i ? i + 1 : after;
        } else {
            word += c;
            inWord = true;
            ++i;
        }
    }
    endWord();
    return words;
}

// cmd's own layer: ^X is X, ^ before a line end joins the lines.
QString unescapeCmd(const QString &t)
{
    QString out;
    out.reserve(t.size());
    for (qsizetype i = 0; i < t.size(); ++i) {
        if (t.at(i) != QLatin1Char('^') || i + 1 >= t.size()) {
            out += t.at(i);
            continue;
        }
        ++i;
        if (t.at(i) == QLatin1Char('\r') && i + 1 < t.size() && t.at(i + 1) == QLatin1Char('\n'))
            ++i;
        if (t.at(i) != QLatin1Char('\n'))
            out += t.at(i);
    }
    return out;
}

// The C runtime's splitting of what cmd passes on.
std::optional<QStringList> splitCmd(const QString &text, QString *error)
{
    const QString t = unescapeCmd(text);
    QStringList words;
    QString word;
    bool inWord = false;
    bool quoted = false;
    qsizetype openedAt = -1;
    for (qsizetype i = 0; i < t.size();) {
        const QChar c = t.at(i);
        if (c == QLatin1Char('\\')) {
            qsizetype n = 0;
            while (i + n < t.size() && t.at(i + n) == QLatin1Char('\\'))
                ++n;
            if (i + n < t.size() && t.at(i + n) == QLatin1Char('"')) {
                word += QString(n / 2, QLatin1Char('\\'));
                if (n % 2 == 1) {
                    word += QLatin1Char('"');
                    i += n + 1;
                } else {
                    i += n; // the quote groups, below
                }
            } else {
                word += QString(n, QLatin1Char('\\'));
                i += n;
            }
            inWord = true;
        } else if (c == QLatin1Char('"')) {
            quoted = !quoted;
            openedAt = quoted ? i : -1;
            inWord = true;
            ++i;
        } else if (isBlank(c) && !quoted) {
            if (inWord)
                words.append(word);
            word.clear();
            inWord = false;
            ++i;
        } else {
            word += c;
            inWord = true;
            ++i;
        }
    }
    if (quoted) {
        *error = Text::tr("a \" opened at %1 is not closed").arg(where(t, openedAt));
        return std::nullopt;
    }
    if (inWord)
        words.append(word);
    return words;
}

} // namespace

ShellStyle guessShellStyle(const QString &text)
{
    static const QRegularExpression cmd(QStringLiteral("\\^\"|\\^\\r?$"),
                                        QRegularExpression::MultilineOption);
    return cmd.match(text).hasMatch() ? ShellStyle::Cmd : ShellStyle::Bash;
}

std::optional<ShellWords> splitShellWords(const QString &text, QString *error)
{
    ShellWords out;
    out.style = guessShellStyle(text);
    std::optional<QStringList> words =
        out.style == ShellStyle::Cmd ? splitCmd(text, error) : splitBash(text, error);
    if (!words)
        return std::nullopt;
    if (words->isEmpty()) {
        *error = Text::tr("the command is empty");
        return std::nullopt;
    }
    out.words = *words;
    return out;
}

} // namespace cooldown
