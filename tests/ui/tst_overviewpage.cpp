// SPDX-License-Identifier: Apache-2.0
#include "core/time/Clock.h"
#include "ui/CustomRangeDialog.h"
#include "ui/OverviewPage.h"
#include "ui/Palette.h"

#include <QCategoryAxis>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QDateTime>
#include <QDialogButtonBox>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QGraphicsTextItem>
#include <QLabel>
#include <QLineSeries>
#include <QPushButton>
#include <QSignalSpy>
#include <QTest>

#include <memory>

using namespace cooldown;

namespace {

constexpr qint64 kMinute = 60000;
constexpr qint64 kDay = 24 * 60 * kMinute;

qint64 localMs(int year, int month, int day, int hour, int minute = 0)
{
    return QDateTime(QDate(year, month, day), QTime(hour, minute)).toMSecsSinceEpoch();
}

constexpr qint64 kStart = 1795953600000; // 2026-11-29T12:00:00Z, on every bucket grid

// The last 15 minutes at nowMs in minute buckets, with `last` 429s in the newest bucket
// and some in every other one.
LiveSnapshot snapshotAt(qint64 nowMs, qint64 last)
{
    LiveSnapshot s;
    MetricsSnapshot &m = s.metrics;
    m.bucketMs = kMinute;
    m.fromMs = (nowMs - 15 * kMinute) / kMinute * kMinute;
    m.toMs = nowMs + 1;
    m.nowMs = nowMs;
    m.bucketCount = int((m.toMs - m.fromMs + kMinute - 1) / kMinute);
    for (int b = 0; b < m.bucketCount; ++b)
        m.tooManyRequests.append(b == m.bucketCount - 1 ? last : 3 + b % 4);
    m.unavailable = QList<qint64>(m.bucketCount, 0);
    m.peakInFlight = QList<int>(m.bucketCount, 2);
    m.maxInFlight = 8;
    return s;
}

} // namespace

class tst_OverviewPage : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void windowProblems_data();
    void windowProblems();
    void bucketsStayFew_data();
    void bucketsStayFew();
    void labels();
    void customChoiceAsksAndEmitsTheWindow();
    void cancelledChoiceKeepsTheRange();
    void dialogRefusesUntilValid();
    void chartsShowTheSnapshot();
    void shortRangeDrawsStepsOf15Seconds();
    void timeAxisStaysWhileTheWindowSlides();
    void timeAxisOfAFixedWindowReadsTheClock();
    void unchangedSeriesAreLeftAlone();
    void failureCountChangesWithoutANewTitle();
    void manyPartitionsAreListedBesideThePlot();

private:
    // A page for the chart tests, on a clock that stays put: the snapshots carry time.
    std::unique_ptr<OverviewPage> chartPage();
    static QCategoryAxis *seriesTimeAxis(const OverviewPage &page);
    static QStringList shownLabels(const OverviewPage &page);
    static QStringList failureTexts(const OverviewPage &page);

    qint64 m_now = 0;
    std::unique_ptr<ManualClock> m_clock;
};

void tst_OverviewPage::initTestCase()
{
    // Month names as the labels below spell them, whatever the machine's language.
    QLocale::setDefault(QLocale::c());
    m_now = localMs(2026, 11, 29, 12);
}

void tst_OverviewPage::windowProblems_data()
{
    QTest::addColumn<qint64>("from");
    QTest::addColumn<qint64>("to");
    QTest::addColumn<QString>("problem");
    const qint64 now = localMs(2026, 11, 29, 12);
    QTest::newRow("an hour ago") << now - 60 * kMinute << now << QString();
    QTest::newRow("last week") << now - 8 * kDay << now - 7 * kDay << QString();
    QTest::newRow("90 days") << now - 90 * kDay << now << QString();
    QTest::newRow("the minute now") << now - kMinute << now + 30000 << QString();
    QTest::newRow("empty") << now - kMinute << now - kMinute << "start before it ends";
    QTest::newRow("backwards") << now << now - kMinute << "start before it ends";
    QTest::newRow("future") << now - kMinute << now + 2 * kMinute << "end in the future";
    QTest::newRow("too long") << now - 91 * kDay << now << "at most 90 days";
}

