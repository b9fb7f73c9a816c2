package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/runtime"
	"github.com/talonhq/talon/tool"
)

var (
	buildOnce          sync.Once
	talonBin, emptyBin string
	buildErr           error
)

// buildBinaries compiles talon and a Go program that does nothing, the
// baseline of a process start on this machine.
func buildBinaries(b *testing.B) {
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "talon-bench")
		if err != nil {
			buildErr = err
			return
		}
		talonBin = filepath.Join(dir, "talon")
		emptyBin = filepath.Join(dir, "empty")
		src := filepath.Join(dir, "empty.go")
		if err := os.WriteFile(src, []byte("package main\nfunc main() {}\n"), 0o644); err != nil {
			buildErr = err
			return
		}
		if out, err := exec.Command("go", "build", "-o", talonBin, ".").CombinedOutput(); err != nil {
			buildErr = &buildError{string(out)}
			return
		}
		if out, err := exec.Command("go", "build", "-o", emptyBin, src).CombinedOutput(); err != nil {
			buildErr = &buildError{string(out)}
		}
	})
	if buildErr != nil {
		b.Fatal(buildErr)
	}
}

type buildError struct{ out string }

func (e *buildError) Error() string { return e.out }

// BenchmarkToolsListProcess runs `talon tools list --json` (full catalog) as a
// whole process against a Go binary that does nothing. The budget is < 60 ms
// of wall time; compare the two with benchstat.
func BenchmarkToolsListProcess(b *testing.B) {
	buildBinaries(b)
	ws := b.TempDir()
	env := []string{"HOME=" + ws, "PATH=" + os.Getenv("PATH")}
	b.Run("baseline-empty-go-binary", func(b *testing.B) {
		for b.Loop() {
			cmd := exec.Command(emptyBin)
			cmd.Dir, cmd.Env = ws, env
			if err := cmd.Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("talon-tools-list", func(b *testing.B) {
		for b.Loop() {
			cmd := exec.Command(talonBin, "tools", "list", "--json")
			cmd.Dir, cmd.Env = ws, env
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatal(err, string(out))
			}
		}
	})
}

// BenchmarkCatalogBuild builds the full catalog (selection, construction,
// message loading) in-process, and localizes it once, as `tools list` does.
func BenchmarkCatalogBuild(b *testing.B) {
	ws := b.TempDir()
	cfg := config.Default()
	b.ReportAllocs()
	for b.Loop() {
		rt, err := runtime.New(runtime.Options{Config: cfg, Workspace: ws, DataDir: ws})
		if err != nil {
			b.Fatal(err)
		}
		if specs := rt.Catalog().Specs("en"); len(specs) == 0 {
			b.Fatal("empty catalog")
		}
	}
}

// BenchmarkToolSearch ranks the full built-in catalog for a keyword query,
// as tool_search does, with policy filtering before the cap.
func BenchmarkToolSearch(b *testing.B) {
	ws := b.TempDir()
	cfg := config.Default()
	cfg.Runtime.DeferredBuiltinTools = true
	rt, err := runtime.New(runtime.Options{Config: cfg, Workspace: ws, DataDir: ws})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	call := tool.Call{SessionID: "bench", Channel: tool.ChannelMCP}
	b.ReportAllocs()
	for b.Loop() {
		if found, err := rt.Search(ctx, call, "search files for a pattern", 5); err != nil || len(found) == 0 {
			b.Fatal(err, found)
		}
	}
}
