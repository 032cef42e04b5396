// SPDX-License-Identifier: Apache-2.0
#pragma once

// The reference of the engine's throughput: a bare QNetworkAccessManager loop.

#include "bench/BenchSupport.h"

#include <QEventLoop>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QTimer>
#include <QUrl>

#include <functional>

namespace cooldown::bench {

// What the loop does with each answer before it sends the next request, if anything.
using AnswerHook = std::function<void(QNetworkReply *reply, const QByteArray &body)>;

// N GETs, `concurrency` at a time, nothing else: what QNAM alone can do. With a hook,
// each answer goes through it before the request that replaces it is sent.
inline double bareLoopSeconds(const QUrl &url, qint64 count, int concurrency,
                              const AnswerHook &onAnswer = {})
{
    QNetworkAccessManager manager;
    QEventLoop loop;
    qint64 started = 0;
    qint64 finished = 0;
    qint64 failed = 0;
    std::function<void()> startOne = [&] {
        ++started;
        QNetworkRequest request(url);
        QNetworkReply *reply = manager.get(request);
        QObject::connect(reply, &QNetworkReply::finished, &loop, [&, reply] {
            if (reply->error() != QNetworkReply::NoError)
                ++failed;
            const QByteArray body = reply->readAll();
            if (onAnswer)
                onAnswer(reply, body);
            reply->deleteLater();
            if (++finished == count)
                loop.quit();
            else if (started < count)
                startOne();
        });
    };
    QElapsedTimer timer;
    timer.start();
    for (int i = 0; i < concurrency && started < count; ++i)
        startOne();
    loop.exec();
    const double s = seconds(timer);
    if (failed > 0)
        die(QStringLiteral("the bare loop saw %1 failed requests").arg(failed));
    return s;
}

// The bare loop at a pace: one GET every 1000 / rate ms, each sent by a timer's own
// wake, until `count` have answered. What sending paced work costs QNAM alone, with
// no engine, no store and no record: the floor under any paced request.
inline void pacedBareLoop(const QUrl &url, qint64 count, int rate)
{
    QNetworkAccessManager manager;
    QEventLoop loop;
    QTimer pace;
    pace.setTimerType(Qt::PreciseTimer);
    pace.setInterval(1000 / rate);
    qint64 started = 0;
    qint64 finished = 0;
    qint64 failed = 0;
    QObject::connect(&pace, &QTimer::timeout, &loop, [&] {
        if (started == count) {
            pace.stop();
            return;
        }
        ++started;
        QNetworkReply *reply = manager.get(QNetworkRequest(url));
        QObject::connect(reply, &QNetworkReply::finished, &loop, [&, reply] {
            if (reply->error() != QNetworkReply::NoError)
                ++failed;
            reply->readAll();
            reply->deleteLater();
            if (++finished == count)
                loop.quit();
        });
    });
    pace.start();
    loop.exec();
    if (failed > 0)
        die(QStringLiteral("the paced bare loop saw %1 failed requests").arg(failed));
}

} // namespace cooldown::bench
