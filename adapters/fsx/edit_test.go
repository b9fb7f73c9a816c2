package fsx_test

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"

	"github.com/talonhq/talon/adapters/fsx"
	"github.com/talonhq/talon/tool"
)

const editable = "alpha beta\nbeta gamma\n\tindented beta\n"

func TestEditFile(t *testing.T) {
	tests := []struct {
		name     string
		args     string
		wantText string
		wantErr  string
		want     string // the file's content afterwards; "" means unchanged
		wantData *fsx.EditFileData
	}{
		{name: "single replacement", args: `{"path":"e.txt","old_string":"alpha","new_string":"ALPHA"}`,
			wantText: "replaced 1 occurrence in e.txt", want: "ALPHA beta\nbeta gamma\n\tindented beta\n",
			wantData: &fsx.EditFileData{Path: "e.txt", Replacements: 1}},
		{name: "unique with context", args: `{"path":"e.txt","old_string":"beta gamma","new_string":"delta"}`,
			wantText: "replaced 1 occurrence in e.txt", want: "alpha beta\ndelta\n\tindented beta\n"},
		{name: "multi-line", args: `{"path":"e.txt","old_string":"beta\nbeta","new_string":"b\nb"}`,
			wantText: "replaced 1 occurrence in e.txt", want: "alpha b\nb gamma\n\tindented beta\n"},
		{name: "delete text", args: `{"path":"e.txt","old_string":"\tindented beta\n","new_string":""}`,
			wantText: "replaced 1 occurrence in e.txt", want: "alpha beta\nbeta gamma\n"},
		{name: "replace all", args: `{"path":"e.txt","old_string":"beta","new_string":"BETA","replace_all":true}`,
			wantText: "replaced 3 occurrences in e.txt", want: "alpha BETA\nBETA gamma\n\tindented BETA\n",
			wantData: &fsx.EditFileData{Path: "e.txt", Replacements: 3}},
		{name: "replace all of a unique string", args: `{"path":"e.txt","old_string":"gamma","new_string":"G","replace_all":true}`,
			wantText: "replaced 1 occurrence in e.txt", want: "alpha beta\nbeta G\n\tindented beta\n"},
		{name: "through a link inside edits the target", args: `{"path":"alias.go","old_string":"hi","new_string":"bye"}`,
			wantText: "replaced 1 occurrence in src/main.go"},
		{name: "ambiguous", args: `{"path":"e.txt","old_string":"beta","new_string":"x"}`,
			wantErr: "old_string occurs 3 times in e.txt: add surrounding lines to make it unique, or set replace_all to true"},
		{name: "absent", args: `{"path":"e.txt","old_string":"omega","new_string":"x"}`,
			wantErr: "old_string was not found in e.txt: it must match exactly, including whitespace and indentation; check the text with file_read"},
		{name: "whitespace differs", args: `{"path":"e.txt","old_string":"    indented","new_string":"x"}`, wantErr: "was not found"},
		{name: "empty old_string", args: `{"path":"e.txt","old_string":"","new_string":"x"}`, wantErr: "old_string is empty"},
		{name: "identical strings", args: `{"path":"e.txt","old_string":"alpha","new_string":"alpha"}`, wantErr: "identical"},
		{name: "missing new_string", args: `{"path":"e.txt","old_string":"alpha"}`, wantErr: "old_string and new_string are required"},
		{name: "missing path", args: `{"old_string":"a","new_string":"b"}`, wantErr: "path is required"},
		{name: "missing file", args: `{"path":"nope.txt","old_string":"a","new_string":"b"}`, wantErr: "nope.txt does not exist"},
		{name: "directory", args: `{"path":"src","old_string":"a","new_string":"b"}`, wantErr: "src is a directory"},
		{name: "binary", args: `{"path":"bin.dat","old_string":"TODO","new_string":"DONE"}`, wantErr: "bin.dat looks like a binary file"},
		{name: "too large", args: `{"path":"big.txt","old_string":"a","new_string":"b"}`, wantErr: "big.txt is 101 bytes; file_edit changes files up to 100 bytes"},
		{name: "dotdot escape", args: `{"path":"../outside/secret.txt","old_string":"TODO","new_string":"x"}`, wantErr: "is outside the workspace"},
		{name: "link to a file outside", args: `{"path":"link-out-file","old_string":"TODO","new_string":"x"}`, wantErr: "through a symbolic link"},
		{name: "under a link to a dir outside", args: `{"path":"link-out-dir/secret.txt","old_string":"TODO","new_string":"x"}`, wantErr: "through a symbolic link"},
		{name: "unknown argument", args: `{"path":"e.txt","old_string":"a","new_string":"b","count":1}`, wantErr: "invalid arguments"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.write(t, "e.txt", editable)
			f.write(t, "big.txt", string(bytes.Repeat([]byte("a"), 101)))
			before := snapshot(t, f)
			res := call(t, fsx.NewEditFile(f.root, fsx.EditFileOptions{MaxFileBytes: 100}), tt.args)
			expect(t, res, tt.wantText, tt.wantErr)
			if tt.wantData != nil && !reflect.DeepEqual(res.Output.Data, *tt.wantData) {
				t.Errorf("data = %+v\nwant   %+v", res.Output.Data, *tt.wantData)
			}
			if tt.want != "" {
				if got := f.read(t, "e.txt"); got != tt.want {
					t.Errorf("content = %q\nwant      %q", got, tt.want)
				}
			}
			if tt.wantErr != "" {
				// A failed edit changes nothing and leaves no temporary file.
				if after := snapshot(t, f); !reflect.DeepEqual(before, after) {
					t.Errorf("the workspace changed on a failed edit:\nbefore %q\nafter  %q", before, after)
				}
			}
			f.secretsIntact(t)
		})
	}
}

