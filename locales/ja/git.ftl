### git_operations とパラメーターの説明(モデルに提示される文)。

## git_operations

tool-git-operations = ワークスペースの最上位にあるリポジトリに対して git の操作を 1 つ実行します。使える操作は status、diff、log、show、branch、add、commit、checkout、switch、stash、restore です。読み取りだけの操作は承認なしで実行されますが、add、commit、checkout、switch、restore、stash による変更、ブランチの作成はリポジトリを変更するため、承認が必要になることがあります。リモートに接続する操作はありません。push、pull、fetch、clone はポリシーのもとで shell ツールから実行してください。フックやリポジトリの設定で指定されたプログラムは実行されません。restore と、パスを指定した checkout は、そのパスのコミットしていない変更を破棄します。
tool-git-operations-param-operation = 実行する git の操作。操作ごとに使えるフィールドが決まっており、それ以外のフィールドは指定しないでください。
tool-git-operations-param-paths = 対象のファイルまたはディレクトリ(ワークスペースからの相対パス)。status、diff、log、show、add、commit、checkout、stash push、restore で使います。glob パターンではなく正確なパスとして扱われます。すべてを対象にするには ["."] を指定してください。
tool-git-operations-param-message = コミットメッセージ(commit では必須)、または stash push のメッセージ。
tool-git-operations-param-ref = コミット、ブランチ、タグ(例: HEAD~1、main、v1.2)。diff では比較対象、log では起点、show では表示する対象(既定は HEAD)、checkout ではチェックアウトする対象またはパスの取得元、restore ではファイルの取得元になります。stash の pop、apply、drop では対象の stash(例: stash@{"{"}1{"}"})を、create を指定した branch、switch、checkout では新しいブランチの起点を表します。
tool-git-operations-param-branch = ブランチ名。switch で切り替える先、または create が true のときに作る新しいブランチの名前です(branch、switch、checkout で使います)。
tool-git-operations-param-create = branch に指定したブランチを作成します。branch 操作では作成のみ、switch と checkout では作成してそのブランチに切り替えます。既定は false です。
tool-git-operations-param-staged = diff では次のコミットに向けてステージ済みの変更を表示し、restore ではファイルの中身はそのままでステージだけを取り消します。既定は false です。
tool-git-operations-param-max-count = log で表示するコミットの数(1〜1000)。既定は 20 です。
tool-git-operations-param-stash-action = stash で行う処理: list(一覧、既定)、push(変更を退避して作業ツリーを元に戻す)、pop(退避した変更を戻して stash から削除)、apply(戻すが stash は残す)、drop(stash を削除)。
