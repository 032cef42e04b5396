// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QString>
#include <QStringList>

#include <optional>

namespace cooldown {

// A command line as a shell would split it into words, without running anything: what
// "Copy as cURL" gives, in either of the two styles browsers write (docs/import.md).
//
// - Bash (POSIX sh and bash's $'...'): blanks separate words; '...' is literal;
//   "..." keeps \" \\ \$ \` and drops \ before a newline; $'...' reads C escapes (\n,
//   \t, \xHH, \uHHHH, \', \\); a backslash outside quotes makes the next character
//   literal, and before a newline continues the line. A variable ($NAME or ${NAME},
//   outside single quotes) is kept as the reference ${env:NAME}: the import never
//   reads the environment, and the workspace resolves it when it runs.
// - Windows cmd (Chrome's and Edge's "Copy as cURL (cmd)"): ^ makes the next character
//   literal and, before a newline, continues the line; then the words are split as the
//   C runtime does (CommandLineToArgvW): "..." groups, and backslashes count only
//   before a quote (2n and a quote: n and the quote groups; 2n+1: n and a literal ").
//
// Which one is chosen by the text: a ^ before a quote or at the end of a line means
// cmd. A quote left open is an error naming where it opened; so is a command with
// nothing in it.
enum class ShellStyle
{
    Bash,
    Cmd
};

struct ShellWords
{
    ShellStyle style = ShellStyle::Bash;
    QStringList words;
};

ShellStyle guessShellStyle(const QString &text);
std::optional<ShellWords> splitShellWords(const QString &text, QString *error);

} // namespace cooldown
