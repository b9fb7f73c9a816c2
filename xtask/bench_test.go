package main

import (
	"bytes"
	"maps"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

func parseBenchString(t testing.TB, s string) *benchSet {
	t.Helper()
	set := newBenchSet()
	if err := set.Parse(strings.NewReader(s)); err != nil {
		t.Fatal(err)
	}
	return set
}

func TestBenchParse(t *testing.T) {
	type want struct {
		key   benchKey
		procs int
		unit  string
		value float64
	}
	tests := []struct {
		name   string
		input  string
		want   []want
		count  int // results expected
		status map[benchKey]string
		failed map[string]string
	}{
		{
			name:  "plain result with memory figures",
			input: "pkg: github.com/talonhq/talon/runtime\nBenchmarkDispatch/direct-2   \t 1000\t  50.5 ns/op\t  16 B/op\t  1 allocs/op\n",
			want: []want{
				{bref("runtime", "BenchmarkDispatch/direct"), 2, "ns/op", 50.5},
				{bref("runtime", "BenchmarkDispatch/direct"), 2, "B/op", 16},
				{bref("runtime", "BenchmarkDispatch/direct"), 2, "allocs/op", 1},
			},
			count: 1,
		},
		{
			name:  "no procs suffix when GOMAXPROCS is 1; the root package is .",
			input: "pkg: github.com/talonhq/talon\nBenchmarkDurable/callers=64 100 7 ns/op\n",
			want:  []want{{bref(".", "BenchmarkDurable/callers=64"), 1, "ns/op", 7}},
			count: 1,
		},
		{
			name:  "dashes inside a name stay",
			input: "pkg: github.com/talonhq/talon/cmd/talon\nBenchmarkToolsListProcess/baseline-empty-go-binary-8 10 1200000 ns/op\n",
			want:  []want{{bref("cmd/talon", "BenchmarkToolsListProcess/baseline-empty-go-binary"), 8, "ns/op", 1.2e6}},
			count: 1,
		},
		{
			name:  "another module's package keeps its path",
			input: "pkg: example.com/other\nBenchmarkX-2 10 3 ns/op\n",
			want:  []want{{bref("example.com/other", "BenchmarkX"), 2, "ns/op", 3}},
			count: 1,
		},
		{
			name:  "custom metrics",
			input: "pkg: github.com/talonhq/talon/commandtool\nBenchmarkCall/interleaved-2 500 5000000 ns/op 2000000 bare-ns/op 1.45 tool/bare\n",
			want: []want{
				{bref("commandtool", "BenchmarkCall/interleaved"), 2, "tool/bare", 1.45},
				{bref("commandtool", "BenchmarkCall/interleaved"), 2, "bare-ns/op", 2e6},
			},
			count: 1,
		},
		{
			name: "repeated runs give the median",
			input: "pkg: p\nBenchmarkA-2 10 5 ns/op\nBenchmarkA-2 10 1 ns/op\nBenchmarkA-2 10 3 ns/op\n" +
				"BenchmarkB-2 10 1 ns/op\nBenchmarkB-2 10 4 ns/op\n",
			want:  []want{{bref("p", "BenchmarkA"), 2, "ns/op", 3}, {bref("p", "BenchmarkB"), 2, "ns/op", 2.5}},
			count: 2,
		},
		{
			name:  "the same name in two packages is two benchmarks",
			input: "pkg: github.com/talonhq/talon/a\nBenchmarkCall-2 1 1 ns/op\npkg: github.com/talonhq/talon/b\nBenchmarkCall-2 1 2 ns/op\n",
			want:  []want{{bref("a", "BenchmarkCall"), 2, "ns/op", 1}, {bref("b", "BenchmarkCall"), 2, "ns/op", 2}},
			count: 2,
		},
		{
			name:  "a result split by output written while it ran",
			input: "pkg: p\nBenchmarkServe/stdio-2   \tserver: listening on 127.0.0.1:1234\nsome more noise\n   200\t  600000 ns/op\t  1.2 talon/sdk\n",
			want:  []want{{bref("p", "BenchmarkServe/stdio"), 2, "ns/op", 6e5}, {bref("p", "BenchmarkServe/stdio"), 2, "talon/sdk", 1.2}},
			count: 1,
		},
		{
			name: "malformed lines are ignored",
			input: "pkg: p\nBenchmarkA-2 ten 5 ns/op\nBenchmarkB-2 10 5\nBenchmarkC-2 10 x ns/op\nBenchmarkD-2 0 5 ns/op\n" +
				"BenchmarkE-2 10 5 ns/op 6 ns/op\nnot a benchmark 10 5 ns/op\n",
			count: 0,
		},
		{
			name:   "skipped and failed benchmarks keep their reason",
			input:  "pkg: github.com/talonhq/talon/sandbox\n--- SKIP: BenchmarkSpawn\n    bench_test.go:17: no Landlock: old kernel\n    --- FAIL: BenchmarkOther/sub-2\n",
			count:  0,
			status: map[benchKey]string{bref("sandbox", "BenchmarkSpawn"): "skipped: no Landlock: old kernel", bref("sandbox", "BenchmarkOther/sub"): "failed: "},
		},
		{
			name: "packages that failed",
			input: "FAIL\tgithub.com/talonhq/talon/cli [build failed]\npkg: github.com/talonhq/talon/x\nBenchmarkA-2 1 1 ns/op\n" +
				"--- FAIL: BenchmarkB\nFAIL\nexit status 1\nFAIL\tgithub.com/talonhq/talon/x\t0.5s\nFAIL\n",
			want:   []want{{bref("x", "BenchmarkA"), 2, "ns/op", 1}},
			count:  1,
			failed: map[string]string{"cli": "failed to build", "x": "failed"},
		},
		{
			name:   "a later result clears an earlier skip",
			input:  "pkg: p\n--- SKIP: BenchmarkA\nBenchmarkA-2 10 5 ns/op\n",
			want:   []want{{bref("p", "BenchmarkA"), 2, "ns/op", 5}},
			count:  1,
			status: map[benchKey]string{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set := parseBenchString(t, tt.input)
			if got := len(set.Results()); got != tt.count {
				t.Fatalf("%d results, want %d: %v", got, tt.count, set.order)
			}
			for _, w := range tt.want {
				r := set.Result(w.key)
				if r == nil {
					t.Fatalf("no result for %v; have %v", w.key, set.order)
				}
				if r.Procs != w.procs {
					t.Errorf("%v: procs %d, want %d", w.key, r.Procs, w.procs)
				}
				if v, ok := r.Value(w.unit); !ok || v != w.value {
					t.Errorf("%v %s = %v, %v; want %v", w.key, w.unit, v, ok, w.value)
				}
			}
			if tt.failed != nil && !maps.Equal(set.failedPkgs, tt.failed) {
				t.Errorf("failed packages %v, want %v", set.failedPkgs, tt.failed)
			}
			if tt.status != nil {
				if len(set.statuses) != len(tt.status) {
					t.Fatalf("statuses %v, want %v", set.statuses, tt.status)
				}
				for k, want := range tt.status {
					st := set.statuses[k]
					if got := st.Status + ": " + st.Reason; got != want {
						t.Errorf("%v: %q, want %q", k, got, want)
					}
				}
			}
		})
	}
}

func TestBenchHeader(t *testing.T) {
	set := parseBenchString(t, "goos: linux\ngoarch: arm64\npkg: p\ncpu: Some CPU @ 2GHz  \nBenchmarkA-4 1 1 ns/op\ngoos: darwin\n")
	if set.GOOS != "linux" || set.GOARCH != "arm64" || set.CPU != "Some CPU @ 2GHz" || set.Procs != 4 {
		t.Fatalf("header %q %q %q %d", set.GOOS, set.GOARCH, set.CPU, set.Procs)
	}
}

func TestBenchEvaluate(t *testing.T) {
	set := parseBenchString(t, `pkg: github.com/talonhq/talon/p
BenchmarkX/raw-2 10 100 ns/op
BenchmarkX/talon-2 10 110 ns/op
BenchmarkX/slow-2 10 150 ns/op
BenchmarkY/raw-2 10 100 ns/op
BenchmarkY/other-2 10 130 ns/op
BenchmarkY/same-2 10 100 ns/op
BenchmarkZero-2 10 0 ns/op
BenchmarkRate-2 10 100 ns/op 9000 things/s 1.4 a/b
BenchmarkC/raw-2 10 300 ns/op 100 cpu-ns/op
BenchmarkC/talon-2 10 200 ns/op 120 cpu-ns/op
BenchmarkC/zero-2 10 200 ns/op 0 cpu-ns/op
FAIL	github.com/talonhq/talon/broken [build failed]
--- SKIP: BenchmarkSkipped
    x_test.go:3: needs a kernel
`)
	k := func(name string) benchKey { return bref("p", name) }
	tests := []struct {
		name    string
		row     benchRow
		value   float64
		verdict string
		detail  string // a substring of the detail
	}{
		{"ratio within target", benchRow{Kind: benchRatio, Num: k("BenchmarkX/talon"), Base: k("BenchmarkX/raw"), Max: 1.2},
			1.1, verdictPass, "p BenchmarkX/talon 110 ns ÷ p BenchmarkX/raw 100 ns"},
		{"ratio over target", benchRow{Kind: benchRatio, Num: k("BenchmarkX/slow"), Base: k("BenchmarkX/raw"), Max: 1.2},
			1.5, verdictFail, ""},
		{"ratio without target", benchRow{Kind: benchRatio, Num: k("BenchmarkX/slow"), Base: k("BenchmarkX/raw")},
			1.5, verdictInfo, ""},
		{"zero baseline", benchRow{Kind: benchRatio, Num: k("BenchmarkX/raw"), Base: k("BenchmarkZero"), Max: 2},
			0, verdictNotMeasured, "baseline is zero"},
		{"overhead in time", benchRow{Kind: benchOverhead, Num: k("BenchmarkX/slow"), Base: k("BenchmarkX/raw"), Max: 40},
			50, verdictFail, "150 ns − p BenchmarkX/raw 100 ns"},
		{"overhead against another host's", benchRow{Kind: benchOverheadRatio,
			Num: k("BenchmarkX/talon"), Base: k("BenchmarkX/raw"), Num2: k("BenchmarkY/other"), Base2: k("BenchmarkY/raw"), Max: 1.0 / 3},
			10.0 / 30, verdictPass, "= 10 ns) ÷ ("},
		{"more overhead than the other host's third", benchRow{Kind: benchOverheadRatio,
			Num: k("BenchmarkX/slow"), Base: k("BenchmarkX/raw"), Num2: k("BenchmarkY/other"), Base2: k("BenchmarkY/raw"), Max: 1.0 / 3},
			50.0 / 30, verdictFail, ""},
		{"faster than raw is flagged as noise", benchRow{Kind: benchOverheadRatio,
			Num: k("BenchmarkY/raw"), Base: k("BenchmarkX/talon"), Num2: k("BenchmarkY/other"), Base2: k("BenchmarkY/raw"), Max: 1.0 / 3},
			-10.0 / 30, verdictPass, "which is noise"},
		{"the other host has no overhead", benchRow{Kind: benchOverheadRatio,
			Num: k("BenchmarkX/talon"), Base: k("BenchmarkX/raw"), Num2: k("BenchmarkY/same"), Base2: k("BenchmarkY/raw"), Max: 1.0 / 3},
			0, verdictNotMeasured, "no overhead"},
		{"CPU time when every benchmark reports it", benchRow{Kind: benchRatio, CPU: true, Num: k("BenchmarkC/talon"), Base: k("BenchmarkC/raw"), Max: 1.3},
			1.2, verdictPass, "p BenchmarkC/talon 120 ns cpu ÷ p BenchmarkC/raw 100 ns cpu"},
		{"wall time when CPU is not asked for", benchRow{Kind: benchRatio, Num: k("BenchmarkC/talon"), Base: k("BenchmarkC/raw"), Max: 1.3},
			200.0 / 300, verdictPass, "200 ns ÷"},
		{"wall time when one lacks CPU time", benchRow{Kind: benchRatio, CPU: true, Num: k("BenchmarkC/talon"), Base: k("BenchmarkX/raw"), Max: 1.3},
			2, verdictFail, "p BenchmarkC/talon 200 ns ÷ p BenchmarkX/raw 100 ns"},
		{"wall time when one reports zero CPU time", benchRow{Kind: benchRatio, CPU: true, Num: k("BenchmarkC/zero"), Base: k("BenchmarkC/raw"), Max: 1.3},
			200.0 / 300, verdictPass, "200 ns ÷ p BenchmarkC/raw 300 ns"},
		{"absolute minimum met", benchRow{Kind: benchAbsolute, Num: k("BenchmarkRate"), Unit: "things/s", Min: 8000},
			9000, verdictPass, "9,000 things/s"},
		{"absolute minimum missed", benchRow{Kind: benchAbsolute, Num: k("BenchmarkRate"), Unit: "things/s", Min: 10000},
			9000, verdictFail, ""},
		{"reported ratio", benchRow{Kind: benchReported, Num: k("BenchmarkRate"), Unit: "a/b", Max: 1.3},
			1.4, verdictFail, ""},
		{"missing benchmark", benchRow{Kind: benchRatio, Num: k("BenchmarkX/talon"), Base: k("BenchmarkGone"), Max: 1.2},
			0, verdictNotMeasured, "missing: p BenchmarkGone"},
		{"package failed to build", benchRow{Kind: benchAbsolute, Num: bref("broken", "BenchmarkA"), Max: 1},
			0, verdictNotMeasured, "broken failed to build"},
		{"missing metric", benchRow{Kind: benchAbsolute, Num: k("BenchmarkX/raw"), Unit: "things/s", Min: 1},
			0, verdictNotMeasured, "p BenchmarkX/raw reports no things/s"},
		{"skipped benchmark", benchRow{Kind: benchRatio, Num: k("BenchmarkSkipped"), Base: k("BenchmarkX/raw"), Max: 1.2},
			0, verdictNotMeasured, "p BenchmarkSkipped skipped: needs a kernel"},
		{"sub-benchmark of a skipped one", benchRow{Kind: benchRatio, Num: k("BenchmarkSkipped/a/b"), Base: k("BenchmarkSkipped/c"), Max: 1.2},
			0, verdictNotMeasured, "p BenchmarkSkipped skipped: needs a kernel"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := benchEvaluate(tt.row, set)
			if o.Verdict != tt.verdict || math.Abs(o.Value-tt.value) > 1e-9 {
				t.Fatalf("got %v %s (%s), want %v %s", o.Value, o.Verdict, o.Detail, tt.value, tt.verdict)
			}
			if !strings.Contains(o.Detail, tt.detail) || strings.Count(o.Detail, "skipped") > 1 {
				t.Fatalf("detail %q lacks %q", o.Detail, tt.detail)
			}
		})
	}
}

