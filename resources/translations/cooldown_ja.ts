<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="ja_JP" sourcelanguage="en">
<context>
    <name>TimeTicks</name>
    <message>
        <source>now</source>
        <translation>現在</translation>
    </message>
    <message>
        <source>−%1 min</source>
        <translation>−%1 分</translation>
    </message>
    <message>
        <source>−%1 h</source>
        <translation>−%1 時間</translation>
    </message>
    <message>
        <source>−%1 d</source>
        <translation>−%1 日</translation>
    </message>
    <message>
        <source>d MMM</source>
        <comment>date format</comment>
        <translation>M月d日</translation>
    </message>
    <message>
        <source>ddd HH:mm</source>
        <comment>date format</comment>
        <translation>(ddd) HH:mm</translation>
    </message>
    <message>
        <source>d MMM HH:mm</source>
        <comment>date format</comment>
        <translation>M月d日 HH:mm</translation>
    </message>
</context>
<context>
    <name>cooldown::AttemptInspector</name>
    <message>
        <source>&lt;p style=&apos;color:#5f6368&apos;&gt;Select an attempt to see what was sent, what came back and why the engine decided as it did.&lt;/p&gt;</source>
        <translation>&lt;p style=&apos;color:#5f6368&apos;&gt;試行を選ぶと、送信した内容、返ってきた応答、エンジンがそう判断した理由を表示します。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;h3&gt;Attempt %1 of operation %2&lt;/h3&gt;</source>
        <translation>&lt;h3&gt;オペレーション %2 の試行 %1&lt;/h3&gt;</translation>
    </message>
    <message>
        <source>Endpoint</source>
        <translation>エンドポイント</translation>
    </message>
    <message>
        <source>Request</source>
        <translation>リクエスト</translation>
    </message>
    <message>
        <source>Started</source>
        <translation>開始</translation>
    </message>
    <message>
        <source>Duration</source>
        <translation>所要時間</translation>
    </message>
    <message>
        <source>Outcome</source>
        <translation>結果</translation>
    </message>
    <message>
        <source>Decision</source>
        <translation>判断</translation>
    </message>
    <message>
        <source>Wait</source>
        <translation>待機</translation>
    </message>
    <message>
        <source>%1 from %2</source>
        <translation>%1(%2 による)</translation>
    </message>
    <message>
        <source>Raw Retry-After</source>
        <translation>Retry-After(受信したまま)</translation>
    </message>
    <message>
        <source>(none)</source>
        <translation>(なし)</translation>
    </message>
    <message>
        <source>Problem type</source>
        <translation>問題の種別 (type)</translation>
    </message>
    <message>
        <source>Problem instance</source>
        <translation>問題のインスタンス (instance)</translation>
    </message>
    <message>
        <source>Quota remaining</source>
        <translation>クォータ残量</translation>
    </message>
    <message>
        <source>Idempotency key</source>
        <translation>冪等性キー</translation>
    </message>
    <message>
        <source>Policy</source>
        <translation>ポリシー</translation>
    </message>
    <message>
        <source>Worker</source>
        <translation>ワーカー</translation>
    </message>
    <message>
        <source>Forced</source>
        <translation>強制</translation>
    </message>
    <message>
        <source>yes: an operator bypassed the token bucket</source>
        <translation>はい: オペレーターがトークンバケットを迂回しました</translation>
    </message>
    <message>
        <source>Lease</source>
        <translation>リース</translation>
    </message>
    <message>
        <source>lost: this exchange did not change the operation</source>
        <translation>喪失: この送受信はオペレーションを変更していません</translation>
    </message>
    <message>
        <source>&lt;h4&gt;Request headers&lt;/h4&gt;</source>
        <translation>&lt;h4&gt;リクエストヘッダー&lt;/h4&gt;</translation>
    </message>
    <message>
        <source>&lt;h4&gt;Response headers&lt;/h4&gt;</source>
        <translation>&lt;h4&gt;レスポンスヘッダー&lt;/h4&gt;</translation>
    </message>
    <message>
        <source>&lt;h4&gt;Why: the rules applied to this response&lt;/h4&gt;&lt;p style=&apos;color:#5f6368&apos;&gt;As &lt;code&gt;cooldown explain&lt;/code&gt; prints it, from the stored status and headers (the body is not kept, and the jitter is drawn again).&lt;/p&gt;</source>
        <translation>&lt;h4&gt;理由: この応答に適用された規則&lt;/h4&gt;&lt;p style=&apos;color:#5f6368&apos;&gt;&lt;code&gt;cooldown explain&lt;/code&gt; の出力と同じく、保存されたステータスとヘッダーから求めたものです(本文は保存されておらず、ジッターは引き直されます)。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Check failed</source>
        <translation>チェック不合格</translation>
    </message>
    <message>
        <source>&lt;h4&gt;Request body (%1 bytes)&lt;/h4&gt;</source>
        <translation>&lt;h4&gt;リクエスト本文 (%1 バイト)&lt;/h4&gt;</translation>
    </message>
    <message>
        <source>&lt;h4&gt;Response body (%1 bytes)&lt;/h4&gt;</source>
        <translation>&lt;h4&gt;レスポンス本文 (%1 バイト)&lt;/h4&gt;</translation>
    </message>
    <message>
        <source>&lt;h4&gt;Why: the rules applied to this response&lt;/h4&gt;&lt;p style=&apos;color:#5f6368&apos;&gt;As the engine decided, from the stored status, headers and the body kept (the jitter is drawn again).&lt;/p&gt;</source>
        <translation>&lt;h4&gt;理由: この応答に適用された規則&lt;/h4&gt;&lt;p style=&apos;color:#5f6368&apos;&gt;エンジンの判断と同じく、保存されたステータス、ヘッダー、保持された本文から求めたものです(ジッターは引き直されます)。&lt;/p&gt;</translation>
    </message>
</context>
<context>
    <name>cooldown::AuditModel</name>
    <message>
        <source>Retry</source>
        <translation>再試行</translation>
    </message>
    <message>
        <source>Force</source>
        <translation>強制</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>キャンセル</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>一時停止</translation>
    </message>
    <message>
        <source>Resume</source>
        <translation>再開</translation>
    </message>
    <message>
        <source>Lift hold</source>
        <translation>ホールド解除</translation>
    </message>
    <message>
        <source>command line</source>
        <translation>コマンドライン</translation>
    </message>
    <message>
        <source>When</source>
        <translation>日時</translation>
    </message>
    <message>
        <source>Who</source>
        <translation>実行者</translation>
    </message>
    <message>
        <source>Action</source>
        <translation>操作</translation>
    </message>
    <message>
        <source>Filter or operations</source>
        <translation>フィルターまたは対象</translation>
    </message>
    <message>
        <source>Asked</source>
        <translation>対象数</translation>
    </message>
    <message>
        <source>Changed</source>
        <translation>変更数</translation>
    </message>
    <message>
        <source>Applied by</source>
        <translation>適用したエンジン</translation>
    </message>
</context>
<context>
    <name>cooldown::BulkActionDialog</name>
    <message>
        <source>Any time</source>
        <translation>すべての期間</translation>
    </message>
    <message>
        <source>In the last 15 minutes</source>
        <translation>直近 15 分以内</translation>
    </message>
    <message>
        <source>In the last hour</source>
        <translation>直近 1 時間以内</translation>
    </message>
    <message>
        <source>In the last 24 hours</source>
        <translation>直近 24 時間以内</translation>
    </message>
    <message>
        <source>In the last 7 days</source>
        <translation>直近 7 日以内</translation>
    </message>
    <message>
        <source>Bulk action</source>
        <translation>一括操作</translation>
    </message>
    <message>
        <source>Act on every operation a filter selects. The fields fill in the filter; edit it for partitions, reasons or several values of a key (see docs/bulk-actions.md).</source>
        <translation>フィルターが選ぶすべてのオペレーションに操作を適用します。各欄はフィルターを書き込みます。パーティション、理由、1 つのキーに複数の値を指定するときはフィルターを直接編集してください (docs/bulk-actions.md を参照)。</translation>
    </message>
    <message>
        <source>&amp;Endpoint:</source>
        <translation>エンドポイント(&amp;E):</translation>
    </message>
    <message>
        <source>Any</source>
        <translation>すべて</translation>
    </message>
    <message>
        <source>&amp;State:</source>
        <translation>状態(&amp;S):</translation>
    </message>
    <message>
        <source>&amp;Last answer:</source>
        <translation>最後の応答(&amp;L):</translation>
    </message>
    <message>
        <source>429 Too Many Requests</source>
        <translation>429 リクエスト過多</translation>
    </message>
    <message>
        <source>503 Unavailable</source>
        <translation>503 サービス利用不可</translation>
    </message>
    <message>
        <source>Any 4xx</source>
        <translation>4xx すべて</translation>
    </message>
    <message>
        <source>Any 5xx</source>
        <translation>5xx すべて</translation>
    </message>
    <message>
        <source>No response</source>
        <translation>応答なし</translation>
    </message>
    <message>
        <source>&amp;Created:</source>
        <translation>作成(&amp;C):</translation>
    </message>
    <message>
        <source>endpoint=upload state=parked status=429 since=2h</source>
        <translation>endpoint=upload state=parked status=429 since=2h</translation>
    </message>
    <message>
        <source>&amp;Filter:</source>
        <translation>フィルター(&amp;F):</translation>
    </message>
    <message>
        <source>&amp;Action:</source>
        <translation>操作(&amp;A):</translation>
    </message>
    <message>
        <source>Retry now (through the partition&apos;s bucket)</source>
        <translation>今すぐ再試行 (パーティションのバケットを通す)</translation>
    </message>
    <message>
        <source>Force now (bypass the bucket; recorded as forced)</source>
        <translation>今すぐ強制送信 (バケットを迂回し、強制として記録)</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>キャンセル</translation>
    </message>
    <message>
        <source>The audit table records the action as done by %1.</source>
        <translation>監査テーブルにはこの操作を %1 が行ったものとして記録します。</translation>
    </message>
    <message>
        <source>&amp;Apply</source>
        <translation>適用(&amp;A)</translation>
    </message>
    <message>
        <source>&amp;Stop</source>
        <translation>停止(&amp;S)</translation>
    </message>
    <message>
        <source>Stop after the chunk being applied; what was applied stays</source>
        <translation>適用中のチャンクの後で停止します。適用済みの分はそのまま残ります</translation>
    </message>
    <message>
        <source>Filter: %1</source>
        <translation>フィルター: %1</translation>
    </message>
    <message>
        <source>Filter: name at least one term (an empty filter would select every operation)</source>
        <translation>フィルター: 条件を 1 つ以上指定してください (空のフィルターはすべてのオペレーションを選びます)</translation>
    </message>
    <message>
        <source>Counting…</source>
        <translation>集計中…</translation>
    </message>
    <message>
        <source>Cannot count the operations: %1</source>
        <translation>オペレーションを数えられません: %1</translation>
    </message>
    <message numerus="yes">
        <source>%Ln operation(s) match</source>
        <translation>
            <numerusform>%Ln 件のオペレーションが該当</numerusform>
        </translation>
    </message>
    <message>
        <source>, %1 of which can be cancelled</source>
        <translation>(うちキャンセルできるもの %1 件)</translation>
    </message>
    <message>
        <source>, %1 of which can be retried</source>
        <translation>(うち再試行できるもの %1 件)</translation>
    </message>
    <message>
        <source>at once</source>
        <translation>すぐに</translation>
    </message>
    <message>
        <source>in about %1</source>
        <translation>約 %1 で</translation>
    </message>
    <message>
        <source> (paced by partition %1)</source>
        <translation>(パーティション %1 の速度による)</translation>
    </message>
    <message>
        <source> (partition %1 is held by its server first)</source>
        <translation>(先にパーティション %1 がサーバーにホールドされています)</translation>
    </message>
    <message>
        <source> (limited by the in-flight limit)</source>
        <translation>(同時送信数の上限による)</translation>
    </message>
    <message>
        <source>. Left alone, at the current limits they would go out %1%2.</source>
        <translation>。そのままにすると、現在の制限では%1%2送信されます。</translation>
    </message>
    <message>
        <source>. At the current limits they go out %1%2.</source>
        <translation>。現在の制限では%1%2送信されます。</translation>
    </message>
    <message>
        <source>%1 of them belong to paused endpoints (%2) and are not sent until those are resumed.</source>
        <translation>うち %1 件は一時停止中のエンドポイント (%2) のもので、再開されるまで送信されません。</translation>
    </message>
    <message>
        <source>%1 of them are parked because their idempotency key has expired: they are sent with the same key, which the server may have forgotten, and may run again.</source>
        <translation>うち %1 件は冪等性キーの有効期限切れで保留されています。同じキーで送信されますが、サーバーがキーを忘れている場合は再実行されることがあります。</translation>
    </message>
    <message>
        <source>Warning: that is longer than the retry deadline of endpoint %1 (%2, deadline_seconds of its retry profile): those sent after it that the server asks to retry are not retried again.</source>
        <translation>警告: エンドポイント %1 の再試行期限 (%2、再試行プロファイルの deadline_seconds) より長くかかります。期限後に送信され、サーバーから再試行を求められたものは再試行されません。</translation>
    </message>
    <message>
        <source>%1 of %2 — %3 changed</source>
        <translation>%1 / %2 — %3 件変更</translation>
    </message>
    <message>
        <source>The database failed: %1 (%2 operations were changed before)</source>
        <translation>データベースのエラー: %1 (それまでに %2 件のオペレーションを変更しました)</translation>
    </message>
    <message>
        <source>Stopped after %1 of %2 operations; %3 were changed.</source>
        <translation>%2 件中 %1 件で停止しました。%3 件を変更しました。</translation>
    </message>
    <message>
        <source>%1 operations cancelled</source>
        <translation>%1 件のオペレーションをキャンセルしました</translation>
    </message>
    <message>
        <source>; %1 have an attempt running and become cancelled when it ends</source>
        <translation>。%1 件は試行が実行中で、終わった時点でキャンセルされます</translation>
    </message>
    <message>
        <source>; %1 were left as they are (ended, or no longer matching)</source>
        <translation>。%1 件はそのままです (終了済み、または条件に合わなくなったもの)</translation>
    </message>
    <message>
        <source>%1 operations are due now, forced</source>
        <translation>%1 件のオペレーションを今すぐ強制送信します</translation>
    </message>
    <message>
        <source>%1 operations are due now</source>
        <translation>%1 件のオペレーションを今すぐ送信します</translation>
    </message>
    <message>
        <source>; %1 were left as they are (running, ended, or no longer matching)</source>
        <translation>。%1 件はそのままです (実行中、終了済み、または条件に合わなくなったもの)</translation>
    </message>
</context>
<context>
    <name>cooldown::CredentialTest</name>
    <message>
        <source>%1 is no OAuth credential of this workspace</source>
        <translation>%1 はこのワークスペースの OAuth 認証情報ではありません</translation>
    </message>
</context>
<context>
    <name>cooldown::CredentialsModel</name>
    <message>
        <source> (not for: %1)</source>
        <translation> (%1 は除く)</translation>
    </message>
    <message>
        <source>host names not checked</source>
        <translation>ホスト名を検証しない</translation>
    </message>
    <message>
        <source>%1; host names not checked</source>
        <translation>%1、ホスト名を検証しない</translation>
    </message>
    <message>
        <source>(no id)</source>
        <translation>(ID なし)</translation>
    </message>
    <message>
        <source>Id</source>
        <translation>ID</translation>
    </message>
    <message>
        <source>Type</source>
        <translation>種類</translation>
    </message>
    <message>
        <source>Token URL, header or files</source>
        <translation>トークン URL、ヘッダーまたはファイル</translation>
    </message>
    <message>
        <source>certificates not checked</source>
        <translation>証明書を検証しない</translation>
    </message>
    <message>
        <source>%1; certificates not checked</source>
        <translation>%1; 証明書を検証しない</translation>
    </message>
</context>
<context>
    <name>cooldown::CustomRangeDialog</name>
    <message>
        <source>Custom time range</source>
        <translation>期間の指定</translation>
    </message>
    <message>
        <source>&amp;From:</source>
        <translation>開始(&amp;F):</translation>
    </message>
    <message>
        <source>&amp;To:</source>
        <translation>終了(&amp;T):</translation>
    </message>
    <message>
        <source>The Overview shows this window as it is; it does not move with the clock.</source>
        <translation>概要ではこの期間をそのまま表示します。時刻が進んでも移動しません。</translation>
    </message>
    <message>
        <source>The window must start before it ends.</source>
        <translation>開始は終了より前にしてください。</translation>
    </message>
    <message>
        <source>The window cannot end in the future.</source>
        <translation>終了を未来にすることはできません。</translation>
    </message>
    <message>
        <source>The window can span at most %1 days.</source>
        <translation>期間は最大 %1 日です。</translation>
    </message>
</context>
<context>
    <name>cooldown::DriftModel</name>
    <message>
        <source>%1 %2</source>
        <translation>%1 %2</translation>
    </message>
    <message>
        <source>%1 at once</source>
        <translation>同時 %1</translation>
    </message>
    <message>
        <source>%1 per %2 s</source>
        <translation>%2 秒あたり %1</translation>
    </message>
    <message>
        <source>The server allows less than the configuration assumes: expect 429s</source>
        <translation>サーバーの許容量が設定より少なくなっています: 429 が返る見込みです</translation>
    </message>
    <message>
        <source>Policy</source>
        <translation>ポリシー</translation>
    </message>
    <message>
        <source>Partition key</source>
        <translation>パーティションキー</translation>
    </message>
    <message>
        <source>Configured</source>
        <translation>設定値</translation>
    </message>
    <message>
        <source>Server advertises</source>
        <translation>サーバーの通知値</translation>
    </message>
    <message>
        <source>Differences</source>
        <translation>差異</translation>
    </message>
    <message>
        <source>Seen</source>
        <translation>確認時刻</translation>
    </message>
