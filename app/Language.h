// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QString>

#include <optional>
#include <vector>

class QCoreApplication;

namespace cooldown {

// The languages Cooldown speaks. English is the source text; every other one is a
// translation compiled into the binary.
enum class Language
{
    English,
    Japanese
};

// The language `--lang` names: "en" or "ja".
std::optional<Language> languageFromCode(const QString &code);

// The first language of the system locale's UI languages that Cooldown speaks
// (LANG=ja_JP.UTF-8 gives Japanese); English when it speaks none of them.
Language systemLanguage();

// What `--lang` said, taken out of a command line.
struct LanguageOption
{
    bool given = false;
    QString value;      // the text after --lang, as given
    bool valid = false; // value names a language Cooldown speaks
    Language language = Language::English;
};

// Finds `--lang CODE` or `--lang=CODE` anywhere before a "--" in arguments (argv
// without the program name) and removes it, so that the commands never see it.
LanguageOption takeLanguageOption(std::vector<char *> &arguments);

// Installs language's translations on app (Cooldown's own, and Qt's from the
// system's translation folder for dialog buttons and command-line parsing) and makes
// its locale the default, so that the window writes dates and numbers as its
// readers do. English keeps the system locale unless that one is Japanese.
// Returns false, with a reason, when Cooldown's own translation cannot be loaded.
bool installLanguage(QCoreApplication &app, Language language, QString *error = nullptr);

} // namespace cooldown
