## tool_search

tool-tool-search = まだ定義全体が示されていないツールを探し、その定義を読み込みます。キーワードで探すか、select: のあとに名前をカンマ区切りで続けて(select:cron_add,cron_list)特定のツールを読み込んでください。読み込んだツールはセッションの終わりまで使えます。
tool-tool-search-param-query = 必要な機能を表すキーワード、または特定のツールを読み込むための select:名前1,名前2。
tool-tool-search-param-limit = 返す定義の最大数(1〜20)。省略すると 5 件です。
tool-tool-search-text-loadable = 読み込めるツール:
