// SPDX-License-Identifier: Apache-2.0
// An OAuth 2.0 token endpoint and an API that needs its tokens, for the end-to-end
// tests, built on code nobody on this project wrote: oauth2-mock-server (npm) issues
// signed JWT access tokens for the client credentials grant, and the API verifies
// them with jose against the token server's JWKS, as a real resource server does.
//   node server.js [--lifetime SECONDS] [--exp ceil|floor] [--client-id ID]
//                  [--client-secret SECRET]
// --lifetime: each token's expires_in.
// --exp: how a token's exp is reckoned from it.
//   ceil (the default): exp = ceil(now + lifetime), never earlier than expires_in from
//     now, so that a client that renews ahead of expires_in never sends an expired token.
//   floor: as identity providers do, iat = floor(now) and exp = iat + lifetime, up to a
//     second before expires_in from now: a client that renews at 80 % of a short
//     lifetime does send expired tokens, and must renew on the 401 and send again.
// --client-id / --client-secret: when given, a token request naming another client or
//   secret is refused with 400 invalid_client (as an identity provider does).
// Both listen on 127.0.0.1, on free ports; once ready it prints one JSON line:
//   {"token_port": P, "resource_port": Q, "token_url": "...", "issuer": "..."}
//
// Token server (token_port):
//   POST /token            client_credentials (client_secret_basic or client_secret_post)
//   GET  /jwks             the keys the tokens are signed with
// Resource server (resource_port):
//   GET|POST /api/...      200 {"ok": true, "path", "client_id", "scope"} with a valid
//                          token; 401 + WWW-Authenticate: Bearer error="invalid_token"
//                          when it is expired, revoked or does not verify; 401 +
//                          WWW-Authenticate: Bearer when there is none
//   POST /hooks/...        no token needed: a webhook target (alerts), 200; what came
//                          (body, Idempotency-Key, Authorization, every header) is
//                          kept in stats
//   GET  /stats            what arrived, as JSON: token_requests (every POST /token),
//                          token_requests_by_client, token_requests_by_auth,
//                          tokens_issued, token_refused_unavailable,
//                          token_refused_invalid_client, token_request_times_ms,
//                          token_times_ms (issued), tokens (every access token issued),
//                          token_forms (the forms, secrets left out), resource_requests,
//                          resource_ok, resource_401 (invalid_token; of which
//                          resource_401_expired, resource_401_revoked),
//                          resource_401_missing (no token), by_path, first and last
//                          times, idempotency_keys (POSTs answered 200, by key),
//                          duplicate_posts, hooks, token_mode, exp_mode,
//                          token_exps_ms (the exp of each token issued, in ms)
//   POST /control/token?mode=unavailable&seconds=S&retry_after=R
//                          the token endpoint answers 503 + Retry-After: R for S
//                          seconds (no seconds: until mode=normal)
//   POST /control/token?mode=invalid_client
//                          the token endpoint answers 400 {"error":"invalid_client"}
//   POST /control/token?mode=normal
//   POST /control/revoke   every token issued so far is refused from now on
//   POST /control/exp?mode=ceil|floor
//                          as --exp, for the tokens issued from now on
import http from 'node:http';
import basicAuth from 'basic-auth';
import { OAuth2Issuer, OAuth2Service } from 'oauth2-mock-server';
import { createRemoteJWKSet, jwtVerify, errors } from 'jose';

const args = process.argv.slice(2);
function option(name, fallback) {
    const at = args.indexOf(name);
    return at >= 0 && at + 1 < args.length ? args[at + 1] : fallback;
}
const lifetime = Number(option('--lifetime', '3600'));
const expModes = ['ceil', 'floor'];
let expMode = option('--exp', 'ceil');
const expectedClientId = option('--client-id', '');
const expectedClientSecret = option('--client-secret', '');
if (!(lifetime > 0)) {
    console.error('--lifetime takes a positive number of seconds');
    process.exit(2);
}
if (!expModes.includes(expMode)) {
    console.error('--exp takes ceil or floor');
    process.exit(2);
}

const stats = {
    lifetime_seconds: lifetime,
    token_requests: 0,          // every POST /token that arrived
    token_requests_by_client: {},
    token_requests_by_auth: {}, // client_secret_basic | client_secret_post | none
    tokens_issued: 0,
    token_refused_unavailable: 0,
    token_refused_invalid_client: 0,
    token_first_ms: 0,
    token_last_ms: 0,
    token_request_times_ms: [], // when each token request arrived
    token_times_ms: [],         // when each token was issued
    token_exps_ms: [],          // the exp of each token issued
    // Every access token issued: the secrets test looks for them where they must not be.
    tokens: [],
    // What each token request carried as its form, secrets left out.
    token_forms: [],
    resource_requests: 0,
    resource_ok: 0,
    resource_401: 0,            // invalid_token: expired, revoked or not verifying
    resource_401_expired: 0,
    resource_401_revoked: 0,
    resource_401_missing: 0,    // no token at all
    resource_first_ms: 0,
    resource_last_ms: 0,
    first_ok_ms: 0,
    last_ok_ms: 0,
    by_path: {},                // path -> {ok, unauthorized}
    // POSTs answered 200, by Idempotency-Key: a key seen twice is a duplicate.
    idempotency_keys: {},
    duplicate_posts: 0,
    ok_without_key: 0,
    hooks: [],                  // {path, body, …, headers} of what arrived under /hooks/
    token_mode: 'normal',
    token_mode_until_ms: 0,
    exp_mode: expMode,
};