func TestBenchFormat(t *testing.T) {
	tests := []struct {
		v    float64
		unit string
		want string
	}{
		{50.5, "ns/op", "50.5 ns"},
		{999, "ns/op", "999 ns"},
		{1000, "ns/op", "1 µs"},
		{26400, "ns/op", "26.4 µs"},
		{121000, "ns/op", "121 µs"},
		{1.5e6, "ns/op", "1.5 ms"},
		{60e6, "ns/op", "60 ms"},
		{2.25e9, "ns/op", "2.25 s"},
		{-3000, "ns/op", "-3 µs"},
		{0, "ns/op", "0 ns"},
		{16000, "receipts/s", "16,000 receipts/s"},
		{1234567.6, "B/instance", "1,234,568 B/instance"},
		{0.0156, "fsyncs/receipt", "0.0156 fsyncs/receipt"},
		{1.45, "tool/bare", "1.45 tool/bare"},
		{26400, "cpu-ns/op", "26.4 µs cpu"},
		{330000, "talon-ns/call", "330 µs talon"},
		{5e6, "ns/call", "5 ms"},
		{9, "allocs/op", "9 allocs/op"},
	}
	for _, tt := range tests {
		if got := benchFormatUnit(tt.v, tt.unit); got != tt.want {
			t.Errorf("benchFormatUnit(%v, %q) = %q, want %q", tt.v, tt.unit, got, tt.want)
		}
	}
	for v, want := range map[float64]string{1.5: "1.50×", 89169.21: "89,169×", -0.5: "-0.50×"} {
		if got := (benchRow{Kind: benchRatio}).format(v); got != want {
			t.Errorf("ratio %v shown %q, want %q", v, got, want)
		}
	}
	r := benchRow{Kind: benchOverheadRatio, Max: 1.0 / 3}
	if got := r.target(); got != "≤ 0.33×" {
		t.Errorf("target %q", got)
	}
	r = benchRow{Kind: benchAbsolute, Unit: "receipts/s", Min: 10000}
	if got := r.target(); got != "≥ 10,000 receipts/s" {
		t.Errorf("target %q", got)
	}
}

