// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QJsonObject>
#include <QList>
#include <QObject>
#include <QString>
#include <QStringList>

class QWidget;

namespace cooldown {

// A form that edits one JSON object: each field is a widget (a line edit, an
// editable combo box or a plain-text edit) bound to one member. load() shows an
// object; read() writes the widgets back into an object, leaving the members the
// form does not show as they were. The Endpoints dialog has one for an endpoint and
// one for a policy.
class JsonForm final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(JsonForm)

public:
    // How a member is shown and written back.
    enum class Kind
    {
        Text,    // a string member; empty: left out
        Number,  // a number member; text that is no number is kept as a string, so
                 // that the workspace's own check says what was expected
        Headers, // an object of header fields, as "Name: value" lines
        Header,  // the "header" member of an object (the endpoint's "idempotency")
        Json,    // any JSON value as indented text (the endpoint's "expect"); empty: left
                 // out; text that is no JSON is a problem named at once
    };

    // name: the first part of each widget's object name ("endpoint:url").
    explicit JsonForm(QString name, QObject *parent = nullptr);

    // Binds widget to member key and returns it, to be put in a layout.
    QWidget *add(const QString &key, Kind kind, QWidget *widget);
    // The widget of member key; nullptr when the form has none.
    QWidget *widget(const QString &key) const;

    // Shows item; edited() is not emitted for it.
    void load(const QJsonObject &item);
    // item with the form's members written in. A problem of the text itself (a
    // header line without ':') goes to *problem, and its member to *problemKey, the
    // first one only; the object is written all the same.
    QJsonObject read(QJsonObject item, QString *problem, QString *problemKey) const;
    // Marks the widget of member key as wrong, with why as its tooltip, and clears
    // the others; an empty key marks none.
    void mark(const QString &key, const QString &why);
    // Gives the combo box of member key these items, keeping the text it shows.
    void setChoices(const QString &key, const QStringList &items);

signals:
    // The user changed a field.
    void edited();

private:
    struct Field
    {
        QString key;
        Kind kind = Kind::Text;
        QWidget *widget = nullptr;
    };

    void onChanged();
    void readJson(const Field &field, const QString &text, QJsonObject *item, QString *problem,
                  QString *problemKey) const;

    QString m_name;
    QList<Field> m_fields;
    bool m_loading = false;
};

} // namespace cooldown