void tst_OverviewPage::windowProblems()
{
    QFETCH(qint64, from);
    QFETCH(qint64, to);
    QFETCH(QString, problem);
    const QString why = CustomRangeDialog::problem(from, to, m_now);
    if (problem.isEmpty())
        QVERIFY2(why.isEmpty(), qPrintable(why));
    else
        QVERIFY2(why.contains(problem), qPrintable(why));
}

void tst_OverviewPage::bucketsStayFew_data()
{
    QTest::addColumn<qint64>("span");
    QTest::addColumn<qint64>("bucket");
    QTest::newRow("10 min") << 10 * kMinute << kMinute;
    QTest::newRow("4 h") << 4 * 60 * kMinute << kMinute;
    QTest::newRow("5 h 1 min") << 301 * kMinute << 2 * kMinute;
    QTest::newRow("3 days") << 3 * kDay << 15 * kMinute;
    QTest::newRow("90 days") << 90 * kDay << 720 * kMinute;
}

void tst_OverviewPage::bucketsStayFew()
{
    QFETCH(qint64, span);
    QFETCH(qint64, bucket);
    const OverviewPage::Range r = OverviewPage::customRange(m_now - span, m_now);
    QVERIFY(r.isFixed());
    QCOMPARE(r.fromMs, m_now - span);
    QCOMPARE(r.toMs, m_now);
    QCOMPARE(r.bucketMs, bucket);
    QVERIFY((span + r.bucketMs - 1) / r.bucketMs <= OverviewPage::kMaxBuckets);
}

void tst_OverviewPage::labels()
{
    QCOMPARE(OverviewPage::windowLabel(localMs(2026, 11, 12, 10), localMs(2026, 11, 12, 14), m_now),
             "12 Nov 10:00 – 14:00");
    QCOMPARE(OverviewPage::windowLabel(localMs(2026, 11, 12, 22), localMs(2026, 11, 13, 2), m_now),
             "12 Nov 22:00 – 13 Nov 02:00");
    QCOMPARE(OverviewPage::windowLabel(localMs(2025, 12, 30, 8), localMs(2026, 1, 2, 8), m_now),
             "30 Dec 2025 08:00 – 2 Jan 08:00");
}

void tst_OverviewPage::customChoiceAsksAndEmitsTheWindow()
{
    ManualClock clock(m_now);
    OverviewPage page(clock);
    auto *combo = page.findChild<QComboBox *>("overviewRange");
    QVERIFY(combo);
    QCOMPARE(combo->count(), OverviewPage::ranges().size() + 1);
    QCOMPARE(combo->itemText(combo->count() - 1), "Custom…");
    page.setRangeIndex(1); // the last hour

    QList<QPair<qint64, qint64>> offered;
    const qint64 from = localMs(2026, 11, 12, 10);
    const qint64 to = localMs(2026, 11, 12, 14);
    page.setWindowPicker([&](qint64 shownFrom, qint64 shownTo) {
        offered.append({shownFrom, shownTo});
        return std::make_optional(std::make_pair(from, to));
    });
    QSignalSpy windows(&page, &OverviewPage::windowChanged);
    QSignalSpy ranges(&page, &OverviewPage::rangeChanged);
    combo->setCurrentIndex(combo->count() - 1);

    // The picker opened on the range shown until then.
    QCOMPARE(offered.size(), 1);
    QCOMPARE(offered.first(), qMakePair(m_now - 60 * kMinute, m_now));
    QCOMPARE(windows.size(), 1);
    QCOMPARE(ranges.size(), 0);
    QCOMPARE(windows.first().at(0).toLongLong(), from);
    QCOMPARE(windows.first().at(1).toLongLong(), to);
    QCOMPARE(windows.first().at(2).toLongLong(), kMinute);
    QCOMPARE(combo->currentText(), "12 Nov 10:00 – 14:00");
    QCOMPARE(page.rangeIndex(), OverviewPage::customIndex());
    QVERIFY(page.currentRange().isFixed());
    QCOMPARE(combo->count(), OverviewPage::ranges().size() + 2);

    // Choosing "Custom…" again opens on the window, and back to a range follows the clock.
    combo->setCurrentIndex(combo->count() - 1);
    QCOMPARE(offered.last(), qMakePair(from, to));
    page.setRangeIndex(0);
    QCOMPARE(ranges.size(), 1);
    QCOMPARE(ranges.last().at(0).toLongLong(), 15 * kMinute);
    // The window stays on offer.
    page.setRangeIndex(OverviewPage::customIndex());
    QCOMPARE(windows.size(), 3);
    QCOMPARE(windows.last().at(0).toLongLong(), from);
}

