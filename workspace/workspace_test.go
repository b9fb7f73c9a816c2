package workspace_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/talonhq/talon/workspace"
)

// fixture is a temporary tree with a workspace and its neighbours:
//
//	base/
//	  ws/                 the workspace
//	    a.txt
//	    sub/b.txt
//	    sub/up     -> ..              (back to ws: inside)
//	    sub/upup   -> ../..           (base: outside)
//	    link-in-file -> a.txt
//	    link-in-dir  -> sub
//	    link-out-file -> ../outside/secret.txt
//	    link-out-dir  -> ../outside
//	    link-abs-out  -> <base>/outside/secret.txt
//	    chain-in1 -> chain-in2 -> sub/b.txt
//	    chain-out1 -> chain-out2 -> ../outside/secret.txt
//	    dangling -> nowhere
//	  ws-evil/x.txt       shares the workspace's name as a prefix
//	  outside/secret.txt
//	  wslink -> ws        the workspace reached through a link
type fixture struct {
	base, ws string
	root     *workspace.Root
}

func newFixture(tb testing.TB) *fixture {
	tb.Helper()
	base, err := filepath.EvalSymlinks(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	ws := filepath.Join(base, "ws")
	mkdir(tb, ws, "sub")
	mkdir(tb, base, "ws-evil")
	mkdir(tb, base, "outside")
	write(tb, filepath.Join(ws, "a.txt"), "a\n")
	write(tb, filepath.Join(ws, "sub", "b.txt"), "b\n")
	write(tb, filepath.Join(base, "ws-evil", "x.txt"), "evil\n")
	write(tb, filepath.Join(base, "outside", "secret.txt"), "secret\n")
	links := []struct{ target, link string }{
		{"..", "ws/sub/up"},
		{"../..", "ws/sub/upup"},
		{"a.txt", "ws/link-in-file"},
		{"sub", "ws/link-in-dir"},
		{"../outside/secret.txt", "ws/link-out-file"},
		{"../outside", "ws/link-out-dir"},
		{filepath.Join(base, "outside", "secret.txt"), "ws/link-abs-out"},
		{"sub/b.txt", "ws/chain-in2"},
		{"chain-in2", "ws/chain-in1"},
		{"../outside/secret.txt", "ws/chain-out2"},
		{"chain-out2", "ws/chain-out1"},
		{"nowhere", "ws/dangling"},
		{"ws", "wslink"},
	}
	for _, l := range links {
		symlink(tb, l.target, filepath.Join(base, filepath.FromSlash(l.link)))
	}
	root, err := workspace.New(ws)
	if err != nil {
		tb.Fatal(err)
	}
	return &fixture{base: base, ws: ws, root: root}
}

func mkdir(tb testing.TB, parts ...string) {
	tb.Helper()
	if err := os.MkdirAll(filepath.Join(parts...), 0o755); err != nil {
		tb.Fatal(err)
	}
}

func write(tb testing.TB, path, content string) {
	tb.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		tb.Fatal(err)
	}
}

func symlink(tb testing.TB, target, link string) {
	tb.Helper()
	if err := os.Symlink(target, link); err != nil {
		tb.Skipf("symbolic links unavailable: %v", err)
	}
}

func TestNew(t *testing.T) {
	f := newFixture(t)
	tests := []struct {
		name    string
		dir     string
		want    string
		wantErr error
	}{
		{name: "plain dir", dir: f.ws, want: f.ws},
		{name: "unclean dir", dir: f.ws + "/sub/..", want: f.ws},
		{name: "reached through a link", dir: filepath.Join(f.base, "wslink"), want: f.ws},
		{name: "missing", dir: filepath.Join(f.base, "missing"), wantErr: fs.ErrNotExist},
		{name: "file", dir: filepath.Join(f.ws, "a.txt"), wantErr: workspace.ErrNotDirectory},
		{name: "empty", dir: "", wantErr: workspace.ErrEmptyPath},
		{name: "nul byte", dir: "a\x00b", wantErr: workspace.ErrInvalidPath},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, err := workspace.New(tt.dir)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("New(%q) error = %v, want %v", tt.dir, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("New(%q): %v", tt.dir, err)
			}
			if root.Dir() != tt.want {
				t.Errorf("Dir() = %q, want %q", root.Dir(), tt.want)
			}
		})
	}
}