// The token endpoint's behaviour, set over /control/token.
let mode = 'normal';
let modeUntilMs = 0;
let retryAfterSeconds = 1;
// The jti of every token issued, and of those revoked.
const issuedIds = [];
let signed = 0; // tokens signed, issued or not: each gets a jti of its own
const revokedIds = new Set();

function currentMode() {
    if (mode !== 'normal' && modeUntilMs > 0 && Date.now() >= modeUntilMs) {
        mode = 'normal';
        modeUntilMs = 0;
    }
    stats.token_mode = mode;
    stats.token_mode_until_ms = modeUntilMs;
    return mode;
}

const issuer = new OAuth2Issuer();
await issuer.keys.generate('RS256');
const service = new OAuth2Service(issuer);

service.on('beforeTokenSigning', (token, req) => {
    const now = Date.now() / 1000;
    if (expMode === 'floor') {
        // Whole seconds, rounded down, as identity providers issue them: the token may
        // end up to a second before expires_in from now.
        token.payload.iat = Math.floor(now);
        token.payload.exp = token.payload.iat + lifetime;
    } else {
        // Whole seconds, rounded up: the token lives at least `lifetime` from now.
        token.payload.exp = Math.ceil(now + lifetime);
    }
    req.cooldownTokenExp = token.payload.exp;
    token.payload.client_id = clientOf(req).id;
    signed += 1;
    token.payload.jti = `${process.pid}-${signed}`;
    req.cooldownTokenId = token.payload.jti;
});

function clientOf(req) {
    const basic = basicAuth(req);
    if (basic)
        return { id: basic.name, secret: basic.pass, auth: 'client_secret_basic' };
    const body = req.body || {};
    if (body.client_id !== undefined)
        return { id: body.client_id, secret: body.client_secret, auth: 'client_secret_post' };
    return { id: '', secret: undefined, auth: 'none' };
}

service.on('beforeResponse', (response, req) => {
    const client = clientOf(req);
    stats.token_requests_by_client[client.id] = (stats.token_requests_by_client[client.id] || 0) + 1;
    stats.token_requests_by_auth[client.auth] = (stats.token_requests_by_auth[client.auth] || 0) + 1;
    const form = { ...(req.body || {}) };
    delete form.client_secret;
    stats.token_forms.push(form);
    const now = currentMode();
    if (now === 'unavailable') {
        stats.token_refused_unavailable += 1;
        req.res.set('Retry-After', String(retryAfterSeconds));
        response.statusCode = 503;
        response.body = { error: 'temporarily_unavailable' };
        return;
    }
    const wrongClient = (expectedClientId && client.id !== expectedClientId) ||
                        (expectedClientSecret && client.secret !== expectedClientSecret);
    if (now === 'invalid_client' || wrongClient) {
        stats.token_refused_invalid_client += 1;
        response.statusCode = 400;
        response.body = { error: 'invalid_client', error_description: 'client authentication failed' };
        return;
    }
    response.body.expires_in = lifetime;
    if (response.body.scope === undefined)
        delete response.body.scope;
    stats.tokens_issued += 1;
    issuedIds.push(req.cooldownTokenId);
    stats.tokens.push(response.body.access_token);
    stats.token_times_ms.push(Date.now());
    stats.token_exps_ms.push(req.cooldownTokenExp * 1000);
});

const tokenServer = http.createServer((req, res) => {
    if (req.method === 'POST' && req.url.split('?')[0] === '/token') {
        stats.token_requests += 1;
        stats.token_first_ms = stats.token_first_ms || Date.now();
        stats.token_last_ms = Date.now();
        stats.token_request_times_ms.push(stats.token_last_ms);
    }
    service.requestHandler(req, res);
});

function listen(server) {
    return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, '127.0.0.1', () => resolve(server.address().port));
    });
}

const tokenPort = await listen(tokenServer);
issuer.url = `http://127.0.0.1:${tokenPort}`;
const jwks = createRemoteJWKSet(new URL(`${issuer.url}/jwks`));

