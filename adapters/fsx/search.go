package fsx

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"regexp/syntax"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/rs/zerolog"

	"github.com/talonhq/talon/tool"
	"github.com/talonhq/talon/workspace"
)

// Limits of content_search.
const (
	// DefaultSearchMaxResults is content_search's cap on matching lines
	// when [ContentSearchOptions.MaxResults] is zero.
	DefaultSearchMaxResults = 200
	// DefaultSearchMaxFileBytes is the largest file searched when
	// [ContentSearchOptions.MaxFileBytes] is zero.
	DefaultSearchMaxFileBytes = 10 << 20
	// MaxSearchContext is the most context lines a call may ask for.
	MaxSearchContext = 10
	// maxShownLine caps the text shown for one line of output.
	maxShownLine = 2000
)

// ContentSearchOptions configures [ContentSearch]. The zero value is the
// default.
type ContentSearchOptions struct {
	// MaxResults is both the default and the largest max_results a call
	// may ask for; zero means [DefaultSearchMaxResults].
	MaxResults int
	// MaxFileBytes is the largest file searched; larger files are skipped.
	// Zero means [DefaultSearchMaxFileBytes].
	MaxFileBytes int64
	// Logger receives debug lines about skipped entries; the zero value
	// discards them.
	Logger zerolog.Logger
}

// ContentSearch is the content_search tool: it searches text files for
// lines matching an RE2 regular expression and prints them grep-style,
// "path:line:text", with "path-line-text" for context lines and "--"
// between groups. Files are searched in sorted order of their
// workspace-relative paths; binary files, files over the size cap and .git
// are skipped.
type ContentSearch struct {
	root     *workspace.Root
	max      int
	maxBytes int64
	log      zerolog.Logger
	schema   json.RawMessage
}

var (
	_ tool.Tool     = (*ContentSearch)(nil)
	_ tool.Assessor = (*ContentSearch)(nil)
	_ tool.Profiled = (*ContentSearch)(nil)
)

// ForProfile returns the tool leaving out the profile's forbidden_paths
// too.
func (t *ContentSearch) ForProfile(p tool.ProfileSettings) (tool.Tool, error) {
	root, err := t.root.WithForbidden(p.ForbiddenPaths)
	if err != nil {
		return nil, err
	}
	c := *t
	c.root = root
	return &c, nil
}

// NewContentSearch returns the content_search tool confined to root.
func NewContentSearch(root *workspace.Root, opts ContentSearchOptions) *ContentSearch {
	limit := opts.MaxResults
	if limit <= 0 {
		limit = DefaultSearchMaxResults
	}
	maxBytes := opts.MaxFileBytes
	if maxBytes <= 0 {
		maxBytes = DefaultSearchMaxFileBytes
	}
	schema := fmt.Sprintf(`{"type":"object","properties":{`+
		`"pattern":{"type":"string","minLength":1},`+
		`"path":{"type":"string","minLength":1},`+
		`"include":{"type":"array","items":{"type":"string","minLength":1}},`+
		`"context":{"type":"integer","minimum":0,"maximum":%d,"default":0},`+
		`"case_sensitive":{"type":"boolean","default":true},`+
		`"max_results":{"type":"integer","minimum":1,"maximum":%d,"default":%d}},`+
		`"required":["pattern"],"additionalProperties":false}`, MaxSearchContext, limit, limit)
	return &ContentSearch{root: root, max: limit, maxBytes: maxBytes, log: opts.Logger, schema: json.RawMessage(schema)}
}

// Spec describes content_search.
func (t *ContentSearch) Spec() tool.Spec {
	return tool.Spec{
		Name:        "content_search",
		Input:       t.schema,
		Tier:        tool.Low,
		Attribution: tool.Attribution{Kind: tool.KindBuiltin, Alias: "content_search"},
	}
}

// ContentSearchData is content_search's Output.Data.
type ContentSearchData struct {
	Pattern string `json:"pattern"`
	// Path is the searched file or directory, workspace-relative.
	Path string `json:"path"`
	// Matches is the number of matching lines returned.
	Matches int `json:"matches"`
	// Files is the number of files with at least one returned match.
	Files int `json:"files"`
	// Truncated says more lines matched than were returned.
	Truncated bool `json:"truncated"`
	// BinaryMatches counts binary files that match but are not shown.
	BinaryMatches int `json:"binary_matches,omitempty"`
	// SkippedLarge counts files over the size cap, which were not read.
	SkippedLarge int `json:"skipped_large,omitempty"`
	// LeftOut counts files left out because a protected-path rule or a
	// forbidden_paths pattern covers them (a directory counts once).
	LeftOut int `json:"left_out,omitempty"`
}

type searchArgs struct {
	Pattern       string   `json:"pattern"`
	Path          *string  `json:"path"`
	Include       []string `json:"include"`
	Context       *int     `json:"context"`
	CaseSensitive *bool    `json:"case_sensitive"`
	MaxResults    *int     `json:"max_results"`
}

