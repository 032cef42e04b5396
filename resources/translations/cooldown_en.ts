<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en" sourcelanguage="en">
<context>
    <name>cooldown::BulkActionDialog</name>
    <message numerus="yes">
        <source>%Ln operation(s) match</source>
        <translation>
            <numerusform>%Ln operation matches</numerusform>
            <numerusform>%Ln operations match</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>cooldown::EndpointsDialog</name>
    <message numerus="yes">
        <source>%n token request(s) since Cooldown started</source>
        <translation>
            <numerusform>%n token request since Cooldown started</numerusform>
            <numerusform>%n token requests since Cooldown started</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>cooldown::HistoryPage</name>
    <message numerus="yes">
        <source>%Ln operator action(s)</source>
        <translation>
            <numerusform>%Ln operator action</numerusform>
            <numerusform>%Ln operator actions</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%Ln attempt(s)</source>
        <translation>
            <numerusform>%Ln attempt</numerusform>
            <numerusform>%Ln attempts</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>cooldown::IntegrationsPage</name>
    <message numerus="yes">
        <source>%1 of %n integration(s) need attention</source>
        <translation>
            <numerusform>%1 of %n integration needs attention</numerusform>
            <numerusform>%1 of %n integrations need attention</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Incident %1: %2 has been failing since %3 for %n integration(s): %4. Their failures are held, and alerts speak of all of them at once.</source>
        <translation>
            <numerusform>Incident %1: %2 has been failing since %3 for %n integration: %4. Its failures are held, and alerts speak of it with the others.</numerusform>
            <numerusform>Incident %1: %2 has been failing since %3 for %n integrations: %4. Their failures are held, and alerts speak of all of them at once.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>cooldown::JobsPage</name>
    <message numerus="yes">
        <source>Send %n operation(s) now, bypassing the partition&apos;s token bucket?

The server may answer 429 again, and the attempt is recorded as forced.</source>
        <translation>
            <numerusform>Send %n operation now, bypassing the partition&apos;s token bucket?

The server may answer 429 again, and the attempt is recorded as forced.</numerusform>
            <numerusform>Send %n operations now, bypassing the partition&apos;s token bucket?

The server may answer 429 again, and the attempt is recorded as forced.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>cooldown::MainWindow</name>
    <message numerus="yes">
        <source>After %n failed operation(s) in a row. Resume endpoint on the Jobs page runs it again.</source>
        <translation>
            <numerusform>After %n failed operation in a row. Resume endpoint on the Jobs page runs it again.</numerusform>
            <numerusform>After %n failed operations in a row. Resume endpoint on the Jobs page runs it again.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Operation %1 after %n attempt(s): %2</source>
        <translation>
            <numerusform>Operation %1 after %n attempt: %2</numerusform>
            <numerusform>Operation %1 after %n attempts: %2</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>The demo workspace has no file to write a policy into. Open a workspace file to adopt what %1 states: %n request(s) per %2.</source>
        <translation>
            <numerusform>The demo workspace has no file to write a policy into. Open a workspace file to adopt what %1 states: %n request per %2.</numerusform>
            <numerusform>The demo workspace has no file to write a policy into. Open a workspace file to adopt what %1 states: %n requests per %2.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n workspace warning(s)</source>
        <translation>
            <numerusform>%n workspace warning</numerusform>
            <numerusform>%n workspace warnings</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>cooldown::PartitionsModel</name>
    <message numerus="yes">
        <source>%n available</source>
        <translation>
            <numerusform>%n available</numerusform>
            <numerusform>%n available</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n operation(s) due, waiting for the partition&apos;s next token. They hold no lease and no permit meanwhile.</source>
        <translation>
            <numerusform>%n operation due, waiting for the partition&apos;s next token. It holds no lease and no permit meanwhile.</numerusform>
            <numerusform>%n operations due, waiting for the partition&apos;s next token. They hold no lease and no permit meanwhile.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n operation(s) wait for their own next attempt.</source>
        <translation>
            <numerusform>%n operation waits for its own next attempt.</numerusform>
            <numerusform>%n operations wait for their own next attempt.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>cooldown::ReportDialog</name>
    <message numerus="yes">
        <source>Read from the rollups: %n endpoint(s).</source>
        <translation>
            <numerusform>Read from the rollups: %n endpoint.</numerusform>
            <numerusform>Read from the rollups: %n endpoints.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 in %n interval(s)</source>
        <translation>
            <numerusform>%1 in %n interval</numerusform>
            <numerusform>%1 in %n intervals</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>cooldown::WorkspaceItemsModel</name>
    <message numerus="yes">
        <source>differs for %n partition(s)</source>
        <translation>
            <numerusform>differs for %n partition</numerusform>
            <numerusform>differs for %n partitions</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>cooldown::cli::Text</name>
    <message numerus="yes">
        <source>%1: ok, %n job(s)
</source>
        <translation>
            <numerusform>%1: ok, %n job
</numerusform>
            <numerusform>%1: ok, %n jobs
</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>cooldown enqueue: nothing written (%n job(s) refused)
</source>
        <translation>
            <numerusform>cooldown enqueue: nothing written (%n job refused)
</numerusform>
            <numerusform>cooldown enqueue: nothing written (%n jobs refused)
</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n endpoint(s)</source>
        <translation>
            <numerusform>%n endpoint</numerusform>
            <numerusform>%n endpoints</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n policy(-ies)</source>
        <translation>
            <numerusform>%n policy</numerusform>
            <numerusform>%n policies</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n retry profile(s)</source>
        <translation>
            <numerusform>%n retry profile</numerusform>
            <numerusform>%n retry profiles</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>cooldown::import</name>
    <message numerus="yes">
        <source>left as they are: %n endpoint(s) this source did not make: %1
</source>
        <translation>
            <numerusform>left as they are: %n endpoint this source did not make: %1
</numerusform>
            <numerusform>left as they are: %n endpoints this source did not make: %1
</numerusform>
        </translation>
    </message>
</context>
</TS>
