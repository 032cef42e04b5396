// SPDX-License-Identifier: Apache-2.0
#include "core/import/ImportPreview.h"

#include "core/config/WorkspaceConfig.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QProcessEnvironment>
#include <QRegularExpression>
#include <QSet>

namespace cooldown {

namespace {

class Text final
{
    Q_DECLARE_TR_FUNCTIONS(cooldown::import)
};

QString changeWord(ImportChange::Kind kind)
{
    switch (kind) {
    case ImportChange::Kind::Added:
        return Text::tr("add");
    case ImportChange::Kind::Updated:
        return Text::tr("update");
    case ImportChange::Kind::Unchanged:
        return Text::tr("unchanged");
    }
    return QString();
}

QHash<QString, QString> environmentWith(const WorkspaceDocument &document,
                                        const QList<ImportedEndpoint> &imported, QStringList *unset,
                                        QStringList *missing)
{
    QHash<QString, QString> env;
    const QProcessEnvironment system = QProcessEnvironment::systemEnvironment();
    for (const QString &name : system.keys())
        env.insert(name, system.value(name));
    QSet<QString> named;
    for (const ImportedEndpoint &e : imported) {
        for (const ImportVariable &v : e.variables)
            named.insert(v.name);
    }
    static const QRegularExpression ref(QStringLiteral("\\$\\{env:([A-Za-z_][A-Za-z0-9_]*)\\}"));
    for (auto it = ref.globalMatch(QString::fromUtf8(document.toJson())); it.hasNext();) {
        const QString name = it.next().captured(1);
        if (env.contains(name))
            continue;
        env.insert(name, QStringLiteral("set-me"));
        missing->append(name);
        if (!named.contains(name))
            unset->append(name);
    }
    return env;
}

// The endpoint checked alone, in the workspace without its other endpoints: what is
// wrong with it, or empty.
QString checkAlone(const WorkspaceDocument &document, const QString &id,
                   const QHash<QString, QString> &env)
{
    const int index = document.endpointIndex(id);
    if (index < 0)
        return {};
    QJsonObject root = document.root();
    root.insert(QStringLiteral("endpoints"), QJsonArray{document.endpoints().at(index)});
    QString problem;
    if (WorkspaceDocument(root, document.sourceName())
            .validate(&problem, WorkspaceConfig::demoVariables(), env))
        return {};
    return problem;
}

QString changesText(const ImportPreview &p)
{
    QString text;
    for (qsizetype i = 0; i < p.changes.size(); ++i) {
        const QJsonObject &e = p.imported.at(i).endpoint;
        text += QStringLiteral("%1 %2: %3 %4\n")
                    .arg(changeWord(p.changes.at(i).kind), p.changes.at(i).id,
                         e.value(QStringLiteral("method")).toString(),
                         e.value(QStringLiteral("url")).toString());
        for (const QJsonObject &c : p.imported.at(i).credentials)
            text += Text::tr("  credentials %1 (%2)\n")
                        .arg(c.value(QStringLiteral("id")).toString(),
                             c.value(QStringLiteral("type")).toString());
        for (const QJsonObject &t : p.imported.at(i).tls)
            text += Text::tr("  tls %1\n").arg(t.value(QStringLiteral("id")).toString());
        for (const QString &note : p.imported.at(i).notes)
            text += QStringLiteral("  %1\n").arg(note);
        if (!p.loads) {
            const QString problem = checkAlone(p.document, p.changes.at(i).id, p.environment);
            if (!problem.isEmpty())
                text += Text::tr("  check-config: %1\n").arg(problem);
        }
    }
    return text;
}

QString variablesText(const QList<ImportedEndpoint> &imported)
{
    QString text;
    QStringList seen;
    for (const ImportedEndpoint &e : imported) {
        for (const ImportVariable &v : e.variables) {
            if (seen.contains(v.name))
                continue;
            seen.append(v.name);
            text += QStringLiteral("export %1=  # %2\n").arg(v.name, v.stands);
        }
    }
    if (text.isEmpty())
        return text;
    return Text::tr("Set these before the workspace runs (the secrets were not written into "
                    "it):\n") +
           text;
}

} // namespace

ImportPreview previewImport(WorkspaceDocument document, QList<ImportedEndpoint> imported,
                            const QStringList &sourceNotes)
{
    ImportPreview p;
    p.changes = mergeImport(document, imported);
    p.document = std::move(document);
    p.imported = std::move(imported);
    QStringList unset;
    p.environment = environmentWith(p.document, p.imported, &unset, &p.missingVariables);
    const std::optional<WorkspaceConfig> loaded =
        p.document.validate(&p.problem, WorkspaceConfig::demoVariables(), p.environment);
    p.loads = loaded.has_value();
    for (const QString &note : sourceNotes)
        p.text += note + QLatin1Char('\n');
    p.text += changesText(p);
    // The endpoints already there that this source did not make, by id.
    QSet<QString> made;
    for (const ImportChange &c : std::as_const(p.changes))
        made.insert(c.id);
    QStringList left;
    for (const QJsonObject &e : p.document.endpoints()) {
        const QString id = e.value(QStringLiteral("id")).toString();
        if (!made.contains(id))
            left.append(id);
    }
    if (!left.isEmpty())
        p.text += Text::tr("left as they are: %n endpoint(s) this source did not make: %1\n",
                           nullptr, int(left.size()))
                      .arg(left.join(QStringLiteral(", ")));
    p.text += p.loads ? Text::tr("check-config: the workspace loads\n")
                      : Text::tr("check-config: %1\n").arg(p.problem);
    if (loaded) {
        for (const QString &warning : loaded->warnings)
            p.text += Text::tr("check-config: warning: %1\n").arg(warning);
    }
    p.text += variablesText(p.imported);
    if (!unset.isEmpty())
        p.text += Text::tr("Not set here either, named by the workspace already: %1\n")
                      .arg(unset.join(QStringLiteral(", ")));
    return p;
}

} // namespace cooldown
