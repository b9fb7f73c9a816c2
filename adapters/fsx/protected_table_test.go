package fsx_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/talonhq/talon/adapters/patch" // registers apply_patch
	"github.com/talonhq/talon/tool"
	"github.com/talonhq/talon/toolfactory"
	"github.com/talonhq/talon/workspace/workspacetest"
)

// TestEveryToolRefusesEveryProtectedPath: file_read, content_search,
// glob_search, file_write, file_edit and apply_patch refuse every place
// talon protects, reached three ways: inside the workspace (the home
// directory as workspace), outside it by absolute path, and outside it
// through a link in the workspace. Each refusal names the rule's reason;
// listings and searches of the whole workspace leave the places out. A
// repository's config and hooks may be read but never changed. Before
// protected paths, every read inside the workspace returned the secret,
// and the refusals outside said only "outside the workspace".
func TestEveryToolRefusesEveryProtectedPath(t *testing.T) {
	tree := workspacetest.NewTree(t)
	build := func(t *testing.T, ws, name string) tool.Tool {
		t.Helper()
		fac, ok := toolfactory.Get(name)
		if !ok {
			t.Fatalf("%s is not registered", name)
		}
		tl, err := fac.New(toolfactory.Env{Workspace: ws, DataDir: tree.Data, Protected: tree.Protected})
		if err != nil {
			t.Fatal(err)
		}
		return tl
	}
	ways := []struct {
		name string
		ws   string
		path func(workspacetest.Case) string
		// patchable: apply_patch takes only relative names without ..
		patchable bool
	}{
		{"inside", tree.Home, func(c workspacetest.Case) string { return c.Rel }, true},
		{"outside", tree.Proj, func(c workspacetest.Case) string { return filepath.Join(tree.Home, filepath.FromSlash(c.Rel)) }, false},
		{"through a link", tree.Proj, func(c workspacetest.Case) string { return c.Link }, true},
	}
	for _, way := range ways {
		tools := map[string]tool.Tool{}
		for _, n := range []string{"file_read", "content_search", "glob_search", "file_write", "file_edit", "apply_patch"} {
			tools[n] = build(t, way.ws, n)
		}
		for _, c := range tree.Cases {
			p := way.path(c)
			type op struct {
				tool string
				args any
			}
			ops := []op{
				{"file_write", map[string]any{"path": p, "content": "x"}},
				{"file_edit", map[string]any{"path": p, "old_string": workspacetest.Secret, "new_string": "x"}},
			}
			if way.patchable {
				diff := fmt.Sprintf("--- a/%s\n+++ b/%s\n@@ -1 +1 @@\n-%s %s\n+x\n", p, p, workspacetest.Secret, c.Rel)
				ops = append(ops, op{"apply_patch", map[string]any{"patch": diff}})
			}
			if !c.ReadOnly {
				ops = append(ops,
					op{"file_read", map[string]any{"path": p}},
					op{"content_search", map[string]any{"pattern": "PROTECTED", "path": p}},
					op{"glob_search", map[string]any{"pattern": "**", "path": p}},
				)
			}
			for _, o := range ops {
				raw, _ := json.Marshal(o.args)
				t.Run(way.name+"/"+o.tool+"/"+c.Rel, func(t *testing.T) {
					res := call(t, tools[o.tool], string(raw))
					text := res.Output.Text + res.Error
					if res.Success {
						t.Fatalf("succeeded: %s", text)
					}
					if strings.Contains(text, workspacetest.Secret) {
						t.Errorf("the failure shows the content: %s", text)
					}
					why := c.Why
					if o.tool == "apply_patch" && way.name == "inside" && strings.HasPrefix(c.Rel, ".git/") {
						why = "is inside .git" // refused by name before any rule
					}
					if !strings.Contains(res.Error, why) {
						t.Errorf("failure %q does not name the rule (%q)", res.Error, why)
					}
				})
			}
		}
		// Whole-workspace listings and searches leave every place out.
		t.Run(way.name+"/listings", func(t *testing.T) {
			res := call(t, tools["content_search"], `{"pattern":"PROTECTED"}`)
			if !res.Success || !strings.Contains(res.Output.Text, "left out: protected or forbidden by policy") {
				t.Errorf("content_search: %s %s", res.Output.Text, res.Error)
			}
			for _, c := range tree.Cases {
				if !c.ReadOnly && strings.Contains(res.Output.Text, workspacetest.Secret+" "+c.Rel) {
					t.Errorf("content_search shows %s:\n%s", c.Rel, res.Output.Text)
				}
			}
			res = call(t, tools["glob_search"], `{"pattern":"**"}`)
			if !res.Success {
				t.Fatalf("glob_search: %s", res.Error)
			}
			for _, c := range tree.Cases {
				if c.ReadOnly {
					continue
				}
				for _, name := range []string{c.Rel, c.Link} {
					if strings.Contains(res.Output.Text+"\n", name+"\n") {
						t.Errorf("glob_search lists %s:\n%s", name, res.Output.Text)
					}
				}
			}
		})
	}
	// Reading a repository's config is allowed; nothing changed.
	res := call(t, build(t, tree.Home, "file_read"), `{"path":".git/config"}`)
	if !res.Success || !strings.Contains(res.Output.Text, workspacetest.Secret) {
		t.Errorf("file_read .git/config: %s %s", res.Output.Text, res.Error)
	}
	for _, c := range tree.Cases {
		b, err := os.ReadFile(filepath.Join(tree.Home, filepath.FromSlash(c.Rel)))
		if err != nil || string(b) != workspacetest.Secret+" "+c.Rel+"\n" {
			t.Errorf("%s changed: %q, %v", c.Rel, b, err)
		}
	}
}
