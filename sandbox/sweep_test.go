//go:build linux

package sandbox

import (
	"context"
	"testing"

	"github.com/talonhq/talon/internal/proctest"
)

// TestSweepSparesRunningHelpers: the sweep after one process ends must
// not touch the helper of another that still runs, as in a pipeline
// whose first command exits before its last. In namespaces the helper
// restricts its main thread, so it carries the sandboxed marks the sweep
// looks for; it must still be left to its starter.
func TestSweepSparesRunningHelpers(t *testing.T) {
	needLandlock(t, 1)
	proctest.NeedBins(t, "sh", "true")
	for _, m := range append([]mechanism{{name: "off", policy: Policy{Mode: Off}}}, mechanisms(t)...) {
		t.Run(m.name, func(t *testing.T) {
			p := m.policy
			p.Workspace = t.TempDir()
			configure(t, p)
			for range 3 {
				long := CommandContext(context.Background(), "/bin/sh", "-c", "sleep 0.5; exit 5")
				long.Env = []string{"PATH=/usr/bin:/bin"}
				if err := Start(long); err != nil {
					t.Fatal(err)
				}
				if out := Run(context.Background(), Cmd{Argv: []string{"true"}, Binary: "/bin/true"}); out.ExitCode != 0 || out.Err != nil {
					t.Fatalf("true: %+v", out)
				}
				err := long.Wait()
				if long.ProcessState == nil || long.ProcessState.ExitCode() != 5 {
					t.Fatalf("the running command ended with %v (%v), want its own status 5", long.ProcessState, err)
				}
			}
		})
	}
}