// fixedBenchEnv makes the report reproducible.
var fixedBenchEnv = benchEnv{Now: time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC), GoVersion: "go1.26.0", NumCPU: 2}

// TestBenchReportGolden renders the report of a fixture run (every row kind,
// a skipped benchmark, a split result line, repeated samples, a missed
// target and rows not measured) and compares it with the golden file.
func TestBenchReportGolden(t *testing.T) {
	dir := filepath.Join("testdata", "bench")
	out := filepath.Join(t.TempDir(), "sub", "REPORT.md")
	var stdout, stderr bytes.Buffer
	inputs := []string{filepath.Join(dir, "bench.txt"), filepath.Join(dir, "extism.txt")}
	if code := benchReport(inputs, out, false, fixedBenchEnv, &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join(dir, "REPORT.golden.md")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("report differs from %s (go test ./xtask -run TestBenchReportGolden -update rewrites it):\n%s", golden, got)
	}
	if !regexp.MustCompile(`wrote .*REPORT\.md: \d+ pass, 1 fail, \d+ informational, \d+ not measured`).MatchString(stdout.String()) {
		t.Errorf("summary %q", stdout.String())
	}
	// The fixture's interleaved command tool ratio misses its target.
	stdout.Reset()
	stderr.Reset()
	if code := benchReport(inputs, out, true, fixedBenchEnv, &stdout, &stderr); code != exitFailed ||
		!strings.Contains(stderr.String(), "command tool call against bare fork/exec, interleaved: 1.45×, target ≤ 1.30×") {
		t.Fatalf("-check: exit %d, stderr %q", code, stderr.String())
	}
}

