//go:build unix

package shellparse

import (
	"os"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// benchLines are typical one-line commands an agent sends.
var benchLines = []string{
	"ls -la",
	"git status",
	"ls -la | wc -l",
	"grep -rn 'func main' . | head -20",
	"cat README.md",
	"git log --oneline -10",
	"mkdir -p build && touch build/.keep",
	"find . -name '*.go' -not -path './vendor/*' | wc -l",
	"sed -n '1,20p' main.go 2>/dev/null",
	"timeout 10 git diff --stat HEAD~1",
}

// BenchmarkAnalyze analyses the typical lines with the system PATH; ns/op
// is per line.
func BenchmarkAnalyze(b *testing.B) {
	a, err := New(Options{PATH: os.Getenv("PATH"), Dir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		a.Analyze(benchLines[i%len(benchLines)])
	}
}

// BenchmarkAnalyzeUncached is BenchmarkAnalyze with every PATH lookup
// done afresh (one stat per PATH entry up to the match).
func BenchmarkAnalyzeUncached(b *testing.B) {
	a, err := New(Options{PATH: os.Getenv("PATH"), Dir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	a.cache.ttl = 0
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		a.Analyze(benchLines[i%len(benchLines)])
	}
}

// BenchmarkParseOnly is the baseline: a bare parse of the same lines.
func BenchmarkParseOnly(b *testing.B) {
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := syntax.NewParser().Parse(strings.NewReader(benchLines[i%len(benchLines)]), ""); err != nil {
			b.Fatal(err)
		}
	}
}

// optionLines lean on the option tables: long and short options, values,
// clusters and the git subcommand tables.
var optionLines = []string{
	"sort -rn -k2,2 -t: --buffer-size=1M a.go b.go",
	"git log --oneline --graph --decorate -n 20 -- src",
	"grep -rn --include='*.go' -e TODO .",
	"LC_ALL=C ls -la --color=never --time-style=long-iso",
	"git diff --stat --name-only HEAD~3 HEAD",
	"uniq -c -f 2 a.txt | sort -rn | head -n 10",
	"date -u +%Y-%m-%dT%H:%M:%SZ",
	"find . -maxdepth 3 -type f -name '*.md' -newermt 2024-01-01",
	"sed -n -e '1,20p' -e '/^func /p' main.go",
	"git status --porcelain=v2 --branch --untracked-files=no",
}

// BenchmarkAnalyzeOptions analyses the option-heavy lines; ns/op is per
// line.
func BenchmarkAnalyzeOptions(b *testing.B) {
	a, err := New(Options{PATH: os.Getenv("PATH"), Dir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		a.Analyze(optionLines[i%len(optionLines)])
	}
}

// BenchmarkParseOptions is BenchmarkAnalyzeOptions's baseline: a bare
// parse of the same lines.
func BenchmarkParseOptions(b *testing.B) {
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := syntax.NewParser().Parse(strings.NewReader(optionLines[i%len(optionLines)]), ""); err != nil {
			b.Fatal(err)
		}
	}
}
