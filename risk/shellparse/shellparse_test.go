//go:build unix

package shellparse

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/talonhq/talon/tool"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

func TestNewRejectsBadPatterns(t *testing.T) {
	tests := []struct {
		name    string
		opts    Options
		wantErr error
		want    string
	}{
		{name: "unclosed bracket", opts: Options{AllowedCommands: []string{"git", "[abc"}}, wantErr: ErrInvalidPattern, want: `"[abc"`},
		{name: "unclosed brace", opts: Options{AllowedCommands: []string{"/usr/bin/{a,b"}}, wantErr: ErrInvalidPattern, want: `"/usr/bin/{a,b"`},
		{name: "empty pattern", opts: Options{AllowedCommands: []string{""}}, wantErr: ErrInvalidPattern, want: "empty pattern"},
		{name: "relative path pattern", opts: Options{AllowedCommands: []string{"bin/rg"}}, wantErr: ErrInvalidPattern, want: "must be absolute"},
		{name: "safe bin with slash", opts: Options{SafeBins: map[string]SafeBin{"/usr/bin/head": {}}}, wantErr: ErrInvalidSafeBin, want: `"/usr/bin/head"`},
		{name: "valid options", opts: Options{AllowedCommands: []string{"git", "/usr/bin/*", "python3*"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.Dir = t.TempDir()
			_, err := New(tt.opts)
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("New: %v", err)
				}
				return
			}
			if !errors.Is(err, tt.wantErr) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("New error = %v, want %v naming %s", err, tt.wantErr, tt.want)
			}
		})
	}
}