void tst_OverviewPage::cancelledChoiceKeepsTheRange()
{
    ManualClock clock(m_now);
    OverviewPage page(clock);
    auto *combo = page.findChild<QComboBox *>("overviewRange");
    page.setRangeIndex(2);
    int asked = 0;
    page.setWindowPicker([&asked](qint64, qint64) -> std::optional<std::pair<qint64, qint64>> {
        ++asked;
        return std::nullopt;
    });
    QSignalSpy windows(&page, &OverviewPage::windowChanged);
    QSignalSpy ranges(&page, &OverviewPage::rangeChanged);
    combo->setCurrentIndex(combo->count() - 1);
    QCOMPARE(asked, 1);
    QCOMPARE(combo->currentIndex(), 2);
    QCOMPARE(page.rangeIndex(), 2);
    QCOMPARE(windows.size(), 0);
    QCOMPARE(ranges.size(), 0);
    QVERIFY(!page.customWindow());

    // A window that cannot be shown is not taken either.
    QVERIFY(!page.setCustomWindow(m_now, m_now + kDay));
    QVERIFY(!page.customWindow());
    QCOMPARE(windows.size(), 0);
}

void tst_OverviewPage::dialogRefusesUntilValid()
{
    CustomRangeDialog dialog(m_now - 60 * kMinute, m_now, m_now);
    auto *ok = dialog.findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok);
    QVERIFY(ok->isEnabled());
    QCOMPARE(dialog.fromMs(), m_now - 60 * kMinute);
    QCOMPARE(dialog.toMs(), m_now);
    dialog.setWindow(m_now, m_now - 60 * kMinute);
    QVERIFY(!ok->isEnabled());
    const auto *problem = dialog.findChild<QLabel *>("customProblem");
    QVERIFY(problem->text().contains("start before it ends"));
    QCOMPARE(problem->palette().color(QPalette::WindowText), palette::problem());
    QVERIFY(ok->palette().color(QPalette::WindowText) != palette::problem());
    dialog.setWindow(m_now - 60 * kMinute, m_now + kDay);
    QVERIFY(!ok->isEnabled());
    dialog.setWindow(m_now - 2 * 60 * kMinute, m_now - 60 * kMinute);
    QVERIFY(ok->isEnabled());
    QVERIFY(dialog.problem().isEmpty());
}

std::unique_ptr<OverviewPage> tst_OverviewPage::chartPage()
{
    m_clock = std::make_unique<ManualClock>(kStart);
    auto page = std::make_unique<OverviewPage>(*m_clock);
    page->resize(1000, 700);
    return page;
}

QCategoryAxis *tst_OverviewPage::seriesTimeAxis(const OverviewPage &page)
{
    auto *series = const_cast<QLineSeries *>(page.throttleTotalSeries());
    const QList<QAbstractAxis *> axes = series->attachedAxes();
    for (QAbstractAxis *axis : axes) {
        if (axis->orientation() == Qt::Horizontal)
            return qobject_cast<QCategoryAxis *>(axis);
    }
    return nullptr;
}

namespace {

// The non-empty texts of the visible items of one kind (QGraphicsTextItem: axis
// labels, legend and title; QGraphicsSimpleTextItem: the page's own) that a chart
// view draws.
template <typename Item>
QStringList textsOf(const OverviewPage &page, const char *viewName, QString (Item::*text)() const)
{
    QStringList texts;
    const auto *view = page.findChild<QChartView *>(QLatin1String(viewName));
    if (!view)
        return texts;
    const QList<QGraphicsItem *> items = view->scene()->items();
    for (const QGraphicsItem *item : items) {
        if (const auto *it = qgraphicsitem_cast<const Item *>(item); it && it->isVisible()) {
            if (const QString t = (it->*text)(); !t.isEmpty())
                texts.append(t);
        }
    }
    return texts;
}

} // namespace

QStringList tst_OverviewPage::failureTexts(const OverviewPage &page)
{
    return textsOf(page, "failureChart", &QGraphicsSimpleTextItem::text);
}

