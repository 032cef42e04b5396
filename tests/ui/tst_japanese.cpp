// SPDX-License-Identifier: Apache-2.0
// The window in Japanese: the tabs, chart titles and dialog labels read Japanese, and
// no text of the main window or its dialogs is left as the English build shows it.
#include "app/Language.h"
#include "app/demo/DemoServer.h"
#include "core/config/WorkspaceConfig.h"
#include "ui/CustomRangeDialog.h"
#include "ui/EndpointsDialog.h"
#include "ui/MainWindow.h"
#include "ui/OverviewPage.h"

#include <QAbstractAxis>
#include <QAbstractButton>
#include <QAbstractItemView>
#include <QAction>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFile>
#include <QGroupBox>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSettings>
#include <QTabBar>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTextDocumentFragment>
#include <QTextEdit>
#include <QTranslator>

using namespace cooldown;

namespace {

// One text a user can read, and where it is: the widget's place in the tree (class and
// object names, and its index among its siblings of the same class) and which text.
struct ShownText
{
    QString where;
    QString text;
};

QString placeOf(const QObject *object, const QObject *root)
{
    QStringList parts;
    for (const QObject *o = object; o && o != root->parent(); o = o->parent()) {
        int index = 0;
        if (o->parent()) {
            for (const QObject *sibling : o->parent()->children()) {
                if (sibling == o)
                    break;
                if (sibling->metaObject() == o->metaObject())
                    ++index;
            }
        }
        parts.prepend(QStringLiteral("%1#%2[%3]")
                          .arg(QLatin1String(o->metaObject()->className()), o->objectName())
                          .arg(index));
    }
    return parts.join(QLatin1Char('/'));
}

QString plain(const QString &text)
{
    if (Qt::mightBeRichText(text))
        return QTextDocumentFragment::fromHtml(text).toPlainText();
    return text;
}

// Every text of root and the widgets and actions below it, whether shown now or on
// another tab: labels, buttons, titles, tabs, placeholders, combo box items, column
// headers, chart titles and series, tooltips and status tips, menus and actions.
QList<ShownText> shownTexts(QWidget *root)
{
    QList<ShownText> texts;
    const auto add = [&texts, root](const QObject *o, const QString &which, const QString &text) {
        const QString readable = plain(text).trimmed();
        if (!readable.isEmpty())
            texts.append({placeOf(o, root) + QLatin1Char(':') + which, readable});
    };
    QList<QWidget *> widgets = root->findChildren<QWidget *>();
    widgets.prepend(root);
    for (QWidget *w : std::as_const(widgets)) {
        if (w->isWindow())
            add(w, QStringLiteral("windowTitle"), w->windowTitle());
        add(w, QStringLiteral("toolTip"), w->toolTip());
        add(w, QStringLiteral("statusTip"), w->statusTip());
        if (auto *label = qobject_cast<QLabel *>(w))
            add(w, QStringLiteral("text"), label->text());
        if (auto *button = qobject_cast<QAbstractButton *>(w))
            add(w, QStringLiteral("text"), button->text());
        if (auto *box = qobject_cast<QGroupBox *>(w))
            add(w, QStringLiteral("title"), box->title());
        if (auto *tabs = qobject_cast<QTabBar *>(w)) {
            for (int i = 0; i < tabs->count(); ++i)
                add(w, QStringLiteral("tab%1").arg(i), tabs->tabText(i));
        }
        if (auto *edit = qobject_cast<QLineEdit *>(w))
            add(w, QStringLiteral("placeholder"), edit->placeholderText());
        if (auto *edit = qobject_cast<QPlainTextEdit *>(w))
            add(w, QStringLiteral("placeholder"), edit->placeholderText());
        if (auto *edit = qobject_cast<QTextEdit *>(w)) {
            add(w, QStringLiteral("placeholder"), edit->placeholderText());
            if (edit->isReadOnly())
                add(w, QStringLiteral("text"), edit->toPlainText());
        }
        if (auto *combo = qobject_cast<QComboBox *>(w)) {
            // An editable combo box holds what the user typed, not the window's words.
            for (int i = 0; !combo->isEditable() && i < combo->count(); ++i)
                add(w, QStringLiteral("item%1").arg(i), combo->itemText(i));
        }
        if (auto *view = qobject_cast<QAbstractItemView *>(w); view && view->model()) {
            for (int c = 0; c < view->model()->columnCount(); ++c)
                add(w, QStringLiteral("column%1").arg(c),
                    view->model()->headerData(c, Qt::Horizontal).toString());
        }
        if (auto *chartView = qobject_cast<QChartView *>(w)) {
            QChart *chart = chartView->chart();
            add(w, QStringLiteral("chartTitle"), chart->title());
            const QList<QAbstractAxis *> axes = chart->axes();
            for (int i = 0; i < axes.size(); ++i)
                add(w, QStringLiteral("axis%1").arg(i), axes.at(i)->titleText());
            const QList<QAbstractSeries *> series = chart->series();
            for (int i = 0; i < series.size(); ++i)
                add(w, QStringLiteral("series%1").arg(i), series.at(i)->name());
        }
        for (const QAction *action : w->actions()) {
            add(action, QStringLiteral("text"), action->text());
            add(action, QStringLiteral("statusTip"), action->statusTip());
        }
    }
    const QList<QAction *> actions = root->findChildren<QAction *>();
    for (const QAction *action : actions) {
        if (action->isSeparator())
            continue;
        add(action, QStringLiteral("text"), action->text());
        add(action, QStringLiteral("statusTip"), action->statusTip());
    }
    return texts;
}

// Words that read the same in Japanese: the product's name, HTTP methods and header
// names, the JSON words of a workspace file, and the platform's "OK".
const QStringList kUntranslatable = {
    QStringLiteral("Cooldown"),
    QStringLiteral("OK"),
    QStringLiteral("URL"),
    QStringLiteral("Retry-After"),
    QStringLiteral("X-RateLimit-Reset"),
    QStringLiteral("RateLimit-Policy"),
    QStringLiteral("GET"),
    QStringLiteral("HEAD"),
    QStringLiteral("POST"),
    QStringLiteral("PUT"),
    QStringLiteral("PATCH"),
    QStringLiteral("DELETE"),
    QStringLiteral("OPTIONS"),
    QStringLiteral("request"),
    QStringLiteral("concurrency"),
    QStringLiteral("concurrent-requests"),
    QStringLiteral("auto"),
    QStringLiteral("delta"),
    QStringLiteral("epoch"),
    QStringLiteral("epoch-ms"),
    QStringLiteral("http-date"),
    QStringLiteral("Idempotency-Key"),
};

// Whether an English text may stay as it is: no word in it but numbers, codes and names
// (the allowed words, and what the workspace itself names: ids, URLs, file names).
bool mayStayEnglish(const QString &text, const QStringList &names)
{
    static const QRegularExpression word(QStringLiteral("[A-Za-z][A-Za-z0-9_.:/${}-]*"));
    auto it = word.globalMatch(QString(text).remove(QLatin1Char('&')));
    while (it.hasNext()) {
        QString w = it.next().captured();
        while (w.endsWith(QLatin1Char(':')) || w.endsWith(QLatin1Char('.')))
            w.chop(1);
        if (w.contains(QLatin1String("://")) || w.startsWith(QLatin1Char('/')))
            continue;
        if (!kUntranslatable.contains(w) && !names.contains(w))
            return false;
    }
    return true;
}

} // namespace

