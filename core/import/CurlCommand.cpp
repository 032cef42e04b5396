// SPDX-License-Identifier: Apache-2.0
#include "core/import/CurlCommand.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>

namespace cooldown {

namespace {

using Header = QPair<QByteArray, QByteArray>;

class Text final
{
    Q_DECLARE_TR_FUNCTIONS(cooldown::import)
};

// Options that take no value and change nothing about the request.
const QStringList kIgnoredFlags = {
    QStringLiteral("-s"),
    QStringLiteral("--silent"),
    QStringLiteral("-S"),
    QStringLiteral("--show-error"),
    QStringLiteral("-v"),
    QStringLiteral("--verbose"),
    QStringLiteral("-L"),
    QStringLiteral("--location"),
    QStringLiteral("-i"),
    QStringLiteral("--include"),
    QStringLiteral("-f"),
    QStringLiteral("--fail"),
    QStringLiteral("--fail-with-body"),
    QStringLiteral("-#"),
    QStringLiteral("--progress-bar"),
    QStringLiteral("-N"),
    QStringLiteral("--no-buffer"),
    QStringLiteral("--http1.1"),
    QStringLiteral("--http2"),
    QStringLiteral("-g"),
    QStringLiteral("--globoff"),
    QStringLiteral("-n"),
    QStringLiteral("--netrc"),
    QStringLiteral("-j"),
    QStringLiteral("--junk-session-cookies"),
    QStringLiteral("--path-as-is"),
};
// Options with a value that change nothing about the request.
const QStringList kIgnoredWithValue = {
    QStringLiteral("-o"),
    QStringLiteral("--output"),
    QStringLiteral("-w"),
    QStringLiteral("--write-out"),
    QStringLiteral("-m"),
    QStringLiteral("--max-time"),
    QStringLiteral("--connect-timeout"),
    QStringLiteral("--retry"),
    QStringLiteral("--retry-delay"),
    QStringLiteral("--retry-max-time"),
    QStringLiteral("-c"),
    QStringLiteral("--cookie-jar"),
    QStringLiteral("--max-redirs"),
    QStringLiteral("-D"),
    QStringLiteral("--dump-header"),
};
// Single-letter options that take a value, for "-XPOST" and "-sX POST".
const QString kShortWithValue = QStringLiteral("XHdFuAebTomwcDE");

struct Reading
{
    CurlRequest request;
    QString method;
    QStringList dataParts; // -d and its kin, joined with & in the end
    struct FormPart
    {
        QString name;
        QString value;
        bool literal = false; // --form-string: @ and < are not files
    };
    QList<FormPart> formParts;
    bool getData = false; // -G
    bool head = false;    // -I
    QStringList cookies;
    QString url;
    QString baseDir;
};

std::optional<QByteArray> readFile(const QString &baseDir, const QString &name, QString *error)
{
    if (name == QLatin1String("-")) {
        *error = Text::tr("@- reads standard input, which an import cannot; save it to a file "
                          "and name that");
        return std::nullopt;
    }
    const QString path = QFileInfo(name).isAbsolute() ? name : QDir(baseDir).filePath(name);
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        *error = Text::tr("cannot read %1: %2").arg(path, file.errorString());
        return std::nullopt;
    }
    return file.readAll();
}

// -d and its kin: what the part adds to the body, before the parts are joined with &.
std::optional<QByteArray> dataPart(const QString &option, const QString &value,
                                   const QString &baseDir, QString *error)
{
    const bool binary = option == QLatin1String("--data-binary");
    const bool raw = option == QLatin1String("--data-raw");
    if (option == QLatin1String("--data-urlencode")) {
        // name=content, =content, content, name@file, @file (curl's manual).
        const qsizetype eq = value.indexOf(QLatin1Char('='));
        const qsizetype at = value.indexOf(QLatin1Char('@'));
        QString name;
        QByteArray content;
        if (at >= 0 && (eq < 0 || at < eq)) {
            name = value.left(at);
            const auto file = readFile(baseDir, value.mid(at + 1), error);
            if (!file)
                return std::nullopt;
            content = *file;
        } else if (eq >= 0) {
            name = value.left(eq);
            content = value.mid(eq + 1).toUtf8();
        } else {
            content = value.toUtf8();
        }
        // A space as +, as curl does.
        const QByteArray encoded = content.toPercentEncoding(" ").replace(' ', '+');
        return name.isEmpty() ? encoded : name.toUtf8() + '=' + encoded;
    }
    if (!raw && value.startsWith(QLatin1Char('@'))) {
        auto file = readFile(baseDir, value.mid(1), error);
        if (!file)
            return std::nullopt;
        if (!binary) // -d strips carriage returns and newlines from a file, as curl does
            file->replace('\r', QByteArray()).replace('\n', QByteArray());
        return file;
    }
    return value.toUtf8();
}

// The type curl gives a file part by its name's extension (lib/mime.c); any other is
// application/octet-stream.
QString fileContentType(const QString &file)
{
    static const QList<QPair<QString, QString>> types = {
        {QStringLiteral(".gif"), QStringLiteral("image/gif")},
        {QStringLiteral(".jpg"), QStringLiteral("image/jpeg")},
        {QStringLiteral(".jpeg"), QStringLiteral("image/jpeg")},
        {QStringLiteral(".png"), QStringLiteral("image/png")},
        {QStringLiteral(".svg"), QStringLiteral("image/svg+xml")},
        {QStringLiteral(".txt"), QStringLiteral("text/plain")},
        {QStringLiteral(".htm"), QStringLiteral("text/html")},
        {QStringLiteral(".html"), QStringLiteral("text/html")},
        {QStringLiteral(".pdf"), QStringLiteral("application/pdf")},
        {QStringLiteral(".xml"), QStringLiteral("application/xml")},
    };
    for (const auto &[extension, type] : types) {
        if (file.endsWith(extension, Qt::CaseInsensitive))
            return type;
    }
    return QStringLiteral("application/octet-stream");
}

std::optional<QByteArray> multipartBody(const Reading &r, QByteArray *contentType, QString *error)
{
    // A fixed boundary: the same command imports to the same bytes every time.
    const QByteArray boundary = "------------------------cooldownimport";
    QByteArray body;
    for (const Reading::FormPart &part : r.formParts) {
        const QString &name = part.name;
        QString value = part.value;
        QString type;
        const qsizetype semi = part.literal ? -1 : value.indexOf(QStringLiteral(";type="));
        if (semi >= 0) {
            type = value.mid(semi + 6);
            value = value.left(semi);
        }
        body +=
            "--" + boundary + "\r\nContent-Disposition: form-data; name=\"" + name.toUtf8() + '"';
        QByteArray content;
        if (!part.literal && value.startsWith(QLatin1Char('@'))) {
            const QString file = value.mid(1);
            const auto bytes = readFile(r.baseDir, file, error);
            if (!bytes)
                return std::nullopt;
            content = *bytes;
            body += "; filename=\"" + QFileInfo(file).fileName().toUtf8() + '"';
            if (type.isEmpty())
                type = fileContentType(file);
        } else if (!part.literal && value.startsWith(QLatin1Char('<'))) {
            const auto bytes = readFile(r.baseDir, value.mid(1), error);
            if (!bytes)
                return std::nullopt;
            content = *bytes;
        } else {
            content = value.toUtf8();
        }
        body += "\r\n";
        if (!type.isEmpty())
            body += "Content-Type: " + type.toUtf8() + "\r\n";
        body += "\r\n" + content + "\r\n";
    }
    body += "--" + boundary + "--\r\n";
    *contentType = "multipart/form-data; boundary=" + boundary;
    return body;
}

bool addHeader(Reading &r, const QString &value, QString *error)
{
    const qsizetype colon = value.indexOf(QLatin1Char(':'));
    if (colon <= 0) {
        if (value.endsWith(QLatin1Char(';'))) { // "Name;": the header, empty
            r.request.headers.append(Header(value.chopped(1).trimmed().toUtf8(), QByteArray()));
            return true;
        }
        *error = Text::tr("-H: expected \"Name: value\", got '%1'").arg(value);
        return false;
    }
    const QByteArray name = value.left(colon).trimmed().toUtf8();
    const QByteArray content = value.mid(colon + 1).trimmed().toUtf8();
    if (content.isEmpty()) { // "Name:" takes away a header curl would send
        for (qsizetype i = r.request.headers.size() - 1; i >= 0; --i) {
            if (r.request.headers.at(i).first.compare(name, Qt::CaseInsensitive) == 0)
                r.request.headers.removeAt(i);
        }
        return true;
    }
    r.request.headers.append(Header(name, content));
    return true;
}

// One option and its value; false with *error when it cannot be represented.
bool applyOption(Reading &r, const QString &option, const QString &value, QString *error)
{
    if (option == QLatin1String("-X") || option == QLatin1String("--request")) {
        r.method = value.toUpper();
    } else if (option == QLatin1String("-H") || option == QLatin1String("--header")) {
        return addHeader(r, value, error);
    } else if (option == QLatin1String("-d") || option == QLatin1String("--data") ||
               option == QLatin1String("--data-ascii") || option == QLatin1String("--data-raw") ||
               option == QLatin1String("--data-binary") ||
               option == QLatin1String("--data-urlencode") || option == QLatin1String("--json")) {
        const auto part =
            dataPart(option == QLatin1String("--json") ? QStringLiteral("--data-binary") : option,
                     value, r.baseDir, error);
        if (!part) {
            *error = QStringLiteral("%1: %2").arg(option, *error);
            return false;
        }
        r.dataParts.append(QString::fromUtf8(*part));
        if (option == QLatin1String("--json")) {
            r.request.headers.append(Header("Content-Type", "application/json"));
            r.request.headers.append(Header("Accept", "application/json"));
        }
    } else if (option == QLatin1String("-F") || option == QLatin1String("--form") ||
               option == QLatin1String("--form-string")) {
        const qsizetype eq = value.indexOf(QLatin1Char('='));
        if (eq <= 0) {
            *error = Text::tr("%1: expected name=content, got '%2'").arg(option, value);
            return false;
        }
        r.formParts.append(
            {value.left(eq), value.mid(eq + 1), option == QLatin1String("--form-string")});
    } else if (option == QLatin1String("-u") || option == QLatin1String("--user")) {
        // The first colon outside a reference ($USER:$PASS became ${env:USER}:${env:PASS})
        // ends the user.
        qsizetype colon = -1;
        for (qsizetype i = 0; i < value.size() && colon < 0; ++i) {
            if (value.mid(i, 6) == QLatin1String("${env:")) {
                i = value.indexOf(QLatin1Char('}'), i);
                if (i < 0)
                    break;
            } else if (value.at(i) == QLatin1Char(':')) {
                colon = i;
            }
        }
        r.request.user = colon < 0 ? value : value.left(colon);
        r.request.password = colon < 0 ? QString() : value.mid(colon + 1);
    } else if (option == QLatin1String("-A") || option == QLatin1String("--user-agent")) {
        r.request.headers.append(Header("User-Agent", value.toUtf8()));
    } else if (option == QLatin1String("-e") || option == QLatin1String("--referer")) {
        r.request.headers.append(Header("Referer", value.toUtf8()));
    } else if (option == QLatin1String("-b") || option == QLatin1String("--cookie")) {
        if (!value.contains(QLatin1Char('='))) {
            *error = Text::tr("%1 '%2': a cookie file cannot be imported; give the cookies as "
                              "name=value")
                         .arg(option, value);
            return false;
        }
        r.cookies.append(value);
    } else if (option == QLatin1String("--url")) {
        r.url = value;
    } else if (option == QLatin1String("-T") || option == QLatin1String("--upload-file")) {
        const auto file = readFile(r.baseDir, value, error);
        if (!file)
            return false;
        r.request.body = *file;
        r.request.hasBody = true;
        if (r.method.isEmpty())
            r.method = QStringLiteral("PUT");
    } else if (kIgnoredWithValue.contains(option)) {
        r.request.ignored.append(option);
    } else {
        *error = Text::tr("%1 is not an option the import knows; remove it, or add what it "
                          "does to the endpoint by hand")
                     .arg(option);
        return false;
    }
    return true;
}

bool applyFlag(Reading &r, const QString &flag, QString *error)
{
    if (flag == QLatin1String("-G") || flag == QLatin1String("--get"))
        r.getData = true;
    else if (flag == QLatin1String("-I") || flag == QLatin1String("--head"))
        r.head = true;
    else if (flag == QLatin1String("-k") || flag == QLatin1String("--insecure"))
        r.request.insecure = true;
    else if (flag == QLatin1String("--compressed"))
        r.request.compressed = true;
    else if (kIgnoredFlags.contains(flag))
        r.request.ignored.append(flag);
    else {
        *error = Text::tr("%1 is not an option the import knows; remove it, or add what it "
                          "does to the endpoint by hand")
                     .arg(flag);
        return false;
    }
    return true;
}

bool takesValue(const QString &option)
{
    static const QStringList longWithValue = {QStringLiteral("--request"),
                                              QStringLiteral("--header"),
                                              QStringLiteral("--data"),
                                              QStringLiteral("--data-ascii"),
                                              QStringLiteral("--data-raw"),
                                              QStringLiteral("--data-binary"),
                                              QStringLiteral("--data-urlencode"),
                                              QStringLiteral("--json"),
                                              QStringLiteral("--form"),
                                              QStringLiteral("--form-string"),
                                              QStringLiteral("--user"),
                                              QStringLiteral("--user-agent"),
                                              QStringLiteral("--referer"),
                                              QStringLiteral("--cookie"),
                                              QStringLiteral("--url"),
                                              QStringLiteral("--upload-file")};
    if (option.startsWith(QLatin1String("--")))
        return longWithValue.contains(option) || kIgnoredWithValue.contains(option);
    return option.size() == 2 && kShortWithValue.contains(option.at(1));
}

bool finish(Reading &r, QString *error)
{
    CurlRequest &q = r.request;
    if (r.url.isEmpty()) {
        *error = Text::tr("no URL in the command");
        return false;
    }
    QString url = r.url;
    if (!url.contains(QStringLiteral("://")))
        url.prepend(QStringLiteral("http://")); // as curl does
    // The command's own $NAME became ${env:NAME}.
    q.url = urlWithReferences(url);
    if (!q.url.isValid() || q.url.host().isEmpty()) {
        *error = Text::tr("not a URL: '%1'").arg(r.url);
        return false;
    }
    if (!r.formParts.isEmpty() && !r.dataParts.isEmpty()) {
        *error = Text::tr("-F and -d together: curl refuses that too");
        return false;
    }
    const QByteArray data = r.dataParts.join(QLatin1Char('&')).toUtf8();
    if (!r.formParts.isEmpty()) {
        QByteArray contentType;
        const auto body = multipartBody(r, &contentType, error);
        if (!body)
            return false;
        q.body = *body;
        q.hasBody = true;
        q.headers.append(Header("Content-Type", contentType));
    } else if (!r.dataParts.isEmpty() && r.getData) {
        QString query = q.url.query(QUrl::FullyEncoded);
        query += (query.isEmpty() ? QString() : QStringLiteral("&")) + QString::fromUtf8(data);
        // Data as -d gives it may hold what a query cannot (a space): encoded here.
        q.url.setQuery(query, QUrl::TolerantMode);
        if (!q.url.isValid()) {
            *error = Text::tr("not a URL: '%1'").arg(r.url);
            return false;
        }
    } else if (!r.dataParts.isEmpty() && !q.hasBody) {
        q.body = data;
        q.hasBody = true;
        if (q.header("Content-Type").isEmpty())
            q.headers.append(Header("Content-Type", "application/x-www-form-urlencoded"));
    }
    if (!r.cookies.isEmpty())
        q.headers.append(Header("Cookie", r.cookies.join(QStringLiteral("; ")).toUtf8()));
    if (!r.method.isEmpty())
        q.method = r.method.toLatin1();
    else if (r.head)
        q.method = "HEAD";
    else if (q.hasBody)
        q.method = "POST";
    else
        q.method = "GET";
    return true;
}

} // namespace

