//go:build unix

package shell

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/talonhq/talon/internal/proctest"
	"github.com/talonhq/talon/tool"
)

func benchShell(b *testing.B) *Shell {
	b.Helper()
	proctest.NeedBins(b, "true", "sleep")
	s, err := New(Options{Workspace: b.TempDir(), AllowedCommands: []string{"*"}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Jobs().Close() })
	return s
}

func benchRun(b *testing.B, s *Shell, ctx context.Context, args json.RawMessage) {
	res, err := s.Execute(ctx, args)
	if err != nil || !res.Success {
		b.Fatalf("Execute = %+v, %v", res, err)
	}
}

// BenchmarkPTY is the same command run in the foreground on a terminal
// and without one (target: pty ≤ 1.3× plain, issue 17). ratio runs both
// in one interleaved loop and reports pty/plain, which a shared machine's
// drift affects least.
func BenchmarkPTY(b *testing.B) {
	s := benchShell(b)
	ctx := context.Background()
	plain := json.RawMessage(`{"command":"true"}`)
	pty := json.RawMessage(`{"command":"true","pty":true}`)
	b.Run("plain", func(b *testing.B) {
		for b.Loop() {
			benchRun(b, s, ctx, plain)
		}
	})
	b.Run("pty", func(b *testing.B) {
		for b.Loop() {
			benchRun(b, s, ctx, pty)
		}
	})
	b.Run("ratio", func(b *testing.B) {
		var tp, tt time.Duration
		for b.Loop() {
			t0 := time.Now()
			benchRun(b, s, ctx, plain)
			t1 := time.Now()
			benchRun(b, s, ctx, pty)
			tp += t1.Sub(t0)
			tt += time.Since(t1)
		}
		b.ReportMetric(float64(tt)/float64(tp), "pty/plain")
	})
}

// BenchmarkYield is what yield_ms costs: a line that ends within its
// yield_ms runs as a process of the session and comes back as an
// ordinary result (yield against foreground, interleaved in ratio), and
// poll is one poll of a running line with nothing new to say, the price
// of each look an agent takes at a yielded build.
func BenchmarkYield(b *testing.B) {
	s := benchShell(b)
	ctx := tool.WithCall(context.Background(), tool.Call{Name: Name, SessionID: "bench"})
	fg := json.RawMessage(`{"command":"true"}`)
	yield := json.RawMessage(`{"command":"true","yield_ms":60000}`)
	b.Run("ratio", func(b *testing.B) {
		var tf, ty time.Duration
		for b.Loop() {
			t0 := time.Now()
			benchRun(b, s, ctx, fg)
			t1 := time.Now()
			benchRun(b, s, ctx, yield)
			tf += t1.Sub(t0)
			ty += time.Since(t1)
		}
		b.ReportMetric(float64(ty)/float64(tf), "yield/foreground")
	})
	b.Run("poll", func(b *testing.B) {
		res, err := s.Execute(ctx, json.RawMessage(`{"command":"sleep 60","yield_ms":1}`))
		if err != nil || !res.Success {
			b.Fatalf("start = %+v, %v", res, err)
		}
		j := jobOfBench(b, s, res)
		defer j.Kill()
		for b.Loop() {
			if _, err := j.Poll(ctx, 0, 0); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func jobOfBench(b *testing.B, s *Shell, res tool.Result) *Job {
	b.Helper()
	d, ok := res.Output.Data.(PollData)
	if !ok {
		b.Fatalf("not yielded: %+v", res)
	}
	j, err := s.Jobs().Get("bench", d.ID)
	if err != nil {
		b.Fatal(err)
	}
	return j
}
