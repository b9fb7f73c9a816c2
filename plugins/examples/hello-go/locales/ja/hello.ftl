### hello サンプルプラグインのツールの説明。

## greet

tool-greet = 名前を呼んであいさつします。
tool-greet-param-name = あいさつする相手の名前。

## fetch

tool-fetch = 許可されたホストの URL を取得し、ステータスと本文の先頭を返します。
tool-fetch-param-url = 取得する http または https の URL。
