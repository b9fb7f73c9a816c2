package fsx_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/talonhq/talon/adapters/fsx"
	"github.com/talonhq/talon/tool"
)

func numbered(from int, lines ...string) string {
	var b strings.Builder
	for i, l := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%6d\t%s", from+i, l)
	}
	return b.String()
}

func intp(n int) *int { return &n }

func TestReadFile(t *testing.T) {
	f := newFixture(t)
	var ten []string
	for i := 1; i <= 10; i++ {
		ten = append(ten, fmt.Sprintf("line %d", i))
	}
	f.write(t, "ten.txt", strings.Join(ten, "\n")+"\n")
	f.write(t, "empty.txt", "")
	f.write(t, "nonl.txt", "a\nb")
	f.write(t, "crlf.txt", "a\r\nb\r\n")
	f.write(t, "eight.txt", "1234567\n1234567\n1234567\n")
	f.write(t, "long.txt", strings.Repeat("x", 30)+"\nshort\n")
	f.write(t, "runes.txt", strings.Repeat("é", 10)+"\n")
	f.write(t, "nul.txt", "text\x00more")
	f.write(t, "latin1.txt", "caf\xe9\n")
	// A two-byte character straddles the 8 KiB sniff boundary.
	f.write(t, "boundary.txt", strings.Repeat("a", 8191)+"é\n")
	f.write(t, "late-binary.txt", strings.Repeat("a\n", 5000)+"\x00\n")

	small := fsx.NewReadFile(f.root, fsx.ReadFileOptions{MaxBytes: 20})
	tiny := fsx.NewReadFile(f.root, fsx.ReadFileOptions{MaxBytes: 11})
	def := fsx.NewReadFile(f.root, fsx.ReadFileOptions{})
	tests := []struct {
		name     string
		tool     *fsx.ReadFile
		args     string
		wantText string
		wantErr  string
		wantData *fsx.ReadFileData
	}{
		{name: "whole file", args: `{"path":"README.md"}`, wantText: numbered(1, "hello", "world"),
			wantData: &fsx.ReadFileData{Path: "README.md", Offset: 1, Lines: 2, TotalLines: intp(2)}},
		{name: "nested file", args: `{"path":"src/main.go","limit":1}`,
			wantText: numbered(1, "package main") + "\n\n(showing lines 1-1 of 5; read on with offset 2)",
			wantData: &fsx.ReadFileData{Path: "src/main.go", Offset: 1, Lines: 1, TotalLines: intp(5), Truncated: true}},
		{name: "offset and limit", args: `{"path":"ten.txt","offset":3,"limit":2}`,
			wantText: numbered(3, "line 3", "line 4") + "\n\n(showing lines 3-4 of 10; read on with offset 5)",
			wantData: &fsx.ReadFileData{Path: "ten.txt", Offset: 3, Lines: 2, TotalLines: intp(10), Truncated: true}},
		{name: "offset to the end", args: `{"path":"ten.txt","offset":9}`, wantText: numbered(9, "line 9", "line 10"),
			wantData: &fsx.ReadFileData{Path: "ten.txt", Offset: 9, Lines: 2, TotalLines: intp(10)}},
		{name: "limit equal to the rest", args: `{"path":"ten.txt","offset":9,"limit":2}`, wantText: numbered(9, "line 9", "line 10"),
			wantData: &fsx.ReadFileData{Path: "ten.txt", Offset: 9, Lines: 2, TotalLines: intp(10)}},
		{name: "offset past the end", args: `{"path":"ten.txt","offset":20}`,
			wantErr: "offset 20 is past the end of ten.txt, which has 10 lines: use an offset from 1 to 10"},
		{name: "offset just past the end", args: `{"path":"ten.txt","offset":11}`, wantErr: "which has 10 lines"},
		{name: "empty file", args: `{"path":"empty.txt"}`, wantText: "(empty.txt is empty)",
			wantData: &fsx.ReadFileData{Path: "empty.txt", Offset: 1, TotalLines: intp(0)}},
		{name: "offset in empty file", args: `{"path":"empty.txt","offset":2}`, wantErr: "past the end of empty.txt, which is empty"},
		{name: "last line without newline", args: `{"path":"nonl.txt"}`, wantText: numbered(1, "a", "b")},
		{name: "carriage returns kept", args: `{"path":"crlf.txt"}`, wantText: numbered(1, "a\r", "b\r")},
		{name: "byte cap between lines", tool: small, args: `{"path":"eight.txt"}`,
			wantText: numbered(1, "1234567", "1234567") + "\n\n(output reached max_bytes (20) before line 3; read on with offset 3)",
			wantData: &fsx.ReadFileData{Path: "eight.txt", Offset: 1, Lines: 2, Truncated: true}},
		{name: "byte cap inside the first line", tool: small, args: `{"path":"long.txt"}`,
			wantText: numbered(1, strings.Repeat("x", 20)) + "\n\n(line 1 is longer than max_bytes (20); showing its first 20 bytes; read on with offset 2)"},
		{name: "byte cap never splits a character", tool: tiny, args: `{"path":"runes.txt"}`,
			wantText: numbered(1, strings.Repeat("é", 5)) + "\n\n(line 1 is longer than max_bytes (11); showing its first 10 bytes; read on with offset 2)"},
		{name: "byte cap after offset", tool: small, args: `{"path":"long.txt","offset":2}`, wantText: numbered(2, "short")},
		{name: "character across the sniff boundary", args: `{"path":"boundary.txt"}`, wantText: numbered(1, strings.Repeat("a", 8191)+"é")},
		{name: "only the first 8 KiB decide binary", args: `{"path":"late-binary.txt","offset":5001}`, wantText: numbered(5001, "\x00")},
		{name: "nul byte", args: `{"path":"nul.txt"}`, wantErr: "nul.txt looks like a binary file"},
		{name: "invalid utf-8", args: `{"path":"latin1.txt"}`, wantErr: "file_read only reads text files"},
		{name: "binary data file", args: `{"path":"bin.dat"}`, wantErr: "binary"},
		{name: "directory", args: `{"path":"src"}`, wantErr: "src is a directory: file_read reads files; use glob_search"},
		{name: "workspace root", args: `{"path":"."}`, wantErr: ". is a directory"},
		{name: "missing file", args: `{"path":"nope.md"}`, wantErr: "nope.md does not exist in the workspace: check the path with glob_search"},
		{name: "dotdot escape", args: `{"path":"../outside/secret.txt"}`, wantErr: "is outside the workspace: paths must stay inside the workspace " + f.ws},
		{name: "absolute path outside", args: argsJSON(t, map[string]string{"path": f.outside + "/secret.txt"}), wantErr: "outside the workspace"},
		{name: "absolute path inside", args: argsJSON(t, map[string]string{"path": f.ws + "/README.md"}), wantText: numbered(1, "hello", "world")},
		{name: "symlink to file outside", args: `{"path":"link-out-file"}`, wantErr: "leads outside the workspace through a symbolic link"},
		{name: "symlink to dir outside", args: `{"path":"link-out-dir/secret.txt"}`, wantErr: "outside the workspace"},
		{name: "symlink to file inside", args: `{"path":"alias.go","limit":1}`,
			wantText: numbered(1, "package main") + "\n\n(showing lines 1-1 of 5; read on with offset 2)",
			wantData: &fsx.ReadFileData{Path: "src/main.go", Offset: 1, Lines: 1, TotalLines: intp(5), Truncated: true}},
		{name: "dangling symlink", args: `{"path":"dangling"}`, wantErr: "symbolic link points to nothing"},
		{name: "nul in path", args: `{"path":"README.md\u0000"}`, wantErr: "NUL byte"},
		{name: "empty path", args: `{"path":""}`, wantErr: "path is required"},
		{name: "missing path", args: `{}`, wantErr: "path is required"},
		{name: "offset zero", args: `{"path":"README.md","offset":0}`, wantErr: "offset must be 1 or more"},
		{name: "limit zero", args: `{"path":"README.md","limit":0}`, wantErr: "limit must be between 1 and 10000"},
		{name: "limit too large", args: `{"path":"README.md","limit":10001}`, wantErr: "limit must be between 1 and 10000"},
		{name: "unknown argument", args: `{"path":"README.md","lines":3}`, wantErr: "invalid arguments"},
		{name: "wrong type", args: `{"path":3}`, wantErr: "invalid arguments"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tl := tt.tool
			if tl == nil {
				tl = def
			}
			res := call(t, tl, tt.args)
			expect(t, res, tt.wantText, tt.wantErr)
			if tt.wantData != nil && !reflect.DeepEqual(res.Output.Data, *tt.wantData) {
				t.Errorf("data = %+v\nwant   %+v", res.Output.Data, *tt.wantData)
			}
		})
	}
}

