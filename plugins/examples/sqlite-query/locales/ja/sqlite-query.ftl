### sqlite-query サンプルプラグインのツールの説明。

## sqlite_query

tool-sqlite-query = オペレーターがこのプラグインに設定した SQLite データベースに対して、読み取り専用の SQL クエリ(SELECT など)を 1 つ実行し、見出し行付きのタブ区切りテキストで行を返します。データベースを変更する文は失敗します。先に sqlite_schema でテーブルを確認してください。
tool-sqlite-query-param-sql = データを読むだけの SQL 文を 1 つ。例: SELECT name FROM users WHERE active = 1
tool-sqlite-query-param-max-rows = 返す最大行数(1〜1000)。既定は 100 で、省略された行があれば結果にそう示されます。

## sqlite_schema

tool-sqlite-schema = 設定された SQLite データベースのテーブルとビューを、それぞれを作成した SQL 文とともに一覧します。
