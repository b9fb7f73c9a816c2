package workspace_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"

	"github.com/talonhq/talon/workspace"
	"github.com/talonhq/talon/workspace/workspacetest"
)

func TestMain(m *testing.M) { workspacetest.Main(m) }

func TestOpen(t *testing.T) {
	f := newFixture(t)
	tests := []struct {
		path    string
		want    string // content, or "" for a directory
		real    string
		wantErr error
	}{
		{path: "a.txt", want: "a\n", real: "a.txt"},
		{path: "link-in-file", want: "a\n", real: "a.txt"},
		{path: "chain-in1", want: "b\n", real: "sub/b.txt"},
		{path: "link-in-dir/b.txt", want: "b\n", real: "sub/b.txt"},
		{path: ".", real: "."},
		{path: "sub", real: "sub"},
		{path: "link-out-file", wantErr: workspace.ErrOutsideWorkspace},
		{path: "link-out-dir/secret.txt", wantErr: workspace.ErrOutsideWorkspace},
		{path: "dangling", wantErr: workspace.ErrDanglingLink},
		{path: "nope", wantErr: fs.ErrNotExist},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			fh, err := f.root.Open(tt.path)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer fh.Close()
			if got := f.root.Rel(fh.Name()); got != tt.real {
				t.Errorf("Name() = %s, want %s", got, tt.real)
			}
			if tt.want == "" {
				return
			}
			b, err := io.ReadAll(fh)
			if err != nil || string(b) != tt.want {
				t.Errorf("content = %q, %v", b, err)
			}
		})
	}
}