// snapshot maps every regular file of the workspace (links not followed)
// to its content.
func snapshot(t *testing.T, f *fixture) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(f.ws, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[f.root.Rel(p)] = string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestEditFileReplacesAtomically shows the edit swaps in a new file rather
// than rewriting the old one in place: a reader that opened the file before
// the edit still sees the whole old content, and the mode is kept.
func TestEditFileReplacesAtomically(t *testing.T) {
	f := newFixture(t)
	f.write(t, "e.txt", editable)
	if runtime.GOOS != "windows" {
		if err := os.Chmod(f.path("e.txt"), 0o750); err != nil {
			t.Fatal(err)
		}
	}
	reader, err := os.Open(f.path("e.txt"))
	if err != nil {
		t.Skipf("cannot hold the file open: %v", err)
	}
	defer reader.Close()
	expect(t, call(t, fsx.NewEditFile(f.root, fsx.EditFileOptions{}), `{"path":"e.txt","old_string":"gamma","new_string":"GAMMA"}`),
		"replaced 1 occurrence in e.txt", "")
	old, err := io.ReadAll(reader)
	if err != nil || string(old) != editable {
		t.Errorf("a reader of the old file saw %q (%v), want the old content whole", old, err)
	}
	if got := f.read(t, "e.txt"); got != "alpha beta\nbeta GAMMA\n\tindented beta\n" {
		t.Errorf("new content = %q", got)
	}
	if runtime.GOOS != "windows" {
		if fi, err := os.Stat(f.path("e.txt")); err != nil || fi.Mode().Perm() != 0o750 {
			t.Errorf("mode = %v (%v), want 0750 kept", fi.Mode().Perm(), err)
		}
	}
}

// TestEditFileWriteFailure makes the rename impossible and checks the file
// is left byte-identical.
func TestEditFileWriteFailure(t *testing.T) {
	if runtime.GOOS == "windows" || os.Geteuid() == 0 {
		t.Skip("needs a directory the process cannot write to; root can write anywhere")
	}
	f := newFixture(t)
	f.write(t, "locked/e.txt", editable)
	if err := os.Chmod(f.path("locked"), 0o555); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(f.path("locked"), 0o755)
	res := call(t, fsx.NewEditFile(f.root, fsx.EditFileOptions{}), `{"path":"locked/e.txt","old_string":"alpha","new_string":"x"}`)
	expect(t, res, "", "cannot write locked/e.txt")
	if got := f.read(t, "locked/e.txt"); got != editable {
		t.Errorf("content = %q after a failed write, want it unchanged", got)
	}
}

func TestEditFileAssess(t *testing.T) {
	f := newFixture(t)
	ed := fsx.NewEditFile(f.root, fsx.EditFileOptions{})
	tests := []struct {
		name        string
		args        string
		wantPath    string
		wantSummary string
		wantDenied  bool
	}{
		{name: "single", args: `{"path":"README.md","old_string":"hello","new_string":"hi"}`, wantPath: f.path("README.md"),
			wantSummary: "edit README.md: replace the one occurrence of old_string (5 bytes) with new_string (2 bytes)"},
		{name: "all", args: `{"path":"alias.go","old_string":"x","new_string":"y","replace_all":true}`, wantPath: f.path("src/main.go"),
			wantSummary: "edit src/main.go: replace every occurrence of old_string (1 byte) with new_string (1 byte)"},
		{name: "escape is denied", args: `{"path":"link-out-file","old_string":"x","new_string":"y"}`, wantPath: f.path("link-out-file"),
			wantSummary: "edit link-out-file: replace the one occurrence of old_string (1 byte) with new_string (1 byte)", wantDenied: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			as, err := ed.Assess(json.RawMessage(tt.args))
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
