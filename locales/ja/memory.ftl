### 永続メモリーツール memory_store、memory_recall、memory_forget の説明。
### メモリーは会話をまたいで保持され、呼び出し元のリスクプロファイルごとに分かれる。

## memory_store

tool-memory-store = ユーザーの好み、決定事項、プロジェクトに関する事実などを、会話をまたいで覚えておけるように保存します。既存のキーで保存すると、そのメモリーを置き換えます。キーを省略すると新しいキーが生成され、結果として返されます。あとで検索したり更新したりしやすいよう、1 件のメモリーには 1 つのまとまった事柄だけを保存してください。
tool-memory-store-param-key = メモリーの短い名前。空白を含めずに指定します(例: user-editor)。同じキーを再び使うと内容を更新でき、省略すると新しいキーが割り当てられます。
tool-memory-store-param-content = 覚えておく内容。あとで読んだときにそれだけで意味が通じるように書いてください。最大 64 KiB です。
tool-memory-store-param-category = メモリーを分類するための任意のラベル(例: preferences、decisions)。memory_recall でカテゴリーを指定して絞り込めます。
tool-memory-store-param-tags = 任意の短いタグのリスト。本文と一緒に検索対象になります。

## memory_recall

tool-memory-recall = 以前の会話で保存したメモリーを検索して取り出します。query を指定するとキーワードに最もよく一致するメモリーを、指定しないと最近のメモリーを返します。各メモリーはキー、カテゴリー、日時とともに 1 行で表示され、長い本文は途中で省略されます。1 件のメモリーを全文読むには key を指定してください。
tool-memory-recall-param-query = 検索するキーワード(例: エディター 設定)。単語はそれぞれ個別に扱われ、いずれかを含むメモリーが一致します。引用符や演算子などの検索構文は、ただの単語として扱われます。
tool-memory-recall-param-mode = keyword は一致したメモリーを関連度順に並べ、query を指定したときの既定です。recent は新しいメモリーから順に並べ、query があればそれに一致するものに絞ります。
tool-memory-recall-param-category = このカテゴリーのメモリーだけを返します。
tool-memory-recall-param-since = この日時以降に保存されたメモリーだけを返します。RFC 3339 形式(2024-05-01T09:30:00Z)か日付(2024-05-01、UTC)で指定します。
tool-memory-recall-param-until = この日時以前に保存されたメモリーだけを返します。RFC 3339 形式か日付で指定し、日付の場合はその日(UTC)の終わりまでを含みます。
tool-memory-recall-param-limit = 返すメモリーの最大件数(1〜100)。既定は 10 です。
tool-memory-recall-param-key = 全文を読みたいメモリーのキー。ほかのパラメーターとは併用せず、単独で指定します。

## memory_forget

tool-memory-forget = キーを指定してメモリーを 1 件削除します。内容が誤っている場合や、もう当てはまらなくなった場合などに使います。1 回の呼び出しで削除できるのは 1 件だけで、カテゴリー単位でまとめて削除する手段は意図的に用意していません。キーは memory_recall で確認できます。内容を訂正したいときは、削除せずに同じキーで新しい内容を保存してください。
tool-memory-forget-param-key = 削除するメモリーのキー。memory_store や memory_recall が表示したとおりに指定します。