// TestReadFileLargeFile reads near the end of a file far larger than the
// byte cap: lines before offset are streamed past, and the total is not
// claimed.
func TestReadFileLargeFile(t *testing.T) {
	f := newFixture(t)
	var b strings.Builder
	for i := 1; i <= 50000; i++ {
		fmt.Fprintf(&b, "row %d\n", i)
	}
	f.write(t, "big.txt", b.String())
	rd := fsx.NewReadFile(f.root, fsx.ReadFileOptions{MaxBytes: 1024})
	res := call(t, rd, `{"path":"big.txt","offset":49999,"limit":5}`)
	expect(t, res, numbered(49999, "row 49999", "row 50000"), "")
	if d := res.Output.Data.(fsx.ReadFileData); d.TotalLines == nil || *d.TotalLines != 50000 {
		t.Errorf("total_lines = %v, want 50000 (the call reached the end)", d.TotalLines)
	}
	res = call(t, rd, `{"path":"big.txt","offset":10,"limit":2}`)
	expect(t, res, numbered(10, "row 10", "row 11")+"\n\n(showing lines 10-11; the file goes on; read on with offset 12)", "")
	if d := res.Output.Data.(fsx.ReadFileData); d.TotalLines != nil {
		t.Errorf("total_lines = %d, want it omitted for a file over the cap", *d.TotalLines)
	}
}