func TestResolve(t *testing.T) {
	f := newFixture(t)
	tests := []struct {
		name    string
		path    string
		want    string // relative to the workspace, slash-separated
		wantErr error
	}{
		{name: "relative file", path: "a.txt", want: "a.txt"},
		{name: "nested file", path: "sub/b.txt", want: "sub/b.txt"},
		{name: "workspace itself", path: ".", want: "."},
		{name: "trailing slash", path: "sub/", want: "sub"},
		{name: "dotdot back inside", path: "sub/../a.txt", want: "a.txt"},
		{name: "dotdot out and back in", path: "../ws/a.txt", want: "a.txt"},
		{name: "dotdot escape", path: "../outside/secret.txt", wantErr: workspace.ErrOutsideWorkspace},
		{name: "dotdot to parent", path: "..", wantErr: workspace.ErrOutsideWorkspace},
		{name: "many dotdots", path: "sub/../../../../etc/passwd", wantErr: workspace.ErrOutsideWorkspace},
		{name: "absolute inside", path: filepath.Join(f.ws, "a.txt"), want: "a.txt"},
		{name: "absolute elsewhere", path: filepath.Join(f.base, "outside", "secret.txt"), wantErr: workspace.ErrOutsideWorkspace},
		{name: "absolute root of fs", path: "/", wantErr: workspace.ErrOutsideWorkspace},
		{name: "prefix trick absolute", path: filepath.Join(f.base, "ws-evil", "x.txt"), wantErr: workspace.ErrOutsideWorkspace},
		{name: "prefix trick relative", path: "../ws-evil/x.txt", wantErr: workspace.ErrOutsideWorkspace},
		{name: "prefix trick dir", path: f.ws + "-evil", wantErr: workspace.ErrOutsideWorkspace},
		{name: "link to file inside", path: "link-in-file", want: "a.txt"},
		{name: "link to dir inside", path: "link-in-dir/b.txt", want: "sub/b.txt"},
		{name: "link to file outside", path: "link-out-file", wantErr: workspace.ErrOutsideWorkspace},
		{name: "absolute link to file outside", path: "link-abs-out", wantErr: workspace.ErrOutsideWorkspace},
		{name: "link to dir outside", path: "link-out-dir", wantErr: workspace.ErrOutsideWorkspace},
		{name: "file under link to dir outside", path: "link-out-dir/secret.txt", wantErr: workspace.ErrOutsideWorkspace},
		{name: "missing under link to dir outside", path: "link-out-dir/nope.txt", wantErr: workspace.ErrOutsideWorkspace},
		{name: "chain inside", path: "chain-in1", want: "sub/b.txt"},
		{name: "chain ending outside", path: "chain-out1", wantErr: workspace.ErrOutsideWorkspace},
		{name: "link back to root", path: "sub/up/a.txt", want: "a.txt"},
		{name: "link above root", path: "sub/upup/outside/secret.txt", wantErr: workspace.ErrOutsideWorkspace},
		{name: "link then dotdot is lexical", path: "link-out-dir/../a.txt", want: "a.txt"},
		{name: "through the root's alias", path: filepath.Join(f.base, "wslink", "sub", "b.txt"), want: "sub/b.txt"},
		{name: "missing inside", path: "nope.txt", wantErr: fs.ErrNotExist},
		{name: "missing nested inside", path: "sub/x/y/z.txt", wantErr: fs.ErrNotExist},
		{name: "file used as dir", path: "a.txt/x", wantErr: fs.ErrNotExist},
		{name: "missing outside absolute", path: filepath.Join(f.base, "outside", "nope"), wantErr: workspace.ErrOutsideWorkspace},
		{name: "missing outside relative", path: "../nope/nope", wantErr: workspace.ErrOutsideWorkspace},
		{name: "dangling link", path: "dangling", wantErr: workspace.ErrDanglingLink},
		{name: "empty", path: "", wantErr: workspace.ErrEmptyPath},
		{name: "nul byte", path: "a.txt\x00../../etc/passwd", wantErr: workspace.ErrInvalidPath},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := f.root.Resolve(tt.path)
			checkResolved(t, f, tt.path, got, err, tt.want, tt.wantErr)
		})
	}
}

