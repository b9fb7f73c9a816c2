// Package process provides the process tool: the background processes of
// the caller's session, started here or by the shell tool with
// background, yield_ms or pty.
//
//	m := shell.NewManager(shell.ManagerOptions{})
//	t, err := process.New(process.Options{Shell: shell.Options{Workspace: dir, Jobs: m, AllowedCommands: []string{"make"}}})
//	if err != nil {
//		return err
//	}
//	res, err := t.Execute(ctx, json.RawMessage(`{"action":"start","command":"make test"}`))
//	// later: {"action":"poll","id":"p1","wait_seconds":10}
//
// # Actions
//
// start is the shell tool with background (the same assessment: tier,
// reasons, plan, allowlist verdict, rule; the same workdir, env,
// timeout_seconds and pty), and returns an id. list shows the session's
// processes. poll waits up to 30 s for new output or exit and returns
// what was written since the previous poll. log reads a window of one
// stream by absolute byte offset, or its newest bytes. write sends text
// to standard input (eof closes it, or types C-d on a terminal).
// send_keys types named keys (Enter, Up, C-c, ...), paste pastes text
// (bracketed on a terminal). kill ends every process group of the line.
//
// start is assessed like the shell; list, poll and log are low; write,
// send_keys, paste and kill are medium.
//
// # Limits
//
// Each stream keeps its newest 1 MiB; older bytes are dropped and reads
// that reach them get a marker saying how many. A session runs at most
// 16 processes at once. A finished process is kept for 10 minutes, then
// forgotten.
//
// # Sessions and lifetime
//
// Processes belong to the session of the call that started them
// ([tool.CallFrom]); another session can neither see nor touch them. They
// live in the talon process that started them: [Shutdown] (called by
// talon serve on exit) kills them all, and on Linux each child also gets
// SIGKILL when talon dies without shutting down.
package process
