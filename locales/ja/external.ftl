### tools-external 機能のツール web_search と weather の説明。

## web_search

tool-web-search = クエリで Web を検索し、一致したページの短い一覧を返します。各結果にはタイトル、URL、抜粋が付きます。検索は運用者が設定した 1 つのプロバイダー(SearXNG、Brave Search、AnySearch のいずれか)にだけ送られ、何も設定されていない場合は呼び出しが失敗してその旨を伝えます。結果のページ全体を読むには web_fetch を使ってください。
tool-web-search-param-query = 検索する内容。検索エンジンに入力するときと同じように、普通の言葉で書きます。
tool-web-search-param-max-results = 返す結果の件数(1〜20)。省略した場合や、運用者が設定した上限より大きい場合は、その上限が使われます。

## weather

tool-weather = ある場所の現在の天気と日ごとの予報(天気の状態、気温、湿度、風、降水)を取得します。場所の名前を指定するか、緯度と経度を指定してください。
tool-weather-param-location = 都市や場所の名前(例: "大阪"、"Paris")。緯度と経度を指定する場合は省略します。
tool-weather-param-latitude = 緯度(10 進数の度、-90〜90)。location の代わりに、経度と組にして指定します。
tool-weather-param-longitude = 経度(10 進数の度、-180〜180)。location の代わりに、緯度と組にして指定します。
tool-weather-param-days = 予報の日数(1〜16)。既定は 3 日です。
tool-weather-param-units = 単位系。"metric"(°C、km/h、mm)または "imperial"(°F、mph、インチ)。既定は運用者の設定に従います。
