//go:build linux

package sandbox

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"
)

// BenchmarkSpawn compares, in one run, a spawn of /bin/true under talon's
// full containment (new PID and mount namespaces, a fresh /proc, hidden
// paths, Landlock, seccomp, no capabilities, the helper as init) with a
// bare fork/exec of the same argv and with bubblewrap confining it the
// way talon does (new PID namespace, a /proc of its own, the denied paths
// under tmpfs, every capability dropped, killed with its parent). The
// helper is this test binary; set TALON_SANDBOX_BENCH_HELPER to a built
// talon to measure talon's own start-up instead. "native" is the same
// containment from talon-sandbox, the helper in C (built from
// native/talon-sandbox.c when cc is there; see nativeHelper), whose
// target is at most half of bubblewrap's cost; "landlock" is the
// fallback without namespaces.
func BenchmarkSpawn(b *testing.B) {
	if landlockABI() < 1 {
		b.Skipf("no Landlock: %s", unsupportedReason())
	}
	ws, deny := b.TempDir(), b.TempDir()
	run := func(b *testing.B, cmd Cmd) {
		for b.Loop() {
			if out := Run(context.Background(), cmd); out.ExitCode != 0 || out.Err != nil {
				b.Fatalf("outcome = %+v", out)
			}
		}
	}
	trueCmd := Cmd{Argv: []string{"true"}, Binary: "/bin/true"}
	policy := func(noNS bool) Policy {
		helper := os.Getenv("TALON_SANDBOX_BENCH_HELPER")
		if helper == "" {
			helper, _ = os.Executable()
		}
		return Policy{Helper: helper, NativeHelper: HelperBuiltin, Workspace: ws, TempRoot: b.TempDir(),
			Deny: []string{"/root/.ssh", "/etc/shadow", deny}, noNamespaces: noNS}
	}
	prev := active.Load()
	b.Cleanup(func() { active.Store(prev) })
	b.Run("bare", func(b *testing.B) {
		active.Store(nil)
		setSweep(false) // a spawn outside talon's sandbox sweeps nothing
		run(b, trueCmd)
	})
	b.Run("sandboxed", func(b *testing.B) {
		st := Configure(policy(false))
		defer Cleanup()
		if !st.Namespaces {
			b.Skipf("no namespaces here: %s", st.NamespacesReason)
		}
		run(b, trueCmd)
	})
	b.Run("native", func(b *testing.B) {
		native, why := nativeHelper()
		if native == "" {
			b.Skipf("talon-sandbox not built: %s", why)
		}
		p := policy(false)
		p.NativeHelper = native
		st := Configure(p)
		defer Cleanup()
		if !st.Namespaces || st.Helper != native {
			b.Skipf("no namespaces (%s) or talon-sandbox unused (%s)", st.NamespacesReason, st.HelperReason)
		}
		run(b, trueCmd)
	})
	b.Run("landlock", func(b *testing.B) {
		Configure(policy(true))
		defer Cleanup()
		run(b, trueCmd)
	})
	b.Run("bwrap", func(b *testing.B) {
		bwrap, err := exec.LookPath("bwrap")
		if err != nil {
			b.Skip("bubblewrap is not installed (Debian package bubblewrap); no comparison")
		}
		active.Store(nil)
		setSweep(false) // left on by the landlock case's Configure
		argv := []string{"bwrap", "--unshare-pid", "--die-with-parent", "--new-session", "--cap-drop", "ALL",
			"--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev", "--bind", ws, ws, "--tmpfs", deny}
		if _, err := os.Stat("/root/.ssh"); err == nil {
			argv = append(argv, "--tmpfs", "/root/.ssh")
		}
		argv = append(argv, "--ro-bind", "/dev/null", "/etc/shadow", "/bin/true")
		cmd := Cmd{Argv: argv, Binary: bwrap}
		if out := Run(context.Background(), cmd); out.ExitCode != 0 {
			b.Skipf("bubblewrap cannot run here: %s", out.Stderr)
		}
		run(b, cmd)
	})
}

