// Package shell provides the shell tool: it runs one command line in the
// workspace without ever handing it to a shell.
//
// The line is analysed by [shellparse]: every simple command is resolved to
// an absolute binary, classified and checked against the profile's
// allowed_commands. The tool runs exactly that [shellparse.Program]:
// pipelines connected with pipes, ;, && and || decided by exit status, the
// permitted redirections, each command in its own process group. A line
// that is not analysable or not allowed never runs.
//
//	sh, err := shell.New(shell.Options{Workspace: dir})
//	if err != nil {
//		return err
//	}
//	res, err := sh.Execute(ctx, json.RawMessage(`{"command": "ls -la | wc -l"}`))
//
// # Arguments
//
// command (required, at most 16 KiB); workdir, the directory the line
// runs in, resolved through the workspace's confinement like the file
// tools' paths (default the workspace); env, variables for every command
// of the line, inert ones only ([shellparse.Analyzer.RefuseVar]), shown
// in the plan as leading assignments; timeout_seconds (0 to 3600,
// default [Options.DefaultTimeout] in the foreground and none in the
// background; 0 means no timeout and is accepted only with
// [Options.AllowNoTimeout]); background, which returns a process id at
// once; yield_ms (0 to [MaxYieldMs]), which waits that long and then
// leaves the line running in the background; pty, which runs the one
// command of the line on a terminal of [TerminalRows] by [TerminalCols].
//
// # Background processes
//
// A line started with background, yield_ms or pty is a [Job] of the
// caller's session in a [Manager] (the process-wide [SharedManager] for
// the registered tool, which the process tool shares): poll, log, write,
// send_keys (named keys, [KeyNames]), paste and kill act on it, and when
// a line handed back as a process ends, the caller's [tool.Notifier]
// hears of it (unless [Options.NoExitNotice]). On a terminal the command
// leads a session of its own whose controlling terminal it is, so the
// terminal's Ctrl-C reaches it as SIGINT, and its output reaches the
// model without control sequences.
//
// # Profiles
//
// [Shell.ForProfile] applies a profile's allowed_commands,
// shell_env_passthrough, forbidden_paths and, with [Options.Config], its
// shell table: mode (deny, allowlist, ask, full), allow, ask and deny
// rules by command pattern ([shellparse.Rule]), safe_bins and their
// profiles ([SafeBinsFrom]), safe_bin_trusted_dirs, path_prepend and
// allow_no_timeout. The assessment reports the rule that decides a call
// ([tool.Assessment.Rule]); package risk turns mode and rule into the
// decision.
//
// # Running
//
// On timeout or cancellation every process group of the running pipeline
// gets SIGKILL, grandchildren included; after each command exits, whatever
// is left of its group is killed too, so nothing outlives the call.
// Children get PATH (the tool's), HOME, LANG, LC_ALL, TERM, TMPDIR and USER
// from talon's environment, the names in [Options.ShellEnvPassthrough], and
// the assignments and env -i/-u of the line, which the analysis accepts
// only for inert variables ([shellparse.InertVar]); nothing else. A line
// that runs talon itself is never allowed. Redirections
// open regular files (or /dev/null) relative to the workspace. stdout and
// stderr are each capped at [Options.MaxOutputBytes] (1 MiB); what is over
// the cap is read and dropped, and an "[output truncated at N bytes]" line
// marks the cut.
//
// # Results
//
// The text is stdout, then stderr under a "[stderr]" line, then
// "[exit status N]" when the last status is not zero. A non-zero status, a
// timeout and a cancellation are failed results that carry the same text;
// Output.Data is a [Data] in every case. A caller's cancellation is also
// returned as the error.
//
// # Approvals
//
// [Shell.Assess] returns the plan: each command's argv, resolved binary,
// directory and the names of its whole environment, with the canonical
// line as summary. Execute analyses the line again and refuses, running
// nothing, when the context carries an approved plan
// ([tool.WithApprovedPlan]) that differs from the fresh one in any argv,
// binary, directory, environment name or the line itself.
// [Shell.ExecutePlan] does the same with the plan as an argument.
package shell