func TestBenchCommand(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.txt")
	if err := os.WriteFile(in, []byte("pkg: github.com/talonhq/talon/runtime\nBenchmarkDispatch/direct-2 1 50 ns/op\nBenchmarkDispatch/runtime-2 1 90050 ns/op\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.txt")
	tests := []struct {
		name       string
		args       []string
		code       int
		stdout     string
		stderr     string
		reportHas  string
		reportPath string
	}{
		{name: "no subcommand", args: []string{"bench"}, code: exitUsage, stderr: "usage: go run ./xtask bench report"},
		{name: "unknown subcommand", args: []string{"bench", "draw"}, code: exitUsage, stderr: `unknown subcommand "draw"`},
		{name: "help", args: []string{"bench", "help"}, code: exitOK, stdout: "-check"},
		{name: "extra argument", args: []string{"bench", "report", "-in", in, "x"}, code: exitUsage, stderr: `unexpected argument "x"`},
		{name: "bad flag", args: []string{"bench", "report", "-nope"}, code: exitUsage, stderr: "-nope"},
		{name: "no input exists", args: []string{"bench", "report", "-in", missing, "-out", filepath.Join(dir, "r0.md")}, code: exitFailed,
			stderr: "run scripts/bench.sh first"},
		{name: "one input missing is a warning", args: []string{"bench", "report", "-in", in, "-in", missing, "-out", filepath.Join(dir, "r1.md")},
			code: exitOK, stdout: "0 pass, 1 fail", stderr: "missing.txt does not exist",
			reportPath: filepath.Join(dir, "r1.md"), reportHas: "| dispatch overhead, no-op tool (runtime − direct) | 90 µs | ≤ 20 µs | FAIL |"},
		{name: "check fails on a missed budget", args: []string{"bench", "report", "-check", "-in", in, "-out", filepath.Join(dir, "r2.md")},
			code: exitFailed, stderr: "1 figures miss their target"},
		{name: "stdout", args: []string{"bench", "report", "-in", in, "-out", "-"}, code: exitOK, stdout: "# Benchmark report", stderr: "wrote stdout"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(tt.args, &stdout, &stderr)
			if code != tt.code || !strings.Contains(stdout.String(), tt.stdout) || !strings.Contains(stderr.String(), tt.stderr) {
				t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
			}
			if tt.reportPath != "" {
				data, err := os.ReadFile(tt.reportPath)
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(string(data), tt.reportHas) {
					t.Fatalf("report lacks %q:\n%s", tt.reportHas, data)
				}
			}
		})
	}
}

func FuzzBenchParse(f *testing.F) {
	for _, name := range []string{"bench.txt", "extism.txt"} {
		data, err := os.ReadFile(filepath.Join("testdata", "bench", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(data))
	}
	f.Add("BenchmarkA-2\nnoise\n 10 5 ns/op\n--- SKIP: BenchmarkB-2\n    x\n")
	f.Fuzz(func(t *testing.T, input string) {
		set := newBenchSet()
		if err := set.Parse(strings.NewReader(input)); err != nil {
			return // only a line longer than the scanner's limit
		}
		for _, r := range set.Results() {
			if !strings.HasPrefix(r.Key.Name, "Benchmark") || r.Procs < 1 {
				t.Fatalf("bad result %+v", r)
			}
			if len(r.Units) == 0 || len(r.Units) != len(r.Samples) {
				t.Fatalf("units %v, samples %v", r.Units, r.Samples)
			}
			for _, u := range r.Units {
				if _, ok := r.Value(u); !ok {
					t.Fatalf("%v has no %s", r.Key, u)
				}
			}
		}
		var out bytes.Buffer
		if _, err := benchWriteReport(&out, set, fixedBenchEnv); err != nil {
			t.Fatal(err)
		}
	})
}

// benchAwaited lists benchmark functions the table names before they are
// written; a row naming any other missing function is a mistake.
var benchAwaited = map[benchKey]bool{}

// TestBenchRowsWellFormed checks the pairing table: every row reads the
// benchmarks its kind needs, a bound comes with its source, titles are
// unique, and every benchmark function a row names exists in that
// package's tests.
func TestBenchRowsWellFormed(t *testing.T) {
	titles, checked := map[string]bool{}, map[benchKey]bool{}
	for _, row := range benchRows {
		if titles[row.Title] {
			t.Errorf("two rows titled %q", row.Title)
		}
		titles[row.Title] = true
		if (row.Max != 0 || row.Min != 0) && row.Source == "" {
			t.Errorf("%q: a target without a source", row.Title)
		}
		if row.Max != 0 && row.Min != 0 {
			t.Errorf("%q: both a maximum and a minimum", row.Title)
		}
		if row.Kind == benchReported && row.unit() == "ns/op" {
			t.Errorf("%q: a reported ratio reads the metric the benchmark reported, not ns/op", row.Title)
		}
		for _, k := range row.keys() {
			top, _, _ := strings.Cut(k.Name, "/")
			if !strings.HasPrefix(top, "Benchmark") || k.Pkg == "" {
				t.Errorf("%q: bad benchmark %v", row.Title, k)
				continue
			}
			fn := bref(k.Pkg, top)
			if benchAwaited[fn] || checked[fn] {
				continue
			}
			checked[fn] = true
			if !benchFuncExists(t, filepath.Join("..", filepath.FromSlash(k.Pkg)), top) {
				t.Errorf("%q: no func %s(b *testing.B) in %s", row.Title, top, k.Pkg)
			}
		}
	}
}

func benchFuncExists(t *testing.T, dir, name string) bool {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	decl := regexp.MustCompile(`(?m)^func ` + regexp.QuoteMeta(name) + `\(b \*testing\.B\)`)
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if decl.Match(data) {
			return true
		}
	}
	return false
}