// Assess reports the file or directory the call searches.
func (t *ContentSearch) Assess(raw json.RawMessage) (tool.Assessment, error) {
	var a searchArgs
	if err := tool.DecodeArgs(raw, &a); err != nil {
		return tool.Assessment{}, fmt.Errorf("decode content_search arguments: %w", err)
	}
	as := tool.Assessment{Tier: tool.Low}
	assessPath(t.root, searchPath(a.Path), t.root.Resolve, &as)
	return as, nil
}

// search is the state of one call.
type search struct {
	re        *regexp.Regexp
	context   int
	limit     int
	maxBytes  int64
	out       strings.Builder
	matches   int
	files     int
	truncated bool
	binary    int  // binary files that match
	sawBinary bool // a binary file was skipped
	large     int
	dropped   int // files and directories policy left out
}

// Execute runs the search.
func (t *ContentSearch) Execute(ctx context.Context, raw json.RawMessage) (tool.Result, error) {
	var a searchArgs
	if err := tool.DecodeArgs(raw, &a); err != nil {
		return argsFailure(err, `{"pattern": "func \\w+Handler", "include": ["**/*.go"]}`), nil
	}
	if a.Pattern == "" {
		return tool.Failure("pattern is required: give an RE2 regular expression such as TODO|FIXME"), nil
	}
	expr := a.Pattern
	if a.CaseSensitive != nil && !*a.CaseSensitive {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return tool.Failure("invalid regular expression %q: %v: content_search uses RE2 syntax (no lookaround or backreferences); escape special characters with a backslash", a.Pattern, unwrapRegexp(err)), nil
	}
	include := make([]string, 0, len(a.Include))
	for _, g := range a.Include {
		g, err := checkPattern(g, "include pattern")
		if err != nil {
			return tool.Failure("%v", err), nil
		}
		include = append(include, g)
	}
	s := &search{re: re, limit: t.max, maxBytes: t.maxBytes}
	if a.Context != nil {
		if *a.Context < 0 || *a.Context > MaxSearchContext {
			return tool.Failure("context must be between 0 and %d lines", MaxSearchContext), nil
		}
		s.context = *a.Context
	}
	if a.MaxResults != nil {
		if *a.MaxResults < 1 {
			return tool.Failure("max_results must be at least 1"), nil
		}
		s.limit = min(*a.MaxResults, t.max)
	}

	p := searchPath(a.Path)
	target, err := t.root.Open(p)
	if err != nil {
		return pathFailure(p, err), nil
	}
	rel := t.root.Rel(target.Name())
	fi, err := target.Stat()
	if err != nil {
		_ = target.Close()
		return t.walkFailure(ctx, rel, err)
	}
	data := ContentSearchData{Pattern: a.Pattern, Path: rel}

	if fi.Mode().IsRegular() {
		// An explicit file is searched whatever include says, and a file
		// that cannot be searched is an error rather than a silent skip.
		defer target.Close()
		if fi.Size() > t.maxBytes {
			return tool.Failure("%s is %d bytes, more than the %d bytes content_search reads: use file_read with offset and limit", rel, fi.Size(), t.maxBytes), nil
		}
		if _, err := s.searchFile(ctx, rel, func() (*os.File, error) { return target, nil }); err != nil {
			return t.walkFailure(ctx, rel, err)
		}
		if s.sawBinary {
			return tool.Failure("%s looks like a binary file: content_search only searches text files", rel), nil
		}
	} else if fi.IsDir() {
		defer target.Close()
		// The walk starts in the directory just opened and checked, and
		// visits files in the order of their paths, so the result limit
		// keeps the first matches in that order.
		err := t.root.WalkOpen(ctx, target, walkOptions(t.root, t.log), func(e workspace.Entry) error {
			r := t.root.Rel(e.Path)
			if e.Refused != nil {
				if e.Dir || len(include) == 0 || matchesAny(include, r) {
					s.dropped++
				}
				return nil
			}
			if len(include) > 0 && !matchesAny(include, r) {
				return nil
			}
			done, err := s.searchFile(ctx, r, e.Open)
			if err != nil {
				return err
			}
			if done {
				return errEnough
			}
			return nil
		})
		if err != nil && !errors.Is(err, errEnough) {
			return t.walkFailure(ctx, rel, err)
		}
	} else {
		_ = target.Close()
		return tool.Failure("%s is not a regular file or directory: give a text file or a directory", rel), nil
	}

	data.Matches, data.Files, data.Truncated = s.matches, s.files, s.truncated
	data.BinaryMatches, data.SkippedLarge, data.LeftOut = s.binary, s.large, s.dropped
	text := strings.TrimSuffix(s.out.String(), "\n")
	if s.matches == 0 {
		text = fmt.Sprintf("no matches for %q in %s", a.Pattern, where(rel))
	}
	var notes []string
	if s.truncated {
		notes = append(notes, fmt.Sprintf("stopped after %s; narrow the pattern, path or include to see the rest", plural(s.limit, "match", "matches")))
	}
	switch {
	case s.binary == 1:
		notes = append(notes, "1 binary file also matches; binary files are not shown")
	case s.binary > 1:
		notes = append(notes, fmt.Sprintf("%d binary files also match; binary files are not shown", s.binary))
	}
	if s.large > 0 {
		notes = append(notes, fmt.Sprintf("skipped %s over %d bytes; search them with file_read", plural(s.large, "file", "files"), t.maxBytes))
	}
	if s.dropped > 0 {
		notes = append(notes, leftOut(s.dropped))
	}
	for _, n := range notes {
		text += "\n\n(" + n + ")"
	}
	return tool.Result{Success: true, Output: tool.Output{Text: text, Data: data}}, nil
}