class tst_Japanese : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanupTestCase();
    void windowAndDialogsAreJapanese();
    void nothingIsLeftInEnglish();
    void qtsOwnButtonsAreJapanese();
    void datesFollowTheLocale();
    void translationIsInTheBinary();

private:
    std::unique_ptr<EngineSession> openSession();
    // The texts of the main window, its Endpoints dialog (every page) and the custom
    // range dialog, in the language installed now.
    QList<ShownText> everyText(bool *ok);
    void installJapanese();

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<DemoServer> m_server;
    QStringList m_names;
    QList<ShownText> m_english;
    bool m_japanese = false;
};

void tst_Japanese::initTestCase()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_dir->path());
    QCoreApplication::setOrganizationName(QStringLiteral("CooldownTest"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_japanese"));
    m_server = std::make_unique<DemoServer>();
    QVERIFY2(m_server->listen(0), qPrintable(m_server->errorString()));

    // The English texts first, before any translation is installed.
    bool ok = false;
    m_english = everyText(&ok);
    QVERIFY(ok);
    QVERIFY2(m_english.size() > 150, qPrintable(QString::number(m_english.size())));
}

void tst_Japanese::cleanupTestCase()
{
    m_server.reset();
    m_dir.reset();
}

std::unique_ptr<EngineSession> tst_Japanese::openSession()
{
    QFile demo(QStringLiteral(":/cooldown/demo.json"));
    if (!demo.open(QIODevice::ReadOnly))
        return nullptr;
    QString error;
    auto config = WorkspaceConfig::parse(demo.readAll(), QStringLiteral("demo.json"), &error,
                                         WorkspaceConfig::demoVariables(m_server->baseUrl()));
    if (!config) {
        qWarning("%s", qPrintable(error));
        return nullptr;
    }
    // What the workspace names reads the same in every language.
    m_names = {QStringLiteral("demo.json"), QStringLiteral("Demo")};
    for (const EndpointConfig &e : config->endpoints)
        m_names << e.id << e.name << e.policy << e.retry << e.partitionKey;
    for (const RateLimitPolicy &p : config->policies)
        m_names << p.policyId << p.partition;
    for (auto it = config->retryProfiles.cbegin(); it != config->retryProfiles.cend(); ++it)
        m_names << it.key();
    const QString db = m_dir->filePath(QStringLiteral("japanese-%1.db").arg(m_japanese));
    auto session = EngineSession::open(std::move(*config), db, &error);
    if (!session) {
        qWarning("%s", qPrintable(error));
        return nullptr;
    }
    return session;
}

QList<ShownText> tst_Japanese::everyText(bool *ok)
{
    *ok = false;
    QList<ShownText> texts;
    auto session = openSession();
    if (!session)
        return texts;
    // The engine is not started: what the window says of itself, not what the demo
    // API answered, is compared.
    MainWindow window(*session, {QStringLiteral("Demo"), QString(), {}});
    window.show();
    if (!QTest::qWaitForWindowExposed(&window))
        return texts;
    texts += shownTexts(&window);

    for (const auto page : {EndpointsDialog::Page::Endpoints, EndpointsDialog::Page::Policies,
                            EndpointsDialog::Page::Credentials, EndpointsDialog::Page::Drift}) {
        window.openEndpoints(page);
        EndpointsDialog *dialog = window.endpointsDialog();
        if (!dialog)
            return texts;
        // The first item's form: its labels are what an operator edits with.
        if (auto *list = dialog->findChild<QAbstractItemView *>(
                page == EndpointsDialog::Page::Policies ? QStringLiteral("policiesList")
                                                        : QStringLiteral("endpointsList")))
            list->setCurrentIndex(list->model()->index(0, 0));
        for (ShownText t : shownTexts(dialog)) {
            t.where.prepend(QStringLiteral("page%1/").arg(int(page)));
            texts.append(t);
        }
    }
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    CustomRangeDialog range(now - 3600000, now, now, &window);
    texts += shownTexts(&range);
    *ok = true;
    return texts;
}

void tst_Japanese::installJapanese()
{
    if (m_japanese)
        return;
    QVERIFY(installLanguage(*QCoreApplication::instance(), Language::Japanese));
    m_japanese = true;
}

void tst_Japanese::windowAndDialogsAreJapanese()
{
    installJapanese();
    auto session = openSession();
    QVERIFY(session);
    MainWindow window(*session, {QStringLiteral("Demo"), QString(), {}});
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));

    auto *tabs = window.findChild<QTabWidget *>();
    QVERIFY(tabs);
    QCOMPARE(tabs->count(), 4);
    QCOMPARE(tabs->tabText(0), QStringLiteral("概要(&O)"));
    QCOMPARE(tabs->tabText(1), QStringLiteral("連携(&I)"));
    QCOMPARE(tabs->tabText(2), QStringLiteral("ジョブ(&J)"));
    QCOMPARE(tabs->tabText(3), QStringLiteral("履歴(&H)"));

    const auto chartTitle = [&window](const char *name) {
        auto *view = window.findChild<QChartView *>(QLatin1String(name));
        return view ? view->chart()->title()
                    : QStringLiteral("(no chart %1)").arg(QLatin1String(name));
    };
    QCOMPARE(chartTitle("throttleChart"), QStringLiteral("1 分あたりの 429 リクエスト過多"));
    QCOMPARE(chartTitle("waitChart"),
             QStringLiteral("選ばれた待機時間 (1 分あたりの秒数、根拠別)"));
    // The last 15 minutes, the first range, come in steps of 15 s.
    QCOMPARE(chartTitle("inFlightChart"), QStringLiteral("送信中 (15 秒ごとの最大) と上限"));
    const auto *throttleView = window.findChild<QChartView *>(QStringLiteral("throttleChart"));
    QVERIFY(throttleView);
    QCOMPARE(throttleView->chart()->axes(Qt::Vertical).value(0)->titleText(),
             QStringLiteral("1 分あたり (15 秒刻み)"));

    // Longer titles widen their columns instead of being cut.
    for (const char *name : {"integrationsTable", "jobsTable", "partitionsTable", "historyTable"}) {
        auto *table = window.findChild<QTableView *>(QLatin1String(name));
        QVERIFY2(table, name);
        const QHeaderView *header = table->horizontalHeader();
        for (int c = 0; c + 1 < header->count(); ++c)
            QVERIFY2(header->sectionSize(c) >= header->sectionSizeHint(c),
                     qPrintable(QStringLiteral("%1 column %2: %3 < %4")
                                    .arg(QLatin1String(name))
                                    .arg(c)
                                    .arg(header->sectionSize(c))
                                    .arg(header->sectionSizeHint(c))));
    }

    // Longer words do not make a page wider than a laptop's screen: each page's
    // narrowest layout fits in 1,024 pixels (the Jobs tab's actions once needed 1,280).
    for (int t = 0; t < tabs->count(); ++t) {
        const int width = tabs->widget(t)->minimumSizeHint().width();
        QVERIFY2(width <= 1024,
                 qPrintable(QStringLiteral("%1 needs %2 pixels").arg(tabs->tabText(t)).arg(width)));
    }

    window.openEndpoints(EndpointsDialog::Page::Endpoints);
    EndpointsDialog *dialog = window.endpointsDialog();
    QVERIFY(dialog);
    QCOMPARE(dialog->windowTitle(), QStringLiteral("エンドポイントとポリシー"));
    QStringList labels;
    const QList<QLabel *> found = dialog->findChildren<QLabel *>();
    for (const QLabel *label : found)
        labels << label->text();
    QVERIFY2(labels.contains(QStringLiteral("メソッド(&M):")), qPrintable(labels.join(u'|')));
    QVERIFY2(labels.contains(QStringLiteral("タイムアウト (秒)(&T):")),
             qPrintable(labels.join(u'|')));
}

