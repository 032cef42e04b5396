// SPDX-License-Identifier: Apache-2.0
#include "core/config/MaintenanceConfig.h"

#include "core/config/JsonReader.h"
#include "core/config/WorkspaceConfig.h"
#include "core/time/CronRule.h"
#include "core/time/DurationText.h"

#include <QCoreApplication>
#include <QDate>
#include <QDateTime>
#include <QJsonArray>
#include <QJsonObject>
#include <QSet>

namespace cooldown {

namespace {

class Text final
{
    Q_DECLARE_TR_FUNCTIONS(cooldown::config)
};

const QStringList kWindowKeys = {
    QStringLiteral("id"),    QStringLiteral("reason"),    QStringLiteral("endpoints"),
    QStringLiteral("hosts"), QStringLiteral("time_zone"), QStringLiteral("from"),
    QStringLiteral("to"),    QStringLiteral("weekly"),    QStringLiteral("cron"),
};
const QStringList kWeeklyKeys = {QStringLiteral("days"), QStringLiteral("start"),
                                 QStringLiteral("duration")};
const QStringList kCronKeys = {QStringLiteral("schedule"), QStringLiteral("duration")};
const QStringList kDayNames = {QStringLiteral("mon"), QStringLiteral("tue"), QStringLiteral("wed"),
                               QStringLiteral("thu"), QStringLiteral("fri"), QStringLiteral("sat"),
                               QStringLiteral("sun")};

// A local date and time in the window's zone: "2026-12-24T18:00" (seconds optional).
// An offset or a "Z" is refused: the zone says which offset applies, and two sources
// of it could disagree.
std::optional<qint64> readLocalTime(const QJsonObject &o, const QString &key, const QString &path,
                                    const QTimeZone &zone, JsonReader &r)
{
    const QString text = r.string(o, key, path, true);
    if (!r.ok())
        return std::nullopt;
    QDateTime local = QDateTime::fromString(text, QStringLiteral("yyyy-MM-ddTHH:mm"));
    if (!local.isValid())
        local = QDateTime::fromString(text, QStringLiteral("yyyy-MM-ddTHH:mm:ss"));
    if (!local.isValid()) {
        r.fail(JsonReader::join(path, key),
               Text::tr("expected a local date and time such as 2026-12-24T18:00 (in "
                        "time_zone, without an offset), got '%1'")
                   .arg(text));
        return std::nullopt;
    }
    return MaintenanceWindow::localToUtcMs(local.date(), local.time(), zone);
}

QList<int> readDays(const QJsonObject &weekly, const QString &path, JsonReader &r)
{
    const QString daysPath = JsonReader::join(path, QStringLiteral("days"));
    QList<int> days;
    const auto list = r.array(weekly.value(QStringLiteral("days")), daysPath);
    if (!list)
        return days;
    if (list->isEmpty())
        r.fail(daysPath, Text::tr("expected at least one day"));
    for (qsizetype i = 0; i < list->size() && r.ok(); ++i) {
        const int day = int(kDayNames.indexOf(list->at(i).toString().toLower())) + 1;
        if (day < 1 || !list->at(i).isString()) {
            r.fail(
                JsonReader::index(daysPath, i),
                Text::tr("expected a day (one of: %1)").arg(kDayNames.join(QStringLiteral(", "))));
            break;
        }
        if (!days.contains(day))
            days.append(day);
    }
    return days;
}

void readDuration(const QJsonObject &o, const QString &path, MaintenanceWindow &window,
                  JsonReader &r)
{
    const QString duration = r.string(o, QStringLiteral("duration"), path, true);
    if (!r.ok())
        return;
    const std::optional<qint64> ms = parseDurationMs(duration);
    if (!ms) {
        r.fail(JsonReader::join(path, QStringLiteral("duration")),
               Text::tr("expected a span such as 8h, 90m or 1d12h, got '%1'").arg(duration));
        return;
    }
    window.durationMs = *ms;
}

void readWeekly(const QJsonObject &o, const QString &path, MaintenanceWindow &window, JsonReader &r)
{
    const QString weeklyPath = JsonReader::join(path, QStringLiteral("weekly"));
    const auto weekly = r.object(o.value(QStringLiteral("weekly")), weeklyPath);
    if (!weekly)
        return;
    r.checkKnownKeys(*weekly, weeklyPath, kWeeklyKeys);
    window.kind = MaintenanceWindow::Kind::Weekly;
    window.days = readDays(*weekly, weeklyPath, r);
    const QString start = r.string(*weekly, QStringLiteral("start"), weeklyPath, true);
    if (!r.ok())
        return;
    window.start = QTime::fromString(start, QStringLiteral("HH:mm"));
    if (!window.start.isValid()) {
        r.fail(JsonReader::join(weeklyPath, QStringLiteral("start")),
               Text::tr("expected a local time such as 22:00, got '%1'").arg(start));
        return;
    }
    readDuration(*weekly, weeklyPath, window, r);
}

void readCron(const QJsonObject &o, const QString &path, MaintenanceWindow &window, JsonReader &r)
{
    const QString cronPath = JsonReader::join(path, QStringLiteral("cron"));
    const auto cron = r.object(o.value(QStringLiteral("cron")), cronPath);
    if (!cron)
        return;
    r.checkKnownKeys(*cron, cronPath, kCronKeys);
    window.kind = MaintenanceWindow::Kind::Cron;
    const QString schedule = r.string(*cron, QStringLiteral("schedule"), cronPath, true);
    if (!r.ok())
        return;
    auto rule = CronRule::parse(schedule);
    if (const QString *error = std::get_if<QString>(&rule)) {
        r.fail(JsonReader::join(cronPath, QStringLiteral("schedule")), *error);
        return;
    }
    window.cron = std::get<CronRule>(rule);
    readDuration(*cron, cronPath, window, r);
}

void readOneOff(const QJsonObject &o, const QString &path, MaintenanceWindow &window, JsonReader &r)
{
    window.kind = MaintenanceWindow::Kind::OneOff;
    const auto from = readLocalTime(o, QStringLiteral("from"), path, window.zone, r);
    const auto to =
        from ? readLocalTime(o, QStringLiteral("to"), path, window.zone, r) : std::nullopt;
    if (!from || !to)
        return;
    if (*to <= *from) {
        r.fail(JsonReader::join(path, QStringLiteral("to")),
               Text::tr("expected a time after from"));
        return;
    }
    window.fromMs = *from;
    window.toMs = *to;
}

// The endpoints a window names by id or by host; all of them when it names neither.
QStringList matchingEndpoints(const QJsonObject &o, const QString &path,
                              const QList<EndpointConfig> &endpoints, JsonReader &r)
{
    const QString idsKey = QStringLiteral("endpoints");
    const QString hostsKey = QStringLiteral("hosts");
    if (!o.contains(idsKey) && !o.contains(hostsKey)) {
        QStringList all;
        for (const EndpointConfig &e : endpoints)
            all.append(e.id);
        return all;
    }
    QSet<QString> chosen;
    for (const QString &key : {idsKey, hostsKey}) {
        if (!o.contains(key))
            continue;
        const QString listPath = JsonReader::join(path, key);
        const auto list = r.array(o.value(key), listPath);
        for (qsizetype i = 0; list && i < list->size() && r.ok(); ++i) {
            const QString name = list->at(i).toString();
            bool found = false;
            for (const EndpointConfig &e : endpoints) {
                const bool match = key == idsKey
                                       ? e.id == name
                                       : e.url.host().compare(name, Qt::CaseInsensitive) == 0;
                if (match) {
                    chosen.insert(e.id);
                    found = true;
                }
            }
            if (!found || name.isEmpty())
                r.fail(JsonReader::index(listPath, i),
                       key == idsKey ? Text::tr("no endpoint with id '%1'").arg(name)
                                     : Text::tr("no endpoint's URL has the host '%1'").arg(name));
        }
    }
    QStringList out;
    for (const EndpointConfig &e : endpoints) { // in the workspace's order
        if (chosen.contains(e.id))
            out.append(e.id);
    }
    return out;
}

std::optional<MaintenanceConfig> readWindow(const QJsonObject &o, const QString &path,
                                            const QList<EndpointConfig> &endpoints, JsonReader &r)
{
    r.checkKnownKeys(o, path, kWindowKeys);
    MaintenanceConfig m;
    m.id = r.string(o, QStringLiteral("id"), path, true);
    m.reason = r.string(o, QStringLiteral("reason"), path, false);
    if (r.ok() && m.id.isEmpty())
        r.fail(JsonReader::join(path, QStringLiteral("id")), Text::tr("must not be empty"));
    const QString zone = r.string(o, QStringLiteral("time_zone"), path, true);
    if (!r.ok())
        return std::nullopt;
    m.window.zone = QTimeZone(zone.toUtf8());
    if (!m.window.zone.isValid()) {
        r.fail(JsonReader::join(path, QStringLiteral("time_zone")),
               Text::tr("not a time zone this system knows: '%1' (expected an IANA name such "
                        "as Europe/Berlin or UTC)")
                   .arg(zone));
        return std::nullopt;
    }
    const bool weekly = o.contains(QStringLiteral("weekly"));
    const bool cron = o.contains(QStringLiteral("cron"));
    const bool oneOff = o.contains(QStringLiteral("from")) || o.contains(QStringLiteral("to"));
    const int kinds = int(weekly) + int(cron) + int(oneOff);
    if (kinds != 1) {
        r.fail(path, kinds > 1 ? Text::tr("one of weekly, cron, or from and to, not more")
                               : Text::tr("expected weekly, cron, or from and to"));
        return std::nullopt;
    }
    if (weekly)
        readWeekly(o, path, m.window, r);
    else if (cron)
        readCron(o, path, m.window, r);
    else
        readOneOff(o, path, m.window, r);
    if (r.ok())
        m.endpointIds = matchingEndpoints(o, path, endpoints, r);
    if (!r.ok())
        return std::nullopt;
    return m;
}

} // namespace

QString MaintenanceConfig::holdReason() const
{
    return reason.isEmpty() ? QStringLiteral("maintenance %1").arg(id) : reason;
}

QList<MaintenanceConfig> readMaintenance(const QJsonValue &value, const QString &path,
                                         const QList<EndpointConfig> &endpoints, JsonReader &r)
{
    QList<MaintenanceConfig> out;
    const auto list = r.array(value, path);
    QSet<QString> ids;
    for (qsizetype i = 0; list && i < list->size() && r.ok(); ++i) {
        const QString windowPath = JsonReader::index(path, i);
        const auto o = r.object(list->at(i), windowPath);
        if (!o)
            break;
        std::optional<MaintenanceConfig> m = readWindow(*o, windowPath, endpoints, r);
        if (!m)
            break;
        if (ids.contains(m->id)) {
            r.fail(JsonReader::join(windowPath, QStringLiteral("id")),
                   Text::tr("duplicate id '%1'").arg(m->id));
            break;
        }
        ids.insert(m->id);
        out.append(*m);
    }
    return out;
}

} // namespace cooldown