QStringList tst_OverviewPage::shownLabels(const OverviewPage &page)
{
    return textsOf(page, "throttleChart", &QGraphicsTextItem::toPlainText);
}

void tst_OverviewPage::chartsShowTheSnapshot()
{
    const auto page = chartPage();
    const qint64 now = kStart + 30000;
    const LiveSnapshot s = snapshotAt(now, 5);
    page->showSnapshot(s);
    const QLineSeries *total = page->throttleTotalSeries();
    QCOMPARE(page->timeAxis(), seriesTimeAxis(*page));
    // The last so much up to now: the window is as long as its buckets and ends now.
    const qint64 span = s.metrics.bucketCount * kMinute;
    QCOMPARE(page->shownWindow(), std::make_pair(now - span, now));
    // Two points a bucket: its start and its end, x in milliseconds from the window's
    // start.
    const qint64 origin = page->shownWindow().first;
    QCOMPARE(total->count(), 2 * s.metrics.bucketCount);
    QCOMPARE(total->at(0).x(), double(s.metrics.fromMs - origin));
    QCOMPARE(total->at(1).x(), double(s.metrics.fromMs + kMinute - origin));
    QCOMPARE(total->at(2).x(), double(s.metrics.fromMs + kMinute - origin));
    QCOMPARE(total->at(3).x(), double(s.metrics.fromMs + 2 * kMinute - origin));
    // Counts per bucket of one minute are counts per minute; the newest bucket, 30 s
    // old, has the rate so far, and ends now, at the right edge.
    QCOMPARE(total->at(0).y(), double(s.metrics.tooManyRequests.at(0)));
    QCOMPARE(total->at(1).y(), double(s.metrics.tooManyRequests.at(0)));
    QCOMPARE(total->at(total->count() - 1).y(), 5 * 60000.0 / 30001);
    QCOMPARE(total->at(total->count() - 1).x(), double(span));
    QCOMPARE(page->timeAxis()->max(), double(span));
}

void tst_OverviewPage::shortRangeDrawsStepsOf15Seconds()
{
    // The last 15 minutes come in buckets of 15 s.
    const OverviewPage::Range shortRange = OverviewPage::ranges().first();
    QCOMPARE(shortRange.rangeMs, 15 * kMinute);
    QCOMPARE(shortRange.bucketMs, qint64(15000));

    // 40 s after a storm began at kStart: 2 429s in its first 15 s, 3 in the next, 1 so
    // far in the newest bucket, nothing before.
    const qint64 bucket = 15000;
    const qint64 now = kStart + 40000;
    LiveSnapshot s;
    MetricsSnapshot &m = s.metrics;
    m.bucketMs = bucket;
    m.fromMs = (now - 15 * kMinute) / bucket * bucket;
    m.toMs = now + 1;
    m.nowMs = now;
    m.bucketCount = int((m.toMs - m.fromMs + bucket - 1) / bucket);
    QCOMPARE(m.bucketCount, 61);
    m.tooManyRequests = QList<qint64>(m.bucketCount, 0);
    const int storm = int((kStart - m.fromMs) / bucket);
    QCOMPARE(storm, m.bucketCount - 3);
    m.tooManyRequests[storm] = 2;
    m.tooManyRequests[storm + 1] = 3;
    m.tooManyRequests[storm + 2] = 1;
    m.unavailable = QList<qint64>(m.bucketCount, 0);
    m.peakInFlight = QList<int>(m.bucketCount, 1);
    m.maxInFlight = 4;

    const auto page = chartPage();
    page->showSnapshot(s);
    const QLineSeries *total = page->throttleTotalSeries();
    QCOMPARE(total->count(), 2 * m.bucketCount);
    // The window: the last 61 buckets' length, up to now.
    QCOMPARE(page->shownWindow(), std::make_pair(now - 61 * bucket, now));
    const qint64 origin = page->shownWindow().first;
    for (int b = 0; b < m.bucketCount; ++b) {
        const QPointF start = total->at(2 * b);
        const QPointF end = total->at(2 * b + 1);
        // Each bucket spans [start, start + 15 s), the newest only up to now.
        QCOMPARE(start.x(), double(m.bucketStartMs(b) - origin));
        QCOMPARE(end.x(), double(std::min(m.bucketStartMs(b) + bucket, now) - origin));
        QCOMPARE(start.y(), end.y());
        // Buckets without 429s are at zero.
        if (b < storm)
            QCOMPARE(start.y(), 0.0);
    }
    // The line rises where the storm began, not a bucket or more before it.
    QCOMPARE(total->at(2 * storm - 1).y(), 0.0);
    QCOMPARE(total->at(2 * storm).x(), double(kStart - origin));
    // Per minute: 2 in 15 s read 8 a minute, 3 read 12; 1 in the newest 10 s, 6.
    QCOMPARE(total->at(2 * storm).y(), 8.0);
    QCOMPARE(total->at(2 * storm + 2).y(), 12.0);
    QCOMPARE(total->at(2 * storm + 4).y(), 60000.0 / 10001);
    QCOMPARE(total->at(total->count() - 1).x(), double(now - origin));
    QCOMPARE(total->at(total->count() - 1).x(), page->timeAxis()->max());

    // The axis says what a step is.
    const auto *view = page->findChild<QChartView *>(QStringLiteral("throttleChart"));
    QVERIFY(view);
    const QList<QAbstractAxis *> vertical = view->chart()->axes(Qt::Vertical);
    QCOMPARE(vertical.size(), 1);
    QCOMPARE(vertical.first()->titleText(), QStringLiteral("per minute, in steps of 15 s"));
    const auto *inFlight = page->findChild<QChartView *>(QStringLiteral("inFlightChart"));
    QCOMPARE(inFlight->chart()->title(), QStringLiteral("In flight (peak in each 15 s) and limit"));
}