void tst_Japanese::nothingIsLeftInEnglish()
{
    installJapanese();
    bool ok = false;
    const QList<ShownText> japanese = everyText(&ok);
    QVERIFY(ok);
    QHash<QString, QString> english;
    for (const ShownText &t : std::as_const(m_english))
        english.insert(t.where, t.text);

    int compared = 0;
    QStringList untranslated;
    for (const ShownText &t : japanese) {
        const auto it = english.constFind(t.where);
        if (it == english.cend())
            continue;
        ++compared;
        if (*it == t.text && !mayStayEnglish(t.text, m_names))
            untranslated << QStringLiteral("%1: \"%2\"").arg(t.where, t.text);
    }
    // Most places must be found in both builds, or the comparison proves nothing.
    QVERIFY2(compared > m_english.size() * 9 / 10,
             qPrintable(QStringLiteral("%1 of %2").arg(compared).arg(m_english.size())));
    QVERIFY2(untranslated.isEmpty(), qPrintable(untranslated.join(u'\n')));
}

void tst_Japanese::qtsOwnButtonsAreJapanese()
{
    installJapanese();
    // Qt's own words come from the system's qtbase translation (qt6-translations-l10n).
    QDialogButtonBox box(QDialogButtonBox::Cancel | QDialogButtonBox::Save);
    QCOMPARE(box.button(QDialogButtonBox::Cancel)->text(), QStringLiteral("キャンセル"));
    QVERIFY(box.button(QDialogButtonBox::Save)->text() != QStringLiteral("Save"));
}

