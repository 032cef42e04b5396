// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/import/ApiDocument.h"

#include <QFile>
#include <QJsonValue>
#include <QString>

// A document of the test data (an OpenAPI document, a Postman collection), read as the
// import reads it; a test whose data cannot be read stops there.
inline QJsonValue documentFile(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(path));
    QString error;
    const std::optional<QJsonValue> value = cooldown::readApiDocument(file.readAll(), path, &error);
    if (!value)
        qFatal("%s", qPrintable(error));
    return *value;
}
