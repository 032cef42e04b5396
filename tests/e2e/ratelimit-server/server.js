// SPDX-License-Identifier: Apache-2.0
// A rate-limited API for the end-to-end tests, built on express-rate-limit (npm): a
// limiter nobody on this project wrote, sending its own headers. Counts what arrives.
//   node server.js [--limit N] [--window-seconds S]
//                  [--headers draft-8|draft-7|draft-6|legacy|retry-after|none]
// retry-after: no quota headers, only Retry-After on a 429; none: a bare 429.
// Listens on 127.0.0.1, on a free port, and prints "listening PORT" once ready.
//   GET /job/:id     the work: 200, or 429 past the limit
//   GET /stats       {"requests": n, "refused": n, "done": [ids], "first_ms": t, "last_ms": t}
'use strict';
const express = require('express');
const { rateLimit } = require('express-rate-limit');

const args = process.argv.slice(2);
function option(name, fallback) {
    const at = args.indexOf(name);
    return at >= 0 && at + 1 < args.length ? args[at + 1] : fallback;
}
const limit = Number(option('--limit', '5'));
const windowSeconds = Number(option('--window-seconds', '10'));
const headers = option('--headers', 'draft-8');

const stats = { requests: 0, refused: 0, done: [], first_ms: 0, last_ms: 0 };
const app = express();
app.get('/stats', (req, res) => res.json(stats));
app.use((req, res, next) => {
    stats.requests += 1;
    stats.first_ms = stats.first_ms || Date.now();
    stats.last_ms = Date.now();
    next();
});
app.use(rateLimit({
    windowMs: windowSeconds * 1000,
    limit,
    standardHeaders: ['legacy', 'retry-after', 'none'].includes(headers) ? false : headers,
    legacyHeaders: !['retry-after', 'none'].includes(headers),
    identifier: 'api',
    handler: (req, res, next, options) => {
        stats.refused += 1;
        if (headers === 'retry-after' && req.rateLimit.resetTime) {
            const seconds = Math.ceil((req.rateLimit.resetTime.getTime() - Date.now()) / 1000);
            res.setHeader('Retry-After', String(Math.max(seconds, 0)));
        }
        res.status(options.statusCode).send(options.message);
    },
}));
app.get('/job/:id', (req, res) => {
    stats.done.push(req.params.id);
    res.json({ id: req.params.id });
});
const server = app.listen(0, '127.0.0.1', () => {
    console.log(`listening ${server.address().port}`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
