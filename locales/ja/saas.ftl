### tools-saas 機能のツール github の説明。

## github

tool-github = GitHub リポジトリの Issue とプルリクエストを扱います。action で操作を選びます。list_issues、get_issue、list_pulls、get_pull は読み取りのみです。create_issue、comment_issue、create_pull は運用者の名義で GitHub に書き込むため、通常は承認が必要です。リポジトリを指定しない場合は、運用者が設定したリポジトリが使われます。
tool-github-param-action = 行う操作。list_issues、get_issue、list_pulls、get_pull、create_issue、comment_issue、create_pull のいずれかです。
tool-github-param-owner = リポジトリの所有者(ユーザーまたは Organization)。例: "golang"。repo と組にして指定するか、両方を省略して設定済みのリポジトリを使います。
tool-github-param-repo = リポジトリ名。例: "go"。owner と組にして指定します。
tool-github-param-number = Issue またはプルリクエストの番号。get_issue、get_pull、comment_issue で使います。
tool-github-param-state = 一覧に含める状態。"open"(既定)、"closed"、"all" のいずれかです。
tool-github-param-labels = ラベル名の一覧。list_issues ではこれらのラベルをすべて持つ Issue だけを一覧にし、create_issue では新しい Issue にこれらのラベルを付けます。
tool-github-param-title = 新しい Issue またはプルリクエストのタイトル。
tool-github-param-body = Markdown のテキスト。新しい Issue やプルリクエストの説明、または comment_issue で投稿するコメントです。
tool-github-param-head = create_pull で使います。変更を含むブランチ。フォークのブランチなら "owner:branch" と書きます。
tool-github-param-base = create_pull で使います。変更を取り込む先のブランチ。例: "main"。
tool-github-param-draft = create_pull で使います。プルリクエストをドラフトとして作成します。既定は false です。
tool-github-param-limit = 一覧で返す最大件数(1〜100)。省略した場合や、運用者が設定した上限より大きい場合は、その上限が使われます。
