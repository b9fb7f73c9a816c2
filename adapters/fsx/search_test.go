package fsx_test

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/talonhq/talon/adapters/fsx"
)

func TestContentSearch(t *testing.T) {
	f := newFixture(t)
	f.write(t, "ctx.txt", lines("a", "match 1", "b", "c", "d", "e", "match 2", "match 3", "f", "")+"\n")
	f.write(t, "crlf.txt", "end here\r\nnext\r\n")
	f.write(t, "wide.txt", strings.Repeat("x", 2100)+"needle\n")
	f.write(t, "huge.txt", strings.Repeat("needle\n", 20))
	cs := fsx.NewContentSearch(f.root, fsx.ContentSearchOptions{})
	small := fsx.NewContentSearch(f.root, fsx.ContentSearchOptions{MaxFileBytes: 100, MaxResults: 3})
	tests := []struct {
		name     string
		tool     *fsx.ContentSearch
		args     string
		wantText string
		wantErr  string
		wantData *fsx.ContentSearchData
	}{
		{name: "sorted, skips .git, binary and escapes", args: `{"pattern":"TODO"}`,
			wantText: lines("docs/guide.md:2:TODO write", "src/util/strings.go:3:// TODO: more helpers") + "\n\n(1 binary file also matches; binary files are not shown)",
			wantData: &fsx.ContentSearchData{Pattern: "TODO", Path: ".", Matches: 2, Files: 2, BinaryMatches: 1}},
		{name: "case sensitive by default", args: `{"pattern":"todo write"}`, wantText: `no matches for "todo write" in the workspace`},
		{name: "case insensitive", args: `{"pattern":"todo write","case_sensitive":false}`, wantText: "docs/guide.md:2:TODO write"},
		{name: "include globs", args: `{"pattern":"TODO","include":["**/*.go"]}`, wantText: "src/util/strings.go:3:// TODO: more helpers"},
		{name: "several include globs", args: `{"pattern":"TODO","include":["docs/*","*.go"]}`, wantText: "docs/guide.md:2:TODO write"},
		{name: "include matches workspace-relative paths", args: `{"pattern":"TODO","path":"src","include":["src/util/*.go"]}`,
			wantText: "src/util/strings.go:3:// TODO: more helpers"},
		{name: "link to a file inside is searched", args: `{"pattern":"println"}`,
			wantText: lines(`alias.go:4:	println("hi")`, `src/main.go:4:	println("hi")`)},
		{name: "link to a dir inside is not descended", args: `{"pattern":"package util"}`, wantText: "src/util/strings.go:1:package util"},
		{name: "links outside are never searched", args: `{"pattern":"outside"}`, wantText: `no matches for "outside" in the workspace`},
		{name: "single file", args: `{"pattern":"o","path":"README.md"}`, wantText: lines("README.md:1:hello", "README.md:2:world"),
			wantData: &fsx.ContentSearchData{Pattern: "o", Path: "README.md", Matches: 2, Files: 1}},
		{name: "single file ignores include", args: `{"pattern":"hello","path":"README.md","include":["*.go"]}`, wantText: "README.md:1:hello"},
		{name: "sub directory", args: `{"pattern":"package","path":"src"}`, wantText: lines("src/main.go:1:package main", "src/util/strings.go:1:package util")},
		{name: "context groups", args: `{"pattern":"match","path":"ctx.txt","context":1}`,
			wantText: lines("ctx.txt-1-a", "ctx.txt:2:match 1", "ctx.txt-3-b", "--", "ctx.txt-6-e", "ctx.txt:7:match 2", "ctx.txt:8:match 3", "ctx.txt-9-f")},
		{name: "context merges adjacent groups", args: `{"pattern":"match","path":"ctx.txt","context":2}`,
			wantText: lines("ctx.txt-1-a", "ctx.txt:2:match 1", "ctx.txt-3-b", "ctx.txt-4-c", "ctx.txt-5-d", "ctx.txt-6-e", "ctx.txt:7:match 2", "ctx.txt:8:match 3", "ctx.txt-9-f", "ctx.txt-10-")},
		{name: "context across files", args: `{"pattern":"^hello|^# Guide","context":1,"include":["*.md","docs/*"]}`,
			wantText: lines("README.md:1:hello", "README.md-2-world", "--", "docs/guide.md:1:# Guide", "docs/guide.md-2-TODO write")},
		{name: "anchors work on CRLF lines", args: `{"pattern":"here$","path":"crlf.txt"}`, wantText: "crlf.txt:1:end here"},
		{name: "long lines are shortened", args: `{"pattern":"needle","path":"wide.txt"}`, wantText: "wide.txt:1:" + strings.Repeat("x", 2000) + " […]"},
		{name: "capped", args: `{"pattern":"match","path":"ctx.txt","max_results":2}`,
			wantText: "ctx.txt:2:match 1\nctx.txt:7:match 2\n\n(stopped after 2 matches; narrow the pattern, path or include to see the rest)",
			wantData: &fsx.ContentSearchData{Pattern: "match", Path: "ctx.txt", Matches: 2, Files: 1, Truncated: true}},
		{name: "exactly at the cap", args: `{"pattern":"match","path":"ctx.txt","max_results":3}`,
			wantText: "ctx.txt:2:match 1\nctx.txt:7:match 2\nctx.txt:8:match 3"},
		{name: "cap reached across files", args: `{"pattern":"package","max_results":1}`,
			wantText: "alias.go:1:package main\n\n(stopped after 1 match; narrow the pattern, path or include to see the rest)"},
		{name: "large files skipped", tool: small, args: `{"pattern":"needle"}`,
			wantText: `no matches for "needle" in the workspace` + "\n\n(skipped 2 files over 100 bytes; search them with file_read)"},
		{name: "options cap results", tool: small, args: `{"pattern":"match","path":"ctx.txt","max_results":100}`,
			wantText: "ctx.txt:2:match 1\nctx.txt:7:match 2\nctx.txt:8:match 3"},
		{name: "explicit large file", tool: small, args: `{"pattern":"needle","path":"huge.txt"}`, wantErr: "huge.txt is 140 bytes, more than the 100 bytes content_search reads"},
		{name: "explicit binary file", args: `{"pattern":"TODO","path":"bin.dat"}`, wantErr: "bin.dat looks like a binary file"},
		{name: "invalid regexp", args: `{"pattern":"func (("}`, wantErr: "invalid regular expression \"func ((\": missing closing ): `func ((`"},
		{name: "lookahead is not RE2", args: `{"pattern":"a(?=b)"}`, wantErr: "RE2 syntax"},
		{name: "invalid include", args: `{"pattern":"x","include":["[a"]}`, wantErr: `invalid include pattern "[a"`},
		{name: "context too large", args: `{"pattern":"x","context":11}`, wantErr: "context must be between 0 and 10"},
		{name: "negative context", args: `{"pattern":"x","context":-1}`, wantErr: "context must be between 0 and 10"},
		{name: "bad max_results", args: `{"pattern":"x","max_results":0}`, wantErr: "max_results must be at least 1"},
		{name: "missing pattern", args: `{"path":"src"}`, wantErr: "pattern is required"},
		{name: "missing path", args: `{"pattern":"x","path":"nope"}`, wantErr: "nope does not exist"},
		{name: "path escapes", args: `{"pattern":"TODO","path":"../outside"}`, wantErr: "outside the workspace"},
		{name: "path is a link to a dir outside", args: `{"pattern":"TODO","path":"link-out-dir"}`, wantErr: "through a symbolic link"},
		{name: "path is a link to a file outside", args: `{"pattern":"TODO","path":"link-out-file"}`, wantErr: "through a symbolic link"},
		{name: "unknown argument", args: `{"pattern":"x","regex":true}`, wantErr: "invalid arguments"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tl := tt.tool
			if tl == nil {
				tl = cs
			}
			res := call(t, tl, tt.args)
			expect(t, res, tt.wantText, tt.wantErr)
			if tt.wantData != nil && !reflect.DeepEqual(res.Output.Data, *tt.wantData) {
				t.Errorf("data = %+v\nwant   %+v", res.Output.Data, *tt.wantData)
			}
		})
	}
}

func TestContentSearchCancelled(t *testing.T) {
	f := newFixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := fsx.NewContentSearch(f.root, fsx.ContentSearchOptions{}).Execute(ctx, json.RawMessage(`{"pattern":"x"}`))
	if err == nil {
		t.Error("a cancelled call must return the context error")
	}
}

func TestContentSearchAssess(t *testing.T) {
	f := newFixture(t)
	cs := fsx.NewContentSearch(f.root, fsx.ContentSearchOptions{})
	as, err := cs.Assess(json.RawMessage(`{"pattern":"x","path":"src"}`))
	if err != nil || as.Denied || len(as.Paths) != 1 || as.Paths[0] != f.path("src") {
		t.Errorf("src: %+v, %v", as, err)
	}
	as, err = cs.Assess(json.RawMessage(`{"pattern":"x","path":"../outside"}`))
	if err != nil || !as.Denied {
		t.Errorf("escape: %+v, %v; want denied", as, err)
	}
}