void tst_OverviewPage::timeAxisStaysWhileTheWindowSlides()
{
    const auto page = chartPage();
    page->show();
    QVERIFY(QTest::qWaitForWindowExposed(page.get()));
    QCategoryAxis *axis = seriesTimeAxis(*page);
    QVERIFY(axis);
    const LiveSnapshot first = snapshotAt(kStart + 1000, 1);
    page->showSnapshot(first);
    // Sixteen buckets of a minute, the window as long: "now" at its end, every five
    // minutes back to the start of the range.
    const double span = double(first.metrics.bucketCount * kMinute);
    QCOMPARE(axis->min(), 0.0);
    QCOMPARE(axis->max(), span);
    const QStringList labels{QStringLiteral("\u221215 min"), QStringLiteral("\u221210 min"),
                             QStringLiteral("\u22125 min"), QStringLiteral("now")};
    QCOMPARE(axis->categoriesLabels(), labels);
    QCOMPARE(axis->endValue(QStringLiteral("now")), span);
    QCOMPARE(axis->endValue(labels.first()), double(kMinute));
    QCoreApplication::processEvents();
    for (const QString &label : labels)
        QVERIFY2(shownLabels(*page).contains(label), qPrintable(label));

    QSignalSpy moved(axis, &QValueAxis::rangeChanged);
    QSignalSpy relabelled(axis, &QCategoryAxis::categoriesChanged);
    for (qint64 second = 2; second < 60; ++second)
        page->showSnapshot(snapshotAt(kStart + second * 1000, second));
    QCOMPARE(page->throttleTotalSeries()->at(page->throttleTotalSeries()->count() - 1).y(),
             59 * 60000.0 / 59001);
    // A new bucket: the window moves on, the axis stays as it is.
    const qint64 firstOrigin = kStart + 1000 - first.metrics.bucketCount * kMinute;
    page->showSnapshot(snapshotAt(kStart + kMinute + 1000, 1));
    QCOMPARE(page->shownWindow().first, firstOrigin + kMinute);
    QCOMPARE(moved.size(), 0);
    QCOMPARE(relabelled.size(), 0);
    // The newest bucket is the last step, from its start to now, the right edge.
    const QLineSeries *total = page->throttleTotalSeries();
    QCOMPARE(total->at(total->count() - 2).x(),
             double(kStart + kMinute - page->shownWindow().first));
    QCOMPARE(total->at(total->count() - 1).x(), span);
    // One 429 in the first second of a bucket: a rate over ten seconds at least.
    QCOMPARE(total->at(total->count() - 1).y(), 6.0);
}

