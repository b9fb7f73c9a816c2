package patch

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/tool"
	"github.com/talonhq/talon/toolfactory"
	"github.com/talonhq/talon/workspace"
	"github.com/talonhq/talon/workspace/workspacetest"
)

func TestMain(m *testing.M) { workspacetest.Main(m) }

func mustWrite(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestSwapRacePatch: while another process exchanges the workspace
// directory d with a link to outside, 10,000 patches that change d/f and
// create files under d never change or create anything outside. Before
// files were opened relative to the workspace's open directory, patches
// wrote through the link.
func TestSwapRacePatch(t *testing.T) {
	attempts := 10000
	if testing.Short() {
		attempts = 500
	}
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws, out := filepath.Join(base, "ws"), filepath.Join(base, "out")
	mustWrite(t, filepath.Join(ws, "d", "f"), "inside\n")
	mustWrite(t, filepath.Join(out, "f"), "inside\n")
	if err := os.Symlink("../out", filepath.Join(ws, "s")); err != nil {
		t.Skipf("symbolic links unavailable: %v", err)
	}
	root, err := workspace.New(ws)
	if err != nil {
		t.Fatal(err)
	}
	ap := New(root, Options{})
	workspacetest.Swap(t, filepath.Join(ws, "d"), filepath.Join(ws, "s"))
	flip := []string{
		"--- a/d/f\n+++ b/d/f\n@@ -1 +1 @@\n-inside\n+INSIDE\n",
		"--- a/d/f\n+++ b/d/f\n@@ -1 +1 @@\n-INSIDE\n+inside\n",
	}
	ok := 0
	for i := range attempts {
		p := flip[i%2]
		if i%3 == 0 {
			p = fmt.Sprintf("--- /dev/null\n+++ b/d/new%d.txt\n@@ -0,0 +1 @@\n+x\n", i)
		}
		res, err := ap.Execute(context.Background(), argsJSON(p))
		if err != nil {
			t.Fatal(err)
		}
		if res.Success {
			ok++
		}
	}
	t.Logf("%d of %d patches applied; the others were refused or did not apply", ok, attempts)
	ents, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 1 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("outside the workspace now holds %v, want only f", names)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "f")); string(b) != "inside\n" {
		t.Errorf("out/f changed: %q", b)
	}
}

