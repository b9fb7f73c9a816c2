package wasm

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/talonhq/talon/plugins"
	"github.com/talonhq/talon/plugins/manifest"
	"github.com/talonhq/talon/tool"
	"github.com/talonhq/talon/workspace/workspacetest"
)

// fsPlugin is a plugin granted dirs for reading and writing, with the
// protected paths of tree, for calling the file host functions directly.
func fsPlugin(tree *workspacetest.Tree, ws string, dirs ...string) *callState {
	return &callState{p: &plugin{
		name:      "probe",
		workspace: ws,
		grants:    manifest.Grants{FSRead: dirs, FSWrite: dirs},
		protected: tree.Protected,
	}}
}

func fsReq(path string, data string) []byte {
	b, _ := json.Marshal(map[string]any{"path": path, "data": []byte(data)})
	return b
}

// TestFSHostRefusesProtected: fs_read, fs_write and fs_list refuse every
// place talon protects, even in a granted directory: inside the
// workspace, in a granted directory outside it, and through a link out of
// a granted directory, each refusal naming the rule's reason; fs_list
// leaves such places out of a listing. Before, a plugin granted the
// workspace or the home directory read the operator's keys and talon's
// signing key and rewrote talon's config.
func TestFSHostRefusesProtected(t *testing.T) {
	tree := workspacetest.NewTree(t)
	ctx := context.Background()
	ways := []struct {
		name string
		st   *callState
		path func(workspacetest.Case) string
	}{
		{"inside", fsPlugin(tree, tree.Home, tree.Home), func(c workspacetest.Case) string { return c.Rel }},
		{"granted outside the workspace", fsPlugin(tree, tree.Proj, tree.Home), func(c workspacetest.Case) string {
			return filepath.Join(tree.Home, filepath.FromSlash(c.Rel))
		}},
		{"through a link", fsPlugin(tree, tree.Proj, tree.Proj), func(c workspacetest.Case) string { return c.Link }},
	}
	for _, way := range ways {
		for _, c := range tree.Cases {
			p := way.path(c)
			ops := map[string]func() (any, error){
				"fs_write": func() (any, error) { return way.st.fsWrite(ctx, fsReq(p, "x")) },
			}
			if !c.ReadOnly {
				ops["fs_read"] = func() (any, error) { return way.st.fsRead(ctx, fsReq(p, "")) }
				ops["fs_list"] = func() (any, error) { return way.st.fsList(ctx, fsReq(p, "")) }
			}
			for name, op := range ops {
				t.Run(way.name+"/"+name+"/"+c.Rel, func(t *testing.T) {
					out, err := op()
					if err == nil {
						t.Fatalf("succeeded: %v", out)
					}
					if !strings.Contains(err.Error(), c.Why) {
						t.Errorf("error %q does not name the rule (%q)", err, c.Why)
					}
					if strings.Contains(err.Error(), workspacetest.Secret) {
						t.Errorf("the error shows the content: %v", err)
					}
				})
			}
		}
	}
	listed := func(t *testing.T, st *callState, dir string) map[string]bool {
		t.Helper()
		out, err := st.fsList(ctx, fsReq(dir, ""))
		if err != nil {
			t.Fatal(err)
		}
		names := map[string]bool{}
		for _, e := range out.(map[string][]fsEntry)["entries"] {
			names[e.Name] = true
		}
		return names
	}
	home := listed(t, ways[0].st, ".")
	for _, hidden := range []string{".ssh", ".aws", ".netrc", ".git-credentials", "plugins", "receipts"} {
		if home[hidden] {
			t.Errorf("fs_list of the home directory shows %s", hidden)
		}
	}
	if !home["notes.txt"] || !home["proj"] {
		t.Errorf("fs_list of the home directory lacks ordinary entries: %v", home)
	}
	proj := listed(t, ways[2].st, ".")
	for _, c := range tree.Cases {
		if !c.ReadOnly && proj[c.Link] {
			t.Errorf("fs_list shows %s, a link to %s", c.Link, c.Rel)
		}
	}
	if !proj["ok.txt"] {
		t.Errorf("fs_list of the project lacks ok.txt: %v", proj)
	}
	// Reading a repository's config is allowed; nothing changed.
	if out, err := ways[0].st.fsRead(ctx, fsReq(".git/config", "")); err != nil || !strings.Contains(string(out.(map[string][]byte)["data"]), workspacetest.Secret) {
		t.Errorf("fs_read .git/config: %v", err)
	}
	for _, c := range tree.Cases {
		b, err := os.ReadFile(filepath.Join(tree.Home, filepath.FromSlash(c.Rel)))
		if err != nil || string(b) != workspacetest.Secret+" "+c.Rel+"\n" {
			t.Errorf("%s changed: %q, %v", c.Rel, b, err)
		}
	}
}

