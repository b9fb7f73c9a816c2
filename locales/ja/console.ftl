### talon serve が /console で表示する運用コンソールの画面、ボタン、
### 拒否メッセージです。ツール名、理由、実行計画、パスは talon が持つ
### とおりに表示し、ここでは翻訳しません。

## 枠組み

console-skip = 本文へ移動
console-brand = 運用コンソール
console-nav-label = ページ
console-nav-approvals = 承認
console-nav-pending = { $count } 件が待機中
console-nav-calls = 呼び出し
console-nav-receipts = レシート
console-nav-catalog = カタログ
console-nav-policy = ポリシー
console-nav-plugins = プラグイン
console-nav-sandbox = サンドボックス
console-lang-label = 言語

## 複数のページで使う語

console-tier-low = 低
console-tier-medium = 中
console-tier-high = 高
console-tier-label = リスク { $tier }
console-tier-per-call = 呼び出しごと(最低 { $tier })
console-decision-allow = 許可
console-decision-ask = 確認
console-decision-deny = 拒否
console-outcome-success = 成功
console-outcome-failed = 失敗
console-outcome-denied = 拒否
console-outcome-cancelled = 中止
console-outcome-rejected = 引数を拒否
console-allowed-auto = ポリシーにより許可
console-allowed-user = 人が承認
console-allowed-always = このセッションで承認済み
console-duration-ms = { $n } ミリ秒
console-duration-s = { $n } 秒
console-duration-min = { $n } 分 { $s } 秒
console-duration-h = { $n } 時間 { $min } 分
console-active = 有効
console-inactive = 無効
console-yes = はい
console-no = いいえ
console-any = すべて
console-choose = ツールを選択
console-filter = 絞り込む
console-search = 検索
console-show = 表示
console-core = コア

console-col-time = 時刻
console-col-session = セッション
console-col-tool = ツール
console-col-tier = リスク
console-col-decision = 判定
console-col-outcome = 結果
console-col-duration = 所要時間
console-col-receipt = レシート
console-col-position = チェーン:連番
console-col-allowed-by = 許可の根拠
console-col-signature = 署名
console-col-chain = チェーン
console-col-verification = 検証
console-col-actions = 操作
console-col-records = 件数
console-col-seqs = 連番
console-col-head = 先頭のハッシュ
console-col-source = 提供元
console-col-description = 説明
console-col-verdict = 判定
console-col-protection = 保護
console-col-action = 子プロセスが試したこと
console-col-without = サンドボックスなし
console-col-with = サンドボックスあり

console-field-attribution = 提供元
console-field-via = 経由
console-field-session = セッション
console-field-profile = プロファイル · チャネル
console-field-profile-only = プロファイル
console-field-channel = チャネル
console-field-since = 待機開始
console-field-id = ID
console-field-always-ask = always_ask
console-always-ask = このツールは毎回人が判断するため、「常に許可」は選べません
console-field-binary = プログラム
console-field-dir = ディレクトリ
console-field-env = 環境変数
console-env-none = 引き継ぐ変数はありません
console-field-sandbox = サンドボックス
console-field-argv = コマンド
console-field-args-json = 引数(JSON)
console-field-from = 開始(UTC)
console-field-until = 終了(UTC)
console-field-key = 鍵
console-field-args-sha = 引数の SHA-256
console-field-result-sha = 結果の SHA-256
console-field-prev = 直前のレコードのハッシュ
console-field-token = トークン
console-field-delegation = 委任
console-field-rotation = 鍵の更新
console-field-torn = 記録された途切れた末尾
console-field-mode = モード
console-field-trust = 同意
console-field-signature = 発行者の署名
console-field-enabled = 有効
console-field-tier-floor = 最低リスク
console-field-tools = ツール
console-reasons = 理由
console-plan = 実行計画
console-args = 引数(秘密の値は伏せています)
console-waiting = 待機
console-recent-calls = このセッションの最近の呼び出し

## 承認

console-approvals-title = 承認
console-approvals-intro = 人の判断を待っている呼び出しです。それぞれが何を実行するかを確認してから、今回だけ許可するか、セッション中は常に許可するか、拒否するかを選んでください。新しいものは届きしだいここに表示されます。
console-approvals-empty = 回答を待っている呼び出しはありません。
console-approve = 今回だけ許可
console-always = このセッション中は常に許可
console-permanently = 今後ずっと許可
console-deny = 拒否
console-notify = 新しい承認を通知する
console-notify-title = talon: 承認を待っている呼び出しがあります
console-announce-added = 承認待ちが届きました: { $tool }
console-answers-off = このページでは待機中の呼び出しを表示しますが、回答は受け付けません: { $reason }。ツールのプロセスがこのポートに接続して、自分の呼び出しに自分で回答できてしまうためです。トークン([serve] token または $TALON_SERVE_TOKEN)を設定して talon serve を再起動するか、このポートを [sandbox] allow_connect_ports に含めないでください。それまではターミナルで talon approvals を使って回答してください。
console-answers-off-short = このコンソールでは回答できません。talon approvals で回答してください。
console-left-approved = { $tool } を許可しました。
console-left-always = { $tool } をセッション終了まで許可しました。
console-left-denied = { $tool } を拒否しました。
console-left-withdrawn = { $tool } の待機が終わりました。時間切れか、呼び出し元が離れました。

