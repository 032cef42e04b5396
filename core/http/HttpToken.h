// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QByteArrayView>
#include <QStringView>

namespace cooldown {

// tchar of RFC 9110 §5.6.2: an ASCII letter or digit, or one of !#$%&'*+-.^_`|~.
bool isTchar(char16_t c);

// token = 1*tchar (RFC 9110 §5.6.2): what a method or a header field name must be.
// False for the empty string and for anything outside ASCII.
bool isToken(QStringView text);
bool isToken(QByteArrayView text);

} // namespace cooldown
