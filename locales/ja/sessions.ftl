## sessions_list

tool-sessions-list = このランタイムが呼び出しを記録しているセッションを、最近使われた順に一覧します。各セッションの呼び出し回数と、成功しなかった回数も示します。MCP 経由では自分のセッションだけが表示されます。

## sessions_history

tool-sessions-history = セッションの呼び出しを古い順に表示します。ツール、リスク階層、ポリシーの判定、結果、所要時間、レシート ID が分かります。同じ操作を繰り返す前に、すでに何が実行されたかを確かめるのに使ってください。MCP 経由で読めるのは自分のセッションだけです。
tool-sessions-history-param-session = 読み取るセッションの ID。省略すると現在のセッションです。
tool-sessions-history-param-limit = 表示する直近の呼び出しの件数(1〜500)。省略すると 50 件です。