func TestResolveForWrite(t *testing.T) {
	f := newFixture(t)
	tests := []struct {
		name    string
		path    string
		want    string
		wantErr error
	}{
		{name: "new file", path: "new.txt", want: "new.txt"},
		{name: "new file in new dirs", path: "x/y/z.txt", want: "x/y/z.txt"},
		{name: "existing file", path: "a.txt", want: "a.txt"},
		{name: "existing dir", path: "sub", want: "sub"},
		{name: "final link inside is resolved", path: "link-in-file", want: "a.txt"},
		{name: "final chain inside is resolved", path: "chain-in1", want: "sub/b.txt"},
		{name: "final link outside", path: "link-out-file", wantErr: workspace.ErrOutsideWorkspace},
		{name: "final chain outside", path: "chain-out1", wantErr: workspace.ErrOutsideWorkspace},
		{name: "absolute final link outside", path: "link-abs-out", wantErr: workspace.ErrOutsideWorkspace},
		{name: "new file under link to dir inside", path: "link-in-dir/new.txt", want: "sub/new.txt"},
		{name: "new file under link to dir outside", path: "link-out-dir/new.txt", wantErr: workspace.ErrOutsideWorkspace},
		{name: "new dirs under link to dir outside", path: "link-out-dir/x/y.txt", wantErr: workspace.ErrOutsideWorkspace},
		{name: "existing file under link to dir outside", path: "link-out-dir/secret.txt", wantErr: workspace.ErrOutsideWorkspace},
		{name: "under link above root", path: "sub/upup/new.txt", wantErr: workspace.ErrOutsideWorkspace},
		{name: "dotdot escape", path: "../new.txt", wantErr: workspace.ErrOutsideWorkspace},
		{name: "dotdot escape deep", path: "../a/b/c.txt", wantErr: workspace.ErrOutsideWorkspace},
		{name: "prefix trick", path: "../ws-evil/new.txt", wantErr: workspace.ErrOutsideWorkspace},
		{name: "absolute elsewhere", path: filepath.Join(f.base, "outside", "new.txt"), wantErr: workspace.ErrOutsideWorkspace},
		{name: "absolute nowhere", path: "/nonexistent-talon-dir/x", wantErr: workspace.ErrOutsideWorkspace},
		{name: "through the root's alias", path: filepath.Join(f.base, "wslink", "new.txt"), want: "new.txt"},
		{name: "dangling final link", path: "dangling", wantErr: workspace.ErrDanglingLink},
		{name: "under dangling link", path: "dangling/x.txt", wantErr: workspace.ErrDanglingLink},
		{name: "empty", path: "", wantErr: workspace.ErrEmptyPath},
		{name: "nul byte", path: "new\x00.txt", wantErr: workspace.ErrInvalidPath},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := f.root.ResolveForWrite(tt.path)
			checkResolved(t, f, tt.path, got, err, tt.want, tt.wantErr)
		})
	}
}

func checkResolved(t *testing.T, f *fixture, path, got string, err error, want string, wantErr error) {
	t.Helper()
	if wantErr != nil {
		if !errors.Is(err, wantErr) {
			t.Fatalf("resolve %q = (%q, %v), want error %v", path, got, err, wantErr)
		}
		if got != "" {
			t.Errorf("resolve %q returned path %q with an error", path, got)
		}
		if errors.Is(err, workspace.ErrOutsideWorkspace) && !strings.Contains(err.Error(), f.ws) {
			t.Errorf("error %q does not name the workspace %s", err, f.ws)
		}
		return
	}
	if err != nil {
		t.Fatalf("resolve %q: %v", path, err)
	}
	if rel := f.root.Rel(got); rel != want {
		t.Errorf("resolve %q = %q (rel %q), want rel %q", path, got, rel, want)
	}
}

