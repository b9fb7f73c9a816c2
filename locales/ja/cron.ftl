### 定期実行ツール(cron_add、cron_list、cron_remove、cron_run、cron_runs)の
### 説明です。ジョブは talon serve の実行中だけ cron チャネルで動き、
### 呼び出しを承認できる人はいません。

## cron_add

tool-cron-add = ツールの呼び出しを、talon serve の実行中に後で一度、または繰り返し実行するよう登録します。ジョブはあなたのリスクプロファイルと、ジョブ自身の allowed_tools の範囲で動きます。定期実行には承認する人がいないため、承認が必要な呼び出しは実行時に拒否されます。
tool-cron-add-param-name = ジョブの一意な名前(英数字、_、-)。ジョブのセッション名 cron:<名前> にも使われます。
tool-cron-add-param-schedule = 実行するタイミング。UTC の 5 フィールドの cron 式(0 9 * * 1-5)、1 分以上の間隔(every 15m、every 2h)、または RFC 3339 の日時 1 回分(at 2026-12-01T09:00:00Z)。
tool-cron-add-param-tool = 呼び出すツール。
tool-cron-add-param-args = 呼び出しの引数(JSON オブジェクト)。
tool-cron-add-param-allowed-tools = このジョブが呼び出せるツールの一覧。tool を含める必要があります。省略すると tool だけです。
tool-cron-add-param-profile = 実行時のリスクプロファイル。省略するとあなた自身のプロファイルです。別のプロファイルを指定できるのはローカルの CLI からだけです。

## cron_list

tool-cron-list = 参照できる定期ジョブを一覧します。名前、ツール、スケジュール、プロファイル、許可されたツール、次回と前回の実行時刻を示します。

## cron_remove

tool-cron-remove = 定期ジョブと、その実行記録を削除します。
tool-cron-remove-param-name = 削除するジョブの名前。

## cron_run

tool-cron-run = 定期ジョブを今すぐ実行します。スケジューラーと同じく、同じツール、引数、プロファイル、許可ツールで cron チャネルから呼び出します。結果、所要時間、レシート ID を返します。
tool-cron-run-param-name = 実行するジョブの名前。

## cron_runs

tool-cron-runs = 定期ジョブの最近の実行を新しい順に表示します。時刻、ジョブ、きっかけ、結果(success、failed、denied、skipped、error)、所要時間、レシート ID が分かります。talon serve が止まっていた間に逃した実行は skipped と表示されます。
tool-cron-runs-param-name = このジョブの実行だけを表示します。
tool-cron-runs-param-limit = 表示する件数(1〜200)。省略すると 20 件です。
