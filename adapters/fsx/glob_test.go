package fsx_test

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/talonhq/talon/adapters/fsx"
)

func lines(s ...string) string { return strings.Join(s, "\n") }

func TestGlobSearch(t *testing.T) {
	f := newFixture(t)
	f.write(t, "a-b/c.go", "package c\n")
	gs := fsx.NewGlobSearch(f.root, fsx.GlobSearchOptions{})
	two := fsx.NewGlobSearch(f.root, fsx.GlobSearchOptions{MaxResults: 2})
	tests := []struct {
		name     string
		tool     *fsx.GlobSearch
		args     string
		wantText string
		wantErr  string
		wantData *fsx.GlobSearchData
	}{
		{name: "recursive", args: `{"pattern":"**/*.go"}`,
			wantText: lines("a-b/c.go", "alias.go", "src/main.go", "src/util/strings.go"),
			wantData: &fsx.GlobSearchData{Pattern: "**/*.go", Path: ".", Files: []string{"a-b/c.go", "alias.go", "src/main.go", "src/util/strings.go"}}},
		{name: "top level only", args: `{"pattern":"*.md"}`, wantText: "README.md"},
		{name: "any depth", args: `{"pattern":"**/*.md"}`, wantText: lines("README.md", "docs/guide.md")},
		{name: "alternatives", args: `{"pattern":"{docs,src}/*.{md,go}"}`, wantText: lines("docs/guide.md", "src/main.go")},
		{name: "leading ./ is ignored", args: `{"pattern":"./src/*.go"}`, wantText: "src/main.go"},
		{name: "literal prefix", args: `{"pattern":"src/util/*"}`, wantText: "src/util/strings.go"},
		{name: "literal prefix that is missing", args: `{"pattern":"nope/**/*.go"}`, wantText: `no files match "nope/**/*.go" in the workspace`},
		{name: "relative to path", args: `{"pattern":"*.go","path":"src"}`, wantText: "src/main.go",
			wantData: &fsx.GlobSearchData{Pattern: "*.go", Path: "src", Files: []string{"src/main.go"}}},
		{name: "path through a link inside", args: `{"pattern":"*.go","path":"link-in-dir"}`, wantText: "src/main.go"},
		{name: "everything skips .git and escapes", args: `{"pattern":"**"}`,
			wantText: lines("README.md", "a-b/c.go", "alias.go", "bin.dat", "docs/guide.md", "src/main.go", "src/util/strings.go")},
		{name: "git only by name", args: `{"pattern":".git/*"}`, wantText: `no files match ".git/*" in the workspace`},
		{name: "no descent into a link to a dir inside", args: `{"pattern":"link-in-dir/**"}`, wantText: `no files match "link-in-dir/**" in the workspace`},
		{name: "no descent into a link to a dir outside", args: `{"pattern":"link-out-dir/*"}`, wantText: `no files match "link-out-dir/*" in the workspace`},
		{name: "link to a file outside is not listed", args: `{"pattern":"l*"}`, wantText: `no files match "l*" in the workspace`},
		{name: "no match", args: `{"pattern":"*.rs","path":"src"}`, wantText: `no files match "*.rs" in src`},
		{name: "capped by the call", args: `{"pattern":"**/*.go","max_results":1}`,
			wantText: "a-b/c.go\n\n(showing the first 1 match; narrow the pattern or set path to a subdirectory)",
			wantData: &fsx.GlobSearchData{Pattern: "**/*.go", Path: ".", Files: []string{"a-b/c.go"}, Truncated: true}},
		{name: "exactly at the cap", args: `{"pattern":"*.md","max_results":1}`, wantText: "README.md"},
		{name: "capped by the options", tool: two, args: `{"pattern":"**/*.go","max_results":50}`,
			wantText: "a-b/c.go\nalias.go\n\n(showing the first 2 matches; narrow the pattern or set path to a subdirectory)"},
		{name: "invalid pattern", args: `{"pattern":"src/[a"}`, wantErr: `invalid pattern "src/[a"`},
		{name: "absolute pattern", args: `{"pattern":"/etc/*"}`, wantErr: "is absolute"},
		{name: "dotdot pattern", args: `{"pattern":"../outside/*"}`, wantErr: "contains '..': set path"},
		{name: "path is a file", args: `{"pattern":"*","path":"README.md"}`, wantErr: "README.md is a file, not a directory"},
		{name: "missing path", args: `{"pattern":"*","path":"nope"}`, wantErr: "nope does not exist"},
		{name: "path escapes", args: `{"pattern":"*","path":".."}`, wantErr: "outside the workspace"},
		{name: "path is a link to a dir outside", args: `{"pattern":"*","path":"link-out-dir"}`, wantErr: "through a symbolic link"},
		{name: "missing pattern", args: `{}`, wantErr: "pattern is required"},
		{name: "bad max_results", args: `{"pattern":"*","max_results":0}`, wantErr: "max_results must be at least 1"},
		{name: "unknown argument", args: `{"pattern":"*","recursive":true}`, wantErr: "invalid arguments"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tl := tt.tool
			if tl == nil {
				tl = gs
			}
			res := call(t, tl, tt.args)
			expect(t, res, tt.wantText, tt.wantErr)
			if tt.wantData != nil && !reflect.DeepEqual(res.Output.Data, *tt.wantData) {
				t.Errorf("data = %+v\nwant   %+v", res.Output.Data, *tt.wantData)
			}
		})
	}
}

func TestGlobSearchCancelled(t *testing.T) {
	f := newFixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := fsx.NewGlobSearch(f.root, fsx.GlobSearchOptions{}).Execute(ctx, json.RawMessage(`{"pattern":"**"}`))
	if err == nil {
		t.Error("a cancelled call must return the context error")
	}
}

func TestGlobSearchAssess(t *testing.T) {
	f := newFixture(t)
	gs := fsx.NewGlobSearch(f.root, fsx.GlobSearchOptions{})
	as, err := gs.Assess(json.RawMessage(`{"pattern":"*"}`))
	if err != nil || as.Denied || len(as.Paths) != 1 || as.Paths[0] != f.ws {
		t.Errorf("default path: %+v, %v", as, err)
	}
	as, err = gs.Assess(json.RawMessage(`{"pattern":"*","path":"link-out-dir"}`))
	if err != nil || !as.Denied {
		t.Errorf("link outside: %+v, %v; want denied", as, err)
	}
}
