package start

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// repoRoot is the module root, two directories up.
func repoRoot(tb testing.TB) string {
	root, err := filepath.Abs("../..")
	if err != nil {
		tb.Fatal(err)
	}
	return root
}

// build compiles ./cmd/talon with tags, as a release does (CGO_ENABLED=0,
// -trimpath, symbols stripped), into dir: a binary linked with the C
// library starts about a millisecond later, and its helper processes too.
func build(tb testing.TB, dir, name string, tags []string) string {
	tb.Helper()
	out := filepath.Join(dir, name)
	args := []string{"build", "-trimpath", "-ldflags=-s -w", "-o", out}
	if len(tags) > 0 {
		args = append(args, "-tags", strings.Join(tags, ","))
	}
	cmd := exec.Command("go", append(args, "./cmd/talon")...)
	cmd.Dir = repoRoot(tb)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("go build %s: %v\n%s", name, err, b)
	}
	return out
}

var (
	binOnce              sync.Once
	binDir, talon, empty string
	binErr               error
)

// binaries builds talon (the default features) and a Go program that
// does nothing, once.
func binaries(b *testing.B) (talonBin, emptyBin string) {
	binOnce.Do(func() {
		if binDir, binErr = os.MkdirTemp("", "talon-start"); binErr != nil {
			return
		}
		talon = build(b, binDir, "talon", nil)
		src := filepath.Join(binDir, "empty", "main.go")
		if binErr = os.MkdirAll(filepath.Dir(src), 0o755); binErr != nil {
			return
		}
		if binErr = os.WriteFile(src, []byte("package main\n\nfunc main() {}\n"), 0o644); binErr != nil {
			return
		}
		empty = filepath.Join(binDir, "empty-go")
		cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", empty, src)
		cmd.Dir = binDir
		cmd.Env = append(os.Environ(), "GO111MODULE=off", "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			binErr = fmt.Errorf("build the empty program: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		b.Fatal(binErr)
	}
	return talon, empty
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		_ = os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// Settings, from the environment:
//
//	STARTBENCH_ROUNDS  rounds of every command (default 5)
//	STARTBENCH_RUNS    runs of a command per round (default 20)
func settings() (rounds, runs int) {
	rounds, runs = 5, 20
	if v, err := strconv.Atoi(os.Getenv("STARTBENCH_ROUNDS")); err == nil && v > 0 {
		rounds = v
	}
	if v, err := strconv.Atoi(os.Getenv("STARTBENCH_RUNS")); err == nil && v > 0 {
		runs = v
	}
	return rounds, runs
}

// sample is the mean of one round's runs of a command.
type sample struct{ wall, cpu time.Duration }

// runs starts argv n times in dir with env and returns the mean wall and
// CPU time (user + system) of one process.
func runs(tb testing.TB, argv []string, dir string, env []string, n int) sample {
	var s sample
	for range n {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
		cmd.Dir, cmd.Env = dir, env
		start := time.Now()
		out, err := cmd.CombinedOutput()
		wall := time.Since(start)
		cancel()
		if err != nil {
			tb.Fatalf("%v: %v\n%s", argv, err, out)
		}
		s.wall += wall
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			s.cpu += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		}
	}
	s.wall /= time.Duration(n)
	s.cpu /= time.Duration(n)
	return s
}

type summary struct{ med, min, max float64 }

func summarize(v []float64) summary {
	v = slices.Clone(v)
	slices.Sort(v)
	med := v[len(v)/2]
	if len(v)%2 == 0 {
		med = (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
	return summary{med, v[0], v[len(v)-1]}
}

func (s summary) report(b *testing.B, unit string) {
	b.ReportMetric(s.med, unit)
	b.ReportMetric(s.min, unit+"-min")
	b.ReportMetric(s.max, unit+"-max")
}

// BenchmarkStart runs `talon --help` and `talon tools list --json` (the
// full default catalog, in a workspace without a config file) as whole
// processes, and a Go program that does nothing, taking turns within each
// round. Per command: ns/op, the median over the rounds of the mean wall
// time of one process, with -min and -max, and cpu-ns/op, its user and
// system time. The ratio sub-benchmark gives each command against the
// empty program, round by round (help/empty, tools-list/empty).
func BenchmarkStart(b *testing.B) {
	talonBin, emptyBin := binaries(b)
	home := b.TempDir()
	ws := filepath.Join(home, "project")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		b.Fatal(err)
	}
	env := []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"), "PATH=" + os.Getenv("PATH")}
	commands := []struct {
		name string
		argv []string
	}{
		{"empty", []string{emptyBin}},
		{"help", []string{talonBin, "--help"}},
		{"tools-list", []string{talonBin, "tools", "list", "--json"}},
	}
	rounds, n := settings()
	got := map[string][]sample{}
	for _, c := range commands {
		runs(b, c.argv, ws, env, 2) // warm the page cache
	}
	for r := range rounds {
		for i := range commands {
			c := commands[(i+r)%len(commands)]
			got[c.name] = append(got[c.name], runs(b, c.argv, ws, env, n))
		}
	}
	wall := func(name string) []float64 {
		var v []float64
		for _, s := range got[name] {
			v = append(v, float64(s.wall))
		}
		return v
	}
	for _, c := range commands {
		b.Run(c.name, func(b *testing.B) {
			w := summarize(wall(c.name))
			b.ReportMetric(w.med, "ns/op")
			b.ReportMetric(w.min, "ns/op-min")
			b.ReportMetric(w.max, "ns/op-max")
			var cpu []float64
			for _, s := range got[c.name] {
				cpu = append(cpu, float64(s.cpu))
			}
			summarize(cpu).report(b, "cpu-ns/op")
		})
	}
	b.Run("ratio", func(b *testing.B) {
		b.ReportMetric(0, "ns/op")
		base := wall("empty")
		for _, name := range []string{"help", "tools-list"} {
			var r []float64
			for i, v := range wall(name) {
				r = append(r, v/base[i])
			}
			summarize(r).report(b, name+"/empty")
		}
	})
}

// sizes are the builds BenchmarkBinarySize measures: the selections of
// build/features.toml, and each feature added to the selection it is not
// in.
var sizes = []struct {
	name      string
	selection string
	add       string
}{
	{"minimal", "minimal", ""},
	{"minimal+mcp", "minimal", "mcp"},
	{"minimal+plugins-wasm", "minimal", "plugins-wasm"},
	{"minimal+plugins-process", "minimal", "plugins-process"},
	{"default", "default", ""},
	{"default+tools-external", "default", "tools-external"},
	{"default+tools-saas", "default", "tools-saas"},
	{"default+tools-coding-cli", "default", "tools-coding-cli"},
	{"dist", "dist", ""},
}

// BenchmarkBinarySize builds talon for each selection and feature as a
// release does (-trimpath, symbols stripped) and reports its size in
// bytes, with the size above the selection it extends as delta-bytes.
func BenchmarkBinarySize(b *testing.B) {
	dir := b.TempDir()
	root := repoRoot(b)
	got := map[string]float64{}
	for _, s := range sizes {
		args := []string{"run", "./xtask", "generate", "features", "--selection", s.selection, "--format", "list"}
		if s.add != "" {
			args = append(args, "--add", s.add)
		}
		cmd := exec.Command("go", args...)
		cmd.Dir = root
		out, err := cmd.Output()
		if err != nil {
			b.Fatalf("%s: go %s: %v", s.name, strings.Join(args, " "), err)
		}
		var tags []string
		if t := strings.TrimSpace(string(out)); t != "" {
			tags = strings.Split(t, ",")
		}
		fi, err := os.Stat(build(b, dir, s.name, tags))
		if err != nil {
			b.Fatal(err)
		}
		got[s.name] = float64(fi.Size())
	}
	for _, s := range sizes {
		b.Run(s.name, func(b *testing.B) {
			b.ReportMetric(0, "ns/op")
			b.ReportMetric(got[s.name], "bytes")
			if s.add != "" {
				b.ReportMetric(got[s.name]-got[s.selection], "delta-bytes")
			}
		})
	}
}
