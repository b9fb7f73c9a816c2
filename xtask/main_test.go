package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/talonhq/talon/locales"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata")

// copyLocales copies the *.ftl files of src (laid out <lang>/*.ftl) into a
// fresh temporary directory and returns it.
func copyLocales(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	matches, err := filepath.Glob(filepath.Join(src, "*", "*.ftl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range matches {
		rel, _ := filepath.Rel(src, m)
		if strings.HasPrefix(rel, "testdata") {
			continue
		}
		data, err := os.ReadFile(m)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dst, rel), string(data))
	}
	return dst
}

func writeFile(t *testing.T, name, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

type result struct {
	code           int
	stdout, stderr string
}

func runXtask(args ...string) result {
	var stdout, stderr bytes.Buffer
	code := run(args, &stdout, &stderr)
	return result{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

func TestDispatch(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		code       int
		wantStdout string
		wantStderr string
	}{
		{name: "no arguments", args: nil, code: exitUsage, wantStderr: "usage: go run ./xtask"},
		{name: "help", args: []string{"help"}, code: exitOK, wantStdout: "fluent"},
		{name: "unknown command", args: []string{"frobnicate"}, code: exitUsage, wantStderr: `unknown command "frobnicate"`},
		{name: "fluent without subcommand", args: []string{"fluent"}, code: exitUsage, wantStderr: "subcommands:"},
		{name: "fluent help", args: []string{"fluent", "help"}, code: exitOK, wantStdout: "fill --locale L"},
		{name: "unknown fluent subcommand", args: []string{"fluent", "lint"}, code: exitUsage, wantStderr: `unknown subcommand "lint"`},
		{name: "unknown flag", args: []string{"fluent", "check", "-bogus"}, code: exitUsage, wantStderr: "-bogus"},
		{name: "flag help", args: []string{"fluent", "check", "-h"}, code: exitOK, wantStderr: "subcommands:"},
		{name: "extra argument", args: []string{"fluent", "stats", "ja"}, code: exitUsage, wantStderr: `unexpected argument "ja"`},
		{name: "locale flag only for fill", args: []string{"fluent", "check", "--locale", "ja"}, code: exitUsage, wantStderr: "-locale"},
		{name: "missing directory", args: []string{"fluent", "check", "-dir", "does-not-exist"}, code: exitFailed, wantStderr: "does-not-exist is not a directory"},
		{name: "fill without locale", args: []string{"fluent", "fill"}, code: exitUsage, wantStderr: "--locale ja"},
		{name: "fill en", args: []string{"fluent", "fill", "--locale", "en"}, code: exitUsage, wantStderr: "en is the reference"},
		{name: "fill bad locale", args: []string{"fluent", "fill", "--locale", "C"}, code: exitUsage, wantStderr: "not a language tag"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runXtask(tt.args...)
			if r.code != tt.code {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", r.code, tt.code, r.stdout, r.stderr)
			}
			if !strings.Contains(r.stdout, tt.wantStdout) {
				t.Errorf("stdout %q lacks %q", r.stdout, tt.wantStdout)
			}
			if !strings.Contains(r.stderr, tt.wantStderr) {
				t.Errorf("stderr %q lacks %q", r.stderr, tt.wantStderr)
			}
		})
	}
}

func TestFluentCheckShippedLocales(t *testing.T) {
	dir := copyLocales(t, filepath.Join("..", "locales"))
	r := runXtask("fluent", "check", "-dir", dir)
	if r.code != exitOK {
		t.Fatalf("check of the shipped locales: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if want := "fluent check: ok (en, ja)\n"; r.stdout != want {
		t.Errorf("stdout = %q, want %q", r.stdout, want)
	}
}

func TestFluentCheckGolden(t *testing.T) {
	r := runXtask("fluent", "check", "-dir", filepath.Join("testdata", "drift"))
	if r.code != exitFailed {
		t.Fatalf("exit %d, want %d\n%s", r.code, exitFailed, r.stderr)
	}
	golden := filepath.Join("testdata", "check.golden")
	if *update {
		writeFile(t, golden, r.stdout)
	}
	if want := readFile(t, golden); r.stdout != want {
		t.Errorf("check output differs from %s (rerun with -update if intended)\n got:\n%s\nwant:\n%s", golden, r.stdout, want)
	}
	if !strings.Contains(r.stderr, "4 problem(s)") {
		t.Errorf("stderr = %q", r.stderr)
	}
}

func TestFluentFillThenCheck(t *testing.T) {
	dir := copyLocales(t, filepath.Join("..", "locales"))
	jaFile := filepath.Join(dir, "ja", "tools.ftl")
	orig := readFile(t, jaFile)

	// Drop the calculator section from ja, the way a stale translation looks.
	var kept []string
	for line := range strings.SplitSeq(orig, "\n") {
		if !strings.HasPrefix(line, "tool-calculator") {
			kept = append(kept, line)
		}
	}
	stale := strings.Join(kept, "\n")
	stale = strings.TrimSuffix(stale, "\n") // no final newline: fill must add one
	writeFile(t, jaFile, stale)

	r := runXtask("fluent", "check", "-dir", dir)
	if r.code != exitFailed || !strings.Contains(r.stdout, "ja/tools.ftl: missing key tool-calculator (en/tools.ftl:") {
		t.Fatalf("check of stale ja: exit %d\n%s", r.code, r.stdout)
	}

	r = runXtask("fluent", "fill", "--locale", "ja", "-dir", dir)
	if r.code != exitOK {
		t.Fatalf("fill: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if want := "ja/tools.ftl: added 2 message(s) marked # untranslated\n"; r.stdout != want {
		t.Errorf("fill stdout = %q, want %q", r.stdout, want)
	}
	filled := readFile(t, jaFile)
	if !strings.HasPrefix(filled, stale) {
		t.Errorf("fill rewrote existing lines")
	}
	wantTail := "\n\n# untranslated\ntool-calculator = Evaluate an arithmetic"
	if !strings.Contains(filled[len(stale):], wantTail) {
		t.Errorf("appended text %q lacks %q", filled[len(stale):], wantTail)
	}

	if r := runXtask("fluent", "check", "-dir", dir); r.code != exitOK {
		t.Errorf("check after fill: exit %d\n%s", r.code, r.stdout)
	}
	r = runXtask("fluent", "stats", "-dir", dir)
	if r.code != exitOK {
		t.Fatalf("stats: exit %d\n%s", r.code, r.stderr)
	}
	n := englishKeys(t)
	wantStats := "locale  keys  translated  untranslated  missing\n" +
		fmt.Sprintf("en      %-4d  %-10d  0             0\n", n, n) +
		fmt.Sprintf("ja      %-4d  %-10d  2             0\n", n, n-2)
	if r.stdout != wantStats {
		t.Errorf("stats =\n%s\nwant\n%s", r.stdout, wantStats)
	}

	r = runXtask("fluent", "fill", "--locale", "ja", "-dir", dir)
	if r.code != exitOK || r.stdout != "ja: nothing to fill\n" {
		t.Errorf("second fill: exit %d, stdout %q", r.code, r.stdout)
	}
	if readFile(t, jaFile) != filled {
		t.Errorf("second fill changed the file")
	}
}

func TestFluentFillNewLocale(t *testing.T) {
	dir := copyLocales(t, filepath.Join("..", "locales"))
	r := runXtask("fluent", "fill", "--locale", "pt_BR", "-dir", dir)
	if r.code != exitOK {
		t.Fatalf("fill: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	created := readFile(t, filepath.Join(dir, "pt-BR", "tools.ftl"))
	if !strings.HasPrefix(created, "### Filled from en/tools.ftl.") {
		t.Errorf("new file starts %q", created[:min(80, len(created))])
	}
	keys := englishKeys(t)
	all, err := filepath.Glob(filepath.Join(dir, "pt-BR", "*.ftl"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range all {
		n += strings.Count(readFile(t, f), "# untranslated\n")
	}
	if n != keys {
		t.Errorf("new files have %d untranslated markers, want %d (one per message)", n, keys)
	}
	if r := runXtask("fluent", "check", "-dir", dir); r.code != exitOK {
		t.Errorf("check after fill: exit %d\n%s", r.code, r.stdout)
	}
	r = runXtask("fluent", "stats", "-dir", dir)
	if !strings.Contains(r.stdout, fmt.Sprintf("pt-BR   %-4d  0           %-12d  0\n", keys, keys)) {
		t.Errorf("stats:\n%s", r.stdout)
	}
}

func TestFluentFillPartialMessage(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "en", "tools.ftl"), "tool-a = A\n    .hint = H\ntool-b = B\n")
	writeFile(t, filepath.Join(dir, "ja", "tools.ftl"), "tool-a = あ\n")
	r := runXtask("fluent", "fill", "--locale", "ja", "-dir", dir)
	if r.code != exitFailed {
		t.Errorf("exit %d, want %d", r.code, exitFailed)
	}
	if !strings.Contains(r.stderr, "ja/tools.ftl: tool-a exists but lacks tool-a.hint; add it to the message by hand") {
		t.Errorf("stderr = %q", r.stderr)
	}
	if got := readFile(t, filepath.Join(dir, "ja", "tools.ftl")); got != "tool-a = あ\n\n# untranslated\ntool-b = B\n" {
		t.Errorf("ja file = %q", got)
	}
}

func TestFluentBrokenFiles(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "en", "tools.ftl"), "tool-a = A\n")
	writeFile(t, filepath.Join(dir, "ja", "tools.ftl"), "tool-a = {\n")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{name: "check", args: []string{"fluent", "check", "-dir", dir}, want: "ja/tools.ftl:1: unclosed"},
		{name: "fill", args: []string{"fluent", "fill", "-locale", "ja", "-dir", dir}, want: "ja/tools.ftl:1: unclosed"},
		{name: "stats", args: []string{"fluent", "stats", "-dir", dir}, want: "ja/tools.ftl:1: unclosed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runXtask(tt.args...)
			if r.code != exitFailed {
				t.Errorf("exit %d, want %d", r.code, exitFailed)
			}
			if !strings.Contains(r.stdout+r.stderr, tt.want) {
				t.Errorf("output lacks %q:\n%s%s", tt.want, r.stdout, r.stderr)
			}
		})
	}
	empty := t.TempDir()
	writeFile(t, filepath.Join(empty, "ja", "tools.ftl"), "tool-a = あ\n")
	if r := runXtask("fluent", "fill", "-locale", "ja", "-dir", empty); r.code != exitFailed || !strings.Contains(r.stderr, "no English messages") {
		t.Errorf("fill without en: exit %d, stderr %q", r.code, r.stderr)
	}
}

// englishKeys counts the messages of the shipped English files.
func englishKeys(t *testing.T) int {
	t.Helper()
	files, err := locales.ReadLocale(os.DirFS(filepath.Join("..", "locales")), "en")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		n += len(f.Resource.Entries())
	}
	return n
}