func TestWriteFile(t *testing.T) {
	f := newFixture(t)
	r := f.root
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(f.ws, filepath.FromSlash(name)))
		if err != nil {
			return "<" + err.Error() + ">"
		}
		return string(b)
	}
	// A new file, in new directories, gets exactly the mode asked for.
	real, created, err := r.WriteFile("x/y/new.txt", []byte("new"), 0o600)
	if err != nil || !created || r.Rel(real) != "x/y/new.txt" || read("x/y/new.txt") != "new" {
		t.Fatalf("new file: %s %v %v %q", real, created, err, read("x/y/new.txt"))
	}
	if fi, _ := os.Stat(real); fi.Mode().Perm() != 0o600 {
		t.Errorf("new file mode %v", fi.Mode())
	}
	// Replacing keeps the old mode.
	if err := os.Chmod(filepath.Join(f.ws, "a.txt"), 0o640); err != nil {
		t.Fatal(err)
	}
	if _, created, err := r.WriteFile("a.txt", []byte("A"), 0o644); err != nil || created {
		t.Fatalf("replace: %v %v", created, err)
	}
	if fi, _ := os.Stat(filepath.Join(f.ws, "a.txt")); fi.Mode().Perm() != 0o640 || read("a.txt") != "A" {
		t.Errorf("replace: mode %v content %q", fi.Mode(), read("a.txt"))
	}
	// Through a link inside: the target changes, the link stays.
	real, _, err = r.WriteFile("link-in-dir/b.txt", []byte("B"), 0o644)
	if err != nil || r.Rel(real) != "sub/b.txt" || read("sub/b.txt") != "B" {
		t.Fatalf("through a link: %s %v", real, err)
	}
	if _, _, err := r.WriteFile("chain-in1", []byte("C"), 0o644); err != nil || read("sub/b.txt") != "C" {
		t.Fatalf("through a chain: %v", err)
	}
	if fi, err := os.Lstat(filepath.Join(f.ws, "chain-in1")); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Error("the link was replaced")
	}
	for _, tt := range []struct {
		path string
		want error
	}{
		{"sub", workspace.ErrIsDirectory},
		{".", workspace.ErrIsDirectory},
		{"a.txt/x", syscall.ENOTDIR},
		{"link-out-file", workspace.ErrOutsideWorkspace},
		{"link-out-dir/new.txt", workspace.ErrOutsideWorkspace},
		{"dangling", workspace.ErrDanglingLink},
		{"../x", workspace.ErrOutsideWorkspace},
	} {
		if _, _, err := r.WriteFile(tt.path, []byte("z"), 0o644); !errors.Is(err, tt.want) {
			t.Errorf("WriteFile(%q) = %v, want %v", tt.path, err, tt.want)
		}
	}
	f.outsideIntact(t)
	// No temporary file is left behind.
	err = filepath.WalkDir(f.ws, func(p string, d fs.DirEntry, err error) error {
		if err == nil && filepath.Ext(p) == ".tmp" {
			t.Errorf("left behind: %s", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) outsideIntact(t *testing.T) {
	t.Helper()
	ents, _ := os.ReadDir(filepath.Join(f.base, "outside"))
	if len(ents) != 1 {
		t.Errorf("outside/ holds %d entries", len(ents))
	}
	if b, _ := os.ReadFile(filepath.Join(f.base, "outside", "secret.txt")); string(b) != "secret\n" {
		t.Errorf("outside/secret.txt = %q", b)
	}
}

func TestRemoveMkdirChmod(t *testing.T) {
	f := newFixture(t)
	r := f.root
	if err := r.Mkdir("d", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := r.Mkdir("d", 0o755); !errors.Is(err, fs.ErrExist) {
		t.Errorf("second Mkdir = %v", err)
	}
	if err := r.Mkdir("x/y", 0o755); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Mkdir without parent = %v", err)
	}
	if err := r.Mkdir("link-out-dir/z", 0o755); !errors.Is(err, workspace.ErrOutsideWorkspace) {
		t.Errorf("Mkdir through a link outside = %v", err)
	}
	if err := r.Chmod("link-in-file", 0o600); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(filepath.Join(f.ws, "a.txt")); fi.Mode().Perm() != 0o600 {
		t.Errorf("Chmod through a link: %v", fi.Mode())
	}
	if err := r.Chmod("link-out-file", 0o600); !errors.Is(err, workspace.ErrOutsideWorkspace) {
		t.Errorf("Chmod outside = %v", err)
	}
	// Remove takes the link, not its target, and empty directories only.
	if err := r.Remove("link-out-file"); err == nil {
		// The link itself lies inside: removing it is fine.
		t.Log("removed the link")
	}
	if err := r.Remove("link-in-file"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(f.ws, "a.txt")); err != nil {
		t.Errorf("the link's target went: %v", err)
	}
	if err := r.Remove("sub"); err == nil {
		t.Error("removed a directory that is not empty")
	}
	if err := r.Remove("d"); err != nil {
		t.Errorf("Remove empty dir: %v", err)
	}
	if err := r.Remove("."); err == nil {
		t.Error("removed the workspace")
	}
	if err := r.Remove("link-out-dir/secret.txt"); !errors.Is(err, workspace.ErrOutsideWorkspace) {
		t.Errorf("Remove through a link outside = %v", err)
	}
	f.outsideIntact(t)
}

func TestWalk(t *testing.T) {
	f := newFixture(t)
	write(t, filepath.Join(f.ws, "a.b"), "x")
	mkdir(t, f.ws, "a", "deep")
	write(t, filepath.Join(f.ws, "a", "deep", "z.txt"), "z")
	mkdir(t, f.ws, ".git")
	write(t, filepath.Join(f.ws, ".git", "config"), "x")
	var got []string
	err := f.root.Walk(context.Background(), ".", workspace.WalkOptions{}, func(e workspace.Entry) error {
		s := f.root.Rel(e.Path)
		if e.Link() {
			s += " -> " + f.root.Rel(e.Real)
		}
		fh, err := e.Open()
		if err != nil {
			t.Errorf("open %s: %v", s, err)
		} else {
			_ = fh.Close()
		}
		got = append(got, s)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a.b", "a.txt", "a/deep/z.txt", "chain-in1 -> sub/b.txt", "chain-in2 -> sub/b.txt", "link-in-file -> a.txt", "sub/b.txt"}
	if !slices.Equal(got, want) {
		t.Errorf("walk = %q\nwant   %q", got, want)
	}
	if !slices.IsSorted(got) {
		t.Error("not in the order of the paths")
	}
	for _, start := range []string{"link-out-dir", "a.txt", "nope"} {
		if err := f.root.Walk(context.Background(), start, workspace.WalkOptions{}, func(workspace.Entry) error { return nil }); err == nil {
			t.Errorf("Walk(%q) succeeded", start)
		}
	}
	// WalkOpen walks what Open opened, and nothing else.
	dir, err := f.root.Open("a")
	if err != nil {
		t.Fatal(err)
	}
	defer dir.Close()
	got = nil
	if err := f.root.WalkOpen(context.Background(), dir, workspace.WalkOptions{}, func(e workspace.Entry) error {
		got = append(got, f.root.Rel(e.Path))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if want := []string{"a/deep/z.txt"}; !slices.Equal(got, want) {
		t.Errorf("WalkOpen = %q, want %q", got, want)
	}
	file, err := f.root.Open("a.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	if err := f.root.WalkOpen(context.Background(), file, workspace.WalkOptions{}, func(workspace.Entry) error { return nil }); !errors.Is(err, workspace.ErrNotDirectory) {
		t.Errorf("WalkOpen of a file = %v", err)
	}
	other, err := os.Open(filepath.Join(f.base, "outside"))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := f.root.WalkOpen(context.Background(), other, workspace.WalkOptions{}, func(workspace.Entry) error { return nil }); err == nil {
		t.Error("WalkOpen of a directory outside succeeded")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := f.root.Walk(ctx, ".", workspace.WalkOptions{}, func(workspace.Entry) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled walk = %v", err)
	}
}

// TestSwapRaceOperations: every operation of a Root, while another process
// exchanges a workspace directory and a link to outside, never reads,
// changes or creates anything outside.
func TestSwapRaceOperations(t *testing.T) {
	attempts := 2000
	if testing.Short() {
		attempts = 200
	}
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws, out := filepath.Join(base, "ws"), filepath.Join(base, "out")
	mkdir(t, ws, "d")
	mkdir(t, out)
	write(t, filepath.Join(ws, "d", "f"), "inside\n")
	write(t, filepath.Join(out, "f"), "SECRET\n")
	write(t, filepath.Join(out, "keep"), "SECRET\n")
	if err := os.Chmod(filepath.Join(out, "f"), 0o640); err != nil {
		t.Fatal(err)
	}
	symlink(t, "../out", filepath.Join(ws, "s"))
	root, err := workspace.New(ws)
	if err != nil {
		t.Fatal(err)
	}
	workspacetest.Swap(t, filepath.Join(ws, "d"), filepath.Join(ws, "s"))
	for i := range attempts {
		if fh, err := root.Open("d/f"); err == nil {
			b, _ := io.ReadAll(fh)
			_ = fh.Close()
			if string(b) != "inside\n" {
				t.Fatalf("Open read %q", b)
			}
		}
		_, _, _ = root.WriteFile(fmt.Sprintf("d/w%d", i), []byte("x"), 0o644)
		_ = root.Mkdir(fmt.Sprintf("d/m%d", i), 0o755)
		_ = root.Remove("d/keep")
		_ = root.Chmod("d/f", 0o604)
		_ = root.Walk(context.Background(), "d", workspace.WalkOptions{}, func(e workspace.Entry) error {
			fh, err := e.Open()
			if err != nil {
				return nil
			}
			b, _ := io.ReadAll(fh)
			_ = fh.Close()
			if string(b) == "SECRET\n" {
				t.Fatalf("Walk read the outside through %s", e.Path)
			}
			return nil
		})
		if dir, err := root.Open("d"); err == nil {
			_ = root.WalkOpen(context.Background(), dir, workspace.WalkOptions{}, func(e workspace.Entry) error {
				fh, err := e.Open()
				if err != nil {
					return nil
				}
				b, _ := io.ReadAll(fh)
				_ = fh.Close()
				if string(b) == "SECRET\n" {
					t.Fatalf("WalkOpen read the outside through %s", e.Path)
				}
				return nil
			})
			_ = dir.Close()
		}
	}
	ents, _ := os.ReadDir(out)
	if len(ents) != 2 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Fatalf("outside now holds %v", names)
	}
	if fi, _ := os.Stat(filepath.Join(out, "f")); fi.Mode().Perm() != 0o640 {
		t.Errorf("outside file mode changed to %v", fi.Mode())
	}
}

func TestOpenDirIn(t *testing.T) {
	f := newFixture(t)
	mkdir(t, f.ws, "a", "deep", ".hidden")
	prot := workspace.NewProtected(workspace.Locations{DataDir: filepath.Join(f.ws, "a", "data")})
	root, err := workspace.Open(f.ws, workspace.Options{Protected: prot})
	if err != nil {
		t.Fatal(err)
	}
	mkdir(t, f.ws, "a", "data")
	top, err := root.Open(".")
	if err != nil {
		t.Fatal(err)
	}
	defer top.Close()
	for _, tt := range []struct {
		sub, want string
		err       error
	}{
		{sub: "a/deep", want: "a/deep"},
		{sub: "a/deep/.hidden", want: "a/deep/.hidden"},
		{sub: ".", want: "."},
		{sub: "link-in-dir", err: workspace.ErrLinkOnTheWay},
		{sub: "link-out-dir/x", err: workspace.ErrLinkOnTheWay},
		{sub: "a.txt", err: workspace.ErrNotDirectory},
		{sub: "nope", err: fs.ErrNotExist},
		{sub: "../ws", err: workspace.ErrInvalidPath},
		{sub: "/etc", err: workspace.ErrInvalidPath},
		{sub: "a/data", err: workspace.ErrProtected},
	} {
		d, err := root.OpenDirIn(top, tt.sub)
		if tt.err != nil {
			if !errors.Is(err, tt.err) {
				t.Errorf("OpenDirIn(%q) = %v, want %v", tt.sub, err, tt.err)
			}
			closeIf(d)
			continue
		}
		if err != nil {
			t.Errorf("OpenDirIn(%q): %v", tt.sub, err)
			continue
		}
		if got := root.Rel(d.Name()); got != tt.want {
			t.Errorf("OpenDirIn(%q) is %q, want %q", tt.sub, got, tt.want)
		}
		if fi, err := d.Stat(); err != nil || !fi.IsDir() {
			t.Errorf("OpenDirIn(%q) did not open a directory: %v", tt.sub, err)
		}
		_ = d.Close()
	}
}
