package fsx

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/rs/zerolog"

	"github.com/talonhq/talon/tool"
	"github.com/talonhq/talon/workspace"
)

// DefaultGlobMaxResults is glob_search's cap on results when
// [GlobSearchOptions.MaxResults] is zero.
const DefaultGlobMaxResults = 1000

// errEnough stops a walk that has found what it needs.
var errEnough = errors.New("enough results")

// GlobSearchOptions configures [GlobSearch]. The zero value is the default.
type GlobSearchOptions struct {
	// MaxResults is both the default and the largest max_results a call
	// may ask for; zero means [DefaultGlobMaxResults].
	MaxResults int
	// Logger receives debug lines about skipped entries; the zero value
	// discards them.
	Logger zerolog.Logger
}

// GlobSearch is the glob_search tool: it lists the files under a directory
// whose path, relative to that directory, matches a doublestar pattern.
// Results are workspace-relative, sorted, one per line; directories are not
// listed.
type GlobSearch struct {
	root   *workspace.Root
	max    int
	log    zerolog.Logger
	schema json.RawMessage
}

var (
	_ tool.Tool     = (*GlobSearch)(nil)
	_ tool.Assessor = (*GlobSearch)(nil)
)

// NewGlobSearch returns the glob_search tool confined to root.
func NewGlobSearch(root *workspace.Root, opts GlobSearchOptions) *GlobSearch {
	limit := opts.MaxResults
	if limit <= 0 {
		limit = DefaultGlobMaxResults
	}
	schema := fmt.Sprintf(`{"type":"object","properties":{`+
		`"pattern":{"type":"string","minLength":1},`+
		`"path":{"type":"string","minLength":1},`+
		`"max_results":{"type":"integer","minimum":1,"maximum":%d,"default":%d}},`+
		`"required":["pattern"],"additionalProperties":false}`, limit, limit)
	return &GlobSearch{root: root, max: limit, log: opts.Logger, schema: json.RawMessage(schema)}
}

// Spec describes glob_search.
func (t *GlobSearch) Spec() tool.Spec {
	return tool.Spec{
		Name:        "glob_search",
		Input:       t.schema,
		Tier:        tool.Low,
		Attribution: tool.Attribution{Kind: tool.KindBuiltin, Alias: "glob_search"},
	}
}

// GlobSearchData is glob_search's Output.Data.
type GlobSearchData struct {
	Pattern string `json:"pattern"`
	// Path is the searched directory, workspace-relative.
	Path string `json:"path"`
	// Files are the matches, workspace-relative and sorted.
	Files []string `json:"files"`
	// Truncated says more files matched than were returned.
	Truncated bool `json:"truncated"`
}

type globArgs struct {
	Pattern    string  `json:"pattern"`
	Path       *string `json:"path"`
	MaxResults *int    `json:"max_results"`
}

// Assess reports the directory the call lists.
func (t *GlobSearch) Assess(raw json.RawMessage) (tool.Assessment, error) {
	var a globArgs
	if err := tool.DecodeArgs(raw, &a); err != nil {
		return tool.Assessment{}, fmt.Errorf("decode glob_search arguments: %w", err)
	}
	as := tool.Assessment{Tier: tool.Low}
	assessPath(t.root, searchPath(a.Path), t.root.Resolve, &as)
	return as, nil
}

func searchPath(p *string) string {
	if p == nil || *p == "" {
		return "."
	}
	return *p
}

// where names a workspace-relative directory in messages.
func where(rel string) string {
	if rel == "." {
		return "the workspace"
	}
	return rel
}

// checkPattern normalizes a doublestar pattern, or says what is wrong.
func checkPattern(pattern, what string) (string, error) {
	pattern = strings.TrimPrefix(pattern, "./")
	if !doublestar.ValidatePattern(pattern) {
		return "", fmt.Errorf("invalid %s %q: check brackets and braces; use * within a name, ** across directories, {a,b} for alternatives", what, pattern)
	}
	if path.IsAbs(pattern) || filepath.IsAbs(pattern) {
		return "", fmt.Errorf("%s %q is absolute: patterns match paths relative to the searched directory; set path to choose the directory", what, pattern)
	}
	for _, seg := range strings.Split(pattern, "/") {
		if seg == ".." {
			return "", fmt.Errorf("%s %q contains '..': set path to the directory to search instead", what, pattern)
		}
	}
	return pattern, nil
}

