### process ツールの説明です。時間のかかるコマンドをバックグラウンドで実行し、
### 呼び出し元のセッションごとに管理します。

## process

tool-process = 時間のかかるコマンドラインをバックグラウンドで実行し、後から様子を確認します。start は shell ツールとまったく同じように行を解析し(許可リスト、リスク階層、承認も同じ)、ID を返します。poll は新しい出力か終了を最大 wait_seconds 秒待ちます。log は取り込んだ出力の一部を読み、write は標準入力にテキストを送り、kill はそのプロセスをすべて終了させ、list はこのセッションのプロセスを一覧します。各ストリームは最新の 1 MiB だけを保持します。終了したプロセスは 10 分後に破棄され、talon の終了時にはすべて終了します。
tool-process-param-action = 実行する操作。start、list、poll、log、write、kill のいずれか。
tool-process-param-command = start で実行するコマンドライン。shell ツールと同じ書き方です。
tool-process-param-id = start が返した ID。poll、log、write、kill で指定します。
tool-process-param-wait-seconds = poll で新しい出力か終了を待つ秒数(0〜30)。省略すると 5 秒です。
tool-process-param-stream = log で読むストリーム。stdout(既定)または stderr。
tool-process-param-offset = log で読み始めるバイト位置。省略すると最新の出力を返します。
tool-process-param-limit = log と poll でストリームごとに返す最大バイト数(最大 1 MiB)。省略すると 64 KiB です。
tool-process-param-input = write で標準入力に送るテキスト。
tool-process-param-eof = write でテキストを送った後に標準入力を閉じ、コマンドに入力の終わりを伝えます。
