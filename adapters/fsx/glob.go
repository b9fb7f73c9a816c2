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
	_ tool.Profiled = (*GlobSearch)(nil)
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
	// LeftOut counts matches left out because a protected-path rule or a
	// forbidden_paths pattern covers them (a directory counts once).
	LeftOut int `json:"left_out,omitempty"`
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
	d, err := t.root.Open(p)
	if err != nil {
		return pathFailure(p, err), nil
	}
	defer d.Close()
	dir := d.Name()
	rel := t.root.Rel(dir)
	fi, err := d.Stat()
	if err != nil {
		return tool.Failure("cannot list %s: %v", where(rel), err), nil
	}
	if !fi.IsDir() {
		return tool.Failure("%s is a file, not a directory: set path to a directory, or use file_read to read the file", rel), nil
	}

	// The walk starts in the directory just opened and checked (or one
	// below it, opened from it), so no path is resolved again.
	start, ok := t.walkStart(d, pattern)
	var files []string
	truncated := false
	dropped := 0
	if ok {
		if start != d {
			defer start.Close()
		}
		err = t.root.WalkOpen(ctx, start, walkOptions(t.root, t.log), func(e workspace.Entry) error {
			r, err := filepath.Rel(dir, e.Path)
			if err != nil {
				return nil
			}
			r = filepath.ToSlash(r)
			if e.Refused != nil {
				if (e.Dir && couldEnter(pattern, r)) || (!e.Dir && doublestar.MatchUnvalidated(pattern, r)) {
					dropped++
				}
				return nil
			}
			if doublestar.MatchUnvalidated(pattern, r) {
				files = append(files, t.root.Rel(e.Path))
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
			return pathFailure(p, err), nil
		}
	}
	sort.Strings(files)

	data := GlobSearchData{Pattern: pattern, Path: rel, Files: files, Truncated: truncated}
	if data.Files == nil {
		data.Files = []string{}
	}
	data.LeftOut = dropped
	var text string
	if len(files) == 0 {
		text = fmt.Sprintf("no files match %q in %s", pattern, where(rel))
	} else {
		text = strings.Join(files, "\n")
	}
	if truncated {
		text += fmt.Sprintf("\n\n(showing the first %s; narrow the pattern or set path to a subdirectory)", plural(limit, "match", "matches"))
	}
	if dropped > 0 {
		text += "\n\n(" + leftOut(dropped) + ")"
	}
	return tool.Result{Success: true, Output: tool.Output{Text: text, Data: data}}, nil
}

// walkStart narrows the walk to the pattern's literal leading directories
// ("src/app" for "src/app/**/*.go"), opened from d without following a
// link. It falls back to d when that prefix passes through a symbolic link
// or .git, which a full walk would not enter either, or is refused by
// policy, which a full walk reports, and reports false when the prefix
// does not exist.
func (t *GlobSearch) walkStart(d *os.File, pattern string) (*os.File, bool) {
	base, _ := doublestar.SplitPattern(pattern)
	if base == "." || base == "" || strings.ContainsRune(base, '\\') || slices.Contains(strings.Split(base, "/"), ".git") {
		return d, true
	}
	sub, err := t.root.OpenDirIn(d, base)
	switch {
	case err == nil:
		return sub, true
	case errors.Is(err, workspace.ErrProtected), errors.Is(err, workspace.ErrForbidden), errors.Is(err, workspace.ErrLinkOnTheWay):
		return d, true
	}
	return nil, false
}

// couldEnter reports whether a pattern could match something below the
// directory rel (both relative to the searched directory).
func couldEnter(pattern, rel string) bool {
	ps := strings.Split(pattern, "/")
	for i, d := range strings.Split(rel, "/") {
		if i >= len(ps)-1 {
			return slices.Contains(ps, "**")
		}
		if ps[i] == "**" {
			return true
		}
		if ok, _ := doublestar.Match(ps[i], d); !ok {
			return false
		}
	}
	return true
}

// leftOut is the note on results that policy removed.
func leftOut(n int) string {
	return plural(n, "path", "paths") + " left out: protected or forbidden by policy"
}

// walkOptions logs what a walk skips.
func walkOptions(root *workspace.Root, log zerolog.Logger) workspace.WalkOptions {
	return workspace.WalkOptions{Skipped: func(path string, err error) {
		log.Debug().Err(err).Str("path", root.Rel(path)).Msg("skipping unreadable entry")
	}}
}

// ForProfile returns the tool leaving out the profile's forbidden_paths
// too.
func (t *GlobSearch) ForProfile(p tool.ProfileSettings) (tool.Tool, error) {
	root, err := t.root.WithForbidden(p.ForbiddenPaths)
	if err != nil {
		return nil, err
	}
	c := *t
	c.root = root
	return &c, nil
}
