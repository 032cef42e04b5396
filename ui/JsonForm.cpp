// SPDX-License-Identifier: Apache-2.0
#include "ui/JsonForm.h"

#include "ui/Palette.h"

#include <QComboBox>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLineEdit>
#include <QLocale>
#include <QPlainTextEdit>
#include <QScopedValueRollback>

#include <algorithm>
#include <cmath>

namespace cooldown {

namespace {

const QString kHeader = QStringLiteral("header");

// A value that is no string, as JSON text, so that the form can show and keep it.
QString jsonText(const QJsonValue &value)
{
    if (value.isUndefined())
        return QString();
    if (value.isString())
        return value.toString();
    const QByteArray wrapped = QJsonDocument(QJsonArray{value}).toJson(QJsonDocument::Compact);
    return QString::fromUtf8(wrapped.mid(1, wrapped.size() - 2));
}

QString numberText(const QJsonValue &value)
{
    if (!value.isDouble())
        return jsonText(value);
    const double d = value.toDouble();
    if (d == std::floor(d) && std::fabs(d) < 1e15)
        return QString::number(qint64(d));
    return QString::number(d, 'g', QLocale::FloatingPointShortest);
}

QString textOf(const QWidget *widget)
{
    if (const auto *edit = qobject_cast<const QLineEdit *>(widget))
        return edit->text();
    if (const auto *combo = qobject_cast<const QComboBox *>(widget))
        return combo->currentText();
    if (const auto *text = qobject_cast<const QPlainTextEdit *>(widget))
        return text->toPlainText();
    return QString();
}

void setTextOf(QWidget *widget, const QString &text)
{
    if (auto *edit = qobject_cast<QLineEdit *>(widget)) {
        edit->setText(text);
        edit->setCursorPosition(0); // a long URL shows its start
    } else if (auto *combo = qobject_cast<QComboBox *>(widget))
        combo->setEditText(text);
    else if (auto *plain = qobject_cast<QPlainTextEdit *>(widget))
        plain->setPlainText(text);
}

void setMarked(QWidget *widget, bool marked, const QString &why)
{
    if (widget->property("invalid").toBool() == marked && widget->toolTip() == why)
        return;
    widget->setProperty("invalid", marked);
    widget->setToolTip(why);
    if (!marked) {
        widget->setPalette(QPalette()); // back to what the parent gives
        return;
    }
    QPalette colours = widget->palette();
    colours.setColor(QPalette::Base, palette::problemBackground());
    widget->setPalette(colours);
}

QString headerLines(const QJsonObject &headers)
{
    QStringList rows;
    for (auto it = headers.begin(); it != headers.end(); ++it) {
        // A line that had no ':' is kept as a member without a value.
        rows.append(it.value().isNull()
                        ? it.key()
                        : QStringLiteral("%1: %2").arg(it.key(), jsonText(it.value())));
    }
    return rows.join(QLatin1Char('\n'));
}

} // namespace

JsonForm::JsonForm(QString name, QObject *parent) : QObject(parent), m_name(std::move(name)) {}

QWidget *JsonForm::add(const QString &key, Kind kind, QWidget *widget)
{
    widget->setObjectName(QStringLiteral("%1:%2").arg(m_name, key));
    m_fields.append({key, kind, widget});
    if (auto *edit = qobject_cast<QLineEdit *>(widget))
        connect(edit, &QLineEdit::textChanged, this, &JsonForm::onChanged);
    else if (auto *combo = qobject_cast<QComboBox *>(widget))
        connect(combo, &QComboBox::editTextChanged, this, &JsonForm::onChanged);
    else if (auto *text = qobject_cast<QPlainTextEdit *>(widget))
        connect(text, &QPlainTextEdit::textChanged, this, &JsonForm::onChanged);
    return widget;
}

QWidget *JsonForm::widget(const QString &key) const
{
    for (const Field &field : m_fields) {
        if (field.key == key)
            return field.widget;
    }
    return nullptr;
}

void JsonForm::onChanged()
{
    if (!m_loading)
        emit edited();
}

void JsonForm::load(const QJsonObject &item)
{
    const QScopedValueRollback<bool> loading(m_loading, true);
    for (const Field &field : std::as_const(m_fields)) {
        const QJsonValue value = item.value(field.key);
        QString text;
        switch (field.kind) {
        case Kind::Text:
            text = jsonText(value);
            break;
        case Kind::Number:
            text = numberText(value);
            break;
        case Kind::Header:
            text = value.isObject() ? jsonText(value.toObject().value(kHeader)) : jsonText(value);
            break;
        case Kind::Headers:
            text = headerLines(value.toObject());
            break;
        case Kind::Json:
            if (value.isObject())
                text = QString::fromUtf8(QJsonDocument(value.toObject()).toJson()).trimmed();
            else if (value.isArray())
                text = QString::fromUtf8(QJsonDocument(value.toArray()).toJson()).trimmed();
            else if (!value.isUndefined())
                text = jsonText(value);
            break;
        }
        setTextOf(field.widget, text);
    }
}

QJsonObject JsonForm::read(QJsonObject item, QString *problem, QString *problemKey) const
{
    for (const Field &field : m_fields) {
        const QString text = textOf(field.widget);
        switch (field.kind) {
        case Kind::Text: {
            // A member that is no string (a proxy given as an object) is shown as JSON
            // text; left as it was shown, it is written back as it was read.
            const QJsonValue old = item.value(field.key);
            if (text.isEmpty())
                item.remove(field.key);
            else if (old.isString() || old.isUndefined() || jsonText(old) != text)
                item.insert(field.key, text);
            break;
        }
        case Kind::Number: {
            const QString trimmed = text.trimmed();
            bool ok = false;
            const double d = QLocale::c().toDouble(trimmed, &ok);
            if (trimmed.isEmpty())
                item.remove(field.key);
            else if (ok && std::isfinite(d))
                item.insert(field.key, d);
            else
                item.insert(field.key, trimmed);
            break;
        }
        case Kind::Header: {
            if (text.isEmpty()) {
                item.remove(field.key);
                break;
            }
            QJsonObject idempotency = item.value(field.key).toObject();
            idempotency.insert(kHeader, text);
            item.insert(field.key, idempotency);
            break;
        }
        case Kind::Headers: {
            QJsonObject headers;
            const QStringList rows = text.split(QLatin1Char('\n'));
            for (qsizetype i = 0; i < rows.size(); ++i) {
                const QString row = rows.at(i).trimmed();
                if (row.isEmpty())
                    continue;
                const qsizetype colon = row.indexOf(QLatin1Char(':'));
                const QString name = colon < 0 ? row : row.left(colon).trimmed();
                if (problem->isEmpty() && colon < 0)
                    *problem = tr("line %1: expected 'Name: value'").arg(i + 1);
                else if (problem->isEmpty() && headers.contains(name))
                    *problem = tr("line %1: %2 is already given").arg(i + 1).arg(name);
                if (!problem->isEmpty() && problemKey->isEmpty())
                    *problemKey = field.key;
                headers.insert(name, colon < 0 ? QJsonValue(QJsonValue::Null)
                                               : QJsonValue(row.mid(colon + 1).trimmed()));
            }
            if (headers.isEmpty())
                item.remove(field.key);
            else
                item.insert(field.key, headers);
            break;
        }
        case Kind::Json:
            readJson(field, text, &item, problem, problemKey);
            break;
        }
    }
    return item;
}

void JsonForm::readJson(const Field &field, const QString &text, QJsonObject *item,
                        QString *problem, QString *problemKey) const
{
    if (text.trimmed().isEmpty()) {
        item->remove(field.key);
        return;
    }
    // A bare value is read as the one element of an array, then taken out of it.
    QJsonParseError error{};
    const QJsonDocument document = QJsonDocument::fromJson("[" + text.toUtf8() + "]", &error);
    if (error.error != QJsonParseError::NoError || document.array().size() != 1) {
        if (problem->isEmpty()) {
            *problem = tr("not JSON: %1 at character %2")
                           .arg(error.errorString())
                           .arg(std::max(0, error.offset - 1));
            *problemKey = field.key;
        }
        return;
    }
    item->insert(field.key, document.array().first());
}

void JsonForm::mark(const QString &key, const QString &why)
{
    for (const Field &field : std::as_const(m_fields)) {
        const bool marked = !key.isEmpty() && field.key == key;
        setMarked(field.widget, marked, marked ? why : QString());
    }
}

void JsonForm::setChoices(const QString &key, const QStringList &items)
{
    auto *combo = qobject_cast<QComboBox *>(widget(key));
    if (!combo)
        return;
    QStringList current;
    for (int i = 0; i < combo->count(); ++i)
        current.append(combo->itemText(i));
    if (current == items)
        return;
    const QScopedValueRollback<bool> loading(m_loading, true);
    const QString text = combo->currentText();
    combo->clear();
    combo->addItems(items);
    combo->setEditText(text);
}

} // namespace cooldown
