// Package process provides the process tool: long shell command lines run
// in the background, scoped to the caller's session.
//
//	t, err := process.New(process.Options{Workspace: dir, AllowedCommands: []string{"make"}})
//	if err != nil {
//		return err
//	}
//	res, err := t.Execute(ctx, json.RawMessage(`{"action":"start","command":"make test"}`))
//	// later: {"action":"poll","id":"p1","wait_seconds":10}
//
// # Actions
//
// start takes a command line and analyses it exactly as the shell tool
// does (package shell's assessment, so the same tier, reasons, plan and
// allowlist verdict); it runs the analysed plan without a shell, every
// command in a process group of its own, and returns an id. list shows
// the session's processes. poll waits up to 30 s for new output or exit
// and returns what was written since the previous poll. log reads a
// window of one stream by absolute byte offset, or its newest bytes.
// write sends text to standard input (eof closes it). kill ends every
// process group of the line.
//
// start is assessed like the shell; list, poll and log are low; write
// and kill are medium.
//
// # Limits
//
// Each stream keeps its newest [DefaultMaxOutputBytes] (1 MiB); older
// bytes are dropped and reads that reach them get a marker saying how
// many. A session runs at most [DefaultMaxLive] processes at once. A
// finished process is kept for [DefaultTTL] (10 minutes), then forgotten.
//
// # Sessions and lifetime
//
// Processes belong to the session of the call that started them
// ([tool.CallFrom]); another session can neither see nor touch them. They
// live in the talon process that started them: [Shutdown] (called by
// talon serve on exit) kills them all, and on Linux each child also gets
// SIGKILL when talon dies without shutting down.
package process
