package workspace_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/talonhq/talon/workspace"
)

// homeWorkspace is a home directory used as the workspace, with talon's
// data and config inside it and a link from an ordinary name to a key.
type homeWorkspace struct {
	home string
	prot workspace.Protected
	root *workspace.Root
}

func newHomeWorkspace(t *testing.T) *homeWorkspace {
	t.Helper()
	home, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{
		".ssh/id_rsa":                          "KEY\n",
		".config/gh/hosts.yml":                 "token\n",
		".local/share/talon/keys/receipts.key": "SIGN\n",
		"talon.toml":                           "[x]\n",
		"notes.txt":                            "notes\n",
		".git/config":                          "[core]\n",
		".git/hooks/README":                    "hooks\n",
		"proj/.git/config":                     "[core]\n",
	} {
		mkdir(t, filepath.Dir(filepath.Join(home, name)))
		write(t, filepath.Join(home, name), content)
	}
	symlink(t, ".ssh/id_rsa", filepath.Join(home, "innocent"))
	symlink(t, ".ssh", filepath.Join(home, "sshdir"))
	prot := workspace.NewProtected(workspace.Locations{
		Home:       home,
		ConfigFile: filepath.Join(home, "talon.toml"),
		DataDir:    filepath.Join(home, ".local", "share", "talon"),
	})
	root, err := workspace.Open(home, workspace.Options{Protected: prot})
	if err != nil {
		t.Fatal(err)
	}
	return &homeWorkspace{home: home, prot: prot, root: root}
}

func TestProtectedRules(t *testing.T) {
	h := newHomeWorkspace(t)
	rules := h.prot.Rules()
	find := func(where string) *workspace.Rule {
		for i := range rules {
			if rules[i].Where() == where {
				return &rules[i]
			}
		}
		return nil
	}
	for _, want := range []struct {
		where  string
		access workspace.Access
		why    string
	}{
		{filepath.Join(h.home, "talon.toml"), workspace.NoAccess, "talon's configuration file"},
		{filepath.Join(h.home, ".local", "share", "talon"), workspace.NoAccess, "talon's data"},
		{filepath.Join(h.home, ".ssh"), workspace.NoAccess, "operator secrets under ~/.ssh"},
		{filepath.Join(h.home, ".config"), workspace.NoAccess, "operator secrets under ~/.config"},
		{".git/hooks/**", workspace.ReadOnly, "git runs programs"},
		{".git/config", workspace.ReadOnly, "git runs programs"},
	} {
		r := find(want.where)
		if r == nil {
			t.Errorf("no rule for %s", want.where)
			continue
		}
		if r.Access != want.access || !strings.Contains(r.Why, want.why) {
			t.Errorf("rule %s = %v %q, want %v %q", want.where, r.Access, r.Why, want.access, want.why)
		}
	}
	deny := h.prot.Deny()
	if !slices.Contains(deny, filepath.Join(h.home, ".ssh")) || slices.Contains(deny, ".git/config") {
		t.Errorf("Deny() = %v", deny)
	}
	if !slices.IsSorted(deny) {
		t.Errorf("Deny() is not sorted: %v", deny)
	}
	ro := h.prot.ReadOnlyIn(h.home)
	want := []string{filepath.Join(h.home, ".git", "config"), filepath.Join(h.home, ".git", "hooks")}
	if !slices.Equal(ro, want) {
		t.Errorf("ReadOnlyIn = %v, want %v", ro, want)
	}
	if (workspace.Protected{}).IsZero() != true || h.prot.IsZero() {
		t.Error("IsZero")
	}
}

// TestProtectedLinkedLocation: a protected directory reached through a
// link (a home directory that is itself a link) is recognised both ways.
func TestProtectedLinkedLocation(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	real := filepath.Join(base, "real-home")
	mkdir(t, real, ".ssh")
	write(t, filepath.Join(real, ".ssh", "id_rsa"), "KEY\n")
	symlink(t, "real-home", filepath.Join(base, "home"))
	prot := workspace.NewProtected(workspace.Locations{Home: filepath.Join(base, "home")})
	root, err := workspace.Open(real, workspace.Options{Protected: prot})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := root.Open(".ssh/id_rsa"); !errors.Is(err, workspace.ErrProtected) {
		t.Fatalf("Open = %v, want protected", err)
	}
	if !slices.Contains(prot.Deny(), filepath.Join(real, ".ssh")) {
		t.Errorf("Deny() lacks the resolved location: %v", prot.Deny())
	}
}

