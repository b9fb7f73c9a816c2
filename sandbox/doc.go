// Package sandbox is the one spawner: every process talon starts for tool
// work (shell lines, command tools, git, subprocess plugins, stdio MCP
// servers) is started here, so the protections applied to tool processes
// live in one place.
//
// Today that means a process group of its own for every child, so a
// timeout, a cancellation or an output cap kills the child together with
// everything it started, and caps on what a child may write. Landlock and
// rlimits, applied in a re-exec'd helper before execve, will be added here
// too; talon's own process is never restricted.
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
// Process groups exist only on unix. Elsewhere the package builds and runs,
// but a kill reaches the direct child only.
package sandbox
