// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/config/WorkspaceDocument.h"
#include "core/engine/CredentialBroker.h"
#include "core/ratelimit/PolicyDrift.h"

#include <QDialog>
#include <QHash>
#include <QList>
#include <QPointer>
#include <QString>

#include <functional>
#include <optional>

class QAbstractItemModel;
class QFormLayout;
class QLabel;
class QPushButton;
class QStackedWidget;
class QTabWidget;
class QTableView;

namespace cooldown {

class Clock;
class CredentialTest;
class CredentialsModel;
class DriftModel;
class JsonForm;
class RandomSource;
struct CredentialTestResult;
class WorkspaceItemsModel;

// Adds and edits the endpoints and rate-limit policies of a workspace file. Every
// edit rebuilds the document and reads it as `cooldown --config` would; the first
// problem is shown with its JSON path, its field is marked, and Save stays off until
// the document is valid. Save writes the whole file at once (WorkspaceDocument::save);
// a workspace that is no file (the demo) is saved as a file the user picks. The
// window applies what was saved to the running engine (saved()).
// The Credentials page lists the workspace's credentials, tls entries and proxy as the
// file writes them (a secret only by the name of its variable) and tests an OAuth
// credential by asking its token endpoint for a token; it shows the token's expiry and
// scope, never the token. The Drift page shows what servers advertise against the
// configured policies.
class EndpointsDialog final : public QDialog
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(EndpointsDialog)

public:
    enum class Page
    {
        Endpoints,
        Policies,
        Credentials,
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
    // The credentials as the running engine holds them, for the Credentials page.
    void setCredentialStates(const QList<CredentialState> &states, qint64 nowMs);
    // The clock and random source of Test; by default the system's.
    void setTestClock(const Clock &clock, RandomSource &random);
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
    // Shows an item in the form: page Endpoints, Policies or Credentials, row in that list.
    void selectItem(Page page, int row);
    // Shows the credential id on the Credentials page.
    void selectCredential(const QString &id);
    // Asks the token endpoint of the OAuth credential shown for a token now
    // (credentialTested() follows).
    void testCredential();

    WorkspaceItemsModel *endpointsModel() const { return m_endpointsModel; }
    WorkspaceItemsModel *policiesModel() const { return m_policiesModel; }
    DriftModel *driftModel() const { return m_driftModel; }
    CredentialsModel *credentialsModel() const { return m_credentialsModel; }
    QPushButton *saveButton() const { return m_saveButton; }
    QPushButton *testButton() const { return m_testButton; }
    // What the last test of the credential shown came to, as shown.
    QString testResult() const;

signals:
    void saved(const QString &path);
    // A test of credential id ended; ok: a token came.
    void credentialTested(const QString &id, bool ok);

public slots:
    void reject() override;

private:
    QWidget *makeDriftPage();
    QWidget *makeCredentialForm();
    void showCredential(int row);
    void showTestResult(const QString &id);
    void onTested(const QString &id, const CredentialTestResult &result);
    QWidget *makeEndpointForm();
    QWidget *makePolicyForm();
    QTableView *makeList(QAbstractItemModel *model, const QString &objectName);

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
    CredentialsModel *m_credentialsModel = nullptr;
    QLabel *m_note = nullptr;
    QTabWidget *m_pages = nullptr;
    QTableView *m_endpointsView = nullptr;
    QTableView *m_policiesView = nullptr;
    QTableView *m_credentialsView = nullptr;
    QTableView *m_driftView = nullptr;
    QLabel *m_noDrift = nullptr;
    QPushButton *m_addButton = nullptr;
    QPushButton *m_duplicateButton = nullptr;
    QPushButton *m_removeButton = nullptr;
    QStackedWidget *m_forms = nullptr;
    QWidget *m_emptyForm = nullptr;
    QWidget *m_endpointForm = nullptr;
    QWidget *m_policyForm = nullptr;
    QWidget *m_credentialForm = nullptr;
    QLabel *m_credentialTitle = nullptr;
    QFormLayout *m_credentialRows = nullptr;
    QPushButton *m_testButton = nullptr;
    QLabel *m_testResult = nullptr;
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

    // The credential shown on the Credentials page, by id; the test running, if any, and
    // what each credential's last test came to (text, and whether it failed).
    QString m_credentialShown;
    QPointer<CredentialTest> m_test;
    QHash<QString, QPair<QString, bool>> m_testResults;
    QHash<QString, CredentialState> m_credentialStates;
    qint64 m_credentialStatesAtMs = 0;
    const Clock *m_testClock = nullptr;
    RandomSource *m_testRandom = nullptr;
};

} // namespace cooldown