function send(res, status, body, headers = {}) {
    const text = JSON.stringify(body);
    res.writeHead(status, {
        'Content-Type': 'application/json',
        'Content-Length': Buffer.byteLength(text),
        ...headers,
    });
    res.end(text);
}

function readBody(req) {
    return new Promise((resolve) => {
        const chunks = [];
        req.on('data', (c) => chunks.push(c));
        req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
        req.on('error', () => resolve(''));
    });
}

function pathCount(path) {
    return (stats.by_path[path] ||= { ok: 0, unauthorized: 0 });
}

async function resource(req, res, path) {
    const now = Date.now();
    stats.resource_requests += 1;
    stats.resource_first_ms = stats.resource_first_ms || now;
    stats.resource_last_ms = now;
    const counts = pathCount(path);
    const authorization = req.headers.authorization || '';
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!match) {
        stats.resource_401_missing += 1;
        counts.unauthorized += 1;
        send(res, 401, { error: 'unauthorized' }, { 'WWW-Authenticate': 'Bearer realm="api"' });
        return;
    }
    let payload;
    try {
        ({ payload } = await jwtVerify(match[1], jwks, { issuer: issuer.url, clockTolerance: 0 }));
        if (revokedIds.has(payload.jti))
            throw new Error('revoked');
    } catch (error) {
        let description = 'the access token does not verify';
        if (error instanceof errors.JWTExpired) {
            stats.resource_401_expired += 1;
            description = 'the access token expired';
        } else if (error.message === 'revoked') {
            stats.resource_401_revoked += 1;
            description = 'the access token was revoked';
        }
        stats.resource_401 += 1;
        counts.unauthorized += 1;
        send(res, 401, { error: 'invalid_token', error_description: description }, {
            'WWW-Authenticate': `Bearer realm="api", error="invalid_token", error_description="${description}"`,
        });
        return;
    }
    if (req.method === 'POST') {
        const key = req.headers['idempotency-key'];
        if (key) {
            stats.idempotency_keys[key] = (stats.idempotency_keys[key] || 0) + 1;
            if (stats.idempotency_keys[key] > 1)
                stats.duplicate_posts += 1;
        } else {
            stats.ok_without_key += 1;
        }
    }
    stats.resource_ok += 1;
    stats.first_ok_ms = stats.first_ok_ms || now;
    stats.last_ok_ms = now;
    counts.ok += 1;
    send(res, 200, { ok: true, path, client_id: payload.client_id, scope: payload.scope ?? null });
}

const resourceServer = http.createServer(async (req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    const path = url.pathname;
    const body = await readBody(req);
    if (req.method === 'GET' && path === '/stats') {
        currentMode();
        send(res, 200, stats);
        return;
    }
    if (req.method === 'POST' && path === '/control/token') {
        const wanted = url.searchParams.get('mode') || 'normal';
        if (!['normal', 'unavailable', 'invalid_client'].includes(wanted)) {
            send(res, 400, { error: `unknown mode ${wanted}` });
            return;
        }
        mode = wanted;
        const seconds = Number(url.searchParams.get('seconds') || '0');
        modeUntilMs = wanted !== 'normal' && seconds > 0 ? Date.now() + seconds * 1000 : 0;
        retryAfterSeconds = Number(url.searchParams.get('retry_after') || '1');
        currentMode();
        send(res, 200, { mode, until_ms: modeUntilMs, retry_after: retryAfterSeconds });
        return;
    }
    if (req.method === 'POST' && path === '/control/exp') {
        const wanted = url.searchParams.get('mode') || '';
        if (!expModes.includes(wanted)) {
            send(res, 400, { error: `unknown exp mode ${wanted}` });
            return;
        }
        expMode = wanted;
        stats.exp_mode = expMode;
        send(res, 200, { exp_mode: expMode });
        return;
    }
    if (req.method === 'POST' && path === '/control/revoke') {
        for (const id of issuedIds)
            revokedIds.add(id);
        send(res, 200, { revoked: revokedIds.size });
        return;
    }
    if (req.method === 'POST' && path.startsWith('/hooks/')) {
        stats.hooks.push({
            path,
            body,
            idempotency_key: req.headers['idempotency-key'] || null,
            authorization: req.headers.authorization || null,
            headers: req.headers, // names in lower case
        });
        send(res, 200, { ok: true });
        return;
    }
    if ((req.method === 'GET' || req.method === 'POST') && path.startsWith('/api/')) {
        await resource(req, res, path);
        return;
    }
    send(res, 404, { error: 'not found' });
});

const resourcePort = await listen(resourceServer);
console.log(JSON.stringify({
    token_port: tokenPort,
    resource_port: resourcePort,
    token_url: `${issuer.url}/token`,
    issuer: issuer.url,
}));

function stop() {
    tokenServer.close();
    resourceServer.close();
    tokenServer.closeAllConnections();
    resourceServer.closeAllConnections();
    process.exit(0);
}
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
