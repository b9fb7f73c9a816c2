//go:build linux

package agents_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/talonhq/talon/internal/proctest"
	"github.com/talonhq/talon/models/modeltest"
)

// sleepers returns the pids of processes whose command line holds mark.
func sleepers(t *testing.T, mark string) []string {
	t.Helper()
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	var out []string
	for _, d := range dirs {
		cmd, err := os.ReadFile(filepath.Join(d, "cmdline"))
		if err == nil && bytes.Contains(cmd, []byte(mark)) && bytes.HasPrefix(cmd, []byte("sleep\x00")) {
			out = append(out, filepath.Base(d))
		}
	}
	return out
}

// TestStopKillsShell: the agent's timeout and the caller's cancellation
// both end the shell the subagent started, before the call returns.
func TestStopKillsShell(t *testing.T) {
	proctest.NeedBins(t, "sleep")
	cfg := baseConfig + `
[risk_profiles.default]
level = "full"
allowed_commands = ["sleep"]
`
	for _, how := range []string{"timeout", "cancel"} {
		t.Run(how, func(t *testing.T) {
			front := "tools: [shell]"
			if how == "timeout" {
				front += "\ntimeout_seconds: 1"
			}
			f := newFixture(t, fixtureOptions{config: cfg, files: map[string]string{"agents/runner.md": agentFile(front, "{{ input }}")}})
			mark := fmt.Sprintf("%d.%d", 40+time.Now().Nanosecond()%50, os.Getpid()%1000)
			f.srv.Script("m1", modeltest.Turn{Calls: []modeltest.Call{call("shell", `{"command":"sleep `+mark+`"}`)}})
			t.Cleanup(func() {
				for _, pid := range sleepers(t, mark) {
					var n int
					if _, err := fmt.Sscan(pid, &n); err == nil {
						p, _ := os.FindProcess(n)
						_ = p.Kill()
					}
				}
			})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan error, 1)
			var errText string
			go func() {
				res, err := f.call(ctx, "agent__runner", map[string]any{"input": "wait"})
				errText = res.Error
				done <- err
			}()
			if how == "cancel" {
				// Cancel once the shell's sleep is running.
				for len(sleepers(t, mark)) == 0 {
					select {
					case err := <-done:
						t.Fatalf("returned before the shell started: %v", err)
					case <-time.After(10 * time.Millisecond):
					}
				}
				cancel()
			}
			err := <-done
			switch how {
			case "timeout":
				if err != nil || !strings.Contains(errText, "agent runner timed out") {
					t.Fatalf("err = %v, result error %q", err, errText)
				}
			default:
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("err = %v, want context.Canceled", err)
				}
			}
			if left := sleepers(t, mark); len(left) > 0 {
				t.Fatalf("the shell's sleep is still running: pids %v", left)
			}
		})
	}
}