// Execute lists the matching files.
func (t *GlobSearch) Execute(ctx context.Context, raw json.RawMessage) (tool.Result, error) {
	var a globArgs
	if err := tool.DecodeArgs(raw, &a); err != nil {
		return argsFailure(err, `{"pattern": "**/*.go", "path": "src"}`), nil
	}
	if a.Pattern == "" {
		return tool.Failure("pattern is required: give a glob such as **/*.go"), nil
	}
	pattern, err := checkPattern(a.Pattern, "pattern")
	if err != nil {
		return tool.Failure("%v", err), nil
	}
	limit := t.max
	if a.MaxResults != nil {
		if *a.MaxResults < 1 {
			return tool.Failure("max_results must be at least 1"), nil
		}
		limit = min(*a.MaxResults, t.max)
	}
	p := searchPath(a.Path)
	dir, err := t.root.Resolve(p)
	if err != nil {
		return pathFailure(p, err), nil
	}
	rel := t.root.Rel(dir)
	fi, err := os.Stat(dir)
	if err != nil {
		return pathFailure(p, err), nil
	}
	if !fi.IsDir() {
		return tool.Failure("%s is a file, not a directory: set path to a directory, or use file_read to read the file", rel), nil
	}

	start, ok := t.walkStart(dir, pattern)
	var files []string
	truncated := false
	if ok {
		err = walkFiles(ctx, t.root, start, t.log, func(found, _ string) error {
			r, err := filepath.Rel(dir, found)
			if err != nil {
				return nil
			}
			if doublestar.MatchUnvalidated(pattern, filepath.ToSlash(r)) {
				files = append(files, t.root.Rel(found))
				if len(files) > limit {
					return errEnough
				}
			}
			return nil
		})
		switch {
		case errors.Is(err, errEnough):
			truncated = true
			files = files[:limit]
		case ctx.Err() != nil:
			return tool.Result{}, ctx.Err()
		case err != nil:
			return tool.Failure("cannot list %s: %v", where(rel), err), nil
		}
	}
	sort.Strings(files)

	data := GlobSearchData{Pattern: pattern, Path: rel, Files: files, Truncated: truncated}
	if data.Files == nil {
		data.Files = []string{}
	}
	if len(files) == 0 {
		return tool.Result{Success: true, Output: tool.Output{
			Text: fmt.Sprintf("no files match %q in %s", pattern, where(rel)),
			Data: data,
		}}, nil
	}
	text := strings.Join(files, "\n")
	if truncated {
		text += fmt.Sprintf("\n\n(showing the first %s; narrow the pattern or set path to a subdirectory)", plural(limit, "match", "matches"))
	}
	return tool.Result{Success: true, Output: tool.Output{Text: text, Data: data}}, nil
}

// walkStart narrows the walk to the pattern's literal leading directories
// ("src/app" for "src/app/**/*.go"). It falls back to dir when that prefix
// passes through a symbolic link or .git, which a full walk would not
// enter either, and reports false when the prefix does not exist.
func (t *GlobSearch) walkStart(dir, pattern string) (string, bool) {
	base, _ := doublestar.SplitPattern(pattern)
	if base == "." || base == "" || strings.ContainsRune(base, '\\') || slices.Contains(strings.Split(base, "/"), ".git") {
		return dir, true
	}
	cand := filepath.Join(dir, filepath.FromSlash(base))
	real, err := filepath.EvalSymlinks(cand)
	if err != nil {
		return "", false
	}
	if real != cand {
		return dir, true
	}
	if fi, err := os.Stat(cand); err != nil || !fi.IsDir() {
		return "", false
	}
	return cand, true
}