</context>
<context>
    <name>cooldown::EndpointsDialog</name>
    <message>
        <source>Endpoints and policies</source>
        <translation>エンドポイントとポリシー</translation>
    </message>
    <message>
        <source>Save workspace as</source>
        <translation>ワークスペースに名前を付けて保存</translation>
    </message>
    <message>
        <source>Workspace config (*.json)</source>
        <translation>ワークスペース設定 (*.json)</translation>
    </message>
    <message>
        <source>Endp&amp;oints</source>
        <translation>エンドポイント(&amp;O)</translation>
    </message>
    <message>
        <source>Poli&amp;cies</source>
        <translation>ポリシー(&amp;C)</translation>
    </message>
    <message>
        <source>What servers advertised in &lt;code&gt;RateLimit-Policy&lt;/code&gt; since the engine started, beside the configured policy. Select a row to edit its policy.</source>
        <translation>エンジン起動以降にサーバーが &lt;code&gt;RateLimit-Policy&lt;/code&gt; で通知した内容を、設定済みのポリシーと並べて表示します。行を選ぶとそのポリシーを編集できます。</translation>
    </message>
    <message>
        <source>No server has advertised other limits than the configured ones.</source>
        <translation>設定と異なる制限を通知したサーバーはありません。</translation>
    </message>
    <message>
        <source>Dri&amp;ft</source>
        <translation>ドリフト(&amp;F)</translation>
    </message>
    <message>
        <source>Add</source>
        <translation>追加</translation>
    </message>
    <message>
        <source>Duplicate</source>
        <translation>複製</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>削除</translation>
    </message>
    <message>
        <source>Select an endpoint or a policy, or add one.</source>
        <translation>エンドポイントかポリシーを選ぶか、新しく追加してください。</translation>
    </message>
    <message>
        <source>Save &amp;as…</source>
        <translation>名前を付けて保存(&amp;A)…</translation>
    </message>
    <message>
        <source>&amp;Save</source>
        <translation>保存(&amp;S)</translation>
    </message>
    <message>
        <source>Dri&amp;ft (%1)</source>
        <translation>ドリフト (%1)(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Id:</source>
        <translation>ID(&amp;I):</translation>
    </message>
    <message>
        <source>letters, digits, &apos;.&apos;, &apos;_&apos; or &apos;-&apos;</source>
        <translation>英字、数字、&apos;.&apos;、&apos;_&apos;、&apos;-&apos;</translation>
    </message>
    <message>
        <source>&amp;Name:</source>
        <translation>名前(&amp;N):</translation>
    </message>
    <message>
        <source>the id</source>
        <translation>ID と同じ</translation>
    </message>
    <message>
        <source>&amp;Method:</source>
        <translation>メソッド(&amp;M):</translation>
    </message>
    <message>
        <source>&amp;URL:</source>
        <translation>&amp;URL:</translation>
    </message>
    <message>
        <source>https://api.example.com/items (${env:NAME} allowed)</source>
        <translation>https://api.example.com/items(${env:NAME} 使用可)</translation>
    </message>
    <message>
        <source>&amp;Every (seconds):</source>
        <translation>実行間隔 (秒)(&amp;E):</translation>
    </message>
    <message>
        <source>empty or 0: once per database</source>
        <translation>空または 0: データベースごとに 1 回</translation>
    </message>
    <message>
        <source>&amp;Timeout (seconds):</source>
        <translation>タイムアウト (秒)(&amp;T):</translation>
    </message>
    <message>
        <source>&amp;Policy:</source>
        <translation>ポリシー(&amp;P):</translation>
    </message>
    <message>
        <source>none</source>
        <translation>なし</translation>
    </message>
    <message>
        <source>Partition &amp;key:</source>
        <translation>パーティションキー(&amp;K):</translation>
    </message>
    <message>
        <source>e.g. project-184</source>
        <translation>例: project-184</translation>
    </message>
    <message>
        <source>&amp;Retry profile:</source>
        <translation>再試行プロファイル(&amp;R):</translation>
    </message>
    <message>
        <source>Idempotency &amp;header:</source>
        <translation>冪等性ヘッダー(&amp;H):</translation>
    </message>
    <message>
        <source>none (e.g. Idempotency-Key)</source>
        <translation>なし (例: Idempotency-Key)</translation>
    </message>
    <message>
        <source>Hea&amp;ders:</source>
        <translation>ヘッダー(&amp;D):</translation>
    </message>
    <message>
        <source>One per line, e.g.
Authorization: Bearer ${env:API_TOKEN}</source>
        <translation>1 行に 1 つ。例:
Authorization: Bearer ${env:API_TOKEN}</translation>
    </message>
    <message>
        <source>Write secrets as &lt;code&gt;${env:NAME}&lt;/code&gt;: the file keeps the reference.</source>
        <translation>秘密情報は &lt;code&gt;${env:NAME}&lt;/code&gt; と書いてください。ファイルには参照だけが残ります。</translation>
    </message>
    <message>
        <source>&amp;Body:</source>
        <translation>本文(&amp;B):</translation>
    </message>
    <message>
        <source>sent as is</source>
        <translation>そのまま送信</translation>
    </message>
    <message>
        <source>Policy &amp;id:</source>
        <translation>ポリシー ID(&amp;I):</translation>
    </message>
    <message>
        <source>e.g. project-read-v1</source>
        <translation>例: project-read-v1</translation>
    </message>
    <message>
        <source>Pa&amp;rtition:</source>
        <translation>パーティション(&amp;R):</translation>
    </message>
    <message>
        <source>e.g. project_id</source>
        <translation>例: project_id</translation>
    </message>
    <message>
        <source>Reso&amp;urce:</source>
        <translation>リソース(&amp;U):</translation>
    </message>
    <message>
        <source>any</source>
        <translation>すべて</translation>
    </message>
    <message>
        <source>&amp;Quota unit:</source>
        <translation>クォータ単位(&amp;Q):</translation>
    </message>
    <message>
        <source>&amp;Limit:</source>
        <translation>上限(&amp;L):</translation>
    </message>
    <message>
        <source>required: units per window</source>
        <translation>必須: ウィンドウあたりの単位数</translation>
    </message>
    <message>
        <source>&amp;Window (seconds):</source>
        <translation>ウィンドウ (秒)(&amp;W):</translation>
    </message>
    <message>
        <source>required, except for concurrency</source>
        <translation>必須 (concurrency を除く)</translation>
    </message>
    <message>
        <source>&amp;Burst:</source>
        <translation>バースト(&amp;B):</translation>
    </message>
    <message>
        <source>Policy &amp;version:</source>
        <translation>ポリシーバージョン(&amp;V):</translation>
    </message>
    <message>
        <source>&amp;X-RateLimit-Reset:</source>
        <translation>&amp;X-RateLimit-Reset:</translation>
    </message>
    <message>
        <source>&lt;b&gt;Not saved until this is fixed:&lt;/b&gt; %1</source>
        <translation>&lt;b&gt;これを直すまで保存できません:&lt;/b&gt; %1</translation>
    </message>
    <message>
        <source>Show</source>
        <translation>表示</translation>
    </message>
    <message>
        <source>%1 was changed by another program after it was opened here. Saving replaces those changes with what this dialog shows.</source>
        <translation>%1 はここで開いた後に別のプログラムによって変更されました。保存すると、その変更はこのダイアログの内容で置き換えられます。</translation>
    </message>
    <message>
        <source>Overwrite</source>
        <translation>上書き</translation>
    </message>
    <message>
        <source>&lt;b&gt;Not saved:&lt;/b&gt; %1</source>
        <translation>&lt;b&gt;保存されていません:&lt;/b&gt; %1</translation>
    </message>
    <message>
        <source>Saved at %1.</source>
        <translation>%1 に保存しました。</translation>
    </message>
    <message>
        <source>Discard the changes that are not saved?</source>
        <translation>保存していない変更を破棄しますか?</translation>
    </message>
    <message>
        <source>Discard</source>
        <translation>破棄</translation>
    </message>
    <message>
        <source>The demo workspace is built into the application: &lt;b&gt;Save as…&lt;/b&gt; writes your version to a file, which the running engine then takes up and &lt;code&gt;cooldown --config FILE&lt;/code&gt; opens.</source>
        <translation>デモのワークスペースはアプリケーションに組み込まれています。&lt;b&gt;名前を付けて保存…&lt;/b&gt; で編集した内容をファイルに書き出すと、いま動いているエンジンがそれを使い始め、&lt;code&gt;cooldown --config FILE&lt;/code&gt; でも開けます。</translation>
    </message>
    <message>
        <source>Editing &lt;b&gt;%1&lt;/b&gt;. Each change is checked as you type; Save writes the file and the running engine takes it up without a restart.</source>
        <translation>&lt;b&gt;%1&lt;/b&gt; を編集中です。変更は入力するたびに検査され、保存するとファイルに書き込まれ、いま動いているエンジンに再起動なしで反映されます。</translation>
    </message>
    <message>
        <source>Credentia&amp;ls</source>
        <translation>認証情報(&amp;L)</translation>
    </message>
    <message>
        <source>Credenti&amp;als:</source>
        <translation>認証情報(&amp;A):</translation>
    </message>
    <message>
        <source>TLS settin&amp;gs:</source>
        <translation>TLS 設定(&amp;G):</translation>
    </message>
    <message>
        <source>none: the system&apos;s CAs</source>
        <translation>なし (システムの CA)</translation>
    </message>
    <message>
        <source>Pro&amp;xy:</source>
        <translation>プロキシ(&amp;X):</translation>
    </message>
    <message>
        <source>the workspace&apos;s</source>
        <translation>ワークスペースの設定</translation>
    </message>
    <message>
        <source>&amp;Test</source>
        <translation>テスト(&amp;T)</translation>
    </message>
    <message>
        <source>Ask the token endpoint for a token now, as the engine would. The token itself is never shown, and is dropped.</source>
        <translation>エンジンと同じ方法で、今すぐトークンエンドポイントにトークンを要求します。トークン自体は表示されず、そのまま破棄されます。</translation>
    </message>
    <message>
        <source>Secrets are read from the environment when the workspace is loaded and are never shown here: only the names of the variables. These sections are edited in the workspace file; an endpoint names what it uses in its own form.</source>
        <translation>シークレットはワークスペースの読み込み時に環境変数から読み取られ、ここには表示されません (表示されるのは変数名だけです)。これらのセクションはワークスペースファイルで編集します。エンドポイントが使うものは、そのエンドポイントのフォームで指定します。</translation>
    </message>
    <message>
        <source>%1 (set)</source>
        <translation>%1 (設定済み)</translation>
    </message>
    <message>
        <source>%1 (not set)</source>
        <translation>%1 (未設定)</translation>
    </message>
    <message>
        <source>Environment:</source>
        <translation>環境変数:</translation>
    </message>
    <message>
        <source>Used by:</source>
        <translation>使用元:</translation>
    </message>
    <message>
        <source>nothing yet</source>
        <translation>まだありません</translation>
    </message>
    <message>
        <source>Credentials %1</source>
        <translation>認証情報 %1</translation>
    </message>
    <message>
        <source>OAuth 2.0 client credentials (%1)</source>
        <translation>OAuth 2.0 クライアントクレデンシャル (%1)</translation>
    </message>
    <message>
        <source>Bearer token (%1)</source>
        <translation>Bearer トークン (%1)</translation>
    </message>
    <message>
        <source>HTTP Basic (%1)</source>
        <translation>HTTP Basic 認証 (%1)</translation>
    </message>
    <message>
        <source>A header of its own (%1)</source>
        <translation>独自のヘッダー (%1)</translation>
    </message>
    <message>
        <source>Type:</source>
        <translation>種類:</translation>
    </message>
    <message>
        <source>Token URL:</source>
        <translation>トークン URL:</translation>
    </message>
    <message>
        <source>Client ID:</source>
        <translation>クライアント ID:</translation>
    </message>
    <message>
        <source>Client authentication:</source>
        <translation>クライアント認証:</translation>
    </message>
    <message>
        <source>client_secret_basic (the default)</source>
        <translation>client_secret_basic (既定)</translation>
    </message>
    <message>
        <source>Scope:</source>
        <translation>スコープ:</translation>
    </message>
    <message>
        <source>Audience:</source>
        <translation>オーディエンス:</translation>
    </message>
    <message>
        <source>Extra parameters:</source>
        <translation>追加パラメーター:</translation>
    </message>
    <message>
        <source>TLS: %1; proxy: %2</source>
        <translation>TLS: %1、プロキシ: %2</translation>
    </message>
    <message>
        <source>the system&apos;s CAs</source>
        <translation>システムの CA</translation>
    </message>
    <message>
        <source>%1 (those of %2)</source>
        <translation>%1 (%2 と同じ)</translation>
    </message>
    <message>
        <source>Token request:</source>
        <translation>トークン要求:</translation>
    </message>
    <message>
        <source>Header:</source>
        <translation>ヘッダー:</translation>
    </message>
    <message>
        <source>User name:</source>
        <translation>ユーザー名:</translation>
    </message>
    <message>
        <source>token valid until %1, scope %2</source>
        <translation>トークンは %1 まで有効、スコープ %2</translation>
    </message>
    <message>
        <source>none stated</source>
        <translation>指定なし</translation>
    </message>
    <message>
        <source>asking for a token</source>
        <translation>トークンを要求中</translation>
    </message>
    <message>
        <source>no token held</source>
        <translation>トークンなし</translation>
    </message>
    <message numerus="yes">
        <source>%n token request(s) since Cooldown started</source>
        <translation>
            <numerusform>Cooldown の起動以降 %n 回のトークン要求</numerusform>
        </translation>
    </message>
    <message>
        <source>In the engine:</source>
        <translation>エンジンでの状態:</translation>
    </message>
    <message>
        <source>TLS settings %1</source>
        <translation>TLS 設定 %1</translation>
    </message>
    <message>
        <source>CA file:</source>
        <translation>CA ファイル:</translation>
    </message>
    <message>
        <source>Client certificate:</source>
        <translation>クライアント証明書:</translation>
    </message>
    <message>
        <source>Client key:</source>
        <translation>クライアント鍵:</translation>
    </message>
    <message>
        <source>PKCS#12 file:</source>
        <translation>PKCS#12 ファイル:</translation>
    </message>
    <message>
        <source>Trusts:</source>
        <translation>信頼する CA:</translation>
    </message>
    <message>
        <source>Host names:</source>
        <translation>ホスト名:</translation>
    </message>
    <message>
        <source>checked</source>
        <translation>検証する</translation>
    </message>
    <message>
        <source>not checked (verify_hostname: false): a certificate issued for another name is accepted</source>
        <translation>検証しない (verify_hostname: false): 別の名前に発行された証明書も受け入れます</translation>
    </message>
    <message>
        <source>the token requests of %1</source>
        <translation>%1 のトークン要求</translation>
    </message>
    <message>
        <source>The workspace&apos;s proxy</source>
        <translation>ワークスペースのプロキシ</translation>
    </message>
    <message>
        <source>Proxy:</source>
        <translation>プロキシ:</translation>
    </message>
    <message>
        <source>%1 is no OAuth credential</source>
        <translation>%1 は OAuth 認証情報ではありません</translation>
    </message>
    <message>
        <source>Not tested: %1</source>
        <translation>テストしていません: %1</translation>
    </message>
    <message>
        <source>Asking %1 for a token…</source>
        <translation>%1 にトークンを要求しています…</translation>
    </message>
    <message>
        <source>No token: the token endpoint answered HTTP %1: %2</source>
        <translation>トークンを取得できません: トークンエンドポイントの応答は HTTP %1: %2</translation>
    </message>
    <message>
        <source>No token: %1</source>
        <translation>トークンを取得できません: %1</translation>
    </message>
    <message>
        <source>Token valid until %1 (expires in %2 s), scope %3. The token endpoint answered in %4.</source>
        <translation>トークンは %1 まで有効です (あと %2 秒で期限切れ)。スコープ: %3。トークンエンドポイントの応答時間は %4 でした。</translation>
    </message>
    <message>
        <source>E&amp;xpect:</source>
        <translation>期待する応答(&amp;X):</translation>
    </message>
    <message>
        <source>What an answer must say, e.g.
{&quot;json&quot;: [{&quot;pointer&quot;: &quot;/status&quot;, &quot;equals&quot;: &quot;ok&quot;}]}
(see docs/checks.md)</source>
        <translation>応答が満たすべき内容。例:
{&quot;json&quot;: [{&quot;pointer&quot;: &quot;/status&quot;, &quot;equals&quot;: &quot;ok&quot;}]}
(docs/checks.md を参照)</translation>
    </message>
    <message>
        <source>Latency bu&amp;dget (ms):</source>
        <translation>レイテンシー予算 (ミリ秒)(&amp;D):</translation>
    </message>
    <message>
        <source>none: slower answers are not degraded</source>
        <translation>なし: 遅い応答も劣化とみなしません</translation>
    </message>
    <message>
        <source>SLA tar&amp;get (%):</source>
        <translation>SLA 目標(&amp;G) (%):</translation>
    </message>
    <message>
        <source>none, e.g. 99.5: the SLA report says whether it was met</source>
        <translation>なし。例: 99.5。SLA レポートが達成したかどうかを示します</translation>
    </message>
    <message>
        <source>any certificate (verify_certificate: false): anyone on the way can read and change the exchanges</source>
        <translation>どの証明書でも信頼 (verify_certificate: false): 経路上の誰でもやり取りを読み、書き換えられます</translation>
    </message>
</context>
<context>
    <name>cooldown::HistoryModel</name>
    <message>
        <source>%1 (lease lost)</source>
        <translation>%1 (リース喪失)</translation>
    </message>
    <message>
        <source>Started</source>
        <translation>開始</translation>
    </message>
    <message>
        <source>Endpoint</source>
        <translation>エンドポイント</translation>
    </message>
    <message>
        <source>Operation</source>
        <translation>オペレーション</translation>
    </message>
    <message>
        <source>Attempt</source>
        <translation>試行</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>ステータス</translation>
    </message>
    <message>
        <source>Decision</source>
        <translation>判断</translation>
    </message>
    <message>
        <source>Reason</source>
        <translation>理由</translation>
    </message>
    <message>
        <source>Wait</source>
        <translation>待機</translation>
    </message>
    <message>
        <source>Wait from</source>
        <translation>待機の根拠</translation>
    </message>
    <message>
        <source>Retry-After</source>
        <translation>Retry-After</translation>
    </message>
    <message>
        <source>Duration</source>
        <translation>所要時間</translation>
    </message>
    <message>
        <source>Worker</source>
        <translation>ワーカー</translation>
    </message>
</context>
<context>
    <name>cooldown::HistoryPage</name>
    <message>
        <source>&amp;Endpoint:</source>
        <translation>エンドポイント(&amp;E):</translation>
    </message>
    <message>
        <source>All</source>
        <translation>すべて</translation>
    </message>
    <message>
        <source>S&amp;tatus:</source>
        <translation>ステータス(&amp;T):</translation>
    </message>
    <message>
        <source>Any</source>
        <translation>すべて</translation>
    </message>
    <message>
        <source>2xx success</source>
        <translation>2xx 成功</translation>
    </message>
    <message>
        <source>429 Too Many Requests</source>
        <translation>429 リクエスト過多</translation>
    </message>
    <message>
        <source>503 Unavailable</source>
        <translation>503 サービス利用不可</translation>
    </message>
    <message>
        <source>Other 4xx</source>
        <translation>その他の 4xx</translation>
    </message>
    <message>
        <source>Other 5xx</source>
        <translation>その他の 5xx</translation>
    </message>
    <message>
        <source>No response</source>
        <translation>応答なし</translation>
    </message>
    <message>
        <source>&amp;Decision:</source>
        <translation>判断(&amp;D):</translation>
    </message>
    <message>
        <source>T&amp;ime:</source>
        <translation>期間(&amp;I):</translation>
    </message>
    <message>
        <source>E&amp;xport CSV…</source>
        <translation>CSV にエクスポート(&amp;X)…</translation>
    </message>
    <message>
        <source>Write the attempts of this endpoint and time range as CSV</source>
        <translation>このエンドポイントと期間の試行を CSV に書き出します</translation>
    </message>
    <message>
        <source>Reading… %L1 of %L2</source>
        <translation>読み込み中… %L1 / %L2</translation>
    </message>
    <message>
        <source>History: %1</source>
        <translation>履歴: %1</translation>
    </message>
    <message>
        <source>Reading…</source>
        <translation>読み込み中…</translation>
    </message>
    <message numerus="yes">
        <source>%Ln attempt(s)</source>
        <translation>
            <numerusform>%Ln 件の試行</numerusform>
        </translation>
    </message>
    <message>
        <source>Export attempts as CSV</source>
        <translation>試行を CSV にエクスポート</translation>
    </message>
    <message>
        <source>CSV files (*.csv);;All files (*)</source>
        <translation>CSV ファイル (*.csv);;すべてのファイル (*)</translation>
    </message>
    <message>
        <source>Writing %L1 of %L2 attempts…</source>
        <translation>試行を書き出し中… %L1 / %L2</translation>
    </message>
    <message>
        <source>Export: %1</source>
        <translation>エクスポート: %1</translation>
    </message>
    <message>
        <source>Export cancelled; no file was written</source>
        <translation>エクスポートをキャンセルしました。ファイルは書き込まれていません</translation>
    </message>
    <message>
        <source>Export failed: %1</source>
        <translation>エクスポートに失敗しました: %1</translation>
    </message>
    <message>
        <source>Exporting attempts…</source>
        <translation>試行をエクスポート中…</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>キャンセル</translation>
    </message>
    <message>
        <source>Export CSV</source>
        <translation>CSV にエクスポート</translation>
    </message>
    <message>
        <source>Last 15 minutes</source>
        <translation>直近 15 分</translation>
    </message>
    <message>
        <source>Last hour</source>
        <translation>直近 1 時間</translation>
    </message>
    <message>
        <source>Last 24 hours</source>
        <translation>直近 24 時間</translation>
    </message>
    <message>
        <source>Last 7 days</source>
        <translation>直近 7 日</translation>
    </message>
    <message>
        <source>Everything</source>
        <translation>すべて</translation>
    </message>
    <message>
        <source>Older attempts were removed by the workspace&apos;s retention; the Overview still shows them, summed per minute.</source>
        <translation>それより古い試行はワークスペースの保持期間により削除されました。概要には分ごとの集計として引き続き表示されます。</translation>
    </message>
    <message>
        <source>Raw history since %1</source>
        <translation>個々の試行の履歴: %1 以降</translation>
    </message>
    <message>
        <source>&amp;View:</source>
        <translation>表示(&amp;V):</translation>
    </message>
    <message>
        <source>Attempts</source>
        <translation>試行</translation>
    </message>
    <message>
        <source>Operator actions</source>
        <translation>オペレーターの操作</translation>
    </message>
    <message>
        <source>The newest %L1 operator actions</source>
        <translation>最新 %L1 件のオペレーターの操作</translation>
    </message>
    <message numerus="yes">
        <source>%Ln operator action(s)</source>
        <translation>
            <numerusform>%Ln 件のオペレーターの操作</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>cooldown::ImportDialog</name>
    <message>
        <source>Import endpoints</source>
        <translation>エンドポイントのインポート</translation>
    </message>
    <message>
        <source>curl command</source>
        <translation>curl コマンド</translation>
    </message>
    <message>
        <source>OpenAPI document</source>
        <translation>OpenAPI ドキュメント</translation>
    </message>
    <message>
        <source>Postman collection</source>
        <translation>Postman コレクション</translation>
    </message>
    <message>
        <source>&amp;Open file…</source>
        <translation>ファイルを開く(&amp;O)…</translation>
    </message>
    <message>
        <source>made from the source&apos;s name</source>
        <translation>ソースの名前から作成</translation>
    </message>
    <message>
        <source>the document&apos;s first server; or its number, or a URL</source>
        <translation>ドキュメントの最初のサーバー。または番号か URL</translation>
    </message>
    <message>
        <source>&amp;Environment…</source>
        <translation>環境(&amp;E)…</translation>
    </message>
    <message>
        <source>none</source>
        <translation>なし</translation>
    </message>
    <message>
        <source>&amp;From:</source>
        <translation>インポート元(&amp;F):</translation>
    </message>
    <message>
        <source>Variables &amp;begin with:</source>
        <translation>変数名の先頭(&amp;B):</translation>
    </message>
    <message>
        <source>&amp;Server:</source>
        <translation>サーバー(&amp;S):</translation>
    </message>
    <message>
        <source>Postman environment:</source>
        <translation>Postman 環境:</translation>
    </message>
    <message>
        <source>&amp;Preview</source>
        <translation>プレビュー(&amp;P)</translation>
    </message>
    <message>
        <source>&amp;Import</source>
        <translation>インポート(&amp;I)</translation>
    </message>
    <message>
        <source>Paste the source, or open its file:</source>
        <translation>ソースを貼り付けるか、そのファイルを開いてください:</translation>
    </message>
    <message>
        <source>What the import does (nothing changes before Import):</source>
        <translation>インポートで行われること ([インポート] を押すまで何も変わりません):</translation>
    </message>
    <message>
        <source>curl -X POST https://api.example.com/v1/orders -H …</source>
        <translation>curl -X POST https://api.example.com/v1/orders -H …</translation>
    </message>
    <message>
        <source>The document, JSON or YAML</source>
        <translation>ドキュメント (JSON または YAML)</translation>
    </message>
    <message>
        <source>Open the source</source>
        <translation>ソースを開く</translation>
    </message>
    <message>
        <source>Sources (*.json *.yaml *.yml *.sh *.txt);;All files (*)</source>
        <translation>ソース (*.json *.yaml *.yml *.sh *.txt);;すべてのファイル (*)</translation>
    </message>
    <message>
        <source>Cannot read %1: %2</source>
        <translation>%1 を読み込めません: %2</translation>
    </message>
    <message>
        <source>Open the Postman environment</source>
        <translation>Postman 環境を開く</translation>
    </message>
    <message>
        <source>JSON (*.json)</source>
        <translation>JSON (*.json)</translation>
    </message>
    <message>
        <source>No curl command in what is pasted.</source>
        <translation>貼り付けた内容に curl コマンドがありません。</translation>
    </message>
    <message>
        <source>pasted</source>
        <translation>貼り付け</translation>
    </message>
    <message>
        <source>source</source>
        <translation>ソース</translation>
    </message>
    <message>
        <source>Save the workspace as</source>
        <translation>ワークスペースに名前を付けて保存</translation>
    </message>
    <message>
        <source>Workspace (*.json)</source>
        <translation>ワークスペース (*.json)</translation>
    </message>
    <message>
        <source>Not written: %1</source>
        <translation>書き込んでいません: %1</translation>
    </message>
    <message>
        <source>The document, JSON or YAML, or its URL on this machine</source>
        <translation>ドキュメント (JSON または YAML)、またはこのマシン上のその URL</translation>
    </message>
    <message>
        <source>Fetching %1…</source>
        <translation>%1 を取得しています…</translation>
    </message>
    <message>
        <source>Written to %1, without a secret: the workspace names them as environment variables, and these are not set where Cooldown runs:

%2
Set them and start Cooldown again to run the workspace. Until then the engine goes on with what it runs.</source>
        <translation>%1 に書き込みました。シークレットは書き込んでいません。ワークスペースはそれらを環境変数として参照しますが、Cooldown が動いている環境では次の変数が設定されていません:

%2
これらを設定してから Cooldown を起動し直すと、ワークスペースが実行されます。それまでエンジンは今のワークスペースで動き続けます。</translation>
    </message>
</context>
<context>
    <name>cooldown::IntegrationsModel</name>
    <message>
        <source>paused</source>
        <translation>一時停止中</translation>
    </message>
    <message>
        <source>held</source>
        <translation>ホールド中</translation>
    </message>
    <message>
        <source>failing</source>
        <translation>失敗中</translation>
    </message>
    <message>
        <source>throttled</source>
        <translation>流量制限中</translation>
    </message>
    <message>
        <source>waiting</source>
        <translation>再試行待ち</translation>
    </message>
    <message>
        <source>ok</source>
        <translation>正常</translation>
    </message>
    <message>
        <source>never</source>
        <translation>なし</translation>
    </message>
    <message>
        <source>running now</source>
        <translation>実行中</translation>
    </message>
    <message>
        <source>An operator paused this endpoint; none of its operations is claimed.</source>
        <translation>オペレーターがこのエンドポイントを一時停止しました。そのオペレーションは取得されません。</translation>
    </message>
    <message>
        <source>The server holds partition %1 / %2 until %3: %4</source>
        <translation>サーバーがパーティション %1 / %2 を %3 までホールドしています: %4</translation>
    </message>
    <message>
        <source>Its latest operation that ended failed.</source>
        <translation>最後に終了したオペレーションが失敗しました。</translation>
    </message>
    <message>
        <source>%1 of %2 attempts answered 429 or 503 in the last %3.</source>
        <translation>直近 %3 の試行 %2 件のうち %1 件が 429 または 503 でした。</translation>
    </message>
    <message>
        <source>%1 scheduled · %2 waiting · %3 running · %4 parked</source>
        <translation>予定 %1 · 待機中 %2 · 実行中 %3 · 保留 %4</translation>
    </message>
    <message>
        <source>Attempts that succeeded, of those that decided an outcome (success, failure, parked) in the last %1: %2 of %3</source>
        <translation>直近 %1 に結果 (成功、失敗、保留) が決まった試行のうち成功したもの: %3 件中 %2 件</translation>
    </message>
    <message>
        <source>Attempts answered 429 or 503, of all attempts in the last %1: %2 of %3</source>
        <translation>直近 %1 の全試行のうち 429 または 503 が返ったもの: %3 件中 %2 件</translation>
    </message>
    <message>
        <source>Exchange durations of the latest %1 attempts in the last %2</source>
        <translation>直近 %2 のうち最新 %1 件の試行の送受信時間</translation>
    </message>
    <message>
        <source>Exchange durations of the %1 attempts in the last %2</source>
        <translation>直近 %2 の試行 %1 件の送受信時間</translation>
    </message>
    <message>
        <source>Last hour, per minute: %1 attempts, of which %2 answered 429 or 503</source>
        <translation>直近 1 時間 (1 分ごと): 試行 %1 件、うち 429 または 503 が %2 件</translation>
    </message>
    <message>
        <source>State</source>
        <translation>状態</translation>
    </message>
    <message>
        <source>Endpoint</source>
        <translation>エンドポイント</translation>
    </message>
    <message>
        <source>Last success</source>
        <translation>最後の成功</translation>
    </message>
    <message>
        <source>Success rate</source>
        <translation>成功率</translation>
    </message>
    <message>
        <source>429/503 share</source>
        <translation>429/503 の割合</translation>
    </message>
    <message>
        <source>p50 exchange</source>
        <translation>送受信 p50</translation>
    </message>
    <message>
        <source>p95 exchange</source>
        <translation>送受信 p95</translation>
    </message>
    <message>
        <source>Next run</source>
        <translation>次回の実行</translation>
    </message>
    <message>
        <source>Last hour</source>
        <translation>直近 1 時間</translation>
    </message>
    <message>
        <source>credentials refused</source>
        <translation>認証情報拒否</translation>
    </message>
    <message>
        <source>waiting for credentials</source>
        <translation>認証情報待ち</translation>
    </message>
    <message>
        <source>The token endpoint has failed since %1.</source>
        <translation>トークンエンドポイントは %1 から失敗しています。</translation>
    </message>
    <message>
        <source>Operations that need a token are parked: mend the client&apos;s id or secret, then retry them.</source>
        <translation>トークンが必要なオペレーションは保留されています。クライアント ID またはシークレットを直してから再試行してください。</translation>
    </message>
    <message>
        <source>Operations wait for a token without spending attempts, and go out once one comes.</source>
        <translation>オペレーションは試行回数を消費せずにトークンを待ち、トークンが届きしだい送信されます。</translation>
    </message>
    <message>
        <source>in maintenance</source>
        <translation>メンテナンス中</translation>
    </message>
    <message>
        <source>held until %1</source>
        <translation>%1 までホールド</translation>
    </message>
    <message>
        <source>Held until %1: %2. Its operations wait and its periodic checks are skipped; it resumes by itself.</source>
        <translation>%1 までホールド: %2。操作は待機し、定期チェックはスキップされます。終了すると自動で再開します。</translation>
    </message>
    <message>
        <source>degraded</source>
        <translation>劣化</translation>
    </message>
    <message>
        <source>blocked</source>
        <translation>ブロック中</translation>
    </message>
    <message>
        <source>blocked by %1</source>
        <translation>%1 によりブロック中</translation>
    </message>
    <message>
        <source>Blocked by %1 since %2: several integrations fail for it. Their failures are held without spending attempts and count towards no automatic pause; one alert speaks for all of them.</source>
        <translation>%2 から %1 によりブロックされています: 複数の連携がこの原因で失敗しています。失敗は試行回数を消費せずに保留され、自動一時停止にも数えられません。アラートはまとめて 1 件だけ送られます。</translation>
    </message>
</context>
<context>
    <name>cooldown::IntegrationsPage</name>
    <message>
        <source>Last hour</source>
        <translation>直近 1 時間</translation>
    </message>
    <message>
        <source>Last 24 hours</source>
        <translation>直近 24 時間</translation>
    </message>
    <message>
        <source>Last 7 days</source>
        <translation>直近 7 日</translation>
    </message>
    <message>
        <source>Last 30 days</source>
        <translation>直近 30 日</translation>
    </message>
    <message>
        <source>&amp;Range:</source>
        <translation>期間(&amp;R):</translation>
    </message>
    <message>
        <source>Select an integration to show only its operations in Jobs and its attempts in History.</source>
        <translation>連携を選ぶと、ジョブと履歴にその連携のオペレーションと試行だけを表示します。</translation>
    </message>
    <message numerus="yes">
        <source>%1 of %n integration(s) need attention</source>
        <translation>
            <numerusform>%n 件の連携のうち %1 件に注意が必要です</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Incident %1: %2 has been failing since %3 for %n integration(s): %4. Their failures are held, and alerts speak of all of them at once.</source>
        <translation>
            <numerusform>インシデント %1: %3 から %2 が %n 件の連携で失敗しています: %4。失敗は保留され、アラートはまとめて送られます。</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>cooldown::JobsModel</name>
    <message>
        <source>%1 (held, %2)</source>
        <translation>%1 (ホールド中、%2)</translation>
    </message>
    <message>
        <source>%1 (paused)</source>
        <translation>%1 (一時停止中)</translation>
    </message>
    <message>
        <source>Operation</source>
        <translation>オペレーション</translation>
    </message>
    <message>
        <source>Endpoint</source>
        <translation>エンドポイント</translation>
    </message>
    <message>
        <source>State</source>
        <translation>状態</translation>
    </message>
    <message>
        <source>Attempt</source>
        <translation>試行</translation>
    </message>
    <message>
        <source>Next attempt</source>
        <translation>次の試行</translation>
    </message>
    <message>
        <source>Last status</source>
        <translation>直近のステータス</translation>
    </message>
    <message>
        <source>Wait from</source>
        <translation>待機の根拠</translation>
    </message>
    <message>
        <source>Partition</source>
        <translation>パーティション</translation>
    </message>
    <message>
        <source>Lease owner</source>
        <translation>リース保持者</translation>
    </message>
    <message>
        <source>Reason</source>
        <translation>理由</translation>
    </message>
</context>
<context>
    <name>cooldown::JobsPage</name>
    <message>
        <source>Force now</source>
        <translation>今すぐ強制送信</translation>
    </message>
    <message>
        <source>&amp;Retry now</source>
        <translation>今すぐ再試行(&amp;R)</translation>
    </message>
    <message>
        <source>Make the selected operations due now; they still wait for a token of their partition&apos;s bucket</source>
        <translation>選択したオペレーションを今すぐ実行対象にします。パーティションのバケットのトークンは引き続き待ちます</translation>
    </message>
    <message>
        <source>&amp;Force now…</source>
        <translation>今すぐ強制送信(&amp;F)…</translation>
    </message>
    <message>
        <source>Send the selected operations now, bypassing the token bucket; recorded as forced</source>
        <translation>選択したオペレーションをトークンバケットを迂回して今すぐ送信します。強制として記録されます</translation>
    </message>
    <message>
        <source>&amp;Cancel</source>
        <translation>キャンセル(&amp;C)</translation>
    </message>
    <message>
        <source>Cancel the selected operations</source>
        <translation>選択したオペレーションをキャンセルします</translation>
    </message>
    <message>
        <source>&amp;Pause endpoint</source>
        <translation>エンドポイントを一時停止(&amp;P)</translation>
    </message>
    <message>
        <source>Stop claiming operations of the selected endpoints</source>
        <translation>選択したエンドポイントのオペレーションの取得を止めます</translation>
    </message>
    <message>
        <source>Res&amp;ume endpoint</source>
        <translation>エンドポイントを再開(&amp;U)</translation>
    </message>
    <message>
        <source>Claim operations of the selected endpoints again</source>
        <translation>選択したエンドポイントのオペレーションの取得を再開します</translation>
    </message>
    <message>
        <source>&amp;Lift hold</source>
        <translation>ホールドを解除(&amp;L)</translation>
    </message>
    <message>
        <source>Let the held partition send again before the server&apos;s time</source>
        <translation>サーバーが指定した時刻より前に、ホールド中のパーティションの送信を再開します</translation>
    </message>
    <message>
        <source>&amp;Show:</source>
        <translation>表示(&amp;S):</translation>
    </message>
    <message>
        <source>Active (scheduled, running, waiting, parked)</source>
        <translation>進行中 (予定、実行中、待機中、保留)</translation>
    </message>
    <message>
        <source>Failed</source>
        <translation>失敗</translation>
    </message>
    <message>
        <source>Recent, any state</source>
        <translation>最近のもの (全状態)</translation>
    </message>
    <message>
        <source>&lt;b&gt;Partitions&lt;/b&gt; — why their operations wait, for every worker: a server&apos;s hold (nothing is sent before it), the next token</source>
        <translation>&lt;b&gt;パーティション&lt;/b&gt; — 全ワーカーについて、オペレーションが待っている理由: サーバーのホールド (それまでは何も送信しません)、次のトークン</translation>
    </message>
    <message>
        <source>%1 scheduled · %2 waiting · %3 running · %4 parked</source>
        <translation>予定 %1 · 待機中 %2 · 実行中 %3 · 保留 %4</translation>
    </message>
    <message>
        <source>done</source>
        <translation>完了</translation>
    </message>
    <message>
        <source>applied when the running attempt ends</source>
        <translation>実行中の試行が終わった時点で適用</translation>
    </message>
    <message>
        <source>refused in its current state</source>
        <translation>現在の状態では実行できません</translation>
    </message>
    <message>
        <source>no longer exists</source>
        <translation>もう存在しません</translation>
    </message>
    <message>
        <source>the database failed</source>
        <translation>データベースのエラー</translation>
    </message>
    <message numerus="yes">
        <source>Send %n operation(s) now, bypassing the partition&apos;s token bucket?

The server may answer 429 again, and the attempt is recorded as forced.</source>
        <translation>
            <numerusform>パーティションのトークンバケットを迂回して、%n 件のオペレーションを今すぐ送信しますか?

サーバーが再び 429 を返すことがあります。この試行は強制として記録されます。</numerusform>
        </translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message>
        <source>Force now — %1</source>
        <translation>今すぐ強制送信 — %1</translation>
    </message>
    <message>
        <source>Retry now — %1</source>
        <translation>今すぐ再試行 — %1</translation>
    </message>
    <message>
        <source>Cancel — %1</source>
        <translation>キャンセル — %1</translation>
    </message>
    <message>
        <source>Paused: %1</source>
        <translation>一時停止: %1</translation>
    </message>
    <message>
        <source>Resumed: %1</source>
        <translation>再開: %1</translation>
    </message>
    <message>
        <source>Hold lifted: %1 / %2</source>
        <translation>ホールド解除: %1 / %2</translation>
    </message>
    <message>
        <source>&amp;Adopt as policy</source>
        <translation>ポリシーとして採用(&amp;A)</translation>
    </message>
    <message>
        <source>Write the limit this server states into the workspace as a policy of its endpoints that have none</source>
        <translation>このサーバーが示す上限を、ポリシーのないエンドポイントのポリシーとしてワークスペースに書き込みます</translation>
    </message>
    <message>
        <source>Show all endpoints</source>
        <translation>すべてのエンドポイントを表示</translation>
    </message>
    <message>
        <source>Endpoint: &lt;b&gt;%1&lt;/b&gt;</source>
        <translation>エンドポイント: &lt;b&gt;%1&lt;/b&gt;</translation>
    </message>
    <message>
        <source>Database: %1</source>
        <translation>データベース: %1</translation>
    </message>
    <message>
        <source>&amp;Bulk action…</source>
        <translation>一括操作(&amp;B)…</translation>
    </message>
    <message>
        <source>Retry, force or cancel every operation a filter selects, after seeing how many match and how long they take to go out</source>
        <translation>フィルターが選ぶすべてのオペレーションを、該当件数と送信にかかる時間を確認してから再試行・強制送信・キャンセルします</translation>
    </message>
    <message>
        <source>Hold the selected endpoints for a while, as for a partner&apos;s maintenance; they resume by themselves</source>
        <translation>選択したエンドポイントを一定時間ホールドします (取引先のメンテナンスなど)。時間が来ると自動で再開します</translation>
    </message>
    <message>
        <source>paused by %1 for %2</source>
        <translation>%1 が %2 一時停止</translation>
    </message>
    <message>
        <source>Pause f&amp;or…</source>
        <translation>期間を指定して一時停止(&amp;O)…</translation>
    </message>
</context>
<context>
    <name>cooldown::JsonForm</name>
    <message>
        <source>line %1: expected &apos;Name: value&apos;</source>
        <translation>%1 行目: &apos;Name: value&apos; の形式で書いてください</translation>
    </message>
    <message>
        <source>line %1: %2 is already given</source>
        <translation>%1 行目: %2 はすでに指定されています</translation>
    </message>
    <message>
        <source>not JSON: %1 at character %2</source>
        <translation>JSON ではありません: %2 文字目で %1</translation>
    </message>
</context>
<context>
    <name>cooldown::MainWindow</name>
    <message>
        <source>Cooldown — %1</source>
        <translation>Cooldown — %1</translation>
    </message>
    <message>
        <source>&amp;Overview</source>
        <translation>概要(&amp;O)</translation>
    </message>
    <message>
        <source>&amp;Jobs</source>
        <translation>ジョブ(&amp;J)</translation>
    </message>
    <message>
        <source>&amp;History</source>
        <translation>履歴(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>ファイル(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Endpoints…</source>
        <translation>エンドポイント(&amp;E)…</translation>
    </message>
    <message>
        <source>Add and edit the workspace&apos;s endpoints and policies; compare them with what servers advertise</source>
        <translation>ワークスペースのエンドポイントとポリシーを追加・編集し、サーバーの通知値と比べます</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>終了(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>表示(&amp;V)</translation>
    </message>
    <message>
        <source>Overview</source>
        <translation>概要</translation>
    </message>
    <message>
        <source>Jobs</source>
        <translation>ジョブ</translation>
    </message>
    <message>
        <source>History</source>
        <translation>履歴</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>ヘルプ(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;About Cooldown</source>
        <translation>Cooldown について(&amp;A)</translation>
    </message>
    <message>
        <source>Database: %1</source>
        <translation>データベース: %1</translation>
    </message>
    <message>
        <source>Engine database error: %1</source>
        <translation>エンジンのデータベースエラー: %1</translation>
    </message>
    <message>
        <source>%1 failed for good</source>
        <translation>%1 が最終的に失敗しました</translation>
    </message>
    <message numerus="yes">
        <source>Operation %1 after %n attempt(s): %2</source>
        <translation>
            <numerusform>オペレーション %1、%n 回の試行の後: %2</numerusform>
        </translation>
    </message>
    <message>
        <source>No held partitions</source>
        <translation>ホールド中のパーティションなし</translation>
    </message>
    <message>
        <source>Held partitions: %1 (until %2)</source>
        <translation>ホールド中のパーティション: %1 (%2 まで)</translation>
    </message>
    <message>
        <source>&lt;b&gt;Policy drift: %1 (server stricter)&lt;/b&gt;</source>
        <translation>&lt;b&gt;ポリシーのドリフト: %1 (サーバーの方が厳しい)&lt;/b&gt;</translation>
    </message>
    <message>
        <source>Policy drift: %1</source>
        <translation>ポリシーのドリフト: %1</translation>
    </message>
    <message>
        <source>Click to compare with the configured policies.</source>
        <translation>クリックすると設定済みのポリシーと比較します。</translation>
    </message>
    <message>
        <source>Policy conflict: %1 — %2</source>
        <translation>ポリシーの競合: %1 — %2</translation>
    </message>
    <message>
        <source>Policy conflicts: %1</source>
        <translation>ポリシーの競合: %1</translation>
    </message>
    <message>
        <source>The database keeps its version. Click to see the partitions.</source>
        <translation>データベースのバージョンが維持されます。クリックするとパーティションを表示します。</translation>
    </message>
    <message>
        <source>The demo workspace is missing from this build.</source>
        <translation>このビルドにはデモのワークスペースがありません。</translation>
    </message>
    <message>
        <source>Endpoints</source>
        <translation>エンドポイント</translation>
    </message>
    <message>
        <source>In flight: %1 / %2</source>
        <translation>送信中: %1 / %2</translation>
    </message>
    <message>
        <source>About Cooldown</source>
        <translation>Cooldown について</translation>
    </message>
    <message>
        <source>&lt;h3&gt;Cooldown %1&lt;/h3&gt;&lt;p&gt;Runs API integrations through one shared concurrency limit and a retry engine that treats &lt;b&gt;429&lt;/b&gt;, &lt;b&gt;503&lt;/b&gt; and &lt;code&gt;Retry-After&lt;/code&gt; as a contract, and keeps every attempt.&lt;/p&gt;&lt;p&gt;Workspace: %2&lt;br&gt;Database: %3&lt;/p&gt;</source>
        <translation>&lt;h3&gt;Cooldown %1&lt;/h3&gt;&lt;p&gt;API 連携を、共有の同時実行上限と、&lt;b&gt;429&lt;/b&gt;・&lt;b&gt;503&lt;/b&gt;・&lt;code&gt;Retry-After&lt;/code&gt; を約束として扱う再試行エンジンで実行し、すべての試行を記録します。&lt;/p&gt;&lt;p&gt;ワークスペース: %2&lt;br&gt;データベース: %3&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Adopt as policy</source>
        <translation>ポリシーとして採用</translation>
    </message>
    <message numerus="yes">
        <source>The demo workspace has no file to write a policy into. Open a workspace file to adopt what %1 states: %n request(s) per %2.</source>
        <translation>
            <numerusform>デモのワークスペースにはポリシーを書き込むファイルがありません。%1 が示す上限（%2 あたり %n 件のリクエスト）を採用するには、ワークスペースファイルを開いてください。</numerusform>
        </translation>
    </message>
    <message>
        <source>Policy %1 written to %2 for %3</source>
        <translation>ポリシー %1 を %3 のために %2 に書き込みました</translation>
    </message>
    <message>
        <source>%1; not applied, the engine goes on with its workspace: %2</source>
        <translation>%1。適用されませんでした。エンジンは現在のワークスペースで動作を続けます: %2</translation>
    </message>
    <message>
        <source>%1; applying it to the engine…</source>
        <translation>%1。エンジンに適用しています…</translation>
    </message>
    <message>
        <source>%1; the engine runs it now</source>
        <translation>%1。エンジンはこの内容で動作しています</translation>
    </message>
    <message>
        <source>Saved %1</source>
        <translation>%1 を保存しました</translation>
    </message>
    <message>
        <source>&amp;Integrations</source>
        <translation>連携(&amp;I)</translation>
    </message>
    <message>
        <source>Integrations</source>
        <translation>連携</translation>
    </message>
    <message>
        <source>%1 paused</source>
        <translation>%1 を一時停止しました</translation>
    </message>
    <message numerus="yes">
        <source>After %n failed operation(s) in a row. Resume endpoint on the Jobs page runs it again.</source>
        <translation>
            <numerusform>オペレーションが %n 件続けて失敗しました。ジョブページの「エンドポイントを再開」で再び実行します。</numerusform>
        </translation>
    </message>
    <message>
        <source>Credentials: %1 waiting, %2 refused</source>
        <translation>認証情報: 待機中 %1、拒否 %2</translation>
    </message>
    <message>
        <source>Click to see the workspace&apos;s credentials and test them.</source>
        <translation>クリックするとワークスペースの認証情報を表示し、テストできます。</translation>
    </message>
    <message>
        <source>Workspace warning: %1</source>
        <translation>ワークスペースの警告: %1</translation>
    </message>
    <message numerus="yes">
        <source>%n workspace warning(s)</source>
        <translation>
            <numerusform>ワークスペースの警告 %n 件</numerusform>
        </translation>
    </message>
    <message>
        <source>Click to see the workspace&apos;s credentials and TLS settings.</source>
        <translation>クリックするとワークスペースの認証情報と TLS 設定を表示します。</translation>
    </message>
    <message>
        <source>Database unreachable since %1: work is held</source>
        <translation>データベースに %1 から接続できません: 処理を止めています</translation>
    </message>
    <message>
        <source>%1
%2
Nothing is claimed or sent until it answers again; answers already received are kept and written then.</source>
        <translation>%1
%2
データベースが再び応答するまで、何も取得・送信しません。受信済みの応答は保持され、その時点で書き込まれます。</translation>
    </message>
    <message>
        <source>&amp;Import endpoints…</source>
        <translation>エンドポイントのインポート(&amp;I)…</translation>
    </message>
    <message>
        <source>Close Endpoints first: it holds its own copy of the workspace</source>
        <translation>先に [エンドポイント] を閉じてください: ワークスペースの独自のコピーを保持しています</translation>
    </message>
    <message>
        <source>Imported into %1</source>
        <translation>%1 にインポートしました</translation>
    </message>
    <message>
        <source>SLA &amp;report…</source>
        <translation>SLA レポート(&amp;R)…</translation>
    </message>
    <message>
        <source>Offline since %1: work is held</source>
        <translation>%1 からオフライン: 作業を保留中</translation>
    </message>
    <message>
        <source>No request reaches the network. Attempts made meanwhile do not count against max_attempts; one request every 5 s looks whether the network is back, and sending then ramps up over a minute.</source>
        <translation>どのリクエストもネットワークに届きません。この間の試行は max_attempts に数えません。5 秒ごとに 1 件のリクエストでネットワークが戻ったかを確かめ、戻ったら 1 分かけて送信を元の速さに戻します。</translation>
    </message>
    <message>
        <source>Imported into %1; not applied until the variables it names are set and Cooldown starts again</source>
        <translation>%1 にインポートしました。参照する変数を設定して Cooldown を起動し直すまで適用されません</translation>
    </message>
</context>
<context>
    <name>cooldown::OverviewPage</name>
    <message>
        <source>Last 15 minutes</source>
        <translation>直近 15 分</translation>
    </message>
    <message>
        <source>Last hour</source>
        <translation>直近 1 時間</translation>
    </message>
    <message>
        <source>Last 24 hours</source>
        <translation>直近 24 時間</translation>
    </message>
    <message>
        <source>Last 7 days</source>
        <translation>直近 7 日</translation>
    </message>
    <message>
        <source>&amp;Time range:</source>
        <translation>期間(&amp;T):</translation>
    </message>
    <message>
        <source>Custom…</source>
        <translation>指定…</translation>
    </message>
    <message>
        <source>A fixed window of your choice, read from the database</source>
        <translation>任意の固定期間をデータベースから読み込みます</translation>
    </message>
    <message>
        <source>In flight / limit</source>
        <translation>送信中 / 上限</translation>
    </message>
    <message>
        <source>Exchanges on the wire now, and the configured global limit</source>
        <translation>現在送受信中の数と、設定された全体の上限</translation>
    </message>
    <message>
        <source>Waiting to retry</source>
        <translation>再試行待ち</translation>
    </message>
    <message>
        <source>Operations waiting for their next attempt</source>
        <translation>次の試行を待っているオペレーション</translation>
    </message>
    <message>
        <source>Parked</source>
        <translation>保留</translation>
    </message>
    <message>
        <source>Operations that need an operator</source>
        <translation>オペレーターの対応が必要なオペレーション</translation>
    </message>
    <message>
        <source>Failed today</source>
        <translation>本日の失敗</translation>
    </message>
    <message>
        <source>Operations that failed for good since midnight</source>
        <translation>0 時以降に最終的に失敗したオペレーション</translation>
    </message>
    <message>
        <source>Attempts per success</source>
        <translation>成功あたりの試行数</translation>
    </message>
    <message>
        <source>Attempts made for each success in the time range</source>
        <translation>期間内の成功 1 件あたりの試行回数</translation>
    </message>
    <message>
        <source>Held partitions</source>
        <translation>ホールド中のパーティション</translation>
    </message>
    <message>
        <source>Partitions a server told to wait (429 or 503 with a time)</source>
        <translation>サーバーから待機を指示されたパーティション (時刻付きの 429 または 503)</translation>
    </message>
    <message>
        <source>429 Too Many Requests per minute</source>
        <translation>1 分あたりの 429 リクエスト過多</translation>
    </message>
    <message>
        <source>429, all partitions</source>
        <translation>429、全パーティション</translation>
    </message>
    <message>
        <source>503, all</source>
        <translation>503、全体</translation>
    </message>
    <message>
        <source>429, %1</source>
        <translation>429、%1</translation>
    </message>
    <message>
        <source>Wait chosen, seconds per minute, by source</source>
        <translation>選ばれた待機時間 (1 分あたりの秒数、根拠別)</translation>
    </message>
    <message>
        <source>Final failures by reason</source>
        <translation>理由別の最終的な失敗</translation>
    </message>
    <message>
        <source>Operations failed for good</source>
        <translation>最終的に失敗したオペレーション</translation>
    </message>
    <message>
        <source>Peak in flight</source>
        <translation>送信中の最大</translation>
    </message>
    <message>
        <source>Limit</source>
        <translation>上限</translation>
    </message>
    <message>
        <source>Final failures by reason: none in this range</source>
        <translation>理由別の最終的な失敗: この期間にはありません</translation>
    </message>
    <message>
        <source>%1 in range</source>
        <translation>期間内 %1</translation>
    </message>
    <message>
        <source>%1 to %2, in buckets of %3 min</source>
        <translation>%1 〜 %2、%3 分単位</translation>
    </message>
    <message>
        <source>Server-given</source>
        <translation>サーバー指定</translation>
    </message>
    <message>
        <source>Backoff</source>
        <translation>バックオフ</translation>
    </message>
    <message>
        <source>Local queue (bucket, hold, permits)</source>
        <translation>ローカルの待ち (バケット、ホールド、許可数)</translation>
    </message>
    <message>
        <source>d MMM</source>
        <comment>date format</comment>
        <translation>M月d日</translation>
    </message>
    <message>
        <source>d MMM yyyy</source>
        <comment>date format</comment>
        <translation>yyyy年M月d日</translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation>%1 秒</translation>
    </message>
    <message>
        <source>%1 min</source>
        <translation>%1 分</translation>
    </message>
    <message>
        <source>%1 h</source>
        <translation>%1 時間</translation>
    </message>
    <message>
        <source>per minute, in steps of %1</source>
        <translation>1 分あたり (%1刻み)</translation>
    </message>
    <message>
        <source>In flight (peak in each %1) and limit</source>
        <translation>送信中 (%1ごとの最大) と上限</translation>
    </message>
</context>
<context>
    <name>cooldown::PartitionsModel</name>
    <message>
        <source>%1, burst %2</source>
        <translation>%1、バースト %2</translation>
    </message>
    <message>
        <source>not paced</source>
        <translation>ペース制限なし</translation>
    </message>
    <message>
        <source>one every %1, %2 at once</source>
        <translation>%1 ごとに 1 つ、同時 %2</translation>
    </message>
    <message numerus="yes">
        <source>%n available</source>
        <translation>
            <numerusform>%n 利用可</numerusform>
        </translation>
    </message>
    <message>
        <source>next %1</source>
        <translation>次 %1</translation>
    </message>
    <message>
        <source>next at %1</source>
        <translation>次は %1</translation>
    </message>
    <message>
        <source>A server asked to wait until %1: nothing of this partition is sent before then, by any worker.</source>
        <translation>サーバーから %1 まで待つよう指示されました。それまではどのワーカーもこのパーティションの送信をしません。</translation>
    </message>
    <message numerus="yes">
        <source>%n operation(s) due, waiting for the partition&apos;s next token. They hold no lease and no permit meanwhile.</source>
        <translation>
            <numerusform>%n 件のオペレーションが実行予定で、パーティションの次のトークンを待っています。その間、リースも許可も保持しません。</numerusform>
        </translation>
    </message>
    <message>
        <source>Due operations are claimed as tokens and permits allow.</source>
        <translation>実行予定のオペレーションは、トークンと許可が空き次第取得されます。</translation>
    </message>
    <message numerus="yes">
        <source>%n operation(s) wait for their own next attempt.</source>
        <translation>
            <numerusform>%n 件のオペレーションがそれぞれの次の試行を待っています。</numerusform>
        </translation>
    </message>
    <message>
        <source>Nothing waits.</source>
        <translation>待っているものはありません。</translation>
    </message>
    <message>
        <source>held by the server</source>
        <translation>サーバーがホールド中</translation>
    </message>
    <message>
        <source>waiting for a token</source>
        <translation>トークン待ち</translation>
    </message>
    <message>
        <source>sending</source>
        <translation>送信中</translation>
    </message>
    <message>
        <source>not due yet</source>
        <translation>まだ予定時刻前</translation>
    </message>
    <message>
        <source>idle</source>
        <translation>アイドル</translation>
    </message>
    <message>
        <source>%1 (%2 due)</source>
        <translation>%1 (実行予定 %2)</translation>
    </message>
    <message>
        <source>until %1 (%2)</source>
        <translation>%1 まで (%2)</translation>
    </message>
    <message>
        <source>%1 — %2</source>
        <translation>%1 — %2</translation>
    </message>
    <message>
        <source>%1 · version %2</source>
        <translation>%1 · バージョン %2</translation>
    </message>
    <message>
        <source>%1 — conflict</source>
        <translation>%1 — 競合</translation>
    </message>
    <message>
        <source>The next token at %1</source>
        <translation>次のトークンは %1</translation>
    </message>
    <message>
        <source>The database keeps version %1: %2</source>
        <translation>データベースはバージョン %1 を維持します: %2</translation>
    </message>
    <message>
        <source>Conflict: %1</source>
        <translation>競合: %1</translation>
    </message>
    <message>
        <source>Policy</source>
        <translation>ポリシー</translation>
    </message>
    <message>
        <source>Partition key</source>
        <translation>パーティションキー</translation>
    </message>
    <message>
        <source>State</source>
        <translation>状態</translation>
    </message>
    <message>
        <source>Waiting</source>
        <translation>待機中</translation>
    </message>
    <message>
        <source>Tokens</source>
        <translation>トークン</translation>
    </message>
    <message>
        <source>Held</source>
        <translation>ホールド</translation>
    </message>
    <message>
        <source>Configured</source>
        <translation>設定値</translation>
    </message>
    <message>
        <source>learned from the server: %1</source>
        <translation>サーバーから学習: %1</translation>
    </message>
    <message>
        <source>no policy; the server has stated no limit</source>
        <translation>ポリシーなし。サーバーは上限を示していません</translation>
    </message>
    <message>
        <source>%1 · the server states %2</source>
        <translation>%1 · サーバーの示す上限 %2</translation>
    </message>
    <message>
        <source>The operations of endpoints without a policy that go to %1, paced by what that server states.</source>
        <translation>%1 へ送る、ポリシーのないエンドポイントの操作。そのサーバーが示す上限でペースを保ちます。</translation>
    </message>
    <message>
        <source>Learned %1 from:
%2Forgotten at %3 unless the server says it again.</source>
        <translation>%1 に次のヘッダーから学習:
%2サーバーが再び示さなければ %3 に破棄します。</translation>
    </message>
    <message>
        <source>about %1 per second</source>
        <translation>毎秒約 %1 件</translation>
    </message>
    <message>
        <source>about one every %1 s</source>
        <translation>約 %1 秒に 1 件</translation>
    </message>
    <message>
        <source>measured from the server&apos;s refusals: %1</source>
        <translation>サーバーの拒否から測定: %1</translation>
    </message>
    <message>
        <source>Measured %1 from: %2</source>
        <translation>%1 に次から測定: %2</translation>
    </message>
</context>
<context>
    <name>cooldown::PauseForDialog</name>
    <message>
        <source>Pause for a while</source>
        <translation>期間を指定して一時停止</translation>
    </message>
    <message>
        <source>%1: their waiting operations are not sent and their periodic checks are skipped until the time is up; then they resume by themselves.</source>
        <translation>%1: 時間が来るまで待機中の操作は送信されず、定期チェックはスキップされます。その後は自動で再開します。</translation>
    </message>
    <message>
        <source>for example: the partner&apos;s maintenance</source>
        <translation>例: 取引先のメンテナンス</translation>
    </message>
    <message>
        <source>&amp;For:</source>
        <translation>期間(&amp;F):</translation>
    </message>
    <message>
        <source>&amp;Reason:</source>
        <translation>理由(&amp;R):</translation>
    </message>
    <message>
        <source>Until %1.</source>
        <translation>%1 まで。</translation>
    </message>
    <message>
        <source>Write a span such as 90m, 2h or 1d12h.</source>
        <translation>90m、2h、1d12h のように期間を入力してください。</translation>
    </message>
</context>
<context>
    <name>cooldown::ReportDialog</name>
    <message>
        <source>SLA report</source>
        <translation>SLA レポート</translation>
    </message>
    <message>
        <source>count as succeeded</source>
        <translation>成功として数える</translation>
    </message>
    <message>
        <source>count as not available</source>
        <translation>利用不可として数える</translation>
    </message>
    <message>
        <source>leave out</source>
        <translation>除外する</translation>
    </message>
    <message>
        <source>left out</source>
        <translation>除外</translation>
    </message>
    <message>
        <source>counted</source>
        <translation>含める</translation>
    </message>
    <message>
        <source>to</source>
        <translation>〜</translation>
    </message>
    <message>
        <source>Days:</source>
        <translation>期間:</translation>
    </message>
    <message>
        <source>Succeeded after a 429 or 503:</source>
        <translation>429 または 503 の後の成功:</translation>
    </message>
    <message>
        <source>Maintenance windows:</source>
        <translation>メンテナンス時間帯:</translation>
    </message>
    <message>
        <source>Export &amp;PDF…</source>
        <translation>PDF を書き出す(&amp;P)…</translation>
    </message>
    <message>
        <source>Reading…</source>
        <translation>読み込み中…</translation>
    </message>
    <message>
        <source>The report could not be read: %1</source>
        <translation>レポートを読み込めませんでした: %1</translation>
    </message>
    <message numerus="yes">
        <source>Read from the rollups: %n endpoint(s).</source>
        <translation>
            <numerusform>ロールアップから読み込みました: %n 件のエンドポイント。</numerusform>
        </translation>
    </message>
    <message>
        <source>From %1 to %2</source>
        <translation>%1 から %2 まで</translation>
    </message>
    <message>
        <source>No endpoint had attempts in the range.</source>
        <translation>この期間に試行のあったエンドポイントはありません。</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1 (%2)</translation>
    </message>
    <message>
        <source>Availability</source>
        <translation>可用性</translation>
    </message>
    <message>
        <source>Operations counted</source>
        <translation>数えたオペレーション</translation>
    </message>
    <message>
        <source>%1 available of %2</source>
        <translation>%2 件中 %1 件が利用可能</translation>
    </message>
    <message>
        <source>Target</source>
        <translation>目標</translation>
    </message>
    <message>
        <source>%1 %: %2</source>
        <translation>%1 %: %2</translation>
    </message>
    <message>
        <source>nothing counted</source>
        <translation>数える対象なし</translation>
    </message>
    <message>
        <source>met</source>
        <translation>達成</translation>
    </message>
    <message>
        <source>missed</source>
        <translation>未達</translation>
    </message>
    <message>
        <source>Succeeded / failed</source>
        <translation>成功 / 失敗</translation>
    </message>
    <message>
        <source>%1 / %2</source>
        <translation>%1 / %2</translation>
    </message>
    <message>
        <source>Succeeded after a 429 or 503</source>
        <translation>429 または 503 の後に成功</translation>
    </message>
    <message>
        <source>Degraded</source>
        <translation>劣化</translation>
    </message>
    <message>
        <source>Answered 429</source>
        <translation>429 の応答</translation>
    </message>
    <message>
        <source>%1 of %2 attempts (%3)</source>
        <translation>%2 回の試行中 %1 回 (%3)</translation>
    </message>
    <message>
        <source>Latency p50 / p95</source>
        <translation>レイテンシ p50 / p95</translation>
    </message>
    <message>
        <source>Downtime</source>
        <translation>ダウンタイム</translation>
    </message>
    <message numerus="yes">
        <source>%1 in %n interval(s)</source>
        <translation>
            <numerusform>%1 (%n 区間)</numerusform>
        </translation>
    </message>
    <message>
        <source>Failed: %1</source>
        <translation>失敗: %1</translation>
    </message>
    <message>
        <source>Down %1 – %2 (%3)</source>
        <translation>ダウン %1 – %2 (%3)</translation>
    </message>
    <message>
        <source>Maintenance %1 – %2 (%3)</source>
        <translation>メンテナンス %1 – %2 (%3)</translation>
    </message>
    <message>
        <source>%1 could not be written</source>
        <translation>%1 に書き込めませんでした</translation>
    </message>
    <message>
        <source>Export the report as PDF</source>
        <translation>レポートを PDF として書き出す</translation>
    </message>
    <message>
        <source>PDF files (*.pdf)</source>
        <translation>PDF ファイル (*.pdf)</translation>
    </message>
    <message>
        <source>Written to %1</source>
        <translation>%1 に書き出しました</translation>
    </message>
</context>
<context>
    <name>cooldown::WorkspaceItemsModel</name>
    <message>
        <source>no limit set</source>
        <translation>上限なし</translation>
    </message>
    <message>
        <source>, burst %1</source>
        <translation>、バースト %1</translation>
    </message>
    <message>
        <source>(no id)</source>
        <translation>(ID なし)</translation>
    </message>
    <message numerus="yes">
        <source>differs for %n partition(s)</source>
        <translation>
            <numerusform>%n 個のパーティションで異なる</numerusform>
        </translation>
    </message>
    <message>
        <source>%1, server stricter</source>
        <translation>%1、サーバーの方が厳しい</translation>
    </message>
    <message>
        <source>Endpoint</source>
        <translation>エンドポイント</translation>
    </message>
    <message>
        <source>Policy</source>
        <translation>ポリシー</translation>
    </message>
    <message>
        <source>Request</source>
        <translation>リクエスト</translation>
    </message>
    <message>
        <source>Limit</source>
        <translation>上限</translation>
    </message>
    <message>
        <source>Drift</source>
        <translation>ドリフト</translation>
    </message>
</context>
<context>
    <name>cooldown::cli::Text</name>
    <message>
        <source>unexpected argument &apos;%1&apos;</source>
        <translation>予期しない引数 &apos;%1&apos;</translation>
    </message>
    <message>
        <source>print, as JSON, the decision the engine makes for a response</source>
        <translation>応答に対するエンジンの判断を JSON で表示する</translation>
    </message>
    <message>
        <source>run the engine without a window</source>
        <translation>ウィンドウなしでエンジンを実行する</translation>
    </message>
    <message>
        <source>validate a workspace config file</source>
        <translation>ワークスペース設定ファイルを検証する</translation>
    </message>
    <message>
        <source>write the attempt history as CSV</source>
        <translation>試行の履歴を CSV に書き出す</translation>
    </message>
    <message>
        <source>make a waiting, parked or failed operation due now</source>
        <translation>待機中・保留・失敗のオペレーションを今すぐ実行対象にする</translation>
    </message>
    <message>
        <source>cancel an operation that has not ended</source>
        <translation>終わっていないオペレーションをキャンセルする</translation>
    </message>
    <message>
        <source>show the workers, partitions and backlog of a database</source>
        <translation>データベースのワーカー、パーティション、未処理分を表示する</translation>
    </message>
    <message>
        <source>run the demo API on 127.0.0.1 until interrupted</source>
        <translation>中断されるまで 127.0.0.1 でデモ API を動かす</translation>
    </message>
    <message>
        <source>Usage: cooldown [COMMAND] [OPTIONS]

Without a command, opens the dashboard.

Commands:
</source>
        <translation>使い方: cooldown [COMMAND] [OPTIONS]

コマンドを指定しないとダッシュボードを開きます。

コマンド:
</translation>
    </message>
    <message>
        <source>
Options of every command:
  --lang en|ja  the language of messages and of the window (default: the system&apos;s)
</source>
        <translation>
すべてのコマンドに共通のオプション:
  --lang en|ja  メッセージとウィンドウの言語 (既定: システムの言語)
</translation>
    </message>
    <message>
        <source>
&apos;cooldown COMMAND --help&apos; describes a command&apos;s options.
</source>
        <translation>
各コマンドのオプションは &apos;cooldown COMMAND --help&apos; で表示されます。
</translation>
    </message>
    <message>
        <source>--lang: expected en or ja, got &apos;%1&apos;</source>
        <translation>--lang: en または ja を指定してください (&apos;%1&apos; が指定されました)</translation>
    </message>
    <message>
        <source>unknown command (try &apos;cooldown --help&apos;)</source>
        <translation>不明なコマンドです (&apos;cooldown --help&apos; を参照してください)</translation>
    </message>
    <message>
        <source>this build has no dashboard; see &apos;cooldown --help&apos;</source>
        <translation>このビルドにはダッシュボードがありません。&apos;cooldown --help&apos; を参照してください</translation>
    </message>
    <message>
        <source>Validates a workspace config file.</source>
        <translation>ワークスペース設定ファイルを検証します。</translation>
    </message>
    <message>
        <source>The config file.</source>
        <translation>設定ファイル。</translation>
    </message>
    <message>
        <source>expected a config file</source>
        <translation>設定ファイルを指定してください</translation>
    </message>
    <message>
        <source>Workspace config file.</source>
        <translation>ワークスペース設定ファイル。</translation>
    </message>
    <message>
        <source>SQLite path or postgresql:// URL.</source>
        <translation>SQLite のパス、または postgresql:// URL。</translation>
    </message>
    <message>
        <source>Open the demo workspace against the built-in demo API.</source>
        <translation>組み込みのデモ API を相手に、デモのワークスペースを開きます。</translation>
    </message>
    <message>
        <source>give --config or --demo, not both</source>
        <translation>--config と --demo はどちらか一方だけを指定してください</translation>
    </message>
    <message>
        <source>the demo API cannot listen on 127.0.0.1: %1</source>
        <translation>デモ API が 127.0.0.1 で待ち受けできません: %1</translation>
    </message>
    <message>
        <source>the demo workspace is missing from this build</source>
        <translation>このビルドにはデモのワークスペースがありません</translation>
    </message>
    <message>
        <source>Demo workspace</source>
        <translation>デモのワークスペース</translation>
    </message>
    <message>
        <source>no temporary folder for the demo database: %1</source>
        <translation>デモのデータベース用の一時フォルダーを作れません: %1</translation>
    </message>
    <message>
        <source>this build has no demo API; open a workspace with --config F</source>
        <translation>このビルドにはデモ API がありません。--config F でワークスペースを開いてください</translation>
    </message>
    <message>
        <source>Runs the Cooldown demo API on 127.0.0.1 until SIGINT or SIGTERM.</source>
        <translation>SIGINT か SIGTERM を受けるまで、127.0.0.1 で Cooldown のデモ API を動かします。</translation>
    </message>
    <message>
        <source>TCP port (default 8089); 0 picks a free one.</source>
        <translation>TCP ポート (既定 8089)。0 なら空いているポートを選びます。</translation>
    </message>
    <message>
        <source>--port &apos;%1&apos; is not a port number (0 to 65535)</source>
        <translation>--port &apos;%1&apos; はポート番号 (0〜65535) ではありません</translation>
    </message>
    <message>
        <source>Cooldown demo API listening on %1
</source>
        <translation>Cooldown デモ API が %1 で待ち受けています
</translation>
    </message>
    <message>
        <source>Prints the decision Cooldown makes for a response, as JSON.</source>
        <translation>応答に対して Cooldown が下す判断を JSON で表示します。</translation>
    </message>
    <message>
        <source>Request method.</source>
        <translation>リクエストのメソッド。</translation>
    </message>
    <message>
        <source>Response status.</source>
        <translation>応答のステータス。</translation>
    </message>
    <message>
        <source>Transport failure instead of a response: refused, dns, timeout, closed, tls, worker_died.</source>
        <translation>応答の代わりの通信エラー: refused、dns、timeout、closed、tls、worker_died。</translation>
    </message>
    <message>
        <source>A response header field (repeatable).</source>
        <translation>応答ヘッダーのフィールド (複数指定可)。</translation>
    </message>
    <message>
        <source>File holding the response body.</source>
        <translation>応答の本文を収めたファイル。</translation>
    </message>
    <message>
        <source>The client&apos;s time (HTTP-date or ISO 8601).</source>
        <translation>クライアントの時刻 (HTTP-date または ISO 8601)。</translation>
    </message>
    <message>
        <source>Number of the attempt that got this response.</source>
        <translation>この応答を受けた試行の番号。</translation>
    </message>
    <message>
        <source>Earlier attempts answered 429 or 503.</source>
        <translation>それまでの試行のうち 429 または 503 が返った回数。</translation>
    </message>
    <message>
        <source>Seconds since the first attempt.</source>
        <translation>最初の試行からの経過秒数。</translation>
    </message>
    <message>
        <source>The idempotency key the request carried.</source>
        <translation>リクエストに付けた冪等性キー。</translation>
    </message>
    <message>
        <source>Seed for jitter and spread (reproducible output).</source>
        <translation>ジッターと分散の乱数シード (出力を再現できます)。</translation>
    </message>
    <message>
        <source>Override a retry-profile field (repeatable).</source>
        <translation>再試行プロファイルのフィールドを上書きします (複数指定可)。</translation>
    </message>
    <message>
        <source>What X-RateLimit-Reset means: auto, delta, epoch, epoch-ms or http-date.</source>
        <translation>X-RateLimit-Reset の解釈: auto、delta、epoch、epoch-ms、http-date のいずれか。</translation>
    </message>
    <message>
        <source>--method: &apos;%1&apos; is not an HTTP method</source>
        <translation>--method: &apos;%1&apos; は HTTP メソッドではありません</translation>
    </message>
    <message>
        <source>give exactly one of --status or --error</source>
        <translation>--status と --error のどちらか一方だけを指定してください</translation>
    </message>
    <message>
        <source>--status: expected a number from 100 to 599, got &apos;%1&apos;</source>
        <translation>--status: 100〜599 の数を指定してください (&apos;%1&apos; が指定されました)</translation>
    </message>
    <message>
        <source>--error: expected refused, dns, timeout, closed, tls or worker_died, got &apos;%1&apos;</source>
        <translation>--error: refused、dns、timeout、closed、tls、worker_died のいずれかを指定してください (&apos;%1&apos; が指定されました)</translation>
    </message>
    <message>
        <source>--header: expected &quot;Name: value&quot;, got &apos;%1&apos;</source>
        <translation>--header: &quot;Name: value&quot; の形式で指定してください (&apos;%1&apos; が指定されました)</translation>
    </message>
    <message>
        <source>--body-file: cannot read &apos;%1&apos;: %2</source>
        <translation>--body-file: &apos;%1&apos; を読めません: %2</translation>
    </message>
    <message>
        <source>--idempotency-key: the key is empty</source>
        <translation>--idempotency-key: キーが空です</translation>
    </message>
    <message>
        <source>--now: expected an HTTP-date or ISO 8601 time, got &apos;%1&apos;</source>
        <translation>--now: HTTP-date または ISO 8601 の時刻を指定してください (&apos;%1&apos; が指定されました)</translation>
    </message>
    <message>
        <source>--attempt: expected a number from 1, got &apos;%1&apos;</source>
        <translation>--attempt: 1 以上の数を指定してください (&apos;%1&apos; が指定されました)</translation>
    </message>
    <message>
        <source>--throttled: expected a number from 0 to %1, got &apos;%2&apos;</source>
        <translation>--throttled: 0〜%1 の数を指定してください (&apos;%2&apos; が指定されました)</translation>
    </message>
    <message>
        <source>--elapsed: expected seconds (0 or more), got &apos;%1&apos;</source>
        <translation>--elapsed: 0 以上の秒数を指定してください (&apos;%1&apos; が指定されました)</translation>
    </message>
    <message>
        <source>--set: %1</source>
        <translation>--set: %1</translation>
    </message>
    <message>
        <source>--seed: expected a whole number, got &apos;%1&apos;</source>
        <translation>--seed: 整数を指定してください (&apos;%1&apos; が指定されました)</translation>
    </message>
    <message>
        <source>--x-ratelimit-reset: expected auto, delta, epoch, epoch-ms or http-date, got &apos;%1&apos;</source>
        <translation>--x-ratelimit-reset: auto、delta、epoch、epoch-ms、http-date のいずれかを指定してください (&apos;%1&apos; が指定されました)</translation>
    </message>
    <message>
        <source>Writes the attempt history as CSV, one row per attempt.</source>
        <translation>試行の履歴を、1 試行 1 行の CSV に書き出します。</translation>
    </message>
    <message>
        <source>SQLite path or postgresql:// URL (default: %1).</source>
        <translation>SQLite のパス、または postgresql:// URL (既定: %1)。</translation>
    </message>
    <message>
        <source>The CSV file to write.</source>
        <translation>書き出す CSV ファイル。</translation>
    </message>
    <message>
        <source>Attempts started at or after T (ISO 8601 or HTTP-date; UTC unless an offset is given).</source>
        <translation>T 以降に始まった試行 (ISO 8601 または HTTP-date。オフセットがなければ UTC)。</translation>
    </message>
    <message>
        <source>Attempts started before T.</source>
        <translation>T より前に始まった試行。</translation>
    </message>
    <message>
        <source>Only this endpoint&apos;s attempts.</source>
        <translation>このエンドポイントの試行だけ。</translation>
    </message>
    <message>
        <source>Only attempts of operations now in state S (%1).</source>
        <translation>現在の状態が S のオペレーションの試行だけ (%1)。</translation>
    </message>
    <message>
        <source>--out is required</source>
        <translation>--out は必須です</translation>
    </message>
    <message>
        <source>--to must be later than --from</source>
        <translation>--to は --from より後にしてください</translation>
    </message>
    <message>
        <source>--state: unknown state &apos;%1&apos; (expected one of %2)</source>
        <translation>--state: 不明な状態 &apos;%1&apos; (%2 のいずれかを指定してください)</translation>
    </message>
    <message>
        <source>expected HOST:PORT (e.g. 127.0.0.1:9464), got &apos;%1&apos;</source>
        <translation>HOST:PORT (例: 127.0.0.1:9464) を指定してください (&apos;%1&apos; が指定されました)</translation>
    </message>
    <message>
        <source>&apos;%1&apos; is not an IP address</source>
        <translation>&apos;%1&apos; は IP アドレスではありません</translation>
    </message>
    <message>
        <source>Bypass the partition&apos;s token bucket (recorded as forced).</source>
        <translation>パーティションのトークンバケットを迂回します (強制として記録されます)。</translation>
    </message>
    <message>
        <source>OPERATION_ID: expected a positive whole number, got &apos;%1&apos;</source>
        <translation>OPERATION_ID: 正の整数を指定してください (&apos;%1&apos; が指定されました)</translation>
    </message>
    <message>
        <source>operation %1 (%2): %3%4
</source>
        <translation>オペレーション %1 (%2): %3%4
</translation>
    </message>
    <message>
        <source>, due now, forced</source>
        <translation>、今すぐ実行 (強制)</translation>
    </message>
    <message>
        <source>, due now</source>
        <translation>、今すぐ実行</translation>
    </message>
    <message>
        <source>operation %1: an attempt is running; it becomes cancelled when that attempt ends
</source>
        <translation>オペレーション %1: 試行が実行中です。その試行が終わるとキャンセルされます
</translation>
    </message>
    <message>
        <source>no operation %1 in %2</source>
        <translation>%2 にオペレーション %1 はありません</translation>
    </message>
    <message>
        <source>Runs the engine without a window.</source>
        <translation>ウィンドウなしでエンジンを実行します。</translation>
    </message>
    <message>
        <source>Stop after S seconds.</source>
        <translation>S 秒後に停止します。</translation>
    </message>
    <message>
        <source>Stop once nothing is running or waiting to retry.</source>
        <translation>実行中のものも再試行待ちのものもなくなったら停止します。</translation>
    </message>
    <message>
        <source>Where ${demo:base_url} points (default: http://127.0.0.1:8089).</source>
        <translation>${demo:base_url} の指す先 (既定: http://127.0.0.1:8089)。</translation>
    </message>
    <message>
        <source>Name of this worker in leases and attempts.</source>
        <translation>リースと試行に記録するこのワーカーの名前。</translation>
    </message>
    <message>
        <source>Seconds a claim holds without renewal; the operations of a worker that died are rescued after it (default 120).</source>
        <translation>更新なしで取得が有効な秒数。停止したワーカーのオペレーションはこの時間の後に引き継がれます (既定 120)。</translation>
    </message>
    <message>
        <source>Run as if this machine&apos;s clock were S seconds ahead (negative: behind); for trying out workers whose clocks disagree.</source>
        <translation>このマシンの時計が S 秒進んでいる (負なら遅れている) ものとして実行します。時計のずれたワーカーを試すためのものです。</translation>
    </message>
    <message>
        <source>--config is required</source>
        <translation>--config は必須です</translation>
    </message>
    <message>
        <source>give --for or --until-idle, not both</source>
        <translation>--for と --until-idle はどちらか一方だけを指定してください</translation>
    </message>
    <message>
        <source>--for: expected seconds above 0, got &apos;%1&apos;</source>
        <translation>--for: 0 より大きい秒数を指定してください (&apos;%1&apos; が指定されました)</translation>
    </message>
    <message>
        <source>--lease: expected seconds from 1 to 86400, got &apos;%1&apos;</source>
        <translation>--lease: 1〜86400 の秒数を指定してください (&apos;%1&apos; が指定されました)</translation>
    </message>
    <message>
        <source>--clock-skew: expected seconds from -86400 to 86400, got &apos;%1&apos;</source>
        <translation>--clock-skew: -86400〜86400 の秒数を指定してください (&apos;%1&apos; が指定されました)</translation>
    </message>
    <message>
        <source>--demo-url: not a URL: &apos;%1&apos;</source>
        <translation>--demo-url: &apos;%1&apos; は URL ではありません</translation>
    </message>
    <message>
        <source>Shows the workers sharing a database (from their live leases), each partition&apos;s bucket, hold and queue, and the due backlog.</source>
        <translation>データベースを共有するワーカー (有効なリースから)、各パーティションのバケット・ホールド・待ち行列、実行予定の未処理分を表示します。</translation>
    </message>
    <message>
        <source>Print one JSON object.</source>
        <translation>JSON オブジェクトを 1 つ出力します。</translation>
    </message>
    <message>
        <source>cannot create the signal pipe</source>
        <translation>シグナル用のパイプを作れません</translation>
    </message>
    <message>
        <source>no pace</source>
        <translation>ペース制限なし</translation>
    </message>
    <message>
        <source>one unit every %1 ms, %2 at once</source>
        <translation>%1 ms ごとに 1 単位、同時 %2</translation>
    </message>
    <message>
        <source>database %1 at %2
</source>
        <translation>データベース %1 (%2 時点)
</translation>
    </message>
    <message>
        <source>workers (those holding a lease): %1
</source>
        <translation>ワーカー (リースを保持しているもの): %1
</translation>
    </message>
    <message>
        <source>  %1  running %2, lease until %3
</source>
        <translation>  %1  実行中 %2、リースは %3 まで
</translation>
    </message>
    <message>
        <source>  %1  running %2, lease expired at %3
</source>
        <translation>  %1  実行中 %2、リースは %3 に期限切れ
</translation>
    </message>
    <message>
        <source>operations:</source>
        <translation>オペレーション:</translation>
    </message>
    <message>
        <source>; due now %1
</source>
        <translation>、実行予定 %1
</translation>
    </message>
    <message>
        <source>partitions: %1
</source>
        <translation>パーティション: %1
</translation>
    </message>
    <message>
        <source>  %1/%2 (version %3, %4): </source>
        <translation>  %1/%2 (バージョン %3、%4): </translation>
    </message>
    <message>
        <source>held until %1 (%2); </source>
        <translation>%1 までホールド (%2)、</translation>
    </message>
    <message>
        <source>no token needed; </source>
        <translation>トークン不要、</translation>
    </message>
    <message>
        <source>next token at %1; </source>
        <translation>次のトークンは %1、</translation>
    </message>
    <message>
        <source>%1 waiting, %2 due
</source>
        <translation>待機 %1、実行予定 %2
</translation>
    </message>
    <message>
        <source>    conflict: %1; the database&apos;s version is kept
</source>
        <translation>    競合: %1。データベースのバージョンが維持されます
</translation>
    </message>
    <message>
        <source>The request&apos;s URL: names the bucket an endpoint without a policy learns into.</source>
        <translation>リクエストの URL。ポリシーのないエンドポイントが学習するバケットの名前になります。</translation>
    </message>
    <message>
        <source>--url: expected an absolute URL with a host, got &apos;%1&apos;</source>
        <translation>--url: ホストを含む絶対 URL が必要ですが、&apos;%1&apos; が指定されました</translation>
    </message>
    <message>
        <source>the server states %1 per %2 s, %3 left until %4; </source>
        <translation>サーバーの示す上限 %2 秒あたり %1 件、%4 まで残り %3 件; </translation>
    </message>
    <message>
        <source>measured from the server&apos;s refusals (%1); </source>
        <translation>サーバーの拒否から測定 (%1); </translation>
    </message>
    <message>
        <source>Writes the per-minute rollups instead, one row per minute and key; --from and --to select minutes.</source>
        <translation>代わりに分ごとの集計を書き出します（分とキーごとに1行）。--from と --to は分を選びます。</translation>
    </message>
    <message>
        <source>--state does not apply to --rollups</source>
        <translation>--state は --rollups と一緒には使えません</translation>
    </message>
    <message>
        <source>exported %1 rollup rows to %2</source>
        <translation>集計 %1 行を %2 に書き出しました</translation>
    </message>
    <message>
        <source>cannot handle signal %1</source>
        <translation>シグナル %1 を処理できません</translation>
    </message>
    <message>
        <source>Writes only what retention prunes now: the attempts that started more than the workspace&apos;s retention.raw_days ago and whose operation has ended; with --rollups, the minutes older than retention.rollup_days. Needs --config.</source>
        <translation>保持期間により今削除されるものだけを書き出します: ワークスペースの retention.raw_days 日以上前に始まり、オペレーションが終了した試行。--rollups では retention.rollup_days 日より古い分の集計。--config が必要です。</translation>
    </message>
    <message>
        <source>The workspace config file whose retention --prunable follows.</source>
        <translation>--prunable が従う保持期間を定めるワークスペース設定ファイル。</translation>
    </message>
    <message>
        <source>--prunable needs --config F: the workspace&apos;s retention says what is pruned</source>
        <translation>--prunable には --config F が必要です (何が削除されるかはワークスペースの保持期間で決まります)</translation>
    </message>
    <message>
        <source>--%1 does not apply to --prunable, which writes exactly what retention prunes</source>
        <translation>--%1 は --prunable と一緒には使えません (--prunable は保持期間により削除されるものをそのまま書き出します)</translation>
    </message>
    <message>
        <source>--config is used only with --prunable</source>
        <translation>--config は --prunable と一緒にだけ使えます</translation>
    </message>
    <message>
        <source>%1 is 0 in %2: retention keeps everything and prunes nothing</source>
        <translation>%2 の %1 は 0 です: すべて無期限に保持され、何も削除されません</translation>
    </message>
    <message>
        <source>as of now, retention prunes the rollups of the minutes before %1 (retention.rollup_days: %2)</source>
        <translation>現時点で保持期間により削除されるのは、%1 より前の分の集計です (retention.rollup_days: %2)</translation>
    </message>
    <message>
        <source>as of now, retention prunes the attempts that started before %1 (retention.raw_days: %2) whose operation has ended</source>
        <translation>現時点で保持期間により削除されるのは、%1 より前に始まり、オペレーションが終了した試行です (retention.raw_days: %2)</translation>
    </message>
    <message>
        <source>--body-file: cannot read %1: %2</source>
        <translation>--body-file: %1 を読めません: %2</translation>
    </message>
    <message>
        <source>--body-file: %1 is larger than %2 MiB</source>
        <translation>--body-file: %1 が %2 MiB を超えています</translation>
    </message>
    <message>
        <source>--body-file: %1 is not UTF-8 text</source>
        <translation>--body-file: %1 は UTF-8 のテキストではありません</translation>
    </message>
    <message>
        <source>--jsonl: cannot read %1: %2</source>
        <translation>--jsonl: %1 を読めません: %2</translation>
    </message>
    <message>
        <source>%1 line %2</source>
        <translation>%1 の %2 行目</translation>
    </message>
    <message>
        <source>longer than %1 MiB</source>
        <translation>%1 MiB を超える長さです</translation>
    </message>
    <message>
        <source>column %1: %2</source>
        <translation>%1 桁目: %2</translation>
    </message>
    <message>
        <source>$: expected a JSON object</source>
        <translation>$: JSON オブジェクトが必要です</translation>
    </message>
    <message>
        <source>Hands jobs to endpoints of a workspace: each is durable, with its idempotency key, before anything is sent, and a worker (cooldown run or the window) sends it. Prints one operation id per job.</source>
        <translation>ワークスペースのエンドポイントにジョブを渡します。各ジョブは送信前に冪等キーとともに永続化され、ワーカー（cooldown run またはウィンドウ）が送信します。ジョブごとに操作 ID を 1 つ出力します。</translation>
    </message>
    <message>
        <source>The endpoint that runs the job.</source>
        <translation>ジョブを実行するエンドポイント。</translation>
    </message>
    <message>
        <source>A value for the endpoint&apos;s ${job:NAME}; repeatable.</source>
        <translation>エンドポイントの ${job:NAME} に入れる値。複数回指定できます。</translation>
    </message>
    <message>
        <source>Send this file (UTF-8) as the body instead of the endpoint&apos;s.</source>
        <translation>エンドポイントの本文の代わりにこのファイル（UTF-8）を本文として送ります。</translation>
    </message>
    <message>
        <source>The partition of the endpoint&apos;s policy the job is paced in.</source>
        <translation>ジョブのペースを決める、エンドポイントのポリシーのパーティション。</translation>
    </message>
    <message>
        <source>The job&apos;s key (default: a new one). The same key with the same request finds the same job; with another request it is refused.</source>
        <translation>ジョブの冪等キー（既定: 新しく生成）。同じキーと同じリクエストなら同じジョブになり、別のリクエストなら拒否されます。</translation>
    </message>
    <message>
        <source>Send no earlier than this time (ISO 8601, UTC unless an offset is given).</source>
        <translation>この時刻より前には送りません（ISO 8601。オフセットがなければ UTC）。</translation>
    </message>
    <message>
        <source>Read jobs from a JSON Lines file (&apos;-&apos;: standard input), one object per line with endpoint, vars, body, partition_key, idempotency_key, not_before.</source>
        <translation>JSON Lines ファイル（&apos;-&apos; は標準入力）からジョブを読みます。1 行に 1 つのオブジェクトで、endpoint、vars、body、partition_key、idempotency_key、not_before を持ちます。</translation>
    </message>
    <message>
        <source>Write the valid jobs of a batch and report the others (default: a batch with a bad job writes nothing).</source>
        <translation>バッチの正しいジョブを書き込み、それ以外を報告します（既定: 不正なジョブを含むバッチは何も書き込みません）。</translation>
    </message>
    <message>
        <source>give --endpoint for one job or --jsonl for a batch</source>
        <translation>1 件なら --endpoint、バッチなら --jsonl を指定してください</translation>
    </message>
    <message>
        <source>--%1 is for one job; a batch&apos;s lines carry their own fields</source>
        <translation>--%1 は 1 件のジョブ用です。バッチでは各行がフィールドを持ちます</translation>
    </message>
    <message>
        <source>nothing written: %1</source>
        <translation>何も書き込んでいません: %1</translation>
    </message>
    <message>
        <source>--var: expected NAME=VALUE, got &apos;%1&apos;</source>
        <translation>--var: NAME=VALUE の形が必要ですが &apos;%1&apos; でした</translation>
    </message>
    <message>
        <source>--var: %1 given twice</source>
        <translation>--var: %1 が 2 回指定されています</translation>
    </message>
    <message>
        <source>--not-before: expected an ISO 8601 time, got &apos;%1&apos;</source>
        <translation>--not-before: ISO 8601 の時刻が必要ですが &apos;%1&apos; でした</translation>
    </message>
    <message numerus="yes">
        <source>cooldown enqueue: nothing written (%n job(s) refused)
</source>
        <translation>
            <numerusform>cooldown enqueue: 何も書き込んでいません（%n 件のジョブを拒否）
</numerusform>
        </translation>
    </message>
    <message>
        <source>cooldown enqueue: %1 new, %2 already there, %3 skipped
</source>
        <translation>cooldown enqueue: 新規 %1 件、既存 %2 件、スキップ %3 件
</translation>
    </message>
    <message>
        <source>hand jobs to endpoints, each kept with its idempotency key</source>
        <translation>ジョブをエンドポイントに渡す（各ジョブは冪等キーとともに保存）</translation>
    </message>
    <message>
        <source>Also check the jobs of a JSON Lines file (&apos;-&apos;: standard input) against the workspace, as cooldown enqueue would, without writing anything.</source>
        <translation>JSON Lines ファイル（&apos;-&apos; は標準入力）のジョブも、cooldown enqueue と同じようにワークスペースに照らして検査します。何も書き込みません。</translation>
    </message>
    <message numerus="yes">
        <source>%1: ok, %n job(s)
</source>
        <translation>
            <numerusform>%1: OK、ジョブ %n 件
</numerusform>
        </translation>
    </message>
    <message>
        <source>Seconds the server keeps an idempotency key (an endpoint&apos;s idempotency.key_valid_seconds); with --idempotency-key.</source>
        <translation>サーバーが冪等キーを保持する秒数（エンドポイントの idempotency.key_valid_seconds）。--idempotency-key と一緒に指定します。</translation>
    </message>
    <message>
        <source>--key-valid: expected seconds from 1 to 31622400, got &apos;%1&apos;</source>
        <translation>--key-valid: 1 から 31622400 までの秒数が必要ですが &apos;%1&apos; でした</translation>
    </message>
    <message>
        <source>--key-valid needs --idempotency-key</source>
        <translation>--key-valid には --idempotency-key が必要です</translation>
    </message>
    <message>
        <source>operation %1 is sent with the same idempotency key, which the server may have forgotten: it may run the request again
</source>
        <translation>操作 %1 は同じ冪等キーで送られます。サーバーはこのキーを忘れている可能性があり、リクエストをもう一度実行するかもしれません
</translation>
    </message>
    <message>
        <source>Serve Prometheus metrics at http://HOST:PORT/metrics and, when the workspace sets api.token, the local API at /v1/jobs (e.g. 127.0.0.1:9464; port 0 picks a free one and prints it).</source>
        <translation>Prometheus のメトリクスを http://HOST:PORT/metrics で、ワークスペースに api.token があればローカル API を /v1/jobs で提供します (例 127.0.0.1:9464。ポート 0 なら空きポートを選んで表示します)。</translation>
    </message>
    <message>
        <source>Allow --listen on an address other than loopback (needs api.token).</source>
        <translation>ループバック以外のアドレスでの --listen を許可します (api.token が必要)。</translation>
    </message>
    <message>
        <source>--listen %1 is not a loopback address; give --listen-any as well to serve other machines</source>
        <translation>--listen %1 はループバックアドレスではありません。他のマシンに提供するには --listen-any も指定してください</translation>
    </message>
    <message>
        <source>--listen-any needs api.token in the workspace, so that only clients with the token can hand in jobs</source>
        <translation>--listen-any にはワークスペースの api.token が必要です。トークンを持つクライアントだけがジョブを渡せるようにするためです</translation>
    </message>
    <message>
        <source>--listen-any goes with --listen</source>
        <translation>--listen-any は --listen と一緒に指定してください</translation>
    </message>
    <message>
        <source>cannot write to standard output</source>
        <translation>標準出力に書き込めません</translation>
    </message>
    <message>
        <source>cannot write &apos;%1&apos;: %2</source>
        <translation>&apos;%1&apos; に書き込めません: %2</translation>
    </message>
    <message>
        <source>exported %1 audit rows to %2</source>
        <translation>監査記録 %1 行を %2 に書き出しました</translation>
    </message>
    <message>
        <source>Writes the operator audit table instead, one row per operator action (who, when, what, on which filter or ids, how many); --from and --to select by time; without --out the CSV goes to standard output.</source>
        <translation>代わりにオペレーター操作の監査記録を書き出します (操作ごとに 1 行: 誰が、いつ、何を、どのフィルターまたは ID に、何件)。--from と --to で時刻を選びます。--out がなければ CSV は標準出力に出ます。</translation>
    </message>
    <message>
        <source>--%1 does not apply to --audit</source>
        <translation>--%1 は --audit と一緒には使えません</translation>
    </message>
    <message>
        <source>--out: expected a file name</source>
        <translation>--out: ファイル名が必要です</translation>
    </message>
    <message>
        <source>less than a second</source>
        <translation>1 秒未満</translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation>%1 秒</translation>
    </message>
    <message>
        <source>%1 min %2 s</source>
        <translation>%1 分 %2 秒</translation>
    </message>
    <message>
        <source>%1 min</source>
        <translation>%1 分</translation>
    </message>
    <message>
        <source>%1 h %2 min</source>
        <translation>%1 時間 %2 分</translation>
    </message>
    <message>
        <source>%1 h</source>
        <translation>%1 時間</translation>
    </message>
    <message>
        <source>%1 d %2 h</source>
        <translation>%1 日 %2 時間</translation>
    </message>
    <message>
        <source>%1 d</source>
        <translation>%1 日</translation>
    </message>
    <message>
        <source> (paced by partition %1)</source>
        <translation> (パーティション %1 のペースで)</translation>
    </message>
    <message>
        <source> (partition %1 is held by its server first)</source>
        <translation> (パーティション %1 はまずサーバーのホールドを待ちます)</translation>
    </message>
    <message>
        <source> (limited by the in-flight limit)</source>
        <translation> (同時送信数の上限による)</translation>
    </message>
    <message>
        <source>%1 operations match</source>
        <translation>%1 件のオペレーションが一致します</translation>
    </message>
    <message>
        <source>%1 operations match, %2 of which can be retried</source>
        <translation>%1 件のオペレーションが一致し、そのうち %2 件を再試行できます</translation>
    </message>
    <message>
        <source>%1 operations match, %2 of which can be cancelled</source>
        <translation>%1 件のオペレーションが一致し、そのうち %2 件を取り消せます</translation>
    </message>
    <message>
        <source>; at the current limits they drain in about %1%2</source>
        <translation>。現在の制限では約 %1 で送り終わります%2</translation>
    </message>
    <message>
        <source>; left alone, at the current limits they would drain in about %1%2</source>
        <translation>。このままなら現在の制限で約 %1 で送り終わります%2</translation>
    </message>
    <message>
        <source>%1 of them belong to paused endpoints (%2) and are not sent until those are resumed
</source>
        <translation>そのうち %1 件は一時停止中のエンドポイント (%2) のもので、再開されるまで送信されません
</translation>
    </message>
    <message>
        <source>%1 of them are parked because their idempotency key has expired: they are sent with the same key, which the server may have forgotten, and may run again
</source>
        <translation>そのうち %1 件は冪等性キーの期限切れで保留中です: 同じキーで送信されますが、サーバーはキーを忘れている可能性があり、もう一度実行されるかもしれません
</translation>
    </message>
    <message>
        <source>dry run: nothing was changed
</source>
        <translation>ドライラン: 何も変更していません
</translation>
    </message>
    <message>
        <source>%1: %2 of %3 looked at, %4 changed
</source>
        <translation>%1: %3 件中 %2 件を確認、%4 件を変更
</translation>
    </message>
    <message>
        <source>%1 (%2 operations were changed before)</source>
        <translation>%1 (それまでに %2 件のオペレーションを変更済み)</translation>
    </message>
    <message>
        <source>interrupted after %1 of %2 operations; %3 were changed</source>
        <translation>%2 件中 %1 件の時点で中断しました。%3 件を変更しました</translation>
    </message>
    <message>
        <source>%1 operations are due now, forced</source>
        <translation>%1 件のオペレーションを強制で今すぐ実行予定にしました</translation>
    </message>
    <message>
        <source>%1 operations are due now</source>
        <translation>%1 件のオペレーションを今すぐ実行予定にしました</translation>
    </message>
    <message>
        <source>; %1 were left as they are (running, ended, or no longer matching)</source>
        <translation>。%1 件はそのままです (実行中、終了済み、または一致しなくなったもの)</translation>
    </message>
    <message>
        <source>%1 operations cancelled</source>
        <translation>%1 件のオペレーションを取り消しました</translation>
    </message>
    <message>
        <source>; %1 have an attempt running and become cancelled when it ends</source>
        <translation>。%1 件は試行が実行中で、それが終わると取り消されます</translation>
    </message>
    <message>
        <source>; %1 were left as they are (ended, or no longer matching)</source>
        <translation>。%1 件はそのままです (終了済み、または一致しなくなったもの)</translation>
    </message>
    <message>
        <source>Makes an operation due now (it still takes a token from its partition&apos;s bucket unless --force), or every operation a --filter selects.</source>
        <translation>オペレーション、または --filter で選んだすべてのオペレーションを今すぐ実行予定にします (--force がなければパーティションのバケットからトークンを使います)。</translation>
    </message>
    <message>
        <source>Cancels an operation that has not ended, or every operation a --filter selects.</source>
        <translation>終了していないオペレーション、または --filter で選んだすべてのオペレーションを取り消します。</translation>
    </message>
    <message>
        <source>The operation (or use --filter).</source>
        <translation>対象のオペレーション (または --filter を使います)。</translation>
    </message>
    <message>
        <source>The operations to act on, such as &quot;endpoint=upload state=waiting,parked status=429 since=2h&quot; (keys: endpoint, state, partition, status, reason, since, until; see docs/bulk-actions.md).</source>
        <translation>対象のオペレーション。例: &quot;endpoint=upload state=waiting,parked status=429 since=2h&quot; (キー: endpoint、state、partition、status、reason、since、until。docs/bulk-actions.md を参照)。</translation>
    </message>
    <message>
        <source>With --filter: print the count and the drain estimate, change nothing.</source>
        <translation>--filter と一緒に: 件数と送り終わるまでの見積もりを表示し、何も変更しません。</translation>
    </message>
    <message>
        <source>The operator the audit table names (default: the user running this).</source>
        <translation>監査記録に記すオペレーター名 (既定: 実行しているユーザー)。</translation>
    </message>
    <message>
        <source>The workspace whose in-flight limit the drain estimate uses (default: 8).</source>
        <translation>見積もりに使う同時送信数の上限を持つワークスペース (既定: 8)。</translation>
    </message>
    <message>
        <source>give an OPERATION_ID or --filter, not both</source>
        <translation>OPERATION_ID と --filter のどちらか一方を指定してください</translation>
    </message>
    <message>
        <source>expected an OPERATION_ID or --filter EXPR</source>
        <translation>OPERATION_ID または --filter EXPR が必要です</translation>
    </message>
    <message>
        <source>--%1 applies to --filter only</source>
        <translation>--%1 は --filter と一緒にだけ使えます</translation>
    </message>
    <message>
        <source>--as: expected a name</source>
        <translation>--as: 名前が必要です</translation>
    </message>
    <message>
        <source>--filter: %1</source>
        <translation>--filter: %1</translation>
    </message>
    <message>
        <source>--filter: name at least one term (an empty filter would select every operation)</source>
        <translation>--filter: 条件を 1 つ以上指定してください (空のフィルターはすべてのオペレーションを選んでしまいます)</translation>
    </message>
    <message>
        <source>%1: ok, %2, %3, %4
</source>
        <translation>%1: ok、%2、%3、%4
</translation>
    </message>
    <message numerus="yes">
        <source>%n endpoint(s)</source>
        <translation>
            <numerusform>エンドポイント %n 件</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n policy(-ies)</source>
        <translation>
            <numerusform>ポリシー %n 件</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n retry profile(s)</source>
        <translation>
            <numerusform>再試行プロファイル %n 件</numerusform>
        </translation>
    </message>
    <message>
        <source>tokens available: %1; </source>
        <translation>利用可能なトークン %1、</translation>
    </message>
    <message>
        <source>%1 per %3 s (quota unit: %2), burst %4</source>
        <translation>%3 秒あたり %1 (クォータ単位: %2)、バースト %4</translation>
    </message>
    <message>
        <source>%1: credentials &apos;%2&apos; (%3) read %4 from the environment
</source>
        <translation>%1: 認証情報 &apos;%2&apos; (%3) が環境変数から読み込んだもの: %4
</translation>
    </message>
    <message>
        <source>nothing</source>
        <translation>なし</translation>
    </message>
    <message>
        <source>%1: warning: %2</source>
        <translation>%1: 警告: %2</translation>
    </message>
    <message>
        <source>While the database is unreachable or its disk full, keep trying for S seconds, then stop with exit code 1 (default: for ever; 30 with --until-idle).</source>
        <translation>データベースに接続できない間やそのディスクがいっぱいの間、S 秒まで再試行を続け、その後は終了コード 1 で停止します (既定: 無期限。--until-idle では 30)。</translation>
    </message>
    <message>
        <source>--db-retry-for: expected seconds from 0, got &apos;%1&apos;</source>
        <translation>--db-retry-for: 0 以上の秒数を指定してください (&apos;%1&apos; が指定されました)</translation>
    </message>
    <message>
        <source>cooldown run: the database has been unreachable since %1 (%2); stopping after %3 s of trying (--db-retry-for)</source>
        <translation>cooldown run: データベースに %1 から接続できません (%2)。%3 秒間再試行したため停止します (--db-retry-for)</translation>
    </message>
    <message>
        <source>credentials (each worker holds its own token): %1
</source>
        <translation>認証情報 (トークンはワーカーごとに保持): %1
</translation>
    </message>
    <message>
        <source>valid until %1</source>
        <translation>%1 まで有効</translation>
    </message>
    <message>
        <source>renewing</source>
        <translation>更新中</translation>
    </message>
    <message>
        <source>failing since %1, next try at %2 (%3)</source>
        <translation>%1 から失敗中、次の要求は %2 (%3)</translation>
    </message>
    <message>
        <source>refused by the token endpoint since %1 (%2); operations that need it are parked</source>
        <translation>%1 からトークンエンドポイントが拒否 (%2)、これを必要とするオペレーションは保留中</translation>
    </message>
    <message>
        <source>no token yet</source>
        <translation>トークン未取得</translation>
    </message>
    <message>
        <source>; %1 token requests, as of %2
</source>
        <translation>、トークン要求 %1 回 (%2 時点)
</translation>
    </message>
    <message>
        <source>--%1: not a time: &apos;%2&apos; (expected ISO 8601 such as 2026-11-29T12:00:00Z, or an HTTP-date)</source>
        <translation>--%1: &apos;%2&apos; は時刻ではありません (2026-11-29T12:00:00Z のような ISO 8601 か HTTP-date を指定してください)</translation>
    </message>
    <message>
        <source>Every endpoint of the workspace whose URL has this host (needs --config; may be given more than once).</source>
        <translation>URL のホストがこれであるワークスペースのすべてのエンドポイント (--config が必要。複数回指定可)。</translation>
    </message>
    <message>
        <source>The workspace whose endpoints are meant (default: those the database knows).</source>
        <translation>対象のエンドポイントを定義するワークスペース (既定: データベースが知っているもの)。</translation>
    </message>
    <message>
        <source>Pause for this long, then resume by itself: 90m, 2h, 1d12h (default: until resumed).</source>
        <translation>この期間だけ一時停止し、その後自動で再開します: 90m、2h、1d12h (既定: 再開するまで)。</translation>
    </message>
    <message>
        <source>Why, shown with the pause and kept in the audit table.</source>
        <translation>理由。一時停止とともに表示され、監査テーブルに記録されます。</translation>
    </message>
    <message>
        <source>no endpoint &apos;%1&apos; in %2</source>
        <translation>%2 にエンドポイント &apos;%1&apos; はありません</translation>
    </message>
    <message>
        <source>no endpoint &apos;%1&apos; in the database (give --config F to name endpoints no worker has run yet)</source>
        <translation>データベースにエンドポイント &apos;%1&apos; はありません (まだどのワーカーも実行していないエンドポイントは --config F で指定してください)</translation>
    </message>
    <message>
        <source>--host needs --config F: the workspace says which endpoints call which host</source>
        <translation>--host には --config F が必要です: どのエンドポイントがどのホストを呼ぶかはワークスペースに書かれています</translation>
    </message>
    <message>
        <source>--host: no endpoint of %1 calls &apos;%2&apos;</source>
        <translation>--host: %1 に &apos;%2&apos; を呼ぶエンドポイントはありません</translation>
    </message>
    <message>
        <source>held until %1: %2
</source>
        <translation>%1 までホールド: %2
</translation>
    </message>
    <message>
        <source>left as they are (paused until resumed, or held until later): %1
</source>
        <translation>変更なし (再開まで一時停止中、またはより長くホールド中): %1
</translation>
    </message>
    <message>
        <source>paused until resumed: %1
</source>
        <translation>再開するまで一時停止: %1
</translation>
    </message>
    <message>
        <source>resumed: %1
</source>
        <translation>再開: %1
</translation>
    </message>
    <message>
        <source>already paused: %1
</source>
        <translation>すでに一時停止中: %1
</translation>
    </message>
    <message>
        <source>not paused: %1
</source>
        <translation>一時停止していません: %1
</translation>
    </message>
    <message>
        <source>Pauses endpoints: their waiting work is not sent and their periodic checks are skipped until they are resumed, or for --for.</source>
        <translation>エンドポイントを一時停止します: 再開するまで (または --for の期間) 待機中の作業は送信されず、定期チェックはスキップされます。</translation>
    </message>
    <message>
        <source>Resumes paused or held endpoints: their waiting work is sent again.</source>
        <translation>一時停止またはホールド中のエンドポイントを再開します: 待機中の作業が再び送信されます。</translation>
    </message>
    <message>
        <source>Endpoint ids (or use --host).</source>
        <translation>エンドポイント ID (または --host)。</translation>
    </message>
    <message>
        <source>expected ENDPOINT ids or --host H</source>
        <translation>ENDPOINT の ID か --host H を指定してください</translation>
    </message>
    <message>
        <source>--for: expected a span such as 90m, 2h or 1d12h, got &apos;%1&apos;</source>
        <translation>--for: 90m、2h、1d12h のような期間を指定してください (&apos;%1&apos; が指定されました)</translation>
    </message>
    <message>
        <source>--reason applies to --for only</source>
        <translation>--reason は --for と一緒にのみ使えます</translation>
    </message>
    <message>
        <source>endpoints held: %1
</source>
        <translation>ホールド中のエンドポイント: %1
</translation>
    </message>
    <message>
        <source>  %1  held until %2 (%3)
</source>
        <translation>  %1  %2 までホールド (%3)
</translation>
    </message>
    <message>
        <source>  %1  held until %2 (%3), ended: lifted by the next worker to look
</source>
        <translation>  %1  %2 までホールド (%3)、終了済み: 次に確認したワーカーが解除します
</translation>
    </message>
    <message>
        <source>pause endpoints until resumed, or for a while (--for 2h)</source>
        <translation>エンドポイントを再開まで、または一定時間 (--for 2h) 一時停止する</translation>
    </message>
    <message>
        <source>resume paused or held endpoints</source>
        <translation>一時停止またはホールド中のエンドポイントを再開する</translation>
    </message>
    <message>
        <source>The workspace file to add the endpoints to (made when it does not exist).</source>
        <translation>エンドポイントを追加するワークスペースファイル (なければ作成します)。</translation>
    </message>
    <message>
        <source>Read the curl commands from this file: one per line, or a shell script of them.</source>
        <translation>curl コマンドをこのファイルから読み込みます: 1 行に 1 つ、またはそれらのシェルスクリプト。</translation>
    </message>
    <message>
        <source>Print what would change; write nothing.</source>
        <translation>変更内容を表示するだけで、何も書き込みません。</translation>
    </message>
    <message>
        <source>The endpoint&apos;s id (one command only; default: made from the method and the path).</source>
        <translation>エンドポイントの ID (コマンドが 1 つのときのみ。既定: メソッドとパスから作成)。</translation>
    </message>
    <message>
        <source>How the environment variables that stand for secrets begin (default: the endpoint&apos;s id).</source>
        <translation>秘密の値を表す環境変数名の接頭辞 (既定: エンドポイントの ID)。</translation>
    </message>
    <message>
        <source>Run the endpoints every S seconds (default: GET and HEAD once, others for each job handed in).</source>
        <translation>エンドポイントを S 秒ごとに実行します (既定: GET と HEAD は 1 回、その他は投入されたジョブごと)。</translation>
    </message>
    <message>
        <source>--config F: the workspace file to add to</source>
        <translation>--config F: 追加先のワークスペースファイルを指定してください</translation>
    </message>
    <message>
        <source>give the curl command or --file F, one of them</source>
        <translation>curl コマンドか --file F のどちらか一方を指定してください</translation>
    </message>
    <message>
        <source>--every: expected whole seconds from 1 to a year, got &apos;%1&apos;</source>
        <translation>--every: 1 秒から 1 年までの整数の秒数を指定してください (&apos;%1&apos; が指定されました)</translation>
    </message>
    <message>
        <source>--file: cannot read %1: %2</source>
        <translation>--file: %1 を読み込めません: %2</translation>
    </message>
    <message>
        <source>--file: no curl command in %1</source>
        <translation>--file: %1 に curl コマンドがありません</translation>
    </message>
    <message>
        <source>--id names one endpoint; %1 has %2 commands</source>
        <translation>--id は 1 つのエンドポイントの名前です。%1 には %2 個のコマンドがあります</translation>
    </message>
    <message>
        <source>--dry-run: %1 was not changed
</source>
        <translation>--dry-run: %1 は変更していません
</translation>
    </message>
    <message>
        <source>written: %1
</source>
        <translation>書き込みました: %1
</translation>
    </message>
    <message>
        <source>add endpoints to a workspace from curl command lines, an OpenAPI document or a Postman collection</source>
        <translation>curl コマンドライン、OpenAPI ドキュメント、Postman コレクションからワークスペースにエンドポイントを追加する</translation>
    </message>
    <message>
        <source>OpenAPI: which of the document&apos;s servers to call, by number from 1, or a URL to call instead (default: the first).</source>
        <translation>OpenAPI: 呼び出すドキュメントのサーバー。1 から数えた番号か、代わりに呼び出す URL (既定: 最初のサーバー)。</translation>
    </message>
    <message>
        <source>Postman: the environment file whose variables the collection uses.</source>
        <translation>Postman: コレクションが使う変数を持つ環境ファイル。</translation>
    </message>
    <message>
        <source>cannot read %1: %2</source>
        <translation>%1 を読み込めません: %2</translation>
    </message>
    <message>
        <source>give the %1 file (or URL) to import</source>
        <translation>インポートする %1 のファイル (または URL) を指定してください</translation>
    </message>
    <message>
        <source>--%1 is for curl commands</source>
        <translation>--%1 は curl コマンド用です</translation>
    </message>
    <message>
        <source>--environment is for Postman collections</source>
        <translation>--environment は Postman コレクション用です</translation>
    </message>
    <message>
        <source>--server is for OpenAPI documents</source>
        <translation>--server は OpenAPI ドキュメント用です</translation>
    </message>
    <message>
        <source>Adds endpoints to a workspace from curl command lines, an OpenAPI document or a Postman collection (docs/import.md). Secrets in them become ${env:NAME} references; the names to set are printed.</source>
        <translation>curl コマンドライン、OpenAPI ドキュメント、Postman コレクションからワークスペースにエンドポイントを追加します (docs/import.md)。含まれるシークレットは ${env:NAME} 参照になり、設定すべき変数名が表示されます。</translation>
    </message>
    <message>
        <source>What to import from.</source>
        <translation>インポート元。</translation>
    </message>
    <message>
        <source>The curl command, quoted as one argument (or --file); the OpenAPI document (JSON or YAML, a file or a URL on this machine); the Postman collection.</source>
        <translation>curl コマンド (1 つの引数として引用、または --file)、OpenAPI ドキュメント (JSON または YAML、ファイルまたはこのマシン上の URL)、Postman コレクション。</translation>
    </message>
    <message>
        <source>expected what to import from: curl, openapi or postman, got &apos;%1&apos;</source>
        <translation>インポート元として curl、openapi、postman のいずれかを指定してください (&apos;%1&apos; が指定されました)</translation>
    </message>
    <message>
        <source>Workspace file: endpoint names, SLA targets and maintenance windows.</source>
        <translation>ワークスペースファイル: エンドポイント名、SLA 目標、メンテナンス時間帯。</translation>
    </message>
    <message>
        <source>Start of the range: a date (local midnight) or an ISO 8601 time (default: the first day of last month).</source>
        <translation>期間の開始: 日付 (ローカル時刻の午前 0 時) または ISO 8601 の時刻 (既定: 先月の初日)。</translation>
    </message>
    <message>
        <source>End of the range, not included: a date or an ISO 8601 time (default: the first day of this month).</source>
        <translation>期間の終了 (含まない): 日付または ISO 8601 の時刻 (既定: 今月の初日)。</translation>
    </message>
    <message>
        <source>Only this endpoint (may be given more than once).</source>
        <translation>このエンドポイントだけ (複数回指定できます)。</translation>
    </message>
    <message>
        <source>text, csv or json.</source>
        <translation>text、csv または json。</translation>
    </message>
    <message>
        <source>What an operation that succeeded after a 429 or 503 counts as: as-success, as-failure or exclude.</source>
        <translation>429 または 503 の後に成功したオペレーションの扱い: as-success、as-failure または exclude。</translation>
    </message>
    <message>
        <source>Whether time in maintenance windows counts: exclude or include.</source>
        <translation>メンテナンス時間帯を数えるかどうか: exclude または include。</translation>
    </message>
    <message>
        <source>--%1: expected a date (2026-11-01) or an ISO 8601 time, got &apos;%2&apos;</source>
        <translation>--%1: 日付 (2026-11-01) または ISO 8601 の時刻が必要ですが、&apos;%2&apos; が指定されました</translation>
    </message>
    <message>
        <source>--count-throttled: expected as-success, as-failure or exclude, got &apos;%1&apos;</source>
        <translation>--count-throttled: as-success、as-failure または exclude が必要ですが、&apos;%1&apos; が指定されました</translation>
    </message>
    <message>
        <source>--maintenance: expected exclude or include, got &apos;%1&apos;</source>
        <translation>--maintenance: exclude または include が必要ですが、&apos;%1&apos; が指定されました</translation>
    </message>
    <message>
        <source>Reports each endpoint&apos;s availability, downtime, latency, 429 share and failures over a range, read from the rollups (docs/report.md).</source>
        <translation>期間内の各エンドポイントの可用性、ダウンタイム、レイテンシ、429 の割合と失敗を、ロールアップから読んで報告します (docs/report.md)。</translation>
    </message>
    <message>
        <source>--format: expected text, csv or json, got &apos;%1&apos;</source>
        <translation>--format: text、csv または json が必要ですが、&apos;%1&apos; が指定されました</translation>
    </message>
    <message>
        <source>Shows one attempt as recorded: the request, the answer, the assertion it failed and, for the last failed or degraded exchanges of each endpoint, both bodies.</source>
        <translation>記録された試行を 1 件表示します: リクエスト、応答、不合格になったアサーション、そして各エンドポイントの直近の失敗または劣化した送受信については両方の本文。</translation>
    </message>
    <message>
        <source>The attempt&apos;s id.</source>
        <translation>試行の ID。</translation>
    </message>
    <message>
        <source>expected one attempt id (a whole number above 0)</source>
        <translation>試行の ID を 1 つ指定してください (0 より大きい整数)</translation>
    </message>
    <message>
        <source>no attempt %1 in %2</source>
        <translation>%2 に試行 %1 はありません</translation>
    </message>
    <message>
        <source>show one attempt, with the assertion it failed and the exchange kept</source>
        <translation>試行を 1 件、不合格のアサーションと保持した送受信とともに表示する</translation>
    </message>
    <message>
        <source>report each endpoint&apos;s availability and SLA over a range</source>
        <translation>期間内の各エンドポイントの可用性と SLA を報告する</translation>
    </message>
    <message>
        <source>Lists the incidents of a database: integrations that failed for one shared cause (a host, a proxy), the open ones and those opened lately.</source>
        <translation>データベースのインシデント (共通の原因 (ホスト、プロキシ) で失敗した連携) を一覧表示します。発生中のものと最近発生したものを表示します。</translation>
    </message>
    <message>
        <source>Also the incidents opened in this last span, such as 2h or 30d (default: 7d).</source>
        <translation>この期間内 (2h や 30d など、既定は 7d) に発生したインシデントも表示します。</translation>
    </message>
    <message>
        <source>Only the open incidents.</source>
        <translation>発生中のインシデントだけを表示します。</translation>
    </message>
    <message>
        <source>--since: expected a span such as 2h or 30d, not &apos;%1&apos;</source>
        <translation>--since: 2h や 30d のような期間を指定してください (&apos;%1&apos; ではなく)</translation>
    </message>
    <message>
        <source>incidents open: %1 (cooldown incidents)
</source>
        <translation>発生中のインシデント: %1 (cooldown incidents)
</translation>
    </message>
    <message>
        <source>  %1  %2 since %3 blocks %4
</source>
        <translation>  %1  %2 (%3 から) ブロック中: %4
</translation>
    </message>
    <message>
        <source>list incidents: integrations failing for one shared cause</source>
        <translation>インシデント (共通の原因で失敗している連携) を一覧表示する</translation>
    </message>
    <message>
        <source>worker %1 offline since %2: no network; its work is held
</source>
        <translation>ワーカー %1 は %2 からオフライン: ネットワークがありません。作業は保留中です
</translation>
    </message>
</context>
<context>
    <name>cooldown::config</name>
    <message>
        <source>unknown key (expected one of: %1)</source>
        <translation>不明なキーです (%1 のいずれかを指定してください)</translation>
    </message>
    <message>
        <source>expected an object</source>
        <translation>オブジェクトを指定してください</translation>
    </message>
    <message>
        <source>expected an array</source>
        <translation>配列を指定してください</translation>
    </message>
    <message>
        <source>required, expected a string</source>
        <translation>必須です。文字列を指定してください</translation>
    </message>
    <message>
        <source>expected a string</source>
        <translation>文字列を指定してください</translation>
    </message>
    <message>
        <source>expected a whole number from %1 to %2</source>
        <translation>%1〜%2 の整数を指定してください</translation>
    </message>
    <message>
        <source>expected a number from %1 to %2</source>
        <translation>%1〜%2 の数を指定してください</translation>
    </message>
    <message>
        <source>expected true or false</source>
        <translation>true か false を指定してください</translation>
    </message>
    <message>
        <source>environment variable %1 is not set</source>
        <translation>環境変数 %1 が設定されていません</translation>
    </message>
    <message>
        <source>unknown reference ${%1}</source>
        <translation>不明な参照 ${%1} です</translation>
    </message>
    <message>
        <source>line %1, column %2</source>
        <translation>%1 行 %2 列</translation>
    </message>
    <message>
        <source>expected 1-64 letters, digits, &apos;.&apos;, &apos;_&apos; or &apos;-&apos;</source>
        <translation>英字、数字、&apos;.&apos;、&apos;_&apos;、&apos;-&apos; を 1〜64 文字で指定してください</translation>
    </message>
    <message>
        <source>expected an HTTP method</source>
        <translation>HTTP メソッドを指定してください</translation>
    </message>
    <message>
        <source>expected an absolute http or https URL, got &apos;%1&apos;</source>
        <translation>http または https の絶対 URL を指定してください (&apos;%1&apos; が指定されました)</translation>
    </message>
    <message>
        <source>not a valid header name</source>
        <translation>ヘッダー名として正しくありません</translation>
    </message>
    <message>
        <source>header values cannot contain line breaks</source>
        <translation>ヘッダーの値に改行は使えません</translation>
    </message>
    <message>
        <source>%1: cannot read: %2</source>
        <translation>%1: 読み込めません: %2</translation>
    </message>
    <message>
        <source>%1: larger than %2 MiB</source>
        <translation>%1: %2 MiB を超えています</translation>
    </message>
    <message>
        <source>required, expected %1</source>
        <translation>必須です。%1 を指定してください</translation>
    </message>
    <message>
        <source>this build reads version %1, the file is version %2</source>
        <translation>このビルドが読めるのはバージョン %1 ですが、ファイルはバージョン %2 です</translation>
    </message>
    <message>
        <source>expected at least base_seconds (%1)</source>
        <translation>base_seconds (%1) 以上を指定してください</translation>
    </message>
    <message>
        <source>required, expected an array of endpoints</source>
        <translation>必須です。エンドポイントの配列を指定してください</translation>
    </message>
    <message>
        <source>expected at least one endpoint</source>
        <translation>エンドポイントを 1 つ以上指定してください</translation>
    </message>
    <message>
        <source>duplicate id &apos;%1&apos;</source>
        <translation>ID &apos;%1&apos; が重複しています</translation>
    </message>
    <message>
        <source>no retry profile named &apos;%1&apos;</source>
        <translation>&apos;%1&apos; という再試行プロファイルはありません</translation>
    </message>
    <message>
        <source>no policy with policy_id &apos;%1&apos;</source>
        <translation>policy_id が &apos;%1&apos; のポリシーはありません</translation>
    </message>
    <message>
        <source>%1: expected an object</source>
        <translation>%1: オブジェクトを指定してください</translation>
    </message>
    <message>
        <source>%1: cannot write: %2</source>
        <translation>%1: 書き込めません: %2</translation>
    </message>
    <message>
        <source>Alert %1</source>
        <translation>アラート %1</translation>
    </message>
    <message>
        <source>required, expected a list of: %1</source>
        <translation>必須です。次の一覧が必要です: %1</translation>
    </message>
    <message>
        <source>expected at least one event</source>
        <translation>少なくとも 1 つのイベントが必要です</translation>
    </message>
    <message>
        <source>expected one of: %1</source>
        <translation>次のいずれかが必要です: %1</translation>
    </message>
    <message>
        <source>no value for ${job:%1}</source>
        <translation>${job:%1} の値がありません</translation>
    </message>
    <message>
        <source>the value of ${job:%1} goes into a header field and cannot hold control characters or line breaks</source>
        <translation>${job:%1} の値はヘッダーフィールドに入るため、制御文字や改行を含められません</translation>
    </message>
    <message>
        <source>expected a string or a number</source>
        <translation>文字列または数値が必要です</translation>
    </message>
    <message>
        <source>expected an ISO 8601 time, got &apos;%1&apos;</source>
        <translation>ISO 8601 の時刻が必要ですが &apos;%1&apos; でした</translation>
    </message>
    <message>
        <source>the filled URL is not valid: %1</source>
        <translation>値を埋めた URL が不正です: %1</translation>
    </message>
    <message>
        <source>no endpoint &apos;%1&apos; in %2</source>
        <translation>%2 にエンドポイント &apos;%1&apos; はありません</translation>
    </message>
    <message>
        <source>endpoint %1 runs every %2 s; jobs go to endpoints that run once or only enqueued jobs</source>
        <translation>エンドポイント %1 は %2 秒ごとに実行されます。ジョブは 1 回だけ実行されるエンドポイントか、投入されたジョブだけを実行するエンドポイントに渡してください</translation>
    </message>
    <message>
        <source>missing &apos;%1&apos;, which endpoint %2 needs for ${job:%1}</source>
        <translation>&apos;%1&apos; がありません。エンドポイント %2 の ${job:%1} に必要です</translation>
    </message>
    <message>
        <source>endpoint %1 has no ${job:%2} placeholder</source>
        <translation>エンドポイント %1 に ${job:%2} プレースホルダーはありません</translation>
    </message>
    <message>
        <source>expected at most 255 visible ASCII characters</source>
        <translation>表示可能な ASCII 文字 255 文字以内が必要です</translation>
    </message>
    <message>
        <source>idempotency key &apos;%1&apos; was handed in for operation %2 with another request; a key stands for one request</source>
        <translation>冪等キー &apos;%1&apos; は別のリクエストで操作 %2 に渡されています。1 つのキーは 1 つのリクエストを表します</translation>
    </message>
    <message>
        <source>looks like an e-mail address; partition keys are stored, shown and exported, so use an id that names no person</source>
        <translation>メールアドレスのようです。パーティションキーは保存・表示・エクスポートされるため、個人を特定しない ID を使ってください</translation>
    </message>
    <message>
        <source>looks like a secret (a token or a key); partition keys are stored, shown and exported, so use an id that grants nothing</source>
        <translation>秘密情報（トークンや鍵）のようです。パーティションキーは保存・表示・エクスポートされるため、権限を持たない ID を使ってください</translation>
    </message>
    <message>
        <source>malformed reference: expected ${env:NAME} or ${job:NAME}</source>
        <translation>参照の形式が不正です: ${env:NAME} または ${job:NAME} が必要です</translation>
    </message>
    <message>
        <source>a ${job:NAME} placeholder may stand in the path or the query, not in the scheme, host or port</source>
        <translation>${job:NAME} プレースホルダーはパスかクエリにだけ置けます。スキーム、ホスト、ポートには置けません</translation>
    </message>
    <message>
        <source>an endpoint with ${job:NAME} placeholders runs only enqueued jobs</source>
        <translation>${job:NAME} プレースホルダーを持つエンドポイントは投入されたジョブだけを実行します</translation>
    </message>
    <message>
        <source>an endpoint with ${job:NAME} placeholders runs only enqueued jobs, not periodically</source>
        <translation>${job:NAME} プレースホルダーを持つエンドポイントは投入されたジョブだけを実行し、定期実行はできません</translation>
    </message>
    <message>
        <source>an endpoint that runs only enqueued jobs cannot run periodically</source>
        <translation>投入されたジョブだけを実行するエンドポイントは定期実行できません</translation>
    </message>
    <message>
        <source>an alert target cannot hold ${job:NAME} placeholders</source>
        <translation>アラートの送信先は ${job:NAME} プレースホルダーを持てません</translation>
    </message>
    <message>
        <source>expected ${env:NAME}: the token is read from the environment, never written in the file</source>
        <translation>${env:NAME} の形で指定してください: トークンは環境変数から読み、ファイルには書きません</translation>
    </message>
    <message>
        <source>the token in %1 is %2 characters long; use at least 16 random ones</source>
        <translation>%1 のトークンは %2 文字です。ランダムな文字を 16 文字以上使ってください</translation>
    </message>
    <message>
        <source>%1 does not exist</source>
        <translation>%1 が存在しません</translation>
    </message>
    <message>
        <source>%1 is not a file</source>
        <translation>%1 はファイルではありません</translation>
    </message>
    <message>
        <source>%1 is larger than %2 MiB</source>
        <translation>%1 は %2 MiB を超えています</translation>
    </message>
    <message>
        <source>%1 is empty</source>
        <translation>%1 は空です</translation>
    </message>
    <message>
        <source>cannot read %1: %2</source>
        <translation>%1 を読み込めません: %2</translation>
    </message>
    <message>
        <source>%1 holds no certificate (expected PEM)</source>
        <translation>%1 に証明書がありません (PEM が必要です)</translation>
    </message>
    <message>
        <source>%1 holds a certificate that cannot be read</source>
        <translation>%1 に読み取れない証明書が含まれています</translation>
    </message>
    <message>
        <source>%1 is encrypted and no key_passphrase is given</source>
        <translation>%1 は暗号化されていますが、key_passphrase が指定されていません</translation>
    </message>
    <message>
        <source>cannot decrypt %1: wrong passphrase, or not an RSA, EC or DSA key</source>
        <translation>%1 を復号できません: パスフレーズが違うか、RSA、EC、DSA のいずれの鍵でもありません</translation>
    </message>
    <message>
        <source>%1 holds no private key (expected an RSA, EC or DSA key in PEM)</source>
        <translation>%1 に秘密鍵がありません (PEM 形式の RSA、EC、DSA のいずれかの鍵が必要です)</translation>
    </message>
    <message>
        <source>cannot open %1: wrong passphrase, not a PKCS#12 file, or one encrypted with a legacy algorithm that OpenSSL 3 no longer reads (export it again without -legacy)</source>
        <translation>%1 を開けません: パスフレーズが違うか、PKCS#12 ファイルでないか、OpenSSL 3 では読めなくなった古いアルゴリズムで暗号化されています (-legacy を付けずにエクスポートし直してください)</translation>
    </message>
    <message>
        <source>%1 holds no certificate and key</source>
        <translation>%1 に証明書と鍵がそろっていません</translation>
    </message>
    <message>
        <source>a ${job:NAME} placeholder cannot stand here: this is the workspace&apos;s, the same for every job</source>
        <translation>ここには ${job:NAME} プレースホルダーを置けません: これはワークスペースの設定で、どのジョブでも同じです</translation>
    </message>
    <message>
        <source>expected ${env:NAME}: a secret is read from the environment, never written in the file</source>
        <translation>${env:NAME} の形で指定してください: 秘密情報は環境変数から読み、ファイルには書きません</translation>
    </message>
    <message>
        <source>environment variable %1 is empty</source>
        <translation>環境変数 %1 が空です</translation>
    </message>
    <message>
        <source>environment variable %1 holds a control character (a line break?)</source>
        <translation>環境変数 %1 に制御文字が含まれています (改行ではありませんか?)</translation>
    </message>
    <message>
        <source>expected &quot;system&quot;, &quot;none&quot;, a proxy URL (http:// or socks5://) or an object with &quot;url&quot; and &quot;no_proxy&quot;</source>
        <translation>&quot;system&quot;、&quot;none&quot;、プロキシ URL (http:// または socks5://)、または &quot;url&quot; と &quot;no_proxy&quot; を持つオブジェクトを指定してください</translation>
    </message>
    <message>
        <source>an https:// proxy (TLS to the proxy itself) is not supported; use its http:// address: requests to https:// endpoints stay encrypted through it</source>
        <translation>https:// のプロキシ (プロキシ自体への TLS) には対応していません。プロキシの http:// アドレスを使ってください: https:// のエンドポイントへのリクエストは、プロキシを通っても暗号化されたままです</translation>
    </message>
    <message>
        <source>a proxy URL is a scheme, a host and a port, with no path</source>
        <translation>プロキシ URL はスキーム、ホスト、ポートだけで書き、パスは付けません</translation>
    </message>
    <message>
        <source>the user of a proxy URL is written as it is, or as ${env:NAME}</source>
        <translation>プロキシ URL のユーザーはそのまま書くか、${env:NAME} の形で書いてください</translation>
    </message>
    <message>
        <source>the password of a proxy URL must be ${env:NAME}: a secret is read from the environment, never written in the file</source>
        <translation>プロキシ URL のパスワードは ${env:NAME} の形にしてください: 秘密情報は環境変数から読み、ファイルには書きません</translation>
    </message>
    <message>
        <source>a proxy URL with &apos;@&apos; needs a user before it</source>
        <translation>&apos;@&apos; を含むプロキシ URL では、その前にユーザーが必要です</translation>
    </message>
    <message>
        <source>the host and port of a proxy URL are written as they are</source>
        <translation>プロキシ URL のホストとポートには参照を使わず、そのまま書いてください</translation>
    </message>
    <message>
        <source>a proxy URL needs a port (http://proxy.example:3128)</source>
        <translation>プロキシ URL にはポートが必要です (http://proxy.example:3128)</translation>
    </message>
    <message>
        <source>expected a host name, &quot;.domain&quot;, an IP address or &quot;*&quot;</source>
        <translation>ホスト名、&quot;.domain&quot;、IP アドレス、&quot;*&quot; のいずれかを指定してください</translation>
    </message>
    <message>
        <source>expected a file name</source>
        <translation>ファイル名を指定してください</translation>
    </message>
    <message>
        <source>give either client_pkcs12 or client_certificate and client_key, not both</source>
        <translation>client_pkcs12 か、client_certificate と client_key の組か、どちらか一方だけを指定してください</translation>
    </message>
    <message>
        <source>required with client_certificate</source>
        <translation>client_certificate があるときは必須です</translation>
    </message>
    <message>
        <source>required with client_key</source>
        <translation>client_key があるときは必須です</translation>
    </message>
    <message>
        <source>only with client_key</source>
        <translation>client_key があるときだけ指定できます</translation>
    </message>
    <message>
        <source>only with client_pkcs12</source>
        <translation>client_pkcs12 があるときだけ指定できます</translation>
    </message>
    <message>
        <source>this build of Qt has no TLS backend to read key material with</source>
        <translation>この Qt のビルドには、鍵や証明書を読み込むための TLS バックエンドがありません</translation>
    </message>
    <message>
        <source>the key in %1 is not the key of the certificate in %2</source>
        <translation>%1 の鍵は %2 の証明書に対応する鍵ではありません</translation>
    </message>
    <message>
        <source>private_key_jwt signs with private_key; no client_secret is sent</source>
        <translation>private_key_jwt は private_key で署名します。client_secret は送信しません</translation>
    </message>
    <message>
        <source>required with private_key_jwt</source>
        <translation>private_key_jwt では必須です</translation>
    </message>
    <message>
        <source>%1 cannot sign a client assertion: %2</source>
        <translation>%1 ではクライアントアサーションに署名できません: %2</translation>
    </message>
    <message>
        <source>expected an absolute http or https URL</source>
        <translation>http または https の絶対 URL を指定してください</translation>
    </message>
    <message>
        <source>expected a client id</source>
        <translation>クライアント ID を指定してください</translation>
    </message>
    <message>
        <source>only with private_key_jwt</source>
        <translation>private_key_jwt のときだけ指定できます</translation>
    </message>
    <message>
        <source>this form field is the token request&apos;s own</source>
        <translation>このフォームフィールドはトークン要求自体が設定するものです</translation>
    </message>
    <message>
        <source>expected a user name as it is, or ${env:NAME}</source>
        <translation>ユーザー名をそのまま書くか、${env:NAME} の形で指定してください</translation>
    </message>
    <message>
        <source>expected a user name without &apos;:&apos;</source>
        <translation>&apos;:&apos; を含まないユーザー名を指定してください</translation>
    </message>
    <message>
        <source>expected a ${env:NAME} reference in the value: a secret is read from the environment, never written in the file</source>
        <translation>値には ${env:NAME} 参照を含めてください: 秘密情報は環境変数から読み、ファイルには書きません</translation>
    </message>
    <message>
        <source>header values cannot contain line breaks (from %1)</source>
        <translation>ヘッダーの値に改行は使えません (%1 の値に含まれています)</translation>
    </message>
    <message>
        <source>no credentials with id &apos;%1&apos;</source>
        <translation>ID が &apos;%1&apos; の認証情報はありません</translation>
    </message>
    <message>
        <source>the headers already set %1, which the credentials &apos;%2&apos; send</source>
        <translation>headers で %1 がすでに設定されていますが、これは認証情報 &apos;%2&apos; が送るヘッダーです</translation>
    </message>
    <message>
        <source>no tls entry with id &apos;%1&apos;</source>
        <translation>tls に ID が &apos;%1&apos; のエントリーはありません</translation>
    </message>
    <message>
        <source>the token requests of credentials %1</source>
        <translation>認証情報 %1 のトークン要求</translation>
    </message>
    <message>
        <source>expected a local date and time such as 2026-12-24T18:00 (in time_zone, without an offset), got &apos;%1&apos;</source>
        <translation>2026-12-24T18:00 のようなローカル日時 (time_zone での時刻、オフセットなし) を指定してください (&apos;%1&apos; が指定されました)</translation>
    </message>
    <message>
        <source>expected at least one day</source>
        <translation>少なくとも 1 日を指定してください</translation>
    </message>
    <message>
        <source>expected a day (one of: %1)</source>
        <translation>曜日を指定してください (%1 のいずれか)</translation>
    </message>
    <message>
        <source>expected a local time such as 22:00, got &apos;%1&apos;</source>
        <translation>22:00 のようなローカル時刻を指定してください (&apos;%1&apos; が指定されました)</translation>
    </message>
    <message>
        <source>expected a span such as 8h, 90m or 1d12h, got &apos;%1&apos;</source>
        <translation>8h、90m、1d12h のような期間を指定してください (&apos;%1&apos; が指定されました)</translation>
    </message>
    <message>
        <source>expected a time after from</source>
        <translation>from より後の時刻を指定してください</translation>
    </message>
    <message>
        <source>no endpoint with id &apos;%1&apos;</source>
        <translation>ID が &apos;%1&apos; のエンドポイントはありません</translation>
    </message>
    <message>
        <source>no endpoint&apos;s URL has the host &apos;%1&apos;</source>
        <translation>ホスト &apos;%1&apos; を URL に持つエンドポイントはありません</translation>
    </message>
    <message>
        <source>must not be empty</source>
        <translation>空にできません</translation>
    </message>
    <message>
        <source>not a time zone this system knows: &apos;%1&apos; (expected an IANA name such as Europe/Berlin or UTC)</source>
        <translation>このシステムが知らないタイムゾーンです: &apos;%1&apos; (Europe/Berlin や UTC のような IANA 名を指定してください)</translation>
    </message>
    <message>
        <source>not a valid regular expression: %1 at offset %2</source>
        <translation>正しい正規表現ではありません: 位置 %2 で %1</translation>
    </message>
    <message>
        <source>expected at least one status</source>
        <translation>ステータスを 1 つ以上指定してください</translation>
    </message>
    <message>
        <source>expected a status (200), a range (200-299) or a class (2xx)</source>
        <translation>ステータス (200)、範囲 (200-299)、クラス (2xx) のいずれかを指定してください</translation>
    </message>
    <message>
        <source>expected one of: present, equals, matches</source>
        <translation>present、equals、matches のいずれか 1 つを指定してください</translation>
    </message>
    <message>
        <source>expected at least one value</source>
        <translation>値を 1 つ以上指定してください</translation>
    </message>
    <message>
        <source>larger than max_body_bytes</source>
        <translation>max_body_bytes より大きい値です</translation>
    </message>
    <message>
        <source>a JSON pointer begins with &apos;/&apos; (or is empty for the whole body)</source>
        <translation>JSON ポインターは &apos;/&apos; で始めてください (本文全体を指すときは空にします)</translation>
    </message>
    <message>
        <source>&apos;~&apos; in a JSON pointer must be followed by 0 or 1</source>
        <translation>JSON ポインター中の &apos;~&apos; の後には 0 か 1 が必要です</translation>
    </message>
    <message>
        <source>expected &quot;one&quot; (missed ticks run once) or &quot;none&quot; (they are skipped)</source>
        <translation>&quot;one&quot; (逃したティックを 1 回だけ実行) または &quot;none&quot; (スキップ) を指定してください</translation>
    </message>
    <message>
        <source>only a periodic endpoint (every_seconds) has ticks to catch up</source>
        <translation>逃したティックを取り戻せるのは定期実行のエンドポイント (every_seconds) だけです</translation>
    </message>
    <message>
        <source>a CA is of no use with verify_certificate: false, which trusts any certificate</source>
        <translation>verify_certificate: false はどの証明書も信頼するため、CA を指定しても意味がありません</translation>
    </message>
    <message>
        <source>tls &apos;%1&apos; does not verify host names (verify_hostname: false)</source>
        <translation>tls &apos;%1&apos; はホスト名を検証しません (verify_hostname: false)</translation>
    </message>
    <message>
        <source>tls &apos;%1&apos; does not verify certificates at all (verify_certificate: false): anyone on the way can read and change the exchanges</source>
        <translation>tls &apos;%1&apos; は証明書をまったく検証しません (verify_certificate: false): 経路上の誰でもやり取りを読み、書き換えられます</translation>
    </message>
    <message>
        <source>%1; no endpoint uses it</source>
        <translation>%1。使っているエンドポイントはありません</translation>
    </message>
    <message>
        <source>%1, for: %2</source>
        <translation>%1。対象: %2</translation>
    </message>
    <message>
        <source>one of weekly, cron, or from and to, not more</source>
        <translation>weekly、cron、または from と to のいずれか一つだけを指定してください</translation>
    </message>
    <message>
        <source>expected weekly, cron, or from and to</source>
        <translation>weekly、cron、または from と to が必要です</translation>
    </message>
    <message>
        <source>only with latency_budget_ms: it is the span the p95 is judged over</source>
        <translation>latency_budget_ms と一緒にのみ指定できます: p95 を判定する期間です</translation>
    </message>
</context>
<context>
    <name>cooldown::cron</name>
    <message>
        <source>minute</source>
        <translation>分</translation>
    </message>
    <message>
        <source>hour</source>
        <translation>時</translation>
    </message>
    <message>
        <source>day of month</source>
        <translation>日</translation>
    </message>
    <message>
        <source>month</source>
        <translation>月</translation>
    </message>
    <message>
        <source>day of week</source>
        <translation>曜日</translation>
    </message>
    <message>
        <source>a minute 0-59</source>
        <translation>分 (0-59)</translation>
    </message>
    <message>
        <source>an hour 0-23</source>
        <translation>時 (0-23)</translation>
    </message>
    <message>
        <source>a day of the month 1-31</source>
        <translation>日 (1-31)</translation>
    </message>
    <message>
        <source>a month 1-12 or jan-dec</source>
        <translation>月 (1-12 または jan-dec)</translation>
    </message>
    <message>
        <source>a day 0-7 or sun-sat</source>
        <translation>曜日 (0-7 または sun-sat)</translation>
    </message>
    <message>
        <source>%1: expected %2, a range such as 1-5, a step such as */15, or a list of them, got &apos;%3&apos;</source>
        <translation>%1: %2、1-5 のような範囲、*/15 のような間隔、またはそれらのリストが必要ですが、&apos;%3&apos; でした</translation>
    </message>
    <message>
        <source>expected five fields (minute hour day-of-month month day-of-week, such as &apos;0 22 * * sat&apos;), got %1</source>
        <translation>5 つのフィールド (分 時 日 月 曜日、例: &apos;0 22 * * sat&apos;) が必要ですが、%1 個でした</translation>
    </message>
    <message>
        <source>no date matches &apos;%1&apos;</source>
        <translation>&apos;%1&apos; に一致する日付がありません</translation>
    </message>
</context>
<context>
    <name>cooldown::format::Text</name>
    <message>
        <source>due</source>
        <translation>実行予定</translation>
    </message>
    <message>
        <source>in %1 s</source>
        <translation>あと %1 秒</translation>
    </message>
    <message>
        <source>in %1 min %2 s</source>
        <translation>あと %1 分 %2 秒</translation>
    </message>
    <message>
        <source>in %1 h %2 min</source>
        <translation>あと %1 時間 %2 分</translation>
    </message>
    <message>
        <source>%1 ms</source>
        <translation>%1 ms</translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation>%1 秒</translation>
    </message>
    <message>
        <source>%1 min %2 s</source>
        <translation>%1 分 %2 秒</translation>
    </message>
    <message>
        <source>%1 h %2 min</source>
        <translation>%1 時間 %2 分</translation>
    </message>
    <message>
        <source>scheduled</source>
        <translation>予定</translation>
    </message>
    <message>
        <source>running</source>
        <translation>実行中</translation>
    </message>
    <message>
        <source>waiting</source>
        <translation>待機中</translation>
    </message>
    <message>
        <source>succeeded</source>
        <translation>成功</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失敗</translation>
    </message>
    <message>
        <source>parked</source>
        <translation>保留</translation>
    </message>
    <message>
        <source>cancelled</source>
        <translation>キャンセル済み</translation>
    </message>
    <message>
        <source>yyyy-MM-dd HH:mm:ss</source>
        <comment>date format</comment>
        <translation>yyyy/MM/dd HH:mm:ss</translation>
    </message>
    <message>
        <source>success</source>
        <translation>成功</translation>
    </message>
    <message>
        <source>retry</source>
        <translation>再試行</translation>
    </message>
    <message>
        <source>park</source>
        <translation>保留</translation>
    </message>
    <message>
        <source>fail</source>
        <translation>失敗</translation>
    </message>
    <message>
        <source>no answer</source>
        <translation>応答なし</translation>
    </message>
    <message>
        <source>Credentials %1 refused: %2 — operations parked</source>
        <translation>認証情報 %1 が拒否されました: %2 — オペレーションは保留中</translation>
    </message>
    <message>
        <source>Waiting for credentials %1 (token endpoint: %2, asking again now)</source>
        <translation>認証情報 %1 を待機中 (トークンエンドポイント: %2、再要求中)</translation>
    </message>
    <message>
        <source>Waiting for credentials %1 (token endpoint: %2, next try %3)</source>
        <translation>認証情報 %1 を待機中 (トークンエンドポイント: %2、次の要求 %3)</translation>
    </message>
</context>
<context>
    <name>cooldown::import</name>
    <message>
        <source>@- reads standard input, which an import cannot; save it to a file and name that</source>
        <translation>@- は標準入力を読みますが、インポートではできません。ファイルに保存してその名前を指定してください</translation>
    </message>
    <message>
        <source>cannot read %1: %2</source>
        <translation>%1 を読み込めません: %2</translation>
    </message>
    <message>
        <source>-H: expected &quot;Name: value&quot;, got &apos;%1&apos;</source>
        <translation>-H: &quot;名前: 値&quot; の形で指定してください (&apos;%1&apos; が指定されました)</translation>
    </message>
    <message>
        <source>%1: expected name=content, got &apos;%2&apos;</source>
        <translation>%1: 名前=内容 の形で指定してください (&apos;%2&apos; が指定されました)</translation>
    </message>
    <message>
        <source>%1 &apos;%2&apos;: a cookie file cannot be imported; give the cookies as name=value</source>
        <translation>%1 &apos;%2&apos;: Cookie ファイルはインポートできません。Cookie を 名前=値 の形で指定してください</translation>
    </message>
    <message>
        <source>%1 is not an option the import knows; remove it, or add what it does to the endpoint by hand</source>
        <translation>%1 はインポートが知らないオプションです。削除するか、その働きを手でエンドポイントに追加してください</translation>
    </message>
    <message>
        <source>no URL in the command</source>
        <translation>コマンドに URL がありません</translation>
    </message>
    <message>
        <source>not a URL: &apos;%1&apos;</source>
        <translation>URL ではありません: &apos;%1&apos;</translation>
    </message>
    <message>
        <source>-F and -d together: curl refuses that too</source>
        <translation>-F と -d は同時に使えません: curl も拒否します</translation>
    </message>
    <message>
        <source>expected a command that starts with curl, got &apos;%1&apos;</source>
        <translation>curl で始まるコマンドを指定してください (&apos;%1&apos; が指定されました)</translation>
    </message>
    <message>
        <source>a second URL &apos;%1&apos;: import one request per command</source>
        <translation>2 つ目の URL &apos;%1&apos;: 1 つのコマンドにつき 1 つのリクエストをインポートしてください</translation>
    </message>
    <message>
        <source>%1 needs a value</source>
        <translation>%1 には値が必要です</translation>
    </message>
    <message>
        <source>named in the command</source>
        <translation>コマンド内で参照</translation>
    </message>
    <message>
        <source>the password of %1 (Authorization: Basic)</source>
        <translation>%1 のパスワード (Authorization: Basic)</translation>
    </message>
    <message>
        <source>the bearer token of Authorization</source>
        <translation>Authorization のベアラートークン</translation>
    </message>
    <message>
        <source>the value of Authorization</source>
        <translation>Authorization の値</translation>
    </message>
    <message>
        <source>%1 left out: it is worked out for each request</source>
        <translation>%1 は除外しました: リクエストごとに算出されます</translation>
    </message>
    <message>
        <source>the value of %1</source>
        <translation>%1 の値</translation>
    </message>
    <message>
        <source>%1 given twice: written as one header, its values separated by commas</source>
        <translation>%1 が 2 回指定されています: 値をカンマで区切った 1 つのヘッダーとして書き込みました</translation>
    </message>
    <message>
        <source>the query parameter %1</source>
        <translation>クエリパラメーター %1</translation>
    </message>
    <message>
        <source>the password of %1 (-u)</source>
        <translation>%1 のパスワード (-u)</translation>
    </message>
    <message>
        <source>the body is not UTF-8 text (%1 bytes); a workspace holds a body as text</source>
        <translation>本文が UTF-8 テキストではありません (%1 バイト)。ワークスペースは本文をテキストとして保持します</translation>
    </message>
    <message>
        <source>--compressed needs nothing: responses are decompressed as they come</source>
        <translation>--compressed は不要です: 応答は受信時に展開されます</translation>
    </message>
    <message>
        <source>line %1, column %2</source>
        <translation>%1 行 %2 列</translation>
    </message>
    <message>
        <source>a &apos; opened at %1 is not closed</source>
        <translation>%1 で開いた &apos; が閉じていません</translation>
    </message>
    <message>
        <source>a $&apos; opened at %1 is not closed</source>
        <translation>%1 で開いた $&apos; が閉じていません</translation>
    </message>
    <message>
        <source>a &quot; opened at %1 is not closed</source>
        <translation>%1 で開いた &quot; が閉じていません</translation>
    </message>
    <message>
        <source>the command is empty</source>
        <translation>コマンドが空です</translation>
    </message>
    <message>
        <source>the base64 of user:password (as printf &apos;user:password&apos; | base64 prints it) for Authorization: Basic</source>
        <translation>Authorization: Basic 用の user:password の base64 (printf &apos;user:password&apos; | base64 が出力するもの)</translation>
    </message>
    <message>
        <source>nested deeper than %1 levels</source>
        <translation>入れ子が %1 段より深くなっています</translation>
    </message>
    <message>
        <source>more than %1 values once its aliases are expanded</source>
        <translation>エイリアスを展開すると値が %1 個を超えます</translation>
    </message>
    <message>
        <source>a key that is not a plain value</source>
        <translation>単純な値ではないキー</translation>
    </message>
    <message>
        <source>%1: line %2, column %3: %4</source>
        <translation>%1: %2 行 %3 列: %4</translation>
    </message>
    <message>
        <source>%1: line %2: %3</source>
        <translation>%1: %2 行: %3</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message>
        <source>%1: expected a YAML or JSON document of keys and values</source>
        <translation>%1: キーと値からなる YAML または JSON ドキュメントを指定してください</translation>
    </message>
    <message>
        <source>line %1: not a curl command, left out</source>
        <translation>%1 行: curl コマンドではないため除外しました</translation>
    </message>
    <message>
        <source>%1: line %2: </source>
        <translation>%1: %2 行: </translation>
    </message>
    <message>
        <source>no idempotency header in the source: once a %1 may have reached the server it is not sent again, but parked (docs/retry-contract.md)</source>
        <translation>ソースに冪等性ヘッダーがありません: %1 はサーバーに届いた可能性があると再送されず、保留されます (docs/retry-contract.md)</translation>
    </message>
    <message>
        <source>a template: each job brings %1 (docs/intake.md)</source>
        <translation>テンプレート: 各ジョブが %1 を渡します (docs/intake.md)</translation>
    </message>
    <message>
        <source>add</source>
        <translation>追加</translation>
    </message>
    <message>
        <source>update</source>
        <translation>更新</translation>
    </message>
    <message>
        <source>unchanged</source>
        <translation>変更なし</translation>
    </message>
    <message>
        <source>  credentials %1 (%2)
</source>
        <translation>  認証情報 %1 (%2)
</translation>
    </message>
    <message>
        <source>  check-config: %1
</source>
        <translation>  check-config: %1
</translation>
    </message>
    <message>
        <source>Set these before the workspace runs (the secrets were not written into it):
</source>
        <translation>ワークスペースを実行する前に次を設定してください (シークレットは書き込まれていません):
</translation>
    </message>
    <message>
        <source>check-config: the workspace loads
</source>
        <translation>check-config: ワークスペースは読み込めます
</translation>
    </message>
    <message>
        <source>check-config: %1
</source>
        <translation>check-config: %1
</translation>
    </message>
    <message>
        <source>Not set here either, named by the workspace already: %1
</source>
        <translation>ここでも未設定で、ワークスペースがすでに参照しているもの: %1
</translation>
    </message>
    <message>
        <source>%1: &apos;%2&apos; is outside the document; only references inside it (#/...) are followed</source>
        <translation>%1: &apos;%2&apos; はドキュメントの外にあります。ドキュメント内の参照 (#/...) のみをたどります</translation>
    </message>
    <message>
        <source>%1: &apos;%2&apos; leads back to itself (%3)</source>
        <translation>%1: &apos;%2&apos; は自分自身に戻ります (%3)</translation>
    </message>
    <message>
        <source>%1: &apos;%2&apos; names nothing in the document</source>
        <translation>%1: &apos;%2&apos; が指すものはドキュメントにありません</translation>
    </message>
    <message>
        <source>swagger: Swagger %1 is not read; convert the document to OpenAPI 3 first (for example with swagger2openapi)</source>
        <translation>swagger: Swagger %1 は読み込めません。先にドキュメントを OpenAPI 3 に変換してください (例: swagger2openapi)</translation>
    </message>
    <message>
        <source>openapi: missing; not an OpenAPI document</source>
        <translation>openapi: ありません。OpenAPI ドキュメントではありません</translation>
    </message>
    <message>
        <source>openapi: expected a version 3.0.x or 3.1.x, got &apos;%1&apos;</source>
        <translation>openapi: バージョン 3.0.x または 3.1.x を指定してください (&apos;%1&apos; が指定されました)</translation>
    </message>
    <message>
        <source>%1: {%2} has no default in its variables</source>
        <translation>%1: {%2} の既定値が variables にありません</translation>
    </message>
    <message>
        <source>%1: &apos;%2&apos; is not an absolute URL; give the API&apos;s address with --server URL</source>
        <translation>%1: &apos;%2&apos; は絶対 URL ではありません。API のアドレスを --server URL で指定してください</translation>
    </message>
    <message>
        <source>server: %1 (--server)</source>
        <translation>サーバー: %1 (--server)</translation>
    </message>
    <message>
        <source>--server %1: expected a URL or a number from 1 to %2, the servers the document lists</source>
        <translation>--server %1: URL か、ドキュメントに記載されたサーバーの番号 1 から %2 を指定してください</translation>
    </message>
    <message>
        <source>server: %1 (%2 of %3; --server N picks another)</source>
        <translation>サーバー: %1 (%3 個中 %2 番目。--server N で別のサーバーを選べます)</translation>
    </message>
    <message>
        <source>server: %1</source>
        <translation>サーバー: %1</translation>
    </message>
    <message>
        <source>each job brings its body (%1): the document asks for no plain members to fill in</source>
        <translation>各ジョブが本文を渡します (%1): ドキュメントに埋めるべき単純なメンバーがありません</translation>
    </message>
    <message>
        <source>no media type</source>
        <translation>メディアタイプなし</translation>
    </message>
    <message>
        <source>OAuth 2.0 without the client credentials flow (%1): the engine has no user to sign in</source>
        <translation>クライアントクレデンシャルフローのない OAuth 2.0 (%1): エンジンにはサインインするユーザーがいません</translation>
    </message>
    <message>
        <source>the OAuth client id of %1</source>
        <translation>%1 の OAuth クライアント ID</translation>
    </message>
    <message>
        <source>the OAuth client secret of %1</source>
        <translation>%1 の OAuth クライアントシークレット</translation>
    </message>
    <message>
        <source>an API key without a name</source>
        <translation>名前のない API キー</translation>
    </message>
    <message>
        <source>an API key in &apos;%1&apos;</source>
        <translation>&apos;%1&apos; にある API キー</translation>
    </message>
    <message>
        <source>the API key of %1 (%2 %3)</source>
        <translation>%1 の API キー (%2 %3)</translation>
    </message>
    <message>
        <source>a second credential for one request</source>
        <translation>1 つのリクエストに 2 つ目の認証情報</translation>
    </message>
    <message>
        <source>the bearer token of %1</source>
        <translation>%1 のベアラートークン</translation>
    </message>
    <message>
        <source>HTTP %1 authentication, which Cooldown does not send</source>
        <translation>HTTP %1 認証 (Cooldown は送信しません)</translation>
    </message>
    <message>
        <source>the user of %1</source>
        <translation>%1 のユーザー</translation>
    </message>
    <message>
        <source>the password of %1</source>
        <translation>%1 のパスワード</translation>
    </message>
    <message>
        <source>mutual TLS: give the endpoint a tls entry (docs/credentials.md)</source>
        <translation>相互 TLS: エンドポイントに tls エントリを指定してください (docs/credentials.md)</translation>
    </message>
    <message>
        <source>%1, which the import cannot turn into a credential; give the endpoint one by hand</source>
        <translation>%1 はインポートで認証情報にできません。エンドポイントに手で指定してください</translation>
    </message>
    <message>
        <source>a scheme without a type</source>
        <translation>type のないスキーム</translation>
    </message>
    <message>
        <source>%1: &apos;%2&apos; is not a scheme of components.securitySchemes</source>
        <translation>%1: &apos;%2&apos; は components.securitySchemes のスキームではありません</translation>
    </message>
    <message>
        <source>no credentials: %1</source>
        <translation>認証情報なし: %1</translation>
    </message>
    <message>
        <source>%1: %2 (a rate limit the document states; a policy can pace by it)</source>
        <translation>%1: %2 (ドキュメントが示すレート制限。ポリシーでこれに合わせて送信ペースを調整できます)</translation>
    </message>
    <message>
        <source>429 Too Many Requests documented, with no Retry-After or RateLimit header: the engine backs off</source>
        <translation>429 Too Many Requests が記載されていますが Retry-After や RateLimit ヘッダーはありません: エンジンはバックオフします</translation>
    </message>
    <message>
        <source>429 Too Many Requests documented with %1: the engine waits as the server says</source>
        <translation>429 Too Many Requests が %1 とともに記載されています: エンジンはサーバーの指示どおり待ちます</translation>
    </message>
    <message>
        <source>deprecated, the document says</source>
        <translation>ドキュメントでは非推奨です</translation>
    </message>
    <message>
        <source>TRACE diagnoses the way to a server; it is not an API call</source>
        <translation>TRACE はサーバーまでの経路の診断用で、API 呼び出しではありません</translation>
    </message>
    <message>
        <source>&apos;%1&apos; is not a URL</source>
        <translation>&apos;%1&apos; は URL ではありません</translation>
    </message>
    <message>
        <source>left out: %1 %2: %3</source>
        <translation>除外: %1 %2: %3</translation>
    </message>
    <message>
        <source>expected an OpenAPI document: an object with openapi, info and paths</source>
        <translation>OpenAPI ドキュメント (openapi、info、paths を持つオブジェクト) を指定してください</translation>
    </message>
    <message>
        <source>paths: the document has no operations to import</source>
        <translation>paths: ドキュメントにインポートする操作がありません</translation>
    </message>
    <message>
        <source>{{%1}} is one of Postman&apos;s dynamic variables, which have no counterpart in a workspace</source>
        <translation>{{%1}} は Postman の動的変数で、ワークスペースには対応するものがありません</translation>
    </message>
    <message>
        <source>{{%1}} refers to itself</source>
        <translation>{{%1}} は自分自身を参照しています</translation>
    </message>
    <message>
        <source>{{%1}} gives the scheme or the host, which needs a value that is not a secret (from the collection or --environment)</source>
        <translation>{{%1}} はスキームまたはホストを表すため、シークレットではない値が必要です (コレクションまたは --environment から)</translation>
    </message>
    <message>
        <source>{{%1}}, a secret</source>
        <translation>{{%1}} (シークレット)</translation>
    </message>
    <message>
        <source>{{%1}} of %2 (there: %3)</source>
        <translation>%2 の {{%1}} (そこでの値: %3)</translation>
    </message>
    <message>
        <source>%1: values: expected the export of a Postman environment, with the list of its values</source>
        <translation>%1: values: 値のリストを含む Postman 環境のエクスポートを指定してください</translation>
    </message>
    <message>
        <source>the %1 written in the collection (not copied)</source>
        <translation>コレクションに書かれた %1 (コピーしていません)</translation>
    </message>
    <message>
        <source>OAuth 2.0 %1: the engine has no user to sign in; only client credentials are imported</source>
        <translation>OAuth 2.0 %1: エンジンにはサインインするユーザーがいません。クライアントクレデンシャルのみインポートします</translation>
    </message>
    <message>
        <source>no credentials: Postman&apos;s %1 auth cannot be made a credential; give the endpoint one by hand</source>
        <translation>認証情報なし: Postman の %1 認証は認証情報にできません。エンドポイントに手で指定してください</translation>
    </message>
    <message>
        <source>the form part %1 uploads a file from the machine it was made on</source>
        <translation>フォームパート %1 は作成元のマシンのファイルをアップロードします</translation>
    </message>
    <message>
        <source>a body of mode %1, which the import cannot carry over</source>
        <translation>モード %1 の本文はインポートで引き継げません</translation>
    </message>
    <message>
        <source>left out: %1: %2</source>
        <translation>除外: %1: %2</translation>
    </message>
    <message>
        <source>info: missing; not a Postman collection</source>
        <translation>info: ありません。Postman コレクションではありません</translation>
    </message>
    <message>
        <source>info.schema: expected a collection of format v2.1, got &apos;%1&apos;; export it again from Postman as Collection v2.1</source>
        <translation>info.schema: 形式 v2.1 のコレクションを指定してください (&apos;%1&apos; が指定されました)。Postman から Collection v2.1 としてエクスポートし直してください</translation>
    </message>
    <message>
        <source>item: expected the list of the collection&apos;s requests and folders</source>
        <translation>item: コレクションのリクエストとフォルダーのリストを指定してください</translation>
    </message>
    <message>
        <source>%1: only a URL on this machine (http or https to 127.0.0.1, ::1 or localhost) is fetched; download the document and give its file</source>
        <translation>%1: 取得するのはこのマシン上の URL (127.0.0.1、::1、localhost への http または https) のみです。ドキュメントをダウンロードしてファイルを指定してください</translation>
    </message>
    <message>
        <source>%1: larger than %2 MiB</source>
        <translation>%1: %2 MiB を超えています</translation>
    </message>
    <message>
        <source>%1: redirected to %2, which is not followed; give that URL</source>
        <translation>%1: %2 にリダイレクトされましたが、たどりません。その URL を指定してください</translation>
    </message>
    <message>
        <source>%1: the server answered %2</source>
        <translation>%1: サーバーの応答は %2 でした</translation>
    </message>
    <message>
        <source>%1: no answer within %2 s</source>
        <translation>%1: %2 秒以内に応答がありません</translation>
    </message>
    <message>
        <source>-k: the server&apos;s certificate is not checked (tls &apos;%1&apos;, verify_certificate: false), and check-config warns of it; for a private CA, give its certificate as the entry&apos;s ca_file instead (docs/credentials.md)</source>
        <translation>-k: サーバー証明書を検証しません (tls &apos;%1&apos;、verify_certificate: false)。check-config が警告します。プライベート CA の場合は、代わりにその証明書をエントリの ca_file に指定してください (docs/credentials.md)</translation>
    </message>
    <message>
        <source>  tls %1
</source>
        <translation>  tls %1
</translation>
    </message>
    <message numerus="yes">
        <source>left as they are: %n endpoint(s) this source did not make: %1
</source>
        <translation>
            <numerusform>このソースが作成していない %n 個のエンドポイントはそのままです: %1
</numerusform>
        </translation>
    </message>
    <message>
        <source>check-config: warning: %1
</source>
        <translation>check-config: 警告: %1
</translation>
    </message>
</context>
<context>
    <name>cooldown::report</name>
    <message>
        <source>Availability is the share of operations (for periodic endpoints, of checks) that ended succeeded, of those that ended succeeded, failed or parked.</source>
        <translation>可用性は、成功・失敗・保留で終わったオペレーション (定期エンドポイントではチェック) のうち、成功で終わったものの割合です。</translation>
    </message>
    <message>
        <source>An operation that succeeded after a 429 or 503 counts as succeeded.</source>
        <translation>429 または 503 の後に成功したオペレーションは成功として数えます。</translation>
    </message>
    <message>
        <source>An operation that succeeded only after a 429 or 503 counts as not available.</source>
        <translation>429 または 503 の後にようやく成功したオペレーションは利用不可として数えます。</translation>
    </message>
    <message>
        <source>Operations that succeeded after a 429 or 503 are left out.</source>
        <translation>429 または 503 の後に成功したオペレーションは除外します。</translation>
    </message>
    <message>
        <source>Time inside the workspace&apos;s maintenance windows is left out.</source>
        <translation>ワークスペースのメンテナンス時間帯は除外します。</translation>
    </message>
    <message>
        <source>Time inside the workspace&apos;s maintenance windows counts.</source>
        <translation>ワークスペースのメンテナンス時間帯も数えます。</translation>
    </message>
    <message>
        <source>SLA report from %1 to %2
</source>
        <translation>SLA レポート: %1 から %2 まで
</translation>
    </message>
    <message>
        <source>No endpoint had attempts in the range.
</source>
        <translation>この期間に試行のあったエンドポイントはありません。
</translation>
    </message>
    <message>
        <source>  availability: %1 % (%2 of %3 operations)
</source>
        <translation>  可用性: %1 % (%3 件中 %2 件のオペレーション)
</translation>
    </message>
    <message>
        <source>none counted</source>
        <translation>数える対象なし</translation>
    </message>
    <message>
        <source>  target: %1 %, %2
</source>
        <translation>  目標: %1 %、%2
</translation>
    </message>
    <message>
        <source>nothing counted</source>
        <translation>数える対象なし</translation>
    </message>
    <message>
        <source>met</source>
        <translation>達成</translation>
    </message>
    <message>
        <source>missed</source>
        <translation>未達</translation>
    </message>
    <message>
        <source>  succeeded %1 (after a 429 or 503: %2, degraded: %3), failed %4
</source>
        <translation>  成功 %1 (429 または 503 の後: %2、劣化: %3)、失敗 %4
</translation>
    </message>
    <message>
        <source>  attempts %1, answered 429: %2 (%3 %)
</source>
        <translation>  試行 %1、429 の応答: %2 (%3 %)
</translation>
    </message>
    <message>
        <source>  latency p50 &lt;= %1 ms, p95 &lt;= %2 ms (%3 answered attempts)
</source>
        <translation>  レイテンシ p50 &lt;= %1 ms、p95 &lt;= %2 ms (応答のあった試行 %3 回)
</translation>
    </message>
    <message>
        <source>  failed for %1: %2
</source>
        <translation>  失敗 (%1): %2
</translation>
    </message>
    <message>
        <source>  downtime: %1 in %2 intervals
</source>
        <translation>  ダウンタイム: %1 (%2 区間)
</translation>
    </message>
    <message>
        <source>  maintenance: %1 - %2 (%3)
</source>
        <translation>  メンテナンス: %1 - %2 (%3)
</translation>
    </message>
    <message>
        <source>Exchanges that found no network (the machine offline) are left out: they say nothing of the endpoint.</source>
        <translation>ネットワークに届かなかった送受信 (マシンのオフライン) は除外します: エンドポイントについて何も示さないためです。</translation>
    </message>
</context>
<context>
    <name>cooldown::retry</name>
    <message>
        <source>expected a number of seconds</source>
        <translation>秒数を指定してください</translation>
    </message>
    <message>
        <source>%1 (%2 days)</source>
        <translation>%1 (%2 日)</translation>
    </message>
    <message>
        <source>expected seconds between 0 and %1</source>
        <translation>0〜%1 の秒数を指定してください</translation>
    </message>
    <message>
        <source>expected seconds above 0 and at most %1</source>
        <translation>0 より大きく %1 以下の秒数を指定してください</translation>
    </message>
    <message>
        <source>expected one of %1</source>
        <translation>%1 のいずれかを指定してください</translation>
    </message>
    <message>
        <source>expected a whole number from 1 to 1000</source>
        <translation>1〜1000 の整数を指定してください</translation>
    </message>
    <message>
        <source>expected true or false</source>
        <translation>true か false を指定してください</translation>
    </message>
    <message>
        <source>unknown retry profile field &apos;%1&apos; (known: %2)</source>
        <translation>不明な再試行プロファイルのフィールド &apos;%1&apos; です (有効なもの: %2)</translation>
    </message>
    <message>
        <source>expected name=value, got &apos;%1&apos;</source>
        <translation>name=value の形式で指定してください (&apos;%1&apos; が指定されました)</translation>
    </message>
</context>
</TS>
