// SPDX-License-Identifier: Apache-2.0
// What an OAuth 2.0 token endpoint and a protected API send back: the input's first
// byte picks the token endpoint's status, the rest is its body (RFC 6749, 5.1 and 5.2)
// and, as it is, a WWW-Authenticate field (RFC 9110, 11.6.1).

#include "FuzzCheck.h"

#include "core/http/AuthChallenge.h"
#include "core/http/HttpToken.h"
#include "core/http/TokenResponse.h"

using namespace cooldown;

COOLDOWN_FUZZ_SILENCE_QT

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    static const int kStatuses[] = {200, 201, 204, 302, 400, 401, 403, 404, 408, 429, 500, 503};
    const int status = kStatuses[data[0] % (sizeof kStatuses / sizeof kStatuses[0])];
    const QByteArray body = fuzz::bytes(data + 1, size - 1);

    const TokenResponse token = TokenResponse::parse(status, body);
    // A token is handed on only from a 2xx, with no error beside it, and only as
    // something a header can carry.
    FUZZ_CHECK((token.kind == TokenResponse::Kind::Token) == !token.accessToken.isEmpty());
    if (token.kind == TokenResponse::Kind::Token) {
        FUZZ_CHECK(status >= 200 && status < 300);
        FUZZ_CHECK(token.error.isEmpty());
        FUZZ_CHECK(token.tokenType == QLatin1String("Bearer"));
        for (const char c : token.accessToken)
            FUZZ_CHECK(uchar(c) >= 0x21 && uchar(c) <= 0x7e);
        // An expires_in of 0 or below (or under a second) is read as not said.
        FUZZ_CHECK(!token.expiresInSeconds || *token.expiresInSeconds > 0);
    } else {
        FUZZ_CHECK(!token.error.isEmpty());
    }
    // A refusal is the server's word on the client (or a redirect, which token_url must
    // not need), never a throttle or an outage.
    if (token.kind == TokenResponse::Kind::Refused)
        FUZZ_CHECK((status >= 300 && status < 500) && status != 408 && status != 429);
    // What goes to logs and the window is one bounded line.
    for (const QString &text : {token.error, token.errorDescription}) {
        FUZZ_CHECK(!text.contains(QLatin1Char('\n')) && !text.contains(QLatin1Char('\r')));
        FUZZ_CHECK(text.size() <= 240);
    }

    for (const AuthChallenge &c : AuthChallenge::parse(body)) {
        FUZZ_CHECK(isToken(c.scheme));
        for (const auto &p : c.params) {
            FUZZ_CHECK(isToken(p.first));
            FUZZ_CHECK(p.first == p.first.toLower());
        }
        (void)c.param("error");
    }
    HttpHeaders headers;
    headers.append("WWW-Authenticate", body);
    const auto bearer = AuthChallenge::bearer(headers);
    FUZZ_CHECK(!bearer || bearer->isBearer());
    return 0;
}
