### talon の組み込みツールとパラメーターの説明(モデルに提示される文)。
### ID はツールが tool-<name>、パラメーターが tool-<name>-param-<param>。
### 名前の「_」は「-」に置き換える(file_read -> tool-file-read)。

## file_read

tool-file-read = ワークスペース内の UTF-8 テキストファイルを読み、各行に行番号を付けて返します。バイナリファイルやワークスペース外のパスは読めません。出力には上限があるので、長いファイルは offset と limit で範囲を区切って読んでください。
tool-file-read-param-path = ファイルのパス。ワークスペースのルートからの相対パスで指定します。絶対パスの場合はワークスペース内を指している必要があります。
tool-file-read-param-offset = 読み始める行番号(1 始まり)。省略すると先頭から読みます。
tool-file-read-param-limit = 返す最大行数。

## glob_search

tool-glob-search = パスが glob パターンに一致するファイルを探します(例: あるディレクトリ以下の Go ファイルすべて)。ワークスペース内で一致したパスを最大 max_results 件返します。ファイルの中身を検索するときは content_search を使ってください。
tool-glob-search-param-pattern = doublestar 形式の glob パターン。* はパスの 1 階層内で一致し、** は任意の深さのディレクトリに一致します(例: **/*.go)。
tool-glob-search-param-path = 検索を始めるディレクトリ(ワークスペース内)。省略時はワークスペースのルートです。
tool-glob-search-param-max-results = 返すパスの最大件数。

## content_search

tool-content-search = ワークスペース内のファイルの中身を正規表現で検索し、一致した行をパスと行番号付きで返します。path と include で検索範囲を絞り込めます。返す行は最大 max_results 件です。
tool-content-search-param-pattern = RE2 構文の正規表現(Go と同じで、後方参照や先読み・後読みは使えません)。
tool-content-search-param-path = 検索するファイルまたはディレクトリ(ワークスペース内)。省略時はワークスペースのルートです。
tool-content-search-param-include = 検索対象のファイルを絞り込む glob パターンのリスト。例: ["*.go", "docs/**/*.md"]
tool-content-search-param-context = 一致した行の前後に表示する行数。省略時は 0 です。
tool-content-search-param-case-sensitive = 大文字と小文字を区別するかどうか。既定は true で、false にすると区別しません。
tool-content-search-param-max-results = 返す一致行の最大件数。

## calculator

tool-calculator = 算術式や論理式を評価して値を返します。正確な数値が必要なときは、自分で計算せずにこのツールを使ってください。ファイルの読み取り、ネットワーク接続、プログラムの実行はできません。
tool-calculator-param-expression = 評価する式。例: (3 + 4) * 2、sqrt(2)、max(1, 5) > 3。+ - * / % と **(べき乗)、比較、and・or・not、定数 pi と e、関数 sqrt、min、max、abs、round、floor、ceil、pow、log(自然対数)、log10、log2 などが使えます。

## shell

tool-shell = ワークスペースでコマンドラインを 1 行実行し、終了コードと出力を返します。実行前にコマンドラインが解析され、ポリシーによって拒否されたり、人の承認が求められたりします。実際に実行されるのは提示された引数リストで、シェルを介さず直接起動されます。ファイルの読み取り・検索・編集には、専用のファイルツールや検索ツールを使ってください。
tool-shell-param-command = 実行するコマンドライン(例: git status --short)。コマンドと引数だけで書いてください。コマンド置換、変数展開、ファイルへのリダイレクトは高リスクとして扱われます。
tool-shell-param-timeout-seconds = コマンドを打ち切るまでの秒数。フォアグラウンドでは省略時に設定の既定値を使います。バックグラウンドの行は、指定しない限り打ち切られません。
tool-shell-param-workdir = 実行するディレクトリ。ワークスペースからの相対パスで指定します(既定はワークスペースそのもの)。ワークスペースの外は指定できません。
tool-shell-param-env = 行のすべてのコマンドに設定する変数。名前と文字列の値のオブジェクトで指定します。受け付けるのはコマンドライン自身が設定できる変数だけです: LANG、LANGUAGE、LC_*、TZ、TERM、COLUMNS、LINES、NO_COLOR、CLICOLOR、CLICOLOR_FORCE、FORCE_COLOR。
tool-shell-param-background = 行を開始してすぐにプロセス ID を返します。出力の確認や操作は process ツールで行います。終了すると通知されます。
tool-shell-param-yield-ms = この時間(ミリ秒)まではフォアグラウンドで実行し、それでも終わらなければバックグラウンドに移して、プロセス ID とそこまでの出力を返します。
tool-shell-param-pty = 端末を必要とするプログラム(全画面や対話型のプログラム)のために、端末上でコマンドを実行します。出力は色やカーソル制御のコードを除いて届きます。操作には process ツールの send_keys を使います。

## file_write

tool-file-write = ワークスペース内のファイルにテキストを書き込みます。ファイルが既にあれば置き換えます。書き込みはアトミックに行われ、存在しない親ディレクトリも作成します(ワークスペース内に限ります)。既存ファイルの一部だけを変更するときは file_edit を使ってください。
tool-file-write-param-path = 書き込むファイルのパス(ワークスペースのルートからの相対パス)。
tool-file-write-param-content = ファイルの新しい内容全体。

## file_edit

tool-file-edit = ワークスペース内のファイルで、old_string と一致する箇所を new_string に置き換えます。old_string は空白やインデントも含めてファイルの内容と一字一句同じである必要があり、replace_all が true でない限り、ファイル内の 1 か所だけに一致しなければなりません。先にファイルを読み、該当箇所をそのままコピーしてください。
tool-file-edit-param-path = 編集するファイルのパス(ワークスペースのルートからの相対パス)。
tool-file-edit-param-old-string = 置き換える元のテキスト。ファイルからそのままコピーし、一意に特定できるよう前後の行も含めてください。
tool-file-edit-param-new-string = 置き換え後のテキスト。
tool-file-edit-param-replace-all = true にすると、1 か所に限らず一致する箇所をすべて置き換えます。既定は false です。

## echo(テスト用ビルドのみ)

tool-echo = 引数をそのまま返します。testtools 機能を有効にしたビルドにだけ含まれる、テストとベンチマーク用のツールです。
