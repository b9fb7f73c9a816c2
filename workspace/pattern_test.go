package workspace_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/talonhq/talon/workspace"
)

func TestCompilePattern(t *testing.T) {
	ws, home := "/w/proj", "/h"
	tests := []struct {
		pattern string
		match   []string
		miss    []string
		wantErr string
	}{
		{pattern: "secrets/**", match: []string{"/w/proj/secrets", "/w/proj/secrets/a", "/w/proj/secrets/a/b.txt"}, miss: []string{"/w/proj/secretsx", "/w/proj/a/secrets/x", "/secrets/a"}},
		{pattern: "secrets", match: []string{"/w/proj/secrets", "/w/proj/secrets/deep/x"}, miss: []string{"/w/proj/secrets2"}},
		{pattern: "./secrets/", match: []string{"/w/proj/secrets/x"}},
		{pattern: "*.pem", match: []string{"/w/proj/a.pem", "/w/proj/a.pem/inside"}, miss: []string{"/w/proj/sub/a.pem"}},
		{pattern: "**/*.pem", match: []string{"/w/proj/a.pem", "/w/proj/sub/deep/b.pem"}, miss: []string{"/w/other/a.pem", "/w/proj/a.pem.txt"}},
		{pattern: "/etc/shadow", match: []string{"/etc/shadow"}, miss: []string{"/etc/shadow-", "/w/proj/etc/shadow"}},
		{pattern: "/var/**/*.key", match: []string{"/var/a/b.key"}, miss: []string{"/w/proj/var/a.key"}},
		{pattern: "~/.kube", match: []string{"/h/.kube/config"}, miss: []string{"/w/proj/.kube"}},
		{pattern: "~", match: []string{"/h/anything"}},
		{pattern: "../shared/secret", match: []string{"/w/shared/secret"}},
		{pattern: "{a,b}/*.txt", match: []string{"/w/proj/a/x.txt", "/w/proj/b/y.txt"}, miss: []string{"/w/proj/c/x.txt"}},
		{pattern: "", wantErr: "is empty"},
		{pattern: "a\x00b", wantErr: "NUL"},
		{pattern: "[abc", wantErr: "does not compile"},
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			p, err := workspace.CompilePattern(tt.pattern, filepath.FromSlash(ws), filepath.FromSlash(home))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.Text != tt.pattern {
				t.Errorf("Text = %q", p.Text)
			}
			for _, m := range tt.match {
				if !p.Match(filepath.FromSlash(m)) {
					t.Errorf("%q does not match %s", tt.pattern, m)
				}
			}
			for _, m := range tt.miss {
				if p.Match(filepath.FromSlash(m)) {
					t.Errorf("%q matches %s", tt.pattern, m)
				}
			}
		})
	}
	if _, err := workspace.CompilePattern("rel/x", "", "/h"); err == nil {
		t.Error("a relative pattern without a workspace compiled")
	}
}

// FuzzPattern checks that compiling and matching never panic, and that a
// pattern without glob syntax forbids the path it names and what lies
// below it.
func FuzzPattern(f *testing.F) {
	for _, s := range []string{"secrets/**", "*.pem", "~/.ssh", "/etc", "../x", "{a,b}", "[a-", "\\", "a//b/../c", "**", "/", "~user/x"} {
		f.Add(s, "/w/proj/secrets/a")
	}
	f.Fuzz(func(t *testing.T, pattern, path string) {
		p, err := workspace.CompilePattern(pattern, "/w/proj", "/h")
		if err != nil {
			return
		}
		if filepath.IsAbs(path) {
			_ = p.Match(filepath.Clean(path))
		}
		if strings.ContainsAny(pattern, "*?[{\\") {
			return
		}
		abs, err := workspace.AnchorPattern(pattern, "/w/proj", "/h")
		if err != nil {
			t.Fatalf("AnchorPattern failed after CompilePattern succeeded: %v", err)
		}
		if !p.Match(abs) || !p.Match(filepath.Join(abs, "below")) {
			t.Fatalf("%q does not match its own path %s", pattern, abs)
		}
	})
}

// TestPatternThroughLink: a pattern written with a link in its leading
// directories (a home directory that is a link, ~/ or absolute) matches
// the real paths tools report. Before, it matched only paths given
// through the link, and file tools, which see real paths, ignored it.
func TestPatternThroughLink(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	real := filepath.Join(base, "real-home")
	mkdir(t, real, "proj", "secrets")
	write(t, filepath.Join(real, "proj", "secrets", "db.txt"), "PASSWORD\n")
	write(t, filepath.Join(real, "proj", "a.pem"), "KEY\n")
	write(t, filepath.Join(real, "proj", "ok.txt"), "ok\n")
	symlink(t, "real-home", filepath.Join(base, "home"))
	home := filepath.Join(base, "home")
	root, err := workspace.Open(filepath.Join(real, "proj"), workspace.Options{Home: home, Forbidden: []string{
		"~/proj/secrets",
		filepath.Join(home, "proj", "*.pem"),
	}})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"secrets/db.txt", "a.pem", filepath.Join(home, "proj", "a.pem")} {
		if f, err := root.Open(p); !errors.Is(err, workspace.ErrForbidden) {
			closeIf(f)
			t.Errorf("Open(%q) = %v, want forbidden", p, err)
		}
	}
	f, err := root.Open("ok.txt")
	if err != nil {
		t.Fatal(err)
	}
	closeIf(f)
}