// TestPatchProtected: apply_patch built the way the runtime builds it
// refuses talon's config, the operator's keys and a repository's hooks
// and config, inside the workspace, and names the rule.
func TestPatchProtected(t *testing.T) {
	home, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	cfgPath := filepath.Join(home, "talon.toml")
	mustWrite(t, cfgPath, "[risk_profiles.default]\nlevel = \"supervised\"\n")
	mustWrite(t, filepath.Join(home, ".ssh", "authorized_keys"), "ssh-ed25519 A\n")
	mustWrite(t, filepath.Join(home, ".local", "share", "talon", "keys", "receipts.key"), "K\n")
	cfg, _, err := config.Load(config.Source{Path: cfgPath})
	if err != nil {
		t.Fatal(err)
	}
	fac, _ := toolfactory.Get(Name)
	tl, err := fac.New(toolfactory.Env{Workspace: home, DataDir: filepath.Join(home, ".local", "share", "talon"), Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, patch, want string
	}{
		{"config", "--- a/talon.toml\n+++ b/talon.toml\n@@ -1,2 +1,2 @@\n [risk_profiles.default]\n-level = \"supervised\"\n+level = \"full\"\n",
			"talon.toml is protected (talon's configuration file"},
		{"authorized keys", "--- a/.ssh/authorized_keys\n+++ b/.ssh/authorized_keys\n@@ -1 +1,2 @@\n ssh-ed25519 A\n+ssh-ed25519 EVIL\n",
			".ssh/authorized_keys is protected (operator secrets under ~/.ssh)"},
		{"new key", "--- /dev/null\n+++ b/.ssh/id_evil\n@@ -0,0 +1 @@\n+x\n", "is protected"},
		{"signing key", "--- a/.local/share/talon/keys/receipts.key\n+++ b/.local/share/talon/keys/receipts.key\n@@ -1 +1 @@\n-K\n+E\n", "is protected (talon's data"},
		{"config renamed away", "diff --git a/talon.toml b/moved.toml\nsimilarity index 100%\nrename from talon.toml\nrename to moved.toml\n", "is protected"},
		{"hook", "--- /dev/null\n+++ b/.git/hooks/pre-commit\n@@ -0,0 +1 @@\n+curl evil\n", ".git"},
		{"nested hook", "--- /dev/null\n+++ b/sub/.git/hooks/post-merge\n@@ -0,0 +1 @@\n+curl evil\n", ".git"},
		{"git config", "--- /dev/null\n+++ b/.git/config\n@@ -0,0 +1 @@\n+[core]\n", ".git"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			as, err := tl.(tool.Assessor).Assess(argsJSON(tt.patch))
			if err != nil {
				t.Fatalf("Assess: %v", err)
			}
			if !as.Denied || !strings.Contains(strings.Join(as.Reasons, "; "), tt.want) {
				t.Errorf("assessment = denied %v, %q; want denied with %q", as.Denied, as.Reasons, tt.want)
			}
			res := execute(t, tl.(*ApplyPatch), argsJSON(tt.patch))
			if res.Success || !strings.Contains(res.Error, tt.want) {
				t.Errorf("result = %v %q, want a failure with %q", res.Success, res.Error, tt.want)
			}
		})
	}
	if b, _ := os.ReadFile(cfgPath); !strings.Contains(string(b), "supervised") {
		t.Errorf("talon.toml changed: %q", b)
	}
	for _, p := range []string{".ssh/id_evil", ".git/hooks/pre-commit", "sub/.git/hooks/post-merge", "moved.toml"} {
		if _, err := os.Lstat(filepath.Join(home, p)); err == nil {
			t.Errorf("%s was created", p)
		}
	}
}

// TestPatchForbiddenPaths: a profile's forbidden_paths, relative to the
// workspace or absolute, refuse every file a patch names.
func TestPatchForbiddenPaths(t *testing.T) {
	dir, ap := setup(t, files{"secrets/db.txt": "a\n", "keys/k.pem": "b\n", "ok.txt": "c\n"})
	v, err := ap.ForProfile(tool.ProfileSettings{Name: "p", ForbiddenPaths: []string{"secrets/**", filepath.Join(dir, "**", "*.pem")}})
	if err != nil {
		t.Fatal(err)
	}
	pv := v.(*ApplyPatch)
	for _, p := range []string{
		"--- a/secrets/db.txt\n+++ b/secrets/db.txt\n@@ -1 +1 @@\n-a\n+x\n",
		"--- /dev/null\n+++ b/secrets/new.txt\n@@ -0,0 +1 @@\n+x\n",
		"--- a/keys/k.pem\n+++ b/keys/k.pem\n@@ -1 +1 @@\n-b\n+x\n",
		"--- a/ok.txt\n+++ b/ok.txt\n@@ -1 +1 @@\n-c\n+x\n--- a/secrets/db.txt\n+++ b/secrets/db.txt\n@@ -1 +1 @@\n-a\n+x\n",
	} {
		res := execute(t, pv, argsJSON(p))
		if res.Success || !strings.Contains(res.Error, "is a forbidden path (pattern") {
			t.Errorf("patch %q: %v %q, want a refusal naming the pattern", p, res.Success, res.Error)
		}
	}
	checkFiles(t, dir, files{"secrets/db.txt": "a\n", "keys/k.pem": "b\n", "ok.txt": "c\n", "secrets/new.txt": gone})
	ents, _ := os.ReadDir(filepath.Join(dir, "secrets"))
	if !slices.EqualFunc(ents, []string{"db.txt"}, func(e os.DirEntry, n string) bool { return e.Name() == n }) {
		t.Errorf("secrets/ holds %v", ents)
	}
}
