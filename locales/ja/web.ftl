### 外部 HTTP ツール web_fetch と http_request の説明。

## web_fetch

tool-web-fetch = GET で Web ページを取得し、読みやすいテキストにして返します。HTML はスクリプトやスタイルを除いた Markdown に変換し、プレーンテキスト・JSON・XML はそのまま返します。アクセスできるのは公開されている http / https のアドレスだけで、ローカルネットワークやプライベートネットワークへの接続は拒否されます。長いページは max_bytes で打ち切られ、その旨が末尾に記されます。
tool-web-fetch-param-url = ページの完全な URL。https:// または http:// から書きます。
tool-web-fetch-param-max-bytes = 読み込むレスポンス本文の最大バイト数。省略した場合や、運用者が設定した上限より大きい場合は、その上限が使われます。
tool-web-fetch-param-raw = HTML を Markdown に変換せず、本文をそのままテキストとして返します(HTML のソースを読みたいときなど)。既定は false です。

## http_request

tool-http-request = 運用者が許可したホストの API に HTTP リクエストを 1 件送り、ステータス、主なレスポンスヘッダー、本文を返します。GET・HEAD・OPTIONS は読み取りのみですが、POST・PUT・PATCH・DELETE はデータを変更しうるため、通常は承認が必要です。認証情報を呼び出しに直接書かないでください。secret_headers で設定済みのシークレット名を指定すれば、値はツールが挿入します。
tool-http-request-param-method = HTTP メソッド。GET、HEAD、OPTIONS、POST、PUT、PATCH、DELETE のいずれかで、既定は GET です。
tool-http-request-param-url = リクエストの完全な URL。https:// または http:// から書き、運用者が許可したドメインのホストを指定します。
tool-http-request-param-headers = リクエストヘッダー。ヘッダー名と文字列の値のオブジェクトで指定します(例: "Accept" に "application/json")。認証情報はここに書かず、secret_headers を使ってください。
tool-http-request-param-body = リクエスト本文(文字列)。JSON の本文は、Content-Type ヘッダーで別の形式を指定しない限り application/json として送られます。
tool-http-request-param-secret-headers = 値に運用者が設定したシークレットを使うヘッダー。ヘッダー名とシークレット名のオブジェクトで指定します(例: "Authorization" に "GITHUB_TOKEN")。値はツールが挿入し、出力には表示されません。
tool-http-request-param-max-bytes = 読み込むレスポンス本文の最大バイト数。省略した場合や、運用者が設定した上限より大きい場合は、その上限が使われます。