// BenchmarkSpawnInterleaved runs the variants of [BenchmarkSpawn] in turn
// within each iteration, so that a machine whose load changes during the
// run weighs on all of them alike. Each variant runs a burst of spawns in
// a row, starting with a different variant each iteration: the kernel
// tears a namespace down after its last process exited, and that work
// lands on whatever spawns next, so a single spawn per turn would charge
// one variant's teardown to its neighbour. It reports each one's time per spawn
// and the ratios talon's containment is judged by: native/bwrap (the
// target: at most 0.5) and gohelper/bwrap (talon re-executed; also
// sandboxed/bwrap, its older name), each against bare fork/exec too. The
// native contender is left out, with its metrics, when talon-sandbox
// cannot be built here.
func BenchmarkSpawnInterleaved(b *testing.B) {
	if landlockABI() < 1 {
		b.Skipf("no Landlock: %s", unsupportedReason())
	}
	bwrap, err := exec.LookPath("bwrap")
	if err != nil {
		b.Skip("bubblewrap is not installed (Debian package bubblewrap); no comparison")
	}
	ws := b.TempDir()
	helper := os.Getenv("TALON_SANDBOX_BENCH_HELPER")
	if helper == "" {
		helper, _ = os.Executable()
	}
	deny := []string{"/root/.ssh", "/etc/shadow"}
	boxed := newState(Policy{Helper: helper, NativeHelper: HelperBuiltin, Workspace: ws, TempRoot: b.TempDir(), Deny: deny}, false)
	defer boxed.removeTemp()
	if !boxed.ns {
		b.Skipf("no namespaces here: %s", boxed.status.NamespacesReason)
	}
	landlock := newState(Policy{Helper: helper, NativeHelper: HelperBuiltin, Workspace: ws, TempRoot: b.TempDir(), Deny: deny, noNamespaces: true}, false)
	defer landlock.removeTemp()
	trueCmd := Cmd{Argv: []string{"true"}, Binary: "/bin/true"}
	variants := []struct {
		name string
		cmd  Cmd
		st   *state
	}{
		{"bare", trueCmd, nil},
		{"sandboxed", trueCmd, boxed},
		{"landlock", trueCmd, landlock},
		{"bwrap", Cmd{Binary: bwrap, Argv: []string{"bwrap", "--unshare-pid", "--die-with-parent", "--new-session", "--cap-drop", "ALL",
			"--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev", "--bind", ws, ws, "--ro-bind", "/dev/null", "/etc/shadow", "/bin/true"}}, nil},
	}
	const bare, gohelper, bw = 0, 1, 3
	native := -1
	if path, why := nativeHelper(); path == "" {
		b.Logf("no native contender: talon-sandbox not built: %s", why)
	} else {
		st := newState(Policy{Helper: helper, NativeHelper: path, Workspace: ws, TempRoot: b.TempDir(), Deny: deny}, false)
		defer st.removeTemp()
		if st.native != path || !st.ns {
			b.Fatalf("talon-sandbox is not used (%s) or without namespaces (%s)", st.status.HelperReason, st.status.NamespacesReason)
		}
		native = len(variants)
		variants = append(variants, struct {
			name string
			cmd  Cmd
			st   *state
		}{"native", trueCmd, st})
	}
	const burst = 8
	defer setSweep(false)
	total := make([]time.Duration, len(variants))
	round := 0
	for b.Loop() {
		for k := range variants {
			i := (k + round) % len(variants)
			v := variants[i]
			// The sweep for leftovers runs after each spawn only in the
			// mode without namespaces, as Configure sets it.
			setSweep(v.st != nil && !v.st.ns)
			start := time.Now()
			for range burst {
				if out := runWith(context.Background(), v.cmd, v.st); out.ExitCode != 0 || out.Err != nil {
					b.Fatalf("%s: outcome = %+v", v.name, out)
				}
			}
			total[i] += time.Since(start)
		}
		round++
	}
	for i, v := range variants {
		b.ReportMetric(float64(total[i].Nanoseconds())/float64(b.N*burst), v.name+"-ns/spawn")
	}
	b.ReportMetric(float64(total[gohelper])/float64(total[bare]), "sandboxed/bare")
	b.ReportMetric(float64(total[gohelper])/float64(total[bw]), "sandboxed/bwrap")
	b.ReportMetric(float64(total[gohelper])/float64(total[bw]), "gohelper/bwrap")
	if native >= 0 {
		b.ReportMetric(float64(total[native])/float64(total[bare]), "native/bare")
		b.ReportMetric(float64(total[native])/float64(total[bw]), "native/bwrap")
	}
}
