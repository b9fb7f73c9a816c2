package workspace

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// Pattern is a compiled forbidden_paths pattern.
type Pattern struct {
	// Text is the pattern as configured, for messages.
	Text string
	// glob says the pattern holds glob syntax.
	glob bool
	// forms are the pattern anchored, and, when its literal leading
	// directories pass through a symbolic link, anchored at the link's
	// target too: tools see real paths.
	forms []form
}

// form is one anchored form of a pattern.
type form struct {
	full string // absolute, clean, slash-separated
	base string // its literal leading directories; full itself without glob syntax
	tail string // for <base>/**/<name>: the name's glob, matched against a last component
}

func newForm(full string, glob bool) form {
	if !glob {
		return form{full: full, base: full}
	}
	base, rest := doublestar.SplitPattern(full)
	if strings.Contains(base, "\\") {
		base = "/" // escapes: no literal prefix to compare
	}
	f := form{full: full, base: base}
	if t, ok := strings.CutPrefix(rest, "**/"); ok && !strings.ContainsAny(t, "/\\") && !strings.Contains(t, "**") {
		f.tail = t
	}
	return f
}

// CompilePattern anchors a forbidden_paths pattern: "~" and a leading "~/"
// stand for home ("" means the user's home directory), an absolute pattern
// stays as it is, and a relative one is relative to the workspace
// directory ws. The pattern is a doublestar glob ("secrets/**",
// "**/*.pem"); a pattern without glob syntax names a file or a directory
// and everything below it.
//
// # Errors
//
// An empty pattern, a NUL byte, a pattern that does not compile, or a
// relative pattern when ws is "".
func CompilePattern(text, ws, home string) (Pattern, error) {
	anchored, err := AnchorPattern(text, ws, home)
	if err != nil {
		return Pattern{}, err
	}
	slash := filepath.ToSlash(anchored)
	if !doublestar.ValidatePattern(slash) {
		return Pattern{}, fmt.Errorf("forbidden_paths pattern %q does not compile: check its brackets and braces", text)
	}
	p := Pattern{Text: text, glob: strings.ContainsAny(slash, "*?[{\\")}
	f := newForm(slash, p.glob)
	p.forms = append(p.forms, f)
	if f.base != "/" {
		if real := filepath.ToSlash(resolveLoosely(filepath.FromSlash(f.base))); real != f.base {
			p.forms = append(p.forms, newForm(real+strings.TrimPrefix(slash, f.base), p.glob))
		}
	}
	return p, nil
}

// AnchorPattern returns the pattern as an absolute, clean path pattern:
// see [CompilePattern].
func AnchorPattern(text, ws, home string) (string, error) {
	switch {
	case strings.TrimSpace(text) == "":
		return "", fmt.Errorf("forbidden_paths pattern %q is empty: remove it or name a path", text)
	case strings.IndexByte(text, 0) >= 0:
		return "", fmt.Errorf("forbidden_paths pattern %q contains a NUL byte", text)
	}
	p := text
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home == "" {
			h, err := os.UserHomeDir()
			if err != nil {
				return "", fmt.Errorf("forbidden_paths pattern %q: %w; write it absolute", text, err)
			}
			home = h
		}
		p = filepath.Join(home, strings.TrimPrefix(p, "~"))
	}
	if filepath.IsAbs(p) {
		return filepath.Clean(p), nil
	}
	if ws == "" {
		return "", fmt.Errorf("forbidden_paths pattern %q is relative and the workspace is unknown", text)
	}
	return filepath.Join(ws, p), nil
}

// Match reports whether abs, a clean absolute path, is forbidden: it is
// the pattern's path or lies below it, or it or one of its directories
// matches the pattern as a glob.
func (p Pattern) Match(abs string) bool {
	s := filepath.ToSlash(abs)
	for _, f := range p.forms {
		if p.matchOne(f, abs, s) {
			return true
		}
		if !p.glob {
			continue
		}
		// A pattern that matches a directory covers what is below it.
		for dir := parentDir(s); under(dir, f.base); dir = parentDir(dir) {
			if p.matchOne(f, dir, dir) {
				return true
			}
			if dir == "/" {
				break
			}
		}
	}
	return false
}

// matchSelf is Match for a path whose parent directories are known not
// to match (a walk checked them on the way down): a glob is matched
// against abs alone.
func (p Pattern) matchSelf(abs string) bool {
	s := filepath.ToSlash(abs)
	for _, f := range p.forms {
		if p.matchOne(f, abs, s) {
			return true
		}
	}
	return false
}

// matchOne matches the slash path s (abs, with the platform's
// separators) against one form.
func (p Pattern) matchOne(f form, abs, s string) bool {
	if under(s, f.full) {
		return true
	}
	if !p.glob {
		return foldCase && underPath(abs, filepath.FromSlash(f.full))
	}
	if !under(s, f.base) {
		return false
	}
	if f.tail != "" {
		// <base>/**/<name>: below base, with a last component that matches.
		return len(s) > len(f.base) && doublestar.MatchUnvalidated(f.tail, s[strings.LastIndexByte(s, '/')+1:])
	}
	return doublestar.MatchUnvalidated(f.full, s)
}

// under reports whether the slash path s is pat or lies below it.
func under(s, pat string) bool {
	return s == pat || (strings.HasPrefix(s, pat) && (strings.HasSuffix(pat, "/") || s[len(pat)] == '/'))
}

// parentDir is path.Dir for a clean absolute slash path.
func parentDir(s string) string {
	i := strings.LastIndexByte(s, '/')
	if i <= 0 {
		return "/"
	}
	return s[:i]
}