func TestAllowlistPaths(t *testing.T) {
	env := newTestEnv(t)
	// sys holds python3.11 with python3 -> python3.11 beside it, and
	// tool -> ../other/tool, a link that leaves its directory.
	sys := filepath.Join(env.root, "sys")
	other := filepath.Join(env.root, "other")
	for _, d := range []string{sys, other} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeExec(t, filepath.Join(sys, "python3.11"))
	writeExec(t, filepath.Join(other, "tool"))
	must(t, os.Symlink("python3.11", filepath.Join(sys, "python3")))
	must(t, os.Symlink(filepath.Join("..", "other", "tool"), filepath.Join(sys, "tool")))
	path := sys + string(os.PathListSeparator) + env.bin

	tests := []struct {
		name    string
		allow   []string
		line    string
		allowed bool
	}{
		{name: "path pattern matches PATH binary", allow: []string{env.bin + "/rg"}, line: "rg x", allowed: true},
		{name: "path glob matches PATH binary", allow: []string{env.bin + "/*"}, line: "rg x", allowed: true},
		{name: "double star glob", allow: []string{env.root + "/**"}, line: "rg x", allowed: true},
		{name: "path pattern refuses local copy", allow: []string{env.bin + "/rg"}, line: "./rg x"},
		{name: "path pattern refuses absolute local copy", allow: []string{env.bin + "/rg"}, line: env.work + "/rg x"},
		{name: "path pattern accepts absolute invocation", allow: []string{env.bin + "/rg"}, line: env.bin + "/rg x", allowed: true},
		{name: "bare pattern refuses absolute invocation", allow: []string{"rg"}, line: env.bin + "/rg x"},
		{name: "bare pattern refuses tmp copy", allow: []string{"rg"}, line: env.work + "/rg x"},
		{name: "bare pattern refuses dot slash", allow: []string{"rg"}, line: "./rg x"},
		{name: "bare pattern accepts PATH lookup", allow: []string{"rg"}, line: "rg x", allowed: true},
		{name: "link name in same directory", allow: []string{sys + "/python3"}, line: "python3 x.py", allowed: true},
		{name: "link target in same directory", allow: []string{sys + "/python3.11"}, line: "python3 x.py", allowed: true},
		{name: "link leaving directory not matched by its name", allow: []string{sys + "/tool"}, line: "tool"},
		{name: "link leaving directory matched by target", allow: []string{other + "/tool"}, line: "tool", allowed: true},
		{name: "bare name of link", allow: []string{"tool"}, line: "tool", allowed: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := New(Options{AllowedCommands: tt.allow, PATH: path, Dir: env.work, Home: env.home})
			if err != nil {
				t.Fatal(err)
			}
			got := a.Analyze(tt.line)
			if !got.Analysable || got.Allowed != tt.allowed {
				t.Fatalf("Analyze(%q) allowed=%v analysable=%v, want allowed=%v\n%s", tt.line, got.Allowed, got.Analysable, tt.allowed, strings.Join(got.Reasons, "\n"))
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestGlobBudget(t *testing.T) {
	env := newTestEnv(t)
	for i := range maxDirReads + 10 {
		must(t, os.Mkdir(filepath.Join(env.work, fmt.Sprintf("d%03d", i)), 0o755))
	}
	got := env.analyzer(t, nil).Analyze("ls */*")
	if got.Analysable || !strings.Contains(strings.Join(got.Reasons, "\n"), "too many directories") {
		t.Fatalf("Analyze(ls */*) = %v %q, want not analysable over the glob budget", got.Analysable, got.Reasons)
	}
}

func TestPathsAndPlan(t *testing.T) {
	env := newTestEnv(t)
	a := env.analyzer(t, []string{"*"})
	got := a.Analyze("FOO=1 cat < a.go > out.txt 2>/dev/null && wc -l sub/x >>/abs/log")
	wantPaths := []string{filepath.Join(env.work, "a.go"), filepath.Join(env.work, "out.txt"), "/abs/log"}
	if strings.Join(got.Paths, "\n") != strings.Join(wantPaths, "\n") {
		t.Fatalf("Paths = %q, want %q", got.Paths, wantPaths)
	}
	plan := got.Program.Plan(env.work)
	if plan.Summary != got.Program.String() || len(plan.Commands) != 2 {
		t.Fatalf("Plan = %+v", plan)
	}
	first := plan.Commands[0]
	if first.Binary != filepath.Join(env.bin, "cat") || first.Dir != env.work || strings.Join(first.Env, ",") != "FOO" || strings.Join(first.Argv, " ") != "cat" {
		t.Fatalf("first planned command = %+v", first)
	}
}

func TestParseDuration(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want time.Duration
		ok   bool
	}{
		{name: "seconds", in: "5", want: 5 * time.Second, ok: true},
		{name: "seconds suffix", in: "5s", want: 5 * time.Second, ok: true},
		{name: "fraction", in: "0.5", want: 500 * time.Millisecond, ok: true},
		{name: "leading dot", in: ".25", want: 250 * time.Millisecond, ok: true},
		{name: "minutes", in: "1.5m", want: 90 * time.Second, ok: true},
		{name: "hours", in: "2h", want: 2 * time.Hour, ok: true},
		{name: "days", in: "1d", want: 24 * time.Hour, ok: true},
		{name: "nanoseconds exact", in: "0.000000001", want: 1, ok: true},
		{name: "zero", in: "0", want: 0, ok: true},
		{name: "too precise", in: "0.0000000001"},
		{name: "too long", in: "999999999d"},
		{name: "negative", in: "-5"},
		{name: "empty", in: ""},
		{name: "unit only", in: "s"},
		{name: "words", in: "soon"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := parseDuration(tt.in)
			if ok != tt.ok || got != tt.want {
				t.Fatalf("parseDuration(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
			}
			if ok {
				back, _ := parseDuration(formatDuration(got))
				if back != got {
					t.Fatalf("formatDuration(%v) = %q reads back as %v", got, formatDuration(got), back)
				}
			}
		})
	}
}

func TestSafeBinArgKinds(t *testing.T) {
	tests := []struct {
		name string
		kind ArgKind
		in   string
		want bool
	}{
		{name: "number", kind: ArgNumber, in: "5", want: true},
		{name: "signed number", kind: ArgNumber, in: "+5", want: true},
		{name: "number with unit", kind: ArgNumber, in: "10KiB", want: true},
		{name: "number with long unit", kind: ArgNumber, in: "10abcd"},
		{name: "not a number", kind: ArgNumber, in: "x"},
		{name: "list", kind: ArgList, in: "1,3-5", want: true},
		{name: "bad list", kind: ArgList, in: "1;3"},
		{name: "empty list", kind: ArgList, in: ""},
		{name: "char", kind: ArgChar, in: "/", want: true},
		{name: "multibyte char", kind: ArgChar, in: "é", want: true},
		{name: "two chars", kind: ArgChar, in: "ab"},
		{name: "text", kind: ArgText, in: "anything", want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.kind.valid(tt.in); got != tt.want {
				t.Fatalf("valid(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

func TestCustomSafeBinsAndForbiddenEnv(t *testing.T) {
	env := newTestEnv(t)
	a, err := New(Options{
		AllowedCommands: []string{"git"},
		SafeBins:        map[string]SafeBin{"jq": {Flags: []string{"-r", "-c"}, Operands: 1}},
		ForbiddenEnv:    []string{"SECRET_*", "LANG"},
		PATH:            env.bin, Dir: env.work, Home: env.home, SafeBinTrustedDirs: []string{env.bin},
	})
	must(t, err)
	tests := []struct {
		name    string
		line    string
		tier    tool.Tier
		allowed bool
	}{
		{name: "custom safe bin", line: "git log | jq -r .x", tier: tool.Low, allowed: true},
		{name: "default safe bins replaced", line: "git log | head -5", tier: tool.Low},
		{name: "custom forbidden prefix", line: "SECRET_TOKEN=x git log", tier: tool.High},
		{name: "inert name outside the custom list", line: "TZ=UTC git log", tier: tool.Low, allowed: true},
		{name: "forbidden list refuses an inert name", line: "LANG=C git log", tier: tool.High},
		{name: "default forbidden list replaced", line: "LANG=C git log", tier: tool.High},
		{name: "variables outside the inert list stay refused", line: "LD_PRELOAD=x git log", tier: tool.High},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := a.Analyze(tt.line)
			if got.Tier != tt.tier || got.Allowed != tt.allowed {
				t.Fatalf("Analyze(%q) = %v %v, want %v %v: %q", tt.line, got.Tier, got.Allowed, tt.tier, tt.allowed, got.Reasons)
			}
		})
	}
}

// goldenLines are rendered with their full analysis into
// testdata/analysis.golden; run with -update to rewrite it.
var goldenLines = []string{
	"ls -la | wc -l",
	"ls; rm -rf /",
	"git log --oneline -5 | head -3 && git status",
	"LC_ALL=C env -u TZ timeout 5 nice ls -la 2>/dev/null >out.txt",
	"GIT_CONFIG_COUNT=1 git status",
	"sort --outp=x a.go",
	"sh -c 'ls | wc -l; echo done' && echo ok",
	"cat <<EOF | grep -c x\nx \\$y\nEOF\n",
	"python3 -Sc 'import os'",
	"find . -name '*.go' -exec rm {} +",
	"echo $(id)",
	"LD_PRELOAD=/tmp/x.so ls",
	"ls *.go ~/src {a,b}",
}

func TestGolden(t *testing.T) {
	env := newTestEnv(t)
	a := env.analyzer(t, nil)
	var b strings.Builder
	for _, line := range goldenLines {
		an := a.Analyze(line)
		out, err := json.MarshalIndent(struct {
			Line     string
			Analysis *Analysis
			Plan     *tool.Plan
		}{line, an, an.Program.Plan("$WORK")}, "", "  ")
		must(t, err)
		b.Write(out)
		b.WriteString("\n")
	}
	got := strings.NewReplacer(env.bin, "$BIN", env.work, "$WORK").Replace(b.String())
	path := filepath.Join("testdata", "analysis.golden")
	if *update {
		must(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v; run go test -update to create it", err)
	}
	if got != string(want) {
		t.Errorf("analysis differs from %s; run go test -update and review the diff\n%s", path, got)
	}
}
