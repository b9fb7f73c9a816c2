package git

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/talonhq/talon/workspace"
)

func TestRefPath(t *testing.T) {
	for _, tc := range []struct {
		ref, want string
		ok        bool
	}{
		{"HEAD:a.txt", "a.txt", true},
		{"HEAD~1:dir/x.go", "dir/x.go", true},
		{":a.txt", "a.txt", true},
		{":2:a.txt", "a.txt", true},
		{"HEAD:", "", true},
		{"HEAD:./a.txt", "a.txt", true},
		{"HEAD:../../etc/passwd", "etc/passwd", true},
		{"HEAD^{/fix: login}:a.txt", "a.txt", true},
		{"HEAD^{/fix: login}", "", false},
		{":/fix: login", "", false},
		{"main", "", false},
		{"stash@{1}", "", false},
		{"", "", false},
	} {
		got, ok := refPath(tc.ref)
		if got != tc.want || ok != tc.ok {
			t.Errorf("refPath(%q) = %q, %v; want %q, %v", tc.ref, got, ok, tc.want, tc.ok)
		}
	}
}

// TestAssessReportsThePathsItReads checks that policy sees the files a
// call reads: the paths after "--" and the file of a REV:PATH revision,
// whose content git show prints.
func TestAssessReportsThePathsItReads(t *testing.T) {
	dir := newRepo(t)
	op := newTool(t, dir, Options{})
	for _, tc := range []struct {
		args string
		want []string
	}{
		{`{"operation":"show","ref":"HEAD:a.txt"}`, []string{"a.txt"}},
		{`{"operation":"show","ref":"HEAD~1:b.txt","paths":["a.txt"]}`, []string{"a.txt", "b.txt"}},
		{`{"operation":"show","ref":":a.txt"}`, []string{"a.txt"}},
		{`{"operation":"diff","paths":["b.txt"]}`, []string{"b.txt"}},
		{`{"operation":"show","ref":"HEAD"}`, []string{"."}},
	} {
		as, err := op.Assess(json.RawMessage(tc.args))
		if err != nil {
			t.Fatalf("Assess(%s): %v", tc.args, err)
		}
		var want []string
		for _, p := range tc.want {
			want = append(want, filepath.Join(dir, p))
		}
		if !slices.Equal(as.Paths, want) {
			t.Errorf("Assess(%s).Paths = %q, want %q", tc.args, as.Paths, want)
		}
	}
}

// TestProtectedAndForbiddenPaths checks that git_operations refuses, like
// the file tools, a path its workspace protects or forbids, named after
// "--" or in a REV:PATH revision.
func TestProtectedAndForbiddenPaths(t *testing.T) {
	dir := newRepo(t)
	root, err := workspace.Open(dir, workspace.Options{Forbidden: []string{"b.txt"}})
	if err != nil {
		t.Fatal(err)
	}
	op := New(root, Options{})
	for _, args := range []string{
		`{"operation":"show","ref":"HEAD:b.txt"}`,
		`{"operation":"show","ref":"HEAD:./b.txt"}`,
		`{"operation":"diff","paths":["b.txt"]}`,
		`{"operation":"log","paths":["b.txt"]}`,
		`{"operation":"restore","paths":["b.txt"]}`,
	} {
		as, err := op.Assess(json.RawMessage(args))
		if err != nil {
			t.Fatalf("Assess(%s): %v", args, err)
		}
		if !as.Denied || !strings.Contains(strings.Join(as.Reasons, " "), "b.txt") {
			t.Errorf("Assess(%s) = %+v, want denied naming b.txt", args, as)
		}
		res := run(t, op, args)
		if res.Success {
			t.Errorf("Execute(%s) ran: %+v", args, res)
		}
	}
	if as, err := op.Assess(json.RawMessage(`{"operation":"show","ref":"HEAD:a.txt"}`)); err != nil || as.Denied {
		t.Errorf("a path that is not forbidden is refused: %+v %v", as, err)
	}
}
