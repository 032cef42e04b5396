// SPDX-License-Identifier: Apache-2.0
#include "ui/Palette.h"

#include <QPalette>
#include <QWidget>

namespace cooldown::palette {

QColor problem()
{
    return QColor(0xc0, 0x1c, 0x28);
}

QColor problemBackground()
{
    return QColor(0xfd, 0xe7, 0xe9);
}

void showAsProblem(QWidget *widget)
{
    QPalette colours = widget->palette();
    colours.setColor(QPalette::WindowText, problem());
    widget->setPalette(colours);
}

} // namespace cooldown::palette
