package fsx_test

import (
	"encoding/json"
	"os"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/talonhq/talon/adapters/fsx"
	"github.com/talonhq/talon/tool"
)

func TestWriteFile(t *testing.T) {
	tests := []struct {
		name     string
		args     string
		wantText string
		wantErr  string
		wantData *fsx.WriteFileData
		check    func(t *testing.T, f *fixture)
	}{
		{name: "new file", args: `{"path":"notes.md","content":"hello"}`,
			wantText: "wrote 5 bytes to notes.md (new file)",
			wantData: &fsx.WriteFileData{Path: "notes.md", Bytes: 5, Created: true},
			check: func(t *testing.T, f *fixture) {
				if got := f.read(t, "notes.md"); got != "hello" {
					t.Errorf("content = %q", got)
				}
			}},
		{name: "new file in new directories", args: `{"path":"a/b/c.txt","content":"x\n"}`,
			wantText: "wrote 2 bytes to a/b/c.txt (new file)",
			check: func(t *testing.T, f *fixture) {
				if got := f.read(t, "a/b/c.txt"); got != "x\n" {
					t.Errorf("content = %q", got)
				}
			}},
		{name: "replace existing", args: `{"path":"README.md","content":"new"}`,
			wantText: "wrote 3 bytes to README.md (replaced the previous content)",
			wantData: &fsx.WriteFileData{Path: "README.md", Bytes: 3},
			check: func(t *testing.T, f *fixture) {
				if got := f.read(t, "README.md"); got != "new" {
					t.Errorf("content = %q", got)
				}
			}},
		{name: "empty content", args: `{"path":"empty.txt","content":""}`, wantText: "wrote 0 bytes to empty.txt (new file)"},
		{name: "one byte", args: `{"path":"one.txt","content":"1"}`, wantText: "wrote 1 byte to one.txt (new file)"},
		{name: "through a link inside writes the target", args: `{"path":"alias.go","content":"package alias\n"}`,
			wantText: "wrote 14 bytes to src/main.go (replaced the previous content)",
			check: func(t *testing.T, f *fixture) {
				if got := f.read(t, "src/main.go"); got != "package alias\n" {
					t.Errorf("target content = %q", got)
				}
				if fi, err := os.Lstat(f.path("alias.go")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
					t.Errorf("alias.go is no longer a link: %v, %v", fi.Mode(), err)
				}
			}},
		{name: "under a link to a dir inside", args: `{"path":"link-in-dir/new.go","content":"x"}`, wantText: "wrote 1 byte to src/new.go (new file)"},
		{name: "directory", args: `{"path":"src","content":"x"}`, wantErr: "src is a directory: give the path of a file to write"},
		{name: "parent is a file", args: `{"path":"README.md/x.txt","content":"x"}`, wantErr: "a parent of it is a file"},
		{name: "dotdot escape", args: `{"path":"../outside/new.txt","content":"x"}`, wantErr: "is outside the workspace"},
		{name: "absolute path outside", args: `{"path":"/tmp/talon-should-not-exist/x","content":"x"}`, wantErr: "outside the workspace"},
		{name: "link to a file outside", args: `{"path":"link-out-file","content":"pwned"}`, wantErr: "through a symbolic link"},
		{name: "under a link to a dir outside", args: `{"path":"link-out-dir/new.txt","content":"pwned"}`, wantErr: "through a symbolic link"},
		{name: "new dirs under a link to a dir outside", args: `{"path":"link-out-dir/a/b.txt","content":"pwned"}`, wantErr: "through a symbolic link"},
		{name: "dangling link", args: `{"path":"dangling","content":"x"}`, wantErr: "symbolic link points to nothing"},
		{name: "missing content", args: `{"path":"x.txt"}`, wantErr: "content is required"},
		{name: "missing path", args: `{"content":"x"}`, wantErr: "path is required"},
		{name: "unknown argument", args: `{"path":"x.txt","content":"x","mode":"0777"}`, wantErr: "invalid arguments"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			res := call(t, fsx.NewWriteFile(f.root, fsx.WriteFileOptions{}), tt.args)
			expect(t, res, tt.wantText, tt.wantErr)
			if tt.wantData != nil && !reflect.DeepEqual(res.Output.Data, *tt.wantData) {
				t.Errorf("data = %+v\nwant   %+v", res.Output.Data, *tt.wantData)
			}
			if tt.check != nil {
				tt.check(t, f)
			}
			f.secretsIntact(t)
			if _, err := os.Stat("/tmp/talon-should-not-exist"); err == nil {
				t.Error("a file was written outside the workspace")
			}
		})
	}
}

func TestWriteFileKeepsMode(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("permission bits are not kept on windows")
	}
	f := newFixture(t)
	if err := os.Chmod(f.path("README.md"), 0o600); err != nil {
		t.Fatal(err)
	}
	expect(t, call(t, fsx.NewWriteFile(f.root, fsx.WriteFileOptions{}), `{"path":"README.md","content":"x"}`),
		"wrote 1 byte to README.md (replaced the previous content)", "")
	if fi, err := os.Stat(f.path("README.md")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, %v; want 0600 kept", fi.Mode().Perm(), err)
	}
}

func TestWriteFileAssess(t *testing.T) {
	f := newFixture(t)
	wr := fsx.NewWriteFile(f.root, fsx.WriteFileOptions{})
	tests := []struct {
		name        string
		args        string
		wantPath    string
		wantSummary string
		wantDenied  bool
	}{
		{name: "new file", args: `{"path":"notes/a.md","content":"` + strings.Repeat("x", 120) + `"}`,
			wantPath: f.path("notes/a.md"), wantSummary: "write 120 bytes to notes/a.md (new file)"},
		{name: "existing file", args: `{"path":"README.md","content":"x"}`,
			wantPath: f.path("README.md"), wantSummary: "write 1 byte to README.md (overwrites the existing file)"},
		{name: "link inside is resolved", args: `{"path":"alias.go","content":""}`,
			wantPath: f.path("src/main.go"), wantSummary: "write 0 bytes to src/main.go (overwrites the existing file)"},
		{name: "escape is denied", args: `{"path":"link-out-dir/x","content":"x"}`,
			wantPath: f.path("link-out-dir/x"), wantSummary: "write 1 byte to link-out-dir/x", wantDenied: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			as, err := wr.Assess(json.RawMessage(tt.args))
			if err != nil {
				t.Fatal(err)
			}
			if as.Tier != tool.Medium || as.Denied != tt.wantDenied {
				t.Errorf("assessment = %+v, want tier medium, denied %v", as, tt.wantDenied)
			}
			if len(as.Paths) != 1 || as.Paths[0] != tt.wantPath {
				t.Errorf("paths = %v, want [%s]", as.Paths, tt.wantPath)
			}
			if as.Plan == nil || as.Plan.Summary != tt.wantSummary {
				t.Errorf("plan = %+v, want summary %q", as.Plan, tt.wantSummary)
			}
		})
	}
}