## 呼び出し

console-calls-title = 呼び出し
console-calls-intro = このサーバーが起動してからの全セッションの呼び出しを新しい順に、ポリシーの判定と結果とともに表示します。新しい呼び出しは終わりしだい先頭に追加されます。
console-calls-filter = 呼び出しを絞り込む
console-calls-count = { $count } 件
console-calls-empty = 該当する呼び出しはありません。

## レシート

console-receipts-title = レシート
console-receipts-intro = 実行された呼び出しの署名付き記録を、このデータディレクトリの全チェーンから新しい順に表示します。署名は表示のたびにストアの公開鍵で確認します。
console-receipts-search = レシートを検索
console-receipts-pattern-help = ツールとセッションには、正確な名前か正規表現(RE2 構文、名前全体に一致)を 200 文字まで指定できます。時刻は UTC です。
console-receipts-off = このサーバーではレシートが無効です([receipts] enabled = false)。
console-receipts-empty = 該当するレシートはありません。
console-receipts-none-yet = これまでに調べた { $count } 件のレシートには該当がありません。
console-receipts-truncated = { $count } 件を調べました。
console-receipts-continue = さらにさかのぼって検索
console-receipts-older = 古いレシート
console-receipts-damaged = ログの一部の行はレシートではありません: { $error }
console-receipts-chains = チェーン
console-sig-ok = 署名を確認済み
console-sig-bad = 署名が一致しません
console-sig-unknown-key = ストアに登録されていない鍵で署名されています
console-chain-not-verified = このページからはまだ検証していません
console-chain-verified = { $time } に検証済み: { $count } 件
console-chain-failed = { $time } の検証で問題が見つかりました
console-verify-chain = このチェーンを検証
console-verify-all = すべてのチェーンを検証
console-export-chain = エクスポート
console-export-all = すべてのレシートをエクスポート(JSONL)
console-export-key = 公開鍵
console-export-help = エクスポートには保存されたとおりのレコードが含まれます。公開鍵があれば、talon receipts verify FILE --pubkey KEY でどこでも検証できます。

console-receipt-title = レシート { $chain }:{ $seq }
console-receipt-verified = 検証済み: 署名が正しく、チェーン内の前後のレコードとつながっています。
console-receipt-not-verified = 未検証: 下に問題の箇所を示します。
console-receipt-record = レコード
console-receipt-json = 保存されたとおりのレコード
console-position = チェーン { $chain } の連番 { $seq }
console-link-first = チェーンの最初のレコード
console-link-prev-ok = 直前の連番 { $seq } とつながっています
console-link-prev-bad = 直前の連番 { $seq } とつながっていません
console-link-prev-missing = 直前のレコードを読めません
console-link-next-ok = 直後の連番 { $seq } がこのレコードにつながっています
console-link-next-bad = 直後の連番 { $seq } がこのレコードにつながっていません
console-link-head = チェーンの最新のレコード
console-link-open = 開く
console-rounds = { $count } ラウンド
console-rotation = 新しい鍵の最初のレコード(以前の鍵 { $from })
console-back-receipts = レシートの一覧へ戻る

console-verify-title = 検証
console-verify-ok = 検証済み: { $count } 件のすべての署名とつながりを確認しました。
console-verify-failed = 検証で問題が見つかりました。
console-verify-what = { $chain }、{ $time } に確認。
console-all-chains = すべてのチェーン
console-verify-chain-ok = 検証済み
console-verify-problem = 連番 { $seq }: { $reason }
console-verify-torn = { $segment } に途切れた末尾があり、連番 { $seq } が記録しています
console-verify-keys = 署名した鍵:

## カタログとポリシー

console-catalog-title = カタログ
console-catalog-intro = このサーバーが提供するツールを、指定したプロファイルとチャネルの呼び出し元から見たとおりに表示します。このサーバーのサーフェスは { $surface } です。
console-catalog-view = 表示の条件
console-catalog-caption = プロファイル { $profile }、チャネル { $channel } のツール { $count } 件
console-catalog-core = chat サーフェスのコアツール: { $chat }。code サーフェスのコアツール: { $code }。

console-policy-title = ポリシー
console-policy-intro = 呼び出しを実行したり誰かに確認したりせずに、ポリシーがどう判定するか(リスク、理由、実行計画、判定)を示します。
console-explain = 説明する
console-policy-result = 判定
console-policy-schema = 引数がツールのスキーマに合いません: { $error }

## プラグイン

console-plugins-title = プラグイン
console-plugins-intro = インストール済みのプラグインと、運用者が信頼しているかどうか、何が許可されているかを表示します。このページがプラグインを実行することはありません。
console-plugins-empty = インストールされたプラグインはありません。
console-plugin-loads = 読み込まれます。
console-plugin-refused = 読み込まれません:
console-trust-none = 未承認
console-trust-current = 承認済み
console-trust-stale = 承認後に変更されています
console-not-listed = [[plugins.entries]] に記載がありません
console-grant-hosts = ホスト
console-grant-read = 読み取り
console-grant-write = 書き込み
console-grant-secrets = 秘密情報
console-grant-config = 設定キー

