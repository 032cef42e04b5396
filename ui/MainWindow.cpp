#include "ui/MainWindow.h"

#include <QCoreApplication>
#include <QLabel>
#include <QVBoxLayout>

namespace cooldown {

MainWindow::MainWindow(QWidget *parent) : QMainWindow(parent)
{
    setWindowTitle(tr("Cooldown"));
    setObjectName(QStringLiteral("mainWindow"));

    auto *central = new QWidget(this);
    auto *layout = new QVBoxLayout(central);
    layout->setContentsMargins(32, 32, 32, 32);

    auto *title = new QLabel(tr("<h1>Cooldown %1</h1>").arg(QCoreApplication::applicationVersion()),
                             central);
    auto *about = new QLabel(
        tr("<p>Cooldown runs API integrations through one shared concurrency limit and a retry "
           "engine that treats <b>429 Too Many Requests</b> and <b>503</b> as a contract: it "
           "honours <code>Retry-After</code>, backs off with jitter, and never sends a POST "
           "twice without an idempotency key.</p>"
           "<p>This build contains the retry decision engine. Ask it what it would do with a "
           "response from a terminal:</p>"
           "<pre>cooldown explain --status 429 --header \"Retry-After: 120\"</pre>"),
        central);
    about->setWordWrap(true);
    about->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(title);
    layout->addWidget(about);
    layout->addStretch(1);
    setCentralWidget(central);
    resize(760, 420);
}

MainWindow::~MainWindow() = default;

} // namespace cooldown