func (t *ContentSearch) walkFailure(ctx context.Context, rel string, err error) (tool.Result, error) {
	if ctx.Err() != nil {
		return tool.Result{}, ctx.Err()
	}
	return tool.Failure("cannot search %s: %v", where(rel), err), nil
}

func matchesAny(globs []string, rel string) bool {
	for _, g := range globs {
		if doublestar.MatchUnvalidated(g, rel) {
			return true
		}
	}
	return false
}

// unwrapRegexp renders a regexp error without the "error parsing regexp"
// prefix that the surrounding message already implies.
func unwrapRegexp(err error) string {
	var se *syntax.Error
	if errors.As(err, &se) {
		return fmt.Sprintf("%s: `%s`", se.Code, se.Expr)
	}
	return err.Error()
}

// searchFile searches one file, opened by open, and appends its groups to
// the output under the name rel. It reports true once the result limit is
// reached and another match was seen, so the caller can stop.
func (s *search) searchFile(ctx context.Context, rel string, open func() (*os.File, error)) (bool, error) {
	if err := ctx.Err(); err != nil {
		return true, err
	}
	fh, err := open()
	if err != nil {
		return false, nil // vanished or unreadable: nothing to report
	}
	defer fh.Close()
	if fi, err := fh.Stat(); err != nil || !fi.Mode().IsRegular() {
		return false, nil
	}
	content, err := io.ReadAll(io.LimitReader(fh, s.maxBytes+1))
	if err != nil {
		return false, nil
	}
	if int64(len(content)) > s.maxBytes {
		s.large++
		return false, nil
	}
	head := content[:min(len(content), sniffLen)]
	if looksBinary(head, len(content) > sniffLen) {
		s.sawBinary = true
		if s.re.Match(content) {
			s.binary++
		}
		return false, nil
	}

	lines := splitLines(content)
	var hits []int
	for i, line := range lines {
		if i%4096 == 4095 {
			if err := ctx.Err(); err != nil {
				return true, err
			}
		}
		if !s.re.Match(line) {
			continue
		}
		if s.matches+len(hits) == s.limit {
			s.truncated = true
			break
		}
		hits = append(hits, i)
	}
	if len(hits) > 0 {
		s.write(rel, lines, hits)
	}
	return s.truncated, nil
}

// write prints the matches of one file with their context.
func (s *search) write(rel string, lines [][]byte, hits []int) {
	isHit := make(map[int]bool, len(hits))
	for _, h := range hits {
		isHit[h] = true
	}
	for i := 0; i < len(hits); {
		lo := max(0, hits[i]-s.context)
		hi := min(len(lines)-1, hits[i]+s.context)
		j := i + 1
		for j < len(hits) && hits[j]-s.context <= hi+1 {
			hi = min(len(lines)-1, hits[j]+s.context)
			j++
		}
		if s.context > 0 && s.matches > 0 {
			s.out.WriteString("--\n")
		}
		for n := lo; n <= hi; n++ {
			sep := '-'
			if isHit[n] {
				sep = ':'
			}
			fmt.Fprintf(&s.out, "%s%c%d%c%s\n", rel, sep, n+1, sep, shown(lines[n]))
		}
		s.matches += j - i
		i = j
	}
	s.files++
}

// shown caps a line for output.
func shown(line []byte) []byte {
	if len(line) <= maxShownLine {
		return line
	}
	cut := cutUTF8(line, maxShownLine)
	out := make([]byte, 0, len(cut)+8)
	return append(append(out, cut...), " […]"...)
}

// splitLines splits text into lines without their "\n" or "\r\n"; a final
// newline does not start another line.
func splitLines(b []byte) [][]byte {
	if len(b) == 0 {
		return nil
	}
	lines := bytes.Split(b, []byte("\n"))
	if len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	for i, l := range lines {
		lines[i] = bytes.TrimSuffix(l, []byte("\r"))
	}
	return lines
}