func TestReadFileCancelled(t *testing.T) {
	f := newFixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := fsx.NewReadFile(f.root, fsx.ReadFileOptions{}).Execute(ctx, json.RawMessage(`{"path":"README.md"}`))
	if err == nil {
		t.Error("a cancelled call must return the context error")
	}
}

func TestReadFileAssess(t *testing.T) {
	f := newFixture(t)
	rd := fsx.NewReadFile(f.root, fsx.ReadFileOptions{})
	tests := []struct {
		name       string
		args       string
		wantPath   string
		wantDenied bool
	}{
		{name: "file", args: `{"path":"README.md"}`, wantPath: f.path("README.md")},
		{name: "link inside is resolved", args: `{"path":"alias.go"}`, wantPath: f.path("src/main.go")},
		{name: "missing file keeps the lexical path", args: `{"path":"nope/x.md"}`, wantPath: f.path("nope/x.md")},
		{name: "escape is denied", args: `{"path":"../outside/secret.txt"}`, wantPath: f.outside + "/secret.txt", wantDenied: true},
		{name: "link outside is denied", args: `{"path":"link-out-file"}`, wantPath: f.path("link-out-file"), wantDenied: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			as, err := rd.Assess(json.RawMessage(tt.args))
			if err != nil {
				t.Fatal(err)
			}
			if as.Tier != tool.Low || as.Denied != tt.wantDenied {
				t.Errorf("assessment = %+v, want tier low, denied %v", as, tt.wantDenied)
			}
			if len(as.Paths) != 1 || as.Paths[0] != tt.wantPath {
				t.Errorf("paths = %v, want [%s]", as.Paths, tt.wantPath)
			}
			if tt.wantDenied && (len(as.Reasons) == 0 || !strings.Contains(as.Reasons[0], "outside the workspace")) {
				t.Errorf("reasons = %v, want why", as.Reasons)
			}
		})
	}
	if _, err := rd.Assess(json.RawMessage(`{"path":`)); err == nil {
		t.Error("Assess accepted malformed arguments")
	}
}
