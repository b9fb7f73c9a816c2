// Package cron provides scheduled tool calls: the tools cron_add,
// cron_list, cron_remove, cron_run and cron_runs, the SQLite store they
// share (<data dir>/cron.db), and the [Scheduler] that `talon serve` runs.
//
//	sched := cron.NewScheduler(cron.SchedulerOptions{DataDir: dataDir, Caller: rt})
//	sched.Start()
//	defer sched.Stop()
//
// # Jobs
//
// A job names one call (tool and args), a schedule, the job's own
// allowed_tools and the risk profile it runs under. A schedule is a
// standard five-field cron expression ("0 9 * * 1-5", "@daily",
// "CRON_TZ=Asia/Tokyo 0 9 * * *"; evaluated in UTC unless a zone is
// named), an interval ("every 5m", "every 1h", at least one minute), or a
// one-shot time ("at 2026-12-01T09:00:00Z", RFC 3339).
//
// # Running
//
// Every run goes through the runtime's whole pipeline
// ([toolfactory.Caller]) on channel [tool.ChannelCron] with session
// "cron:<job>", the job's profile, and its allowed_tools as
// [tool.Call.CallerAllowlist]: a strict intersection with the profile. A
// scheduled call has nobody to ask, so anything that needs approval is
// denied ([Approver] makes a host's approver fail closed for the cron
// channel). Receipts come from the pipeline as for any call.
//
// Only the scheduler runs jobs on schedule, and only while it runs. A
// run whose time passed more than [DefaultGrace] ago (talon was stopped)
// is recorded once as skipped and the job moves on to its next time: no
// catch-up storm after downtime.
//
// Several servers on one data directory each run a scheduler on the same
// database; a lease per job (holder and expiry, taken in the write
// transaction that moves the job on) makes each due run start exactly
// once, and never while another server's run of the job goes on.
//
// # Callers
//
// A job runs under the profile of the caller that added it. Only a caller
// on the local CLI may name another profile; over MCP, jobs of other
// profiles are invisible and cannot be run or removed.
package cron
