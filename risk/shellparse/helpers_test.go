//go:build unix

package shellparse

import (
	"os"
	"path/filepath"
	"testing"
)

// fakeBins are the commands the test PATH provides.
var fakeBins = []string{
	"ls", "wc", "rm", "curl", "git", "cat", "grep", "find", "echo", "pwd", "head", "tail",
	"date", "df", "du", "uname", "uptime", "hostname", "sort", "uniq", "cut", "tr", "diff",
	"stat", "file", "which", "mkdir", "touch", "mv", "cp", "ln", "sed", "awk", "gawk", "xargs",
	"python", "python3", "node", "perl", "ruby", "php", "lua", "osascript", "make", "npm",
	"pnpm", "yarn", "cargo", "sudo", "chmod", "dd", "tee", "rg", "[", "true", "false",
	"bash", "sh", "zsh", "dash", "jq", "whoami", "setsid", "talon",
	"seq", "printf", "id", "nproc", "printenv", "sha256sum", "sha1sum", "md5sum", "cksum", "cmp",
	"comm", "nl", "rev", "test", "basename", "dirname", "realpath", "readlink", "egrep", "fgrep",
}

// testEnv is a hermetic layout: root/bin holds fake executables and is
// the PATH; root/work is the working directory with a.go, b.go, an
// executable ./rg and ./ls, and a sub directory.
type testEnv struct {
	root, bin, work, home string
}

func newTestEnv(tb testing.TB) testEnv {
	tb.Helper()
	root := tb.TempDir()
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	e := testEnv{root: root, bin: filepath.Join(root, "bin"), work: filepath.Join(root, "work"), home: "/home/tester"}
	for _, d := range []string{e.bin, e.work, filepath.Join(e.work, "sub")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			tb.Fatal(err)
		}
	}
	for _, n := range fakeBins {
		writeExec(tb, filepath.Join(e.bin, n))
	}
	for _, n := range []string{"a.go", "b.go"} {
		if err := os.WriteFile(filepath.Join(e.work, n), []byte("package x\n"), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	writeExec(tb, filepath.Join(e.work, "rg"))
	writeExec(tb, filepath.Join(e.work, "ls"))
	return e
}

func writeExec(tb testing.TB, path string) {
	tb.Helper()
	if err := os.WriteFile(path, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		tb.Fatal(err)
	}
}

func (e testEnv) analyzer(tb testing.TB, allowed []string) *Analyzer {
	tb.Helper()
	a, err := New(Options{AllowedCommands: allowed, PATH: e.bin, Dir: e.work, Home: e.home, SafeBinTrustedDirs: []string{e.bin}})
	if err != nil {
		tb.Fatal(err)
	}
	return a
}
