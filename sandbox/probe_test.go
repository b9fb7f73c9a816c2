//go:build linux

package sandbox

import (
	"context"
	"sync"
	"testing"
)

// TestProbeDeferred: with OnProbe set, Configure starts no helper to
// probe namespaces; the first child (or Current) runs the probe, and
// OnProbe hears the complete status once, before that child starts. With
// the sandbox off, no child is ever wrapped, and Configure calls OnProbe
// itself.
func TestProbeDeferred(t *testing.T) {
	needLandlock(t, 1)
	tests := []struct {
		name  string
		first func(t *testing.T)
	}{
		{name: "first child", first: func(t *testing.T) {
			if out := Run(context.Background(), Cmd{Argv: []string{"true"}, Binary: "/bin/true"}); out.ExitCode != 0 || out.Err != nil {
				t.Fatalf("outcome = %+v", out)
			}
		}},
		{name: "current", first: func(t *testing.T) { _ = Current() }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex
			var heard []Status
			st := configure(t, Policy{Workspace: t.TempDir(), OnProbe: func(s Status) {
				mu.Lock()
				defer mu.Unlock()
				heard = append(heard, s)
			}})
			mu.Lock()
			early := len(heard)
			mu.Unlock()
			if early != 0 || st.Mechanism != "" {
				t.Fatalf("Configure probed: OnProbe called %d times, mechanism %q", early, st.Mechanism)
			}
			tt.first(t)
			if out := Run(context.Background(), Cmd{Argv: []string{"true"}, Binary: "/bin/true"}); out.ExitCode != 0 || out.Err != nil {
				t.Fatalf("outcome = %+v", out)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(heard) != 1 {
				t.Fatalf("OnProbe called %d times, want once", len(heard))
			}
			got := heard[0]
			if !got.Active || got.Mechanism == "" || (got.Mechanism == MechanismNamespaces) != got.Namespaces {
				t.Errorf("OnProbe heard %+v, want the complete status", got)
			}
			if cur := Current(); cur.Mechanism != got.Mechanism || cur.Namespaces != got.Namespaces {
				t.Errorf("Current() = %+v, OnProbe heard %+v", cur, got)
			}
		})
	}
	t.Run("off", func(t *testing.T) {
		calls := 0
		st := configure(t, Policy{Mode: Off, OnProbe: func(s Status) {
			calls++
			if s.Active {
				t.Errorf("OnProbe heard an active sandbox with mode off: %+v", s)
			}
		}})
		if calls != 1 || st.Active {
			t.Errorf("mode off: OnProbe called %d times by Configure, status %+v; want once", calls, st)
		}
	})
}
