// Package sandbox is the one spawner: every process talon starts for tool
// work (shell lines, command tools, git, subprocess plugins, stdio MCP
// servers) is started here, so the protections applied to tool processes
// live in one place.
//
// Every child gets a process group of its own, so a timeout, a
// cancellation or an output cap kills the child together with everything
// it started, and caps on what it may write. Once [Configure] has set a
// policy, every child is also started through a helper — talon itself,
// re-executed as `talon __sandbox-exec`, or talon-sandbox, the same helper
// as a small static C program, where one is found and trusted
// ([Policy.NativeHelper]) — in new PID and mount namespaces
// where the kernel allows them: the helper mounts a /proc of the
// namespace's own, hides the denied paths, restricts itself (a Linux
// Landlock domain, a seccomp filter on sockets, no capabilities, rlimits)
// and starts exactly the planned argv, then stays as its init, so nothing
// the child starts outlives it. The child sees no process of talon's, may
// read the system directories, write only the workspace and a private
// per-call TMPDIR, reach no secret, and connect only to the allowed TCP
// ports. talon's own process is never restricted, and talon never runs
// itself as a child ([ErrTalonBinary]). [Check] proves each protection
// with a forbidden action in a child; docs/sandbox.md is the operator's
// guide.
//
// The smallest use runs one program and collects its output:
//
//	out := sandbox.Run(ctx, sandbox.Cmd{
//		Argv:    []string{"rg", "--json", "TODO"},
//		Binary:  "/usr/bin/rg",
//		Dir:     workspace,
//		Env:     []string{"PATH=/usr/bin:/bin"},
//		Timeout: 10 * time.Second,
//	})
//	if out.Err != nil || out.ExitCode != 0 {
//		// ...
//	}
//
// Callers that wire descriptors themselves (the shell's pipelines) build
// the command with [CommandContext] and start it with [Start]; libraries
// that start an *exec.Cmd on their own get one from [Command].
//
// # Notes
//
// A process that never calls [Configure] (a library's tests) starts
// children without the helper. A test binary that wants the sandbox
// dispatches [HelperCommand] to [Main] from its TestMain.
//
// Process groups exist only on unix. Elsewhere the package builds and runs,
// but a kill reaches the direct child only.
package sandbox
