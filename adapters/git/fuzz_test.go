package git

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/talonhq/talon/workspace"
)

// FuzzCheckArgs checks that any arguments either fail with one of the
// package's errors or become a call whose argument vector cannot carry an
// option in a value's place, a path outside the workspace, or a URL.
func FuzzCheckArgs(f *testing.F) {
	for _, s := range []string{
		`{"operation":"status"}`, `{"operation":"diff","ref":"HEAD~1","staged":true,"paths":["a.go"]}`,
		`{"operation":"log","max_count":5,"ref":"main","paths":["docs"]}`, `{"operation":"show","ref":"v1.0:README.md"}`,
		`{"operation":"branch","create":true,"branch":"fix/x","ref":"HEAD"}`, `{"operation":"add","paths":["."]}`,
		`{"operation":"commit","message":"-m --amend","paths":["a"]}`, `{"operation":"checkout","ref":"-b"}`,
		`{"operation":"checkout","create":true,"branch":"x"}`, `{"operation":"switch","branch":"--orphan"}`,
		`{"operation":"stash","stash_action":"push","message":"m","paths":["../x"]}`,
		`{"operation":"stash","stash_action":"pop","ref":"stash@{1}"}`, `{"operation":"restore","paths":["/etc/passwd"],"ref":"ext::sh"}`,
		`{"operation":"restore","paths":["a/../../b"],"staged":true}`, `{"operation":"push"}`, `null`, `[]`, `{"operation":1}`,
	} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	root, err := workspace.New(dir)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		r, err := decode(json.RawMessage(raw))
		if err != nil {
			if !errors.Is(err, ErrInvalidArguments) {
				t.Fatalf("decode error %v does not wrap ErrInvalidArguments", err)
			}
			return
		}
		c, err := check(root, r)
		if err != nil {
			if !errors.Is(err, ErrInvalidArguments) && !errors.Is(err, ErrRefused) {
				t.Fatalf("check error %v wraps neither sentinel", err)
			}
			return
		}
		args := c.args()
		for _, v := range []string{c.ref, c.branch} {
			if strings.HasPrefix(v, "-") || strings.Contains(v, "::") {
				t.Fatalf("accepted %q", v)
			}
		}
		for _, p := range c.paths {
			if !root.Contains(filepath.Join(root.Dir(), filepath.FromSlash(p))) {
				t.Fatalf("accepted path %q outside the workspace", p)
			}
		}
		if len(c.paths) > 0 {
			dash := slices.Index(args, "--")
			if dash < 0 || !slices.Equal(args[dash+1:], c.paths) {
				t.Fatalf("paths are not after --: %q", args)
			}
		}
		if c.tier() == 0 {
			t.Fatal("no tier")
		}
	})
}
