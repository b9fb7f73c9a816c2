### Descriptions of the scheduled-call tools: cron_add, cron_list,
### cron_remove, cron_run and cron_runs. Jobs run only while talon serve
### runs, on the cron channel, where nobody can approve a call.

## cron_add

tool-cron-add = Schedule a tool call to run later or repeatedly while talon serve runs. The job runs under your risk profile with its own allowed_tools; a scheduled call has nobody to approve it, so a call that would need approval is denied when it runs.
tool-cron-add-param-name = Unique name of the job: letters, digits, _ and -. It also names the job's session, cron:<name>.
tool-cron-add-param-schedule = When to run: a five-field cron expression in UTC (0 9 * * 1-5), an interval of at least one minute (every 15m, every 2h), or one time in RFC 3339 (at 2026-12-01T09:00:00Z).
tool-cron-add-param-tool = The tool to call.
tool-cron-add-param-args = The arguments of the call, as a JSON object.
tool-cron-add-param-allowed-tools = The only tools this job may call; it must include tool. Defaults to just tool.
tool-cron-add-param-profile = Risk profile to run under. Defaults to your own; only the local CLI may name another.

## cron_list

tool-cron-list = List the scheduled jobs you can see: name, tool, schedule, profile, allowed tools, next run and last run.

## cron_remove

tool-cron-remove = Delete a scheduled job and the record of its runs.
tool-cron-remove-param-name = Name of the job to delete.

## cron_run

tool-cron-run = Run a scheduled job now, exactly as the scheduler would: same tool, arguments, profile and allowed tools, on the cron channel. Returns the outcome, duration and receipt id.
tool-cron-run-param-name = Name of the job to run.

## cron_runs

tool-cron-runs = Show recent runs of scheduled jobs, newest first: time, job, trigger, outcome (success, failed, denied, skipped or error), duration and receipt id. Runs missed while talon serve was stopped show as skipped.
tool-cron-runs-param-name = Show only the runs of this job.
tool-cron-runs-param-limit = How many runs to show, 1 to 200. Defaults to 20.
