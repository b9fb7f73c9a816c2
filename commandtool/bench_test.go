//go:build unix

package commandtool

import (
	"context"
	"encoding/json"
	"os/exec"
	"testing"
	"time"

	"github.com/talonhq/talon/config"
)

// BenchmarkCall compares one command tool call through Execute (schema,
// template, binary check, process group, pipes, caps) with a bare
// exec.Command(...).Run() of the same argv, in the same run. The budget is
// tool ≤ 1.3× bare.
func BenchmarkCall(b *testing.B) {
	bin, err := exec.LookPath("echo")
	if err != nil {
		b.Skip("echo is not installed")
	}
	tl := mustNew(b, "echo", config.CommandTool{
		Command:    []string{bin, "{{ input.word }}"},
		Parameters: params(`{"word":{"type":"string"}}`, "word"),
		Tier:       "low",
	}, Options{Workspace: b.TempDir()})
	args := json.RawMessage(`{"word":"hello"}`)
	ctx := context.Background()
	b.Run("bare", func(b *testing.B) {
		for b.Loop() {
			cmd := exec.Command(bin, "hello")
			cmd.Env = tl.env // the same environment the tool's child gets
			if err := cmd.Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
	// interleaved alternates the two, so load on a shared machine hits both
	// alike, and reports their ratio.
	b.Run("interleaved", func(b *testing.B) {
		var bare, tool time.Duration
		for b.Loop() {
			start := time.Now()
			cmd := exec.Command(bin, "hello")
			cmd.Env = tl.env
			if err := cmd.Run(); err != nil {
				b.Fatal(err)
			}
			mid := time.Now()
			if res, err := tl.Execute(ctx, args); err != nil || !res.Success {
				b.Fatal(err, res)
			}
			bare, tool = bare+mid.Sub(start), tool+time.Since(mid)
		}
		b.ReportMetric(float64(bare.Nanoseconds())/float64(b.N), "bare-ns/op")
		b.ReportMetric(float64(tool.Nanoseconds())/float64(b.N), "tool-ns/op")
		b.ReportMetric(float64(tool)/float64(bare), "tool/bare")
	})
	b.Run("tool", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			res, err := tl.Execute(ctx, args)
			if err != nil || !res.Success {
				b.Fatal(err, res)
			}
		}
	})
}