void tst_Japanese::datesFollowTheLocale()
{
    installJapanese();
    QCOMPARE(QLocale().language(), QLocale::Japanese);
    // The Overview's custom window, as its range box names it.
    const auto localMs = [](int month, int day, int hour) {
        return QDateTime(QDate(2026, month, day), QTime(hour, 0)).toMSecsSinceEpoch();
    };
    QCOMPARE(
        OverviewPage::windowLabel(localMs(11, 12, 10), localMs(11, 12, 14), localMs(11, 29, 12)),
        QStringLiteral("11月12日 10:00 – 14:00"));
    QCOMPARE(
        OverviewPage::windowLabel(localMs(11, 12, 10), localMs(11, 13, 14),
                                  QDateTime(QDate(2027, 1, 2), QTime(9, 0)).toMSecsSinceEpoch()),
        QStringLiteral("2026年11月12日 10:00 – 2026年11月13日 14:00"));
    QCOMPARE(QLocale().toString(1234567), QStringLiteral("1,234,567"));
}

void tst_Japanese::translationIsInTheBinary()
{
    QTranslator probe;
    QVERIFY(probe.load(QLocale(QLocale::Japanese, QLocale::Japan), QStringLiteral("cooldown"),
                       QStringLiteral("_"), QStringLiteral(":/cooldown/translations")));
    QCOMPARE(languageFromCode(QStringLiteral("en")), std::optional<Language>(Language::English));
    QCOMPARE(languageFromCode(QStringLiteral("ja")), std::optional<Language>(Language::Japanese));
    QCOMPARE(languageFromCode(QStringLiteral("jp")), std::optional<Language>());
}

QTEST_MAIN(tst_Japanese)
#include "tst_japanese.moc"
