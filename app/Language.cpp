// SPDX-License-Identifier: Apache-2.0
#include "app/Language.h"

#include <QCoreApplication>
#include <QLibraryInfo>
#include <QLocale>
#include <QTranslator>

#include <cstring>

namespace cooldown {

namespace {

const char kOption[] = "--lang";

std::optional<Language> languageOfTag(const QString &tag)
{
    // UI languages come as BCP 47 tags: "ja", "ja-JP", "en-US".
    const QString primary = tag.section(QLatin1Char('-'), 0, 0).toLower();
    if (primary == QLatin1String("ja"))
        return Language::Japanese;
    if (primary == QLatin1String("en"))
        return Language::English;
    return std::nullopt;
}

} // namespace

std::optional<Language> languageFromCode(const QString &code)
{
    if (code == QLatin1String("ja"))
        return Language::Japanese;
    if (code == QLatin1String("en"))
        return Language::English;
    return std::nullopt;
}

Language systemLanguage()
{
    const QStringList tags = QLocale::system().uiLanguages();
    for (const QString &tag : tags) {
        if (const auto language = languageOfTag(tag))
            return *language;
    }
    return Language::English;
}

LanguageOption takeLanguageOption(std::vector<char *> &arguments)
{
    LanguageOption option;
    const std::size_t optionLength = std::strlen(kOption);
    for (std::size_t i = 0; i < arguments.size(); ++i) {
        const char *argument = arguments[i];
        if (std::strcmp(argument, "--") == 0)
            break;
        if (std::strcmp(argument, kOption) == 0) {
            option.given = true;
            const bool hasValue = i + 1 < arguments.size();
            option.value = hasValue ? QString::fromLocal8Bit(arguments[i + 1]) : QString();
            arguments.erase(arguments.begin() + std::ptrdiff_t(i),
                            arguments.begin() + std::ptrdiff_t(hasValue ? i + 2 : i + 1));
            break;
        }
        if (std::strncmp(argument, kOption, optionLength) == 0 && argument[optionLength] == '=') {
            option.given = true;
            option.value = QString::fromLocal8Bit(argument + optionLength + 1);
            arguments.erase(arguments.begin() + std::ptrdiff_t(i));
            break;
        }
    }
    if (option.given) {
        const auto language = languageFromCode(option.value);
        option.valid = language.has_value();
        option.language = language.value_or(Language::English);
    }
    return option;
}

bool installLanguage(QCoreApplication &app, Language language, QString *error)
{
    const bool english = language == Language::English;
    const QLocale locale = english ? QLocale(QLocale::English, QLocale::UnitedStates)
                                   : QLocale(QLocale::Japanese, QLocale::Japan);
    // English keeps the system's locale, unless that one is Japanese: then English
    // dates and numbers too.
    if (!english || systemLanguage() != Language::English)
        QLocale::setDefault(locale);
    // English has a translation too: the singular and plural of the messages that
    // count something ("1 job", "2 jobs"), which the sources write as "job(s)".
    auto *own = new QTranslator(&app);
    if (!own->load(locale, QStringLiteral("cooldown"), QStringLiteral("_"),
                   QStringLiteral(":/cooldown/translations"))) {
        delete own;
        if (error)
            *error = english
                         ? QStringLiteral("the English plurals are missing from this build")
                         : QStringLiteral("the Japanese translation is missing from this build");
        return false;
    }
    QCoreApplication::installTranslator(own);
    if (english)
        return true;
    // Qt's own strings: without Debian's qt6-translations-l10n they stay English.
    auto *qt = new QTranslator(&app);
    if (qt->load(locale, QStringLiteral("qtbase"), QStringLiteral("_"),
                 QLibraryInfo::path(QLibraryInfo::TranslationsPath)))
        QCoreApplication::installTranslator(qt);
    else
        delete qt;
    return true;
}

} // namespace cooldown