void tst_OverviewPage::timeAxisOfAFixedWindowReadsTheClock()
{
    const auto page = chartPage();
    // Two hours from 10:00 local time, in buckets of a minute.
    const qint64 from = QDateTime(QDate(2026, 11, 12), QTime(10, 0)).toMSecsSinceEpoch();
    LiveSnapshot s;
    s.fixedWindow = true;
    MetricsSnapshot &m = s.metrics;
    m.bucketMs = kMinute;
    m.fromMs = from;
    m.toMs = from + 120 * kMinute;
    m.nowMs = kStart;
    m.bucketCount = 120;
    m.tooManyRequests = QList<qint64>(m.bucketCount, 2);
    page->showSnapshot(s);
    QCategoryAxis *axis = seriesTimeAxis(*page);
    QCOMPARE(page->timeAxis(), axis);
    QCOMPARE(axis->max(), double(120 * kMinute));
    const QStringList labels{QStringLiteral("10:30"), QStringLiteral("11:00"),
                             QStringLiteral("11:30"), QStringLiteral("12:00")};
    QCOMPARE(axis->categoriesLabels(), labels);
    QCOMPARE(axis->endValue(QStringLiteral("11:00")), double(60 * kMinute));
}

void tst_OverviewPage::unchangedSeriesAreLeftAlone()
{
    const auto page = chartPage();
    page->showSnapshot(snapshotAt(kStart + 1000, 1));
    const QLineSeries *total = page->throttleTotalSeries();
    QSignalSpy replaced(total, &QXYSeries::pointsReplaced);
    page->showSnapshot(snapshotAt(kStart + 1000, 1));
    QCOMPARE(replaced.size(), 0);
    // A second later the newest step reaches a second further, to the new now.
    page->showSnapshot(snapshotAt(kStart + 2000, 1));
    QCOMPARE(replaced.size(), 1);
    page->showSnapshot(snapshotAt(kStart + 2000, 2));
    QCOMPARE(replaced.size(), 2);
}

QTEST_MAIN(tst_OverviewPage)
void tst_OverviewPage::failureCountChangesWithoutANewTitle()
{
    const auto page = chartPage();
    const auto *view = page->findChild<QChartView *>(QStringLiteral("failureChart"));
    QVERIFY(view);
    LiveSnapshot s = snapshotAt(kStart + 1000, 1);
    page->showSnapshot(s);
    QCOMPARE(view->chart()->title(),
             QStringLiteral("Final failures by reason: none in this range"));
    QCOMPARE(failureTexts(*page), QStringList{});

    s.metrics.finalFailuresByReason.insert(QStringLiteral("http_400"), 3);
    s.metrics.finalFailuresByReason.insert(QStringLiteral("deadline"), 2);
    page->showSnapshot(s);
    const QString title = view->chart()->title();
    QCOMPARE(title, QStringLiteral("Final failures by reason"));
    QCOMPARE(failureTexts(*page), QStringList{QStringLiteral("5 in range")});

    // One more failure: the number changes, the title (and with it the layout) does not.
    s.metrics.finalFailuresByReason[QStringLiteral("deadline")] = 3;
    page->showSnapshot(s);
    QCOMPARE(view->chart()->title(), title);
    QCOMPARE(failureTexts(*page), QStringList{QStringLiteral("6 in range")});
}

void tst_OverviewPage::manyPartitionsAreListedBesideThePlot()
{
    const auto page = chartPage();
    const auto *view = page->findChild<QChartView *>(QStringLiteral("throttleChart"));
    QVERIFY(view);
    LiveSnapshot s = snapshotAt(kStart + 1000, 1);
    const auto addPartition = [&s](const char *name) {
        s.metrics.tooManyRequestsByPartition.insert(QLatin1String(name),
                                                    QList<qint64>(s.metrics.bucketCount, 1));
    };
    addPartition("search");
    addPartition("uploads / eu");
    page->showSnapshot(s);
    // The two totals and two partitions fit in a row under the plot.
    QCOMPARE(view->chart()->legend()->alignment(), Qt::AlignBottom);
    addPartition("uploads / us");
    page->showSnapshot(s);
    QCOMPARE(view->chart()->legend()->alignment(), Qt::AlignRight);
    QCOMPARE(view->chart()->series().size(), 5);
}

#include "tst_overviewpage.moc"
