// SPDX-License-Identifier: Apache-2.0
// Problem Details (RFC 9457): the input is an application/problem+json body.

#include "FuzzCheck.h"

#include "core/http/ProblemDetails.h"

using namespace cooldown;

COOLDOWN_FUZZ_SILENCE_QT

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QByteArray body = fuzz::bytes(data, size);
    const ProblemDetails problem =
        ProblemDetails::parse(QByteArrayLiteral("application/problem+json; charset=utf-8"), body);
    // Either a problem object was read or the reason is kept; never both, never neither.
    FUZZ_CHECK(problem.present != !problem.error.isEmpty());
    FUZZ_CHECK(!problem.type.isEmpty());
    if (!problem.present)
        FUZZ_CHECK(problem.kind() == ProblemDetails::Kind::None);
    (void)problem.violatedPolicies();
    (void)problem.toJson();

    // Any other content type is never read, whatever the body says.
    const ProblemDetails ignored =
        ProblemDetails::parse(QByteArrayLiteral("application/json"), body);
    FUZZ_CHECK(!ignored.present);
    return 0;
}
