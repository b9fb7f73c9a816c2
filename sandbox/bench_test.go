//go:build linux

package sandbox

import (
	"context"
	"os"
	"testing"
)

// BenchmarkSpawn compares a sandboxed spawn of /bin/true with a bare
// fork/exec of the same argv, in one run. The helper is this test binary;
// set TALON_SANDBOX_BENCH_HELPER to a built talon to measure talon's own
// start-up instead. The target is at most 1.5x the bare spawn.
func BenchmarkSpawn(b *testing.B) {
	if landlockABI() < 1 {
		b.Skipf("no Landlock: %s", unsupportedReason())
	}
	cmd := Cmd{Argv: []string{"true"}, Binary: "/bin/true"}
	run := func(b *testing.B) {
		for b.Loop() {
			if out := Run(context.Background(), cmd); out.ExitCode != 0 || out.Err != nil {
				b.Fatalf("outcome = %+v", out)
			}
		}
	}
	prev := active.Load()
	b.Cleanup(func() { active.Store(prev) })
	b.Run("bare", func(b *testing.B) {
		active.Store(nil)
		run(b)
	})
	b.Run("sandboxed", func(b *testing.B) {
		helper := os.Getenv("TALON_SANDBOX_BENCH_HELPER")
		if helper == "" {
			helper, _ = os.Executable()
		}
		Configure(Policy{Helper: helper, Workspace: b.TempDir(), TempRoot: b.TempDir(),
			Deny: []string{"/root/.ssh", "/etc/shadow"}})
		defer Cleanup()
		run(b)
	})
}