func TestRootRefusesProtected(t *testing.T) {
	h := newHomeWorkspace(t)
	r := h.root
	read := []struct{ path, want string }{
		{".ssh/id_rsa", ".ssh/id_rsa is protected (operator secrets under ~/.ssh): talon never lets a tool read it"},
		{".ssh", "is protected"},
		{"innocent", "innocent leads to .ssh/id_rsa, which is protected (operator secrets under ~/.ssh)"},
		{"sshdir/id_rsa", "leads to .ssh/id_rsa, which is protected"},
		{".config/gh/hosts.yml", "is protected (operator secrets under ~/.config)"},
		{".local/share/talon/keys/receipts.key", "is protected (talon's data"},
		{"talon.toml", "talon.toml is protected (talon's configuration file"},
		{".ssh/missing", "is protected"},
	}
	for _, tt := range read {
		t.Run("read "+tt.path, func(t *testing.T) {
			for name, op := range map[string]func() error{
				"Open":    func() error { f, err := r.Open(tt.path); closeIf(f); return err },
				"Stat":    func() error { _, err := r.Stat(tt.path); return err },
				"Resolve": func() error { _, err := r.Resolve(tt.path); return err },
			} {
				err := op()
				var re *workspace.RefusedError
				if !errors.As(err, &re) || !errors.Is(err, workspace.ErrProtected) || !strings.Contains(err.Error(), tt.want) {
					t.Errorf("%s(%q) = %v, want a refusal containing %q", name, tt.path, err, tt.want)
				}
			}
		})
	}
	write := []struct{ path, want string }{
		{".ssh/authorized_keys", "is protected (operator secrets under ~/.ssh): talon never lets a tool change it"},
		{"talon.toml", "is protected"},
		{".git/config", ".git/config is write-protected (git runs programs named there outside the sandbox the next time you use git): talon never lets a tool change it; reading it is allowed"},
		{".git/hooks/pre-commit", "is write-protected"},
		{".git/hooks", "is write-protected"},
		{".git/info/attributes", "is write-protected"},
		{".git/config.worktree", "is write-protected"},
		{".git/commondir", "is write-protected"},
		{".git/modules/lib/config", "is write-protected"},
		{".git/modules/lib/hooks/post-checkout", "is write-protected"},
		{".git/modules/a/modules/b/config", "is write-protected"},
		{".git/worktrees/w/config", "is write-protected"},
		{"proj/.git/config", "is write-protected"},
		{"proj/.GIT/HOOKS/x", "is write-protected"},
		{"sub/.git", "is write-protected"},
	}
	for _, tt := range write {
		t.Run("write "+tt.path, func(t *testing.T) {
			for name, op := range map[string]func() error{
				"WriteFile":       func() error { _, _, err := r.WriteFile(tt.path, []byte("x"), 0o644); return err },
				"ResolveForWrite": func() error { _, err := r.ResolveForWrite(tt.path); return err },
				"Remove":          func() error { return r.Remove(tt.path) },
				"Mkdir":           func() error { return r.Mkdir(tt.path, 0o755) },
				"Chmod":           func() error { return r.Chmod(tt.path, 0o600) },
			} {
				err := op()
				if !errors.Is(err, workspace.ErrProtected) || !strings.Contains(err.Error(), tt.want) {
					t.Errorf("%s(%q) = %v, want a refusal containing %q", name, tt.path, err, tt.want)
				}
			}
		})
	}
	// Writing through a link to a key is refused; removing the link is not
	// changing the key.
	if _, _, err := r.WriteFile("innocent", []byte("x"), 0o644); !errors.Is(err, workspace.ErrProtected) {
		t.Errorf("WriteFile through a link to a key = %v", err)
	}
	if err := r.Chmod("innocent", 0o777); !errors.Is(err, workspace.ErrProtected) {
		t.Errorf("Chmod through a link to a key = %v", err)
	}
	// Reading a repository is fine; so is writing its objects and refs.
	for _, p := range []string{".git/config", ".git/hooks/README", "proj/.git/config"} {
		f, err := r.Open(p)
		if err != nil {
			t.Errorf("Open(%q): %v", p, err)
		}
		closeIf(f)
	}
	if _, _, err := r.WriteFile(".git/refs/heads/main", []byte("0000\n"), 0o644); err != nil {
		t.Errorf("writing a ref: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(h.home, ".ssh", "id_rsa")); string(b) != "KEY\n" {
		t.Errorf("the key changed: %q", b)
	}
	if _, err := os.Lstat(filepath.Join(h.home, ".ssh", "authorized_keys")); err == nil {
		t.Error(".ssh/authorized_keys was created")
	}
}

func TestWalkLeavesOutProtected(t *testing.T) {
	h := newHomeWorkspace(t)
	var files, refused []string
	err := h.root.Walk(context.Background(), ".", workspace.WalkOptions{}, func(e workspace.Entry) error {
		if e.Refused != nil {
			refused = append(refused, h.root.Rel(e.Path))
			if _, err := e.Open(); !errors.Is(err, workspace.ErrProtected) {
				t.Errorf("Open of refused %s = %v", e.Path, err)
			}
			return nil
		}
		files = append(files, h.root.Rel(e.Path))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"notes.txt"}; !slices.Equal(files, want) {
		t.Errorf("files = %v, want %v", files, want)
	}
	if want := []string{".config", ".local/share/talon", ".ssh", "innocent", "sshdir", "talon.toml"}; !slices.Equal(refused, want) {
		t.Errorf("refused = %v, want %v", refused, want)
	}
	if err := h.root.Walk(context.Background(), "sshdir", workspace.WalkOptions{}, func(workspace.Entry) error { return nil }); !errors.Is(err, workspace.ErrProtected) {
		t.Errorf("walking a protected directory through a link = %v", err)
	}
}

func TestCheck(t *testing.T) {
	h := newHomeWorkspace(t)
	if err := h.root.Check("k", filepath.Join(h.home, ".ssh", "k"), false); !errors.Is(err, workspace.ErrProtected) {
		t.Errorf("Check = %v", err)
	}
	if err := h.root.Check("c", filepath.Join(h.home, ".git", "config"), false); err != nil {
		t.Errorf("reading .git/config: %v", err)
	}
	if err := h.root.Check("c", filepath.Join(h.home, ".git", "config"), true); !errors.Is(err, workspace.ErrProtected) {
		t.Errorf("writing .git/config: %v", err)
	}
}

func closeIf(f *os.File) {
	if f != nil {
		_ = f.Close()
	}
}

// TestProtectedThroughWorkspaceAlias: a path that reaches the workspace
// through another name (a link to it) is checked where it leads, on
// every operation. Before, Root.Open's one-call open checked such a path
// only as given, and returned talon's config read through the alias.
func TestProtectedThroughWorkspaceAlias(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(base, "ws")
	mkdir(t, ws, "secrets")
	write(t, filepath.Join(ws, "talon.toml"), "[x]\n")
	write(t, filepath.Join(ws, "secrets", "db.txt"), "PASSWORD\n")
	write(t, filepath.Join(ws, "notes.txt"), "notes\n")
	symlink(t, "ws", filepath.Join(base, "alias"))
	prot := workspace.NewProtected(workspace.Locations{ConfigFile: filepath.Join(ws, "talon.toml")})
	root, err := workspace.Open(ws, workspace.Options{Protected: prot, Forbidden: []string{"secrets/**"}})
	if err != nil {
		t.Fatal(err)
	}
	alias := filepath.Join(base, "alias")
	for _, tt := range []struct {
		path string
		want error
	}{
		{filepath.Join(alias, "talon.toml"), workspace.ErrProtected},
		{filepath.Join(alias, "secrets", "db.txt"), workspace.ErrForbidden},
	} {
		for name, op := range map[string]func() error{
			"Open":      func() error { f, err := root.Open(tt.path); closeIf(f); return err },
			"Stat":      func() error { _, err := root.Stat(tt.path); return err },
			"WriteFile": func() error { _, _, err := root.WriteFile(tt.path, []byte("x"), 0o644); return err },
		} {
			if err := op(); !errors.Is(err, tt.want) {
				t.Errorf("%s(%q) = %v, want %v", name, tt.path, err, tt.want)
			}
		}
	}
	f, err := root.Open(filepath.Join(alias, "notes.txt"))
	if err != nil {
		t.Fatalf("Open through the alias of an ordinary file: %v", err)
	}
	if f.Name() != filepath.Join(ws, "notes.txt") {
		t.Errorf("Name() = %q, want the real path", f.Name())
	}
	closeIf(f)
}

// TestProtectedOutsideNamesRule: a protected path outside the workspace is
// refused by its rule, which says more than "outside the workspace".
func TestProtectedOutsideNamesRule(t *testing.T) {
	h := newHomeWorkspace(t)
	root, err := workspace.Open(filepath.Join(h.home, "proj"), workspace.Options{Protected: h.prot, Forbidden: []string{"~/private"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		path  string
		write bool
		want  string
	}{
		{filepath.Join(h.home, ".ssh", "id_rsa"), false, "is protected (operator secrets under ~/.ssh)"},
		{"../.ssh/id_rsa", false, "is protected (operator secrets under ~/.ssh)"},
		{"../talon.toml", true, "is protected (talon's configuration file"},
		{"../.git/hooks/pre-commit", true, "is write-protected (git runs programs"},
		{"../private/x", false, `is a forbidden path (pattern "~/private")`},
	} {
		var err error
		if tt.write {
			_, _, err = root.WriteFile(tt.path, []byte("x"), 0o644)
		} else {
			var f *os.File
			f, err = root.Open(tt.path)
			closeIf(f)
		}
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: %v, want a refusal containing %q", tt.path, err, tt.want)
		}
	}
	// An ordinary file outside is simply outside.
	if _, err := root.Open("../notes.txt"); !errors.Is(err, workspace.ErrOutsideWorkspace) {
		t.Errorf("../notes.txt: %v", err)
	}
}

// TestProgramIsReadOnly: talon's own program and its sandbox helper, here
// inside the workspace as under `make run`, may be read but never changed,
// directly or through a link, and a sandbox gets them as read-only paths.
func TestProgramIsReadOnly(t *testing.T) {
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	mkdir(t, filepath.Join(ws, "bin"))
	talon := filepath.Join(ws, "bin", "talon")
	helper := filepath.Join(ws, "bin", "talon-sandbox")
	write(t, talon, "ELF talon\n")
	write(t, helper, "ELF helper\n")
	symlink(t, "bin/talon", filepath.Join(ws, "tool"))
	prot := workspace.NewProtected(workspace.Locations{Programs: []string{talon, helper, filepath.Join(ws, "bin", "missing")}})
	root, err := workspace.Open(ws, workspace.Options{Protected: prot})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"bin/talon", "bin/talon-sandbox", "tool"} {
		f, err := root.Open(p)
		if err != nil {
			t.Errorf("Open(%q): %v, want it readable", p, err)
		}
		closeIf(f)
		for name, op := range map[string]func() error{
			"WriteFile": func() error { _, _, err := root.WriteFile(p, []byte("x"), 0o755); return err },
			"Remove":    func() error { return root.Remove(p) },
			"Chmod":     func() error { return root.Chmod(p, 0o777) },
		} {
			if p == "tool" && name == "Remove" {
				continue // removing the link changes nothing of talon's
			}
			err := op()
			if !errors.Is(err, workspace.ErrProtected) || !strings.Contains(err.Error(), "write-protected (talon's own program") {
				t.Errorf("%s(%q) = %v, want a write-protected refusal", name, p, err)
			}
		}
	}
	if b, _ := os.ReadFile(talon); string(b) != "ELF talon\n" {
		t.Errorf("talon's program changed: %q", b)
	}
	if got, want := prot.ReadOnlyIn(ws), []string{talon, helper}; !slices.Equal(got, want) {
		t.Errorf("ReadOnlyIn = %q, want %q (existing programs only)", got, want)
	}
	if slices.Contains(prot.Deny(), talon) {
		t.Error("talon's program is in Deny: tools may read it")
	}
}
