package codingcli

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/talonhq/talon/sandbox"
)

// BenchmarkRun compares one run of a fake CLI through the tool (talon:
// argument checks, binary lookup, plan, reduced environment, sandbox.Run)
// against sandbox.Run of the same argv (raw). The ratio is the tool's
// overhead over spawning the process.
func BenchmarkRun(b *testing.B) {
	bin := fakeBin(b, "claude", "#!/bin/sh\necho ok\n")
	ws := b.TempDir()
	path := bin + ":/usr/bin:/bin"
	b.Run("raw", func(b *testing.B) {
		for b.Loop() {
			out := sandbox.Run(context.Background(), sandbox.Cmd{Argv: []string{"claude", "-p", "hello"}, Binary: filepath.Join(bin, "claude"), Dir: ws, Env: []string{"PATH=" + path}})
			if out.ExitCode != 0 {
				b.Fatal(out)
			}
		}
	})
	b.Run("talon", func(b *testing.B) {
		c, err := New(ClaudeCode, Options{Workspace: ws, PATH: path, LookupEnv: lookup})
		if err != nil {
			b.Fatal(err)
		}
		args := json.RawMessage(`{"prompt":"hello"}`)
		for b.Loop() {
			res, err := c.Execute(context.Background(), args)
			if err != nil || !res.Success {
				b.Fatal(res.Error, err)
			}
		}
	})
}