// TestFSHostProtectedFromLoad: a plugin loaded without a list in its Env
// still refuses talon's data directory.
func TestFSHostProtectedFromLoad(t *testing.T) {
	data := t.TempDir()
	prot := protectedFor(plugins.Env{DataDir: data})
	if err := prot.Refuse("k", filepath.Join(data, "keys", "receipts.key"), false); err == nil {
		t.Fatal("the data directory is not protected")
	}
}

// TestFSHostForbiddenPaths: under a profile with forbidden_paths, a
// plugin tool's file host functions refuse the matching paths, relative
// patterns taken from the workspace, and fs_list leaves them out. Before,
// plugin tools ignored forbidden_paths.
func TestFSHostForbiddenPaths(t *testing.T) {
	tree := workspacetest.NewTree(t)
	ctx := context.Background()
	st := fsPlugin(tree, tree.Proj, tree.Proj)
	st.p.attr = tool.Attribution{Kind: tool.KindWASM, Alias: "probe"}
	workspacetest.Write(t, filepath.Join(tree.Proj, "secrets", "db.txt"), "PASSWORD\n")
	workspacetest.Write(t, filepath.Join(tree.Proj, "keys", "a.pem"), "KEY\n")
	v, err := (&wasmTool{p: st.p}).ForProfile(tool.ProfileSettings{Name: "p", ForbiddenPaths: []string{"secrets/**", "**/*.pem"}})
	if err != nil {
		t.Fatal(err)
	}
	pt, ok := v.(*profiledWasmTool)
	if !ok {
		t.Fatalf("ForProfile returned %T", v)
	}
	pctx := pt.withForbidden(ctx)
	for _, tt := range []struct {
		op   func(context.Context) (any, error)
		want string
	}{
		{func(c context.Context) (any, error) { return st.fsRead(c, fsReq("secrets/db.txt", "")) }, `secrets/db.txt is a forbidden path (pattern "secrets/**")`},
		{func(c context.Context) (any, error) {
			return st.fsRead(c, fsReq(filepath.Join(tree.Proj, "keys", "a.pem"), ""))
		}, `pattern "**/*.pem"`},
		{func(c context.Context) (any, error) { return st.fsWrite(c, fsReq("secrets/new.txt", "x")) }, "is a forbidden path"},
		{func(c context.Context) (any, error) { return st.fsList(c, fsReq("secrets", "")) }, "is a forbidden path"},
	} {
		if _, err := tt.op(pctx); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("under the profile: %v, want %q", err, tt.want)
		}
		if _, err := tt.op(ctx); err != nil {
			t.Errorf("without the profile: %v", err)
		}
	}
	out, err := st.fsList(pctx, fsReq(".", ""))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range out.(map[string][]fsEntry)["entries"] {
		if e.Name == "secrets" {
			t.Error("fs_list shows secrets")
		}
	}
	if same, err := (&wasmTool{p: st.p}).ForProfile(tool.ProfileSettings{Name: "q"}); err != nil || same.(*wasmTool) == nil {
		t.Errorf("ForProfile without patterns = %T, %v", same, err)
	}
}