QUrl urlWithReferences(const QString &text)
{
    static const QRegularExpression reference(
        QStringLiteral("\\$\\{(env|job):([A-Za-z0-9_.]+)\\}"));
    QString url = text;
    url.replace(reference, QStringLiteral("$%7B\\1:\\2%7D"));
    return QUrl(url, QUrl::StrictMode);
}

QByteArray CurlRequest::header(const QByteArray &name) const
{
    for (const auto &[n, v] : headers) {
        if (n.compare(name, Qt::CaseInsensitive) == 0)
            return v;
    }
    return {};
}

std::optional<CurlRequest> parseCurl(const QStringList &words, const QString &baseDir,
                                     QString *error)
{
    const QString program = QFileInfo(words.value(0)).fileName();
    if (program.compare(QStringLiteral("curl"), Qt::CaseInsensitive) != 0 &&
        program.compare(QStringLiteral("curl.exe"), Qt::CaseInsensitive) != 0) {
        *error = Text::tr("expected a command that starts with curl, got '%1'").arg(words.value(0));
        return std::nullopt;
    }
    Reading r;
    r.baseDir = baseDir;
    bool optionsEnd = false;
    for (qsizetype i = 1; i < words.size(); ++i) {
        QString word = words.at(i);
        if (optionsEnd || !word.startsWith(QLatin1Char('-')) || word == QLatin1String("-")) {
            if (!r.url.isEmpty()) {
                *error = Text::tr("a second URL '%1': import one request per command").arg(word);
                return std::nullopt;
            }
            r.url = word;
            continue;
        }
        if (word == QLatin1String("--")) {
            optionsEnd = true;
            continue;
        }
        QString value;
        bool hasValue = false;
        if (word.startsWith(QLatin1String("--"))) {
            const qsizetype eq = word.indexOf(QLatin1Char('='));
            if (eq > 0 && takesValue(word.left(eq))) { // --data=x is not curl's, but harmless
                value = word.mid(eq + 1);
                word = word.left(eq);
                hasValue = true;
            }
        } else if (word.size() > 2) {
            // -XPOST, or flags run together before one that takes a value (-sSLX POST).
            qsizetype k = 1;
            while (k < word.size() && !kShortWithValue.contains(word.at(k))) {
                if (!applyFlag(r, QStringLiteral("-") + word.at(k), error))
                    return std::nullopt;
                ++k;
            }
            if (k == word.size())
                continue;
            if (k + 1 < word.size()) {
                value = word.mid(k + 1);
                hasValue = true;
            }
            word = QStringLiteral("-") + word.at(k);
        }
        if (!takesValue(word)) {
            if (!applyFlag(r, word, error))
                return std::nullopt;
            continue;
        }
        if (!hasValue) {
            if (i + 1 >= words.size()) {
                *error = Text::tr("%1 needs a value").arg(word);
                return std::nullopt;
            }
            value = words.at(++i);
        }
        if (!applyOption(r, word, value, error))
            return std::nullopt;
    }
    if (!finish(r, error))
        return std::nullopt;
    return r.request;
}

} // namespace cooldown
