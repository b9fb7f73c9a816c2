package start

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/talonhq/talon/internal/pluginbuild"
	"github.com/talonhq/talon/plugins/manifest"
)

// pluginCounts are the installations BenchmarkPlugins compares.
var pluginCounts = []int{0, 10, 50}

// pluginHome makes a home directory whose talon has n copies of the
// hello-go example installed, trusted and enabled, each under its own
// name with its tools renamed apart, and returns the environment of a
// talon that uses it.
func pluginHome(b testing.TB, root string, n int, wasm []byte) []string {
	home := filepath.Join(root, fmt.Sprintf("home-%d", n))
	data := filepath.Join(home, ".local", "share", "talon")
	conf := filepath.Join(home, ".config", "talon")
	for _, d := range []string{filepath.Join(data, "plugins"), conf} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			b.Fatal(err)
		}
	}
	trust, err := manifest.OpenTrust(data)
	if err != nil {
		b.Fatal(err)
	}
	var cfg strings.Builder
	cfg.WriteString("[plugins]\nenabled = true\nauto_discover = true\nmax_plugins = 64\n")
	sum := manifest.HashBytes(wasm)
	for i := range n {
		name := fmt.Sprintf("hello-%02d", i)
		dir := filepath.Join(data, "plugins", name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		toml := fmt.Sprintf("name = %q\nversion = \"0.1.0\"\nabi_version = 1\nkind = \"wasm\"\nentry = \"hello.wasm\"\nsha256 = %q\n", name, sum)
		if err := os.WriteFile(filepath.Join(dir, "hello.wasm"), wasm, 0o644); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, manifest.FileName), []byte(toml), 0o644); err != nil {
			b.Fatal(err)
		}
		if err := trust.Grant(name, manifest.HashBytes([]byte(toml))); err != nil {
			b.Fatal(err)
		}
		fmt.Fprintf(&cfg, "\n[[plugins.entries]]\nname = %q\nrename = { greet = \"greet_%02d\", fetch = \"fetch_%02d\" }\n", name, i, i)
	}
	if err := os.WriteFile(filepath.Join(conf, "config.toml"), []byte(cfg.String()), 0o600); err != nil {
		b.Fatal(err)
	}
	return []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"), "PATH=" + os.Getenv("PATH")}
}

// serveReady starts `talon serve --stdio`, sends initialize and
// tools/list, and returns the wall time until the list arrived and the
// server's resident set then; it then closes the session, which ends the
// server.
func serveReady(tb testing.TB, bin, dir string, env []string) (time.Duration, int64) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "serve", "--stdio")
	cmd.Dir, cmd.Env = dir, env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	defer func() {
		_ = in.Close()
		if err := cmd.Wait(); err != nil {
			tb.Fatalf("talon serve: %v\n%s", err, stderr.String())
		}
	}()
	requests := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}` + "\n"
	if _, err := in.Write([]byte(requests)); err != nil {
		tb.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		if bytes.Contains(sc.Bytes(), []byte(`"id":2`)) {
			ready := time.Since(start)
			return ready, residentBytes(tb, cmd.Process.Pid)
		}
	}
	tb.Fatalf("talon serve ended before it listed its tools: %v\n%s", sc.Err(), stderr.String())
	return 0, 0
}

// residentBytes reads VmRSS of a process.
func residentBytes(tb testing.TB, pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		tb.Skipf("no /proc here: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				tb.Fatal(err)
			}
			return kb << 10
		}
	}
	tb.Fatal("no VmRSS line")
	return 0
}

// BenchmarkPlugins runs `talon tools list --json` and `talon serve
// --stdio` up to its answer to tools/list, with 0, 10 and 50 WASM
// plugins installed (copies of the hello-go example, each its own plugin
// with its own tools), taking turns within each round after one warm-up
// run of each (which describes the plugins and fills the caches, as the
// first start after an install does). Per count: ns/op, the median over
// the rounds of the mean wall time of one process, with -min and -max;
// for serve also rss-bytes, the server's resident set when it answered.
// The ratio sub-benchmark gives each count against none, round by round
// (target for 50: ≤ 1.2), and the resident set of serve with 50 (target
// ≤ 60 MiB).
//
//	STARTBENCH_ROUNDS  rounds (default 5)
//	STARTBENCH_RUNS    tools list runs per round (default 20); serve runs a
//	                   quarter as many
func BenchmarkPlugins(b *testing.B) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		b.Skip("needs /proc")
	}
	talonBin, _ := binaries(b)
	wasm, err := os.ReadFile(pluginbuild.GoWASM(b, filepath.Join(pluginbuild.Root(), "plugins", "examples", "hello-go")))
	if err != nil {
		b.Fatal(err)
	}
	root := b.TempDir()
	ws := filepath.Join(root, "project")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		b.Fatal(err)
	}
	envs := map[int][]string{}
	for _, n := range pluginCounts {
		envs[n] = pluginHome(b, root, n, wasm)
		runs(b, []string{talonBin, "tools", "list", "--json"}, ws, envs[n], 1) // describes, fills the caches
		serveReady(b, talonBin, ws, envs[n])
	}
	rounds, n := settings()
	serveRuns := max(n/4, 1)
	list := map[int][]float64{}
	ready := map[int][]float64{}
	rss := map[int][]float64{}
	for r := range rounds {
		for i := range pluginCounts {
			c := pluginCounts[(i+r)%len(pluginCounts)]
			list[c] = append(list[c], float64(runs(b, []string{talonBin, "tools", "list", "--json"}, ws, envs[c], n).wall))
			var wall time.Duration
			var mem int64
			for range serveRuns {
				d, m := serveReady(b, talonBin, ws, envs[c])
				wall += d
				mem = max(mem, m)
			}
			ready[c] = append(ready[c], float64(wall)/float64(serveRuns))
			rss[c] = append(rss[c], float64(mem))
		}
	}
	for _, c := range pluginCounts {
		b.Run(fmt.Sprintf("tools-list/n=%d", c), func(b *testing.B) {
			w := summarize(list[c])
			b.ReportMetric(w.med, "ns/op")
			b.ReportMetric(w.min, "ns/op-min")
			b.ReportMetric(w.max, "ns/op-max")
		})
		b.Run(fmt.Sprintf("serve-ready/n=%d", c), func(b *testing.B) {
			w := summarize(ready[c])
			b.ReportMetric(w.med, "ns/op")
			b.ReportMetric(w.min, "ns/op-min")
			b.ReportMetric(w.max, "ns/op-max")
			summarize(rss[c]).report(b, "rss-bytes")
		})
	}
	b.Run("ratio", func(b *testing.B) {
		b.ReportMetric(0, "ns/op")
		for _, c := range pluginCounts[1:] {
			var l, s []float64
			for i := range list[c] {
				l = append(l, list[c][i]/list[0][i])
				s = append(s, ready[c][i]/ready[0][i])
			}
			summarize(l).report(b, fmt.Sprintf("tools-list-%d/0", c))
			summarize(s).report(b, fmt.Sprintf("serve-ready-%d/0", c))
		}
	})
}
