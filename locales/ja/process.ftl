### process ツールの説明です。時間のかかるコマンドをバックグラウンドで実行し、
### 呼び出し元のセッションごとに管理します。

## process

tool-process = このセッションでバックグラウンド実行中のプロセスを確認・操作します。ここで開始した行と、shell ツールの background や yield_ms で開始した行が対象です。start は shell ツールとまったく同じように行を解析し(許可リスト、リスク階層、承認も同じ)、バックグラウンドで実行して ID を返します。poll は新しい出力か終了を最大 wait_seconds 秒待ち、新しい分を返します。log は取り込んだ出力の一部を読み、write は標準入力にテキストを送ります。send_keys は名前で指定したキー(Enter、Tab、Escape、Up、C-c など)を、paste はテキストを、pty で実行中のプログラムに入力します。kill はそのプロセスをすべて終了させ、list はこのセッションのプロセスを一覧します。各ストリームは最新の 1 MiB だけを保持します。終了したプロセスは 10 分後に破棄され、talon の終了時にはすべて終了します。
tool-process-param-action = 実行する操作。start、list、poll、log、write、send_keys、paste、kill のいずれか。
tool-process-param-command = start で実行するコマンドライン。shell ツールと同じ書き方です。
tool-process-param-workdir = start で実行するディレクトリ。shell ツールと同じく、ワークスペースからの相対パスで指定します。
tool-process-param-env = start で設定する変数。shell ツールと同じです。
tool-process-param-timeout-seconds = start で、行を打ち切るまでの秒数。省略すると、終了するか kill されるまで実行します。
tool-process-param-pty = start で、shell ツールと同じく端末上でコマンドを実行します。
tool-process-param-id = start または shell ツールが返した ID。poll、log、write、send_keys、paste、kill で指定します。
tool-process-param-wait-seconds = poll で新しい出力か終了を待つ秒数(0〜30)。省略すると 5 秒です。
tool-process-param-stream = log で読むストリーム。stdout(既定)または stderr。
tool-process-param-offset = log で読み始めるバイト位置。省略すると最新の出力を返します。
tool-process-param-limit = log と poll でストリームごとに返す最大バイト数(最大 1 MiB)。省略すると 64 KiB です。
tool-process-param-input = write で標準入力に送るテキスト。
tool-process-param-eof = write でテキストを送った後に標準入力を閉じ、コマンドに入力の終わりを伝えます(端末では C-d を送ります)。
tool-process-param-keys = send_keys で順に入力するキー。Enter、Tab、Escape、BSpace、Up、Down、Left、Right、Home、End、PageUp、PageDown、F1〜F12、C-c(コントロール)、M-x(メタ)などの名前か、1 文字で指定します。テキストは write か paste で送ります。
tool-process-param-text = paste で貼り付けるテキスト。
tool-process-param-bracketed = paste で、端末上のテキストを貼り付けとして示します(ブラケットペースト)。プログラムが入力と取り違えないようにします。省略すると true です。