## サンドボックス

console-sandbox-title = サンドボックス
console-sandbox-mechanism = 隔離の方式
console-sandbox-abi = Landlock ABI
console-sandbox-filesystem = ファイルシステム
console-sandbox-connect = TCP 接続
console-sandbox-bind = TCP 待ち受け
console-sandbox-scope = スコープ制限
console-sandbox-privileges = 特権なし
console-sandbox-console = このコンソール
console-sandbox-console-open = ツールのプロセスから接続できるため({ $reason })、トークンがなければ回答を受け付けません
console-sandbox-console-closed = ツールのプロセスはこのポートに接続できません
console-sandbox-run = 確認を実行
console-sandbox-run-help = talon sandbox check と同じく、禁止された操作を試す子プロセスをいくつか、サンドボックスありとなしで起動します。数秒かかります。
console-sandbox-check = { $time } の確認結果
console-sandbox-check-ok = すべての保護が機能しました。
console-sandbox-check-failed = 機能しなかった保護があります。
console-proof-ok = 正常
console-proof-failed = 失敗
console-want-denied = (拒否されるべき操作)
console-want-allowed = (許可されるべき操作)

## サインイン

console-login-title = サインイン
console-login-intro = このサーバーにはベアラートークンが必要です。一度入力すると、ブラウザーのセッションとこのサーバーが動いている間、その証明が Cookie に保持されます。
console-login-token = トークン
console-login-submit = サインイン
console-login-wrong = このサーバーのトークンではありません。

## 拒否。何が起きたかを示します。何も変更していません。

console-error-title = 拒否しました({ $status })
console-error-nothing-changed = 何も変更していません({ $status } { $text })。
console-back-approvals = 承認の一覧へ戻る
console-error-not-found = { $path } というコンソールのページはありません。
console-error-method = ここでは { $method } を受け付けません。
console-error-sign-in = 先にサインインしてください。このサーバーにはトークンが必要です。
console-error-form = フォームを読み取れませんでした。ページを再読み込みしてやり直してください。
console-error-origin = 拒否しました: このコンソールのページから送られたリクエストではありません。コンソール本来のアドレスで開き、そのボタンを使ってください。
console-error-csrf-missing = 拒否しました: このコンソールのフォーム用トークンがありません。ページを再読み込みしてやり直してください。
console-error-csrf-stale = 拒否しました: このサーバーの起動より前か、1 日以上前に開いたページのため、フォーム用トークンの期限が切れています。ページを再読み込みしてから回答し直してください。
console-error-approval-id = 「{ $id }」は承認 ID ではありません。ID は talon approvals list が表示する 12 文字の英数字です。
console-error-approval-unknown = { $id } で待機している呼び出しはありません。このサーバーの前回の起動より前に回答されたか、時間切れになった可能性があります。
console-error-approval-answered = { $tool }({ $id })は { $time } にすでに回答されています({ $answer })。
console-error-approval-withdrawn = { $tool }({ $id })はもう待機していません。{ $time } に時間切れになったか、呼び出し元が離れました。
console-error-answers-off = このコンソールでは回答を受け付けません: { $reason }。トークンを設定して talon serve を再起動するか、ターミナルで talon approvals を使って回答してください。
console-error-always-ask = { $tool } は always_ask に含まれています。毎回人が判断するため、「常に許可」では回答できません。
console-error-permanently = この talon では恒久的な許可は使えません。
console-error-answer = 「{ $answer }」は回答として使えません。ページのボタンを使ってください。
console-error-stream = このサーバーはページへイベントを配信できません。
console-error-pattern-long = { $field } のパターンが { $max } 文字を超えています。
console-error-pattern = { $field } のパターンは正規表現として正しくありません: { $error }
console-error-time = { $field } の時刻「{ $value }」は日時として読めません。2026-03-01T12:00(UTC)のように書いてください。
console-error-range = 範囲の終わりが始まりより前です。「終了」を「開始」より後にしてください。
console-error-cursor = そのページのレシートはありません。最新のものから探し直してください。
console-error-receipt-id = 「{ $id }」はレシート ID ではありません。ID はレシートの一覧に表示される 26 文字です。
console-error-receipt-unknown = ID が { $id } のレシートはありません。
console-error-chain = このストアに「{ $chain }」というチェーンはありません。
console-error-verify-busy = 検証を実行中です。終わってからもう一度お試しください。
console-error-no-key = ストアにはまだ公開鍵ファイルがありません。
console-error-args-long = 引数が { $max } バイトを超えています。
console-error-args-json = 引数が JSON ではありません。{"{"}"path": "notes.txt"{"}"} のようなオブジェクトを書いてください。
console-error-no-check = このサーバーからはサンドボックスの確認を実行できません。ターミナルで talon sandbox check を実行してください。
console-error-check-busy = サンドボックスの確認を実行中です。終わってからもう一度お試しください。
