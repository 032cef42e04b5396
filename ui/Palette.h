// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QColor>

class QWidget;

namespace cooldown::palette {

// The red of what needs the operator's attention, the same everywhere in the window:
// a failed operation, a held partition, a policy conflict, a server stricter than its
// policy, final failures and the in-flight limit on the charts, the text that says
// what is wrong with a form.
QColor problem();

// The pale red behind an input whose value is refused.
QColor problemBackground();

// Draws the widget's text (QPalette::WindowText, as a QLabel uses) in problem().
void showAsProblem(QWidget *widget);

} // namespace cooldown::palette
