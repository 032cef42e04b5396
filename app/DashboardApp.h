// SPDX-License-Identifier: Apache-2.0
#pragma once

class QApplication;

namespace cooldown {

// Opens the dashboard. `cooldown --config F [--db URL]` opens that workspace; without
// --config the last workspace opened is opened again, and on a first start (or with
// --demo) the demo workspace runs against the built-in demo API on a free loopback
// port, with a fresh database in a temporary folder.
int runDashboard(QApplication &app);

} // namespace cooldown