func TestOutsideMessage(t *testing.T) {
	f := newFixture(t)
	_, err := f.root.Resolve("link-out-file")
	want := `path "link-out-file" leads outside the workspace through a symbolic link: paths must stay inside the workspace ` + f.ws
	if err == nil || err.Error() != want {
		t.Errorf("error = %v\nwant    %s", err, want)
	}
	_, err = f.root.Resolve("../x")
	want = `path "../x" is outside the workspace: paths must stay inside the workspace ` + f.ws
	if err == nil || err.Error() != want {
		t.Errorf("error = %v\nwant    %s", err, want)
	}
}

func TestRel(t *testing.T) {
	f := newFixture(t)
	tests := []struct {
		name string
		abs  string
		want string
	}{
		{name: "root", abs: f.ws, want: "."},
		{name: "file", abs: filepath.Join(f.ws, "a.txt"), want: "a.txt"},
		{name: "nested", abs: filepath.Join(f.ws, "sub", "b.txt"), want: "sub/b.txt"},
		{name: "dot-dot-prefixed name inside", abs: filepath.Join(f.ws, "..x"), want: "..x"},
		{name: "outside", abs: filepath.Join(f.base, "outside"), want: filepath.ToSlash(filepath.Join(f.base, "outside"))},
		{name: "prefix sibling", abs: f.ws + "-evil", want: filepath.ToSlash(f.ws + "-evil")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := f.root.Rel(tt.abs); got != tt.want {
				t.Errorf("Rel(%q) = %q, want %q", tt.abs, got, tt.want)
			}
		})
	}
}

func TestContains(t *testing.T) {
	root, err := workspace.New("/")
	if err != nil {
		t.Fatal(err)
	}
	if !root.Contains("/etc/passwd") || !root.Contains("/") {
		t.Error("a workspace at / must contain every absolute path")
	}
}

// FuzzResolve checks that neither resolver panics and that every path they
// accept really lies inside the workspace.
func FuzzResolve(f *testing.F) {
	fx := newFixture(f)
	for _, seed := range []string{
		"", ".", "a.txt", "sub/b.txt", "../outside/secret.txt", "..", "/",
		"link-in-file", "link-out-file", "link-out-dir/secret.txt", "link-out-dir/new",
		"chain-in1", "chain-out1", "sub/up/a.txt", "sub/upup/outside", "dangling",
		"dangling/x", "a.txt/x", "x/y/z", "../ws-evil/x.txt", "a\x00b",
		fx.ws, fx.ws + "-evil/x.txt", fx.base + "/wslink/a.txt", "sub/./../link-in-dir//b.txt",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, p string) {
		if got, err := fx.root.Resolve(p); err == nil {
			assertInside(t, fx, p, got)
			real, err := filepath.EvalSymlinks(got)
			if err != nil || real != got {
				t.Fatalf("Resolve(%q) = %q, which is not a real existing path (%q, %v)", p, got, real, err)
			}
		}
		if got, err := fx.root.ResolveForWrite(p); err == nil {
			assertInside(t, fx, p, got)
			anc := got
			for {
				if _, err := os.Lstat(anc); err == nil {
					break
				}
				anc = filepath.Dir(anc)
			}
			real, err := filepath.EvalSymlinks(anc)
			if err != nil || !fx.root.Contains(real) {
				t.Fatalf("ResolveForWrite(%q) = %q, whose existing part %q resolves to %q (%v)", p, got, anc, real, err)
			}
		}
	})
}

func assertInside(t *testing.T, fx *fixture, p, got string) {
	t.Helper()
	rel, err := filepath.Rel(fx.ws, got)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		t.Fatalf("resolve %q = %q, outside the workspace %s", p, got, fx.ws)
	}
}
