// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/config/WorkspaceDocument.h"
#include "core/ratelimit/PolicyDrift.h"

#include <QDialog>
#include <QHash>
#include <QList>
#include <QString>

#include <functional>
#include <optional>

class QLabel;
class QPushButton;
class QStackedWidget;
class QTabWidget;
class QTableView;

namespace cooldown {

class DriftModel;
class JsonForm;
class WorkspaceItemsModel;

// Adds and edits the endpoints and rate-limit policies of a workspace file. Every
// edit rebuilds the document and reads it as `cooldown --config` would; the first
// problem is shown with its JSON path, its field is marked, and Save stays off until
// the document is valid. Save writes the whole file at once (WorkspaceDocument::save);
// a workspace that is no file (the demo) is saved as a file the user picks. The
// window applies what was saved to the running engine (saved()).
// The Drift page shows what servers advertise against the configured policies.
class EndpointsDialog final : public QDialog
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(EndpointsDialog)

public:
    enum class Page
    {
        Endpoints,
        Policies,
        Drift,
    };

    // filePath: where Save writes; empty: Save asks for a file first.
    EndpointsDialog(WorkspaceDocument document, const QString &filePath, QWidget *parent = nullptr);
    ~EndpointsDialog() override;

    // What references resolve to while validating. By default those of
    // `cooldown --config`: WorkspaceConfig::demoVariables() and the process environment.
    void setResolution(const QHash<QString, QString> &variables,
                       const std::optional<QHash<QString, QString>> &environment);
    void setDrifts(const QList<PolicyDrift> &drifts, qint64 nowMs);
    void showPage(Page page);
    Page currentPage() const;
    // Picks the file of Save as…; by default a file dialog asks. Empty: cancelled.
    void setFileChooser(std::function<QString()> chooser);
    // Asks a yes-or-no question before something is lost: unsaved changes when the
    // dialog closes, or changes another program made to the file when Save would
    // replace them. `action` names what yes does ("Discard", "Overwrite"). By default
    // a message box asks.
    void
    setConfirmation(std::function<bool(const QString &question, const QString &action)> confirm);

    const WorkspaceDocument &document() const { return m_document; }
    QString filePath() const { return m_filePath; }
    // The first problem of the document as it is now, without the file's name; empty
    // when it is valid.
    QString problem() const { return m_problem; }
    QString problemPath() const { return m_problemPath; }
    bool isModified() const;

    // Writes the document (asking for a file first when there is none). False when
    // it is invalid, the user cancelled or the file could not be written.
    bool save();
    void addItem();
    void duplicateItem();
    void removeItem();
    // Shows an item in the form: page Endpoints or Policies, row in that list.
    void selectItem(Page page, int row);

    WorkspaceItemsModel *endpointsModel() const { return m_endpointsModel; }
    WorkspaceItemsModel *policiesModel() const { return m_policiesModel; }
    DriftModel *driftModel() const { return m_driftModel; }
    QPushButton *saveButton() const { return m_saveButton; }

signals:
    void saved(const QString &path);

public slots:
    void reject() override;

private:
    QWidget *makeDriftPage();
    QWidget *makeEndpointForm();
    QWidget *makePolicyForm();
    QTableView *makeList(WorkspaceItemsModel *model, const QString &objectName);

    void showCurrentItem();
    void editItem(bool endpoint, int row);
    void updateButtons();
    void onEdited();
    void refreshChoices();
    void validate();
    void markProblem();
    void goToProblem();
    void updateNote();
    QString uniqueId(const QString &base, bool endpoint) const;

    WorkspaceDocument m_document;
    QByteArray m_savedJson;
    QString m_filePath;
    QHash<QString, QString> m_variables;
    std::optional<QHash<QString, QString>> m_environment;
    std::function<QString()> m_chooseFile;
    std::function<bool(const QString &, const QString &)> m_confirm;
    // The file's bytes as this dialog last read or wrote them (empty when it did not
    // exist): Save compares them with the file to notice changes made meanwhile.
    QByteArray m_fileSeen;

    WorkspaceItemsModel *m_endpointsModel = nullptr;
    WorkspaceItemsModel *m_policiesModel = nullptr;
    DriftModel *m_driftModel = nullptr;
    QLabel *m_note = nullptr;
    QTabWidget *m_pages = nullptr;
    QTableView *m_endpointsView = nullptr;
    QTableView *m_policiesView = nullptr;
    QTableView *m_driftView = nullptr;
    QLabel *m_noDrift = nullptr;
    QPushButton *m_addButton = nullptr;
    QPushButton *m_duplicateButton = nullptr;
    QPushButton *m_removeButton = nullptr;
    QStackedWidget *m_forms = nullptr;
    QWidget *m_emptyForm = nullptr;
    QWidget *m_endpointForm = nullptr;
    QWidget *m_policyForm = nullptr;
    JsonForm *m_endpointFields = nullptr;
    JsonForm *m_policyFields = nullptr;
    QLabel *m_problemLabel = nullptr;
    QPushButton *m_saveButton = nullptr;

    // The item the form edits: an endpoint or a policy, by position.
    bool m_editingEndpoint = true;
    int m_row = -1;
    QString m_formProblem; // a problem of the form's text itself (a header line)
    QString m_formProblemKey;
    QString m_problem;
    QString m_problemPath;
    QString m_savedNote;
};

} // namespace cooldown
