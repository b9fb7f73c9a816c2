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
	// abs is the pattern anchored: absolute, clean, slash-separated.
	abs string
	// glob says abs holds glob syntax.
	glob bool
	// alt is abs with the symbolic links of its literal leading
	// directories resolved, when that differs: tools see real paths.
	alt string
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
	p := Pattern{Text: text, abs: slash, glob: strings.ContainsAny(slash, "*?[{\\")}
	base, rest := slash, ""
	if p.glob {
		base, rest = doublestar.SplitPattern(slash)
	}
	if !strings.Contains(base, "\\") {
		if real := filepath.ToSlash(resolveLoosely(filepath.FromSlash(base))); real != base {
			p.alt = real
			if rest != "" {
				p.alt = strings.TrimSuffix(real, "/") + "/" + rest
			}
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
// the pattern's path or lies below it, or it matches the pattern as a
// glob. A pattern whose leading directories pass through a symbolic link
// matches the paths below the link's target too.
func (p Pattern) Match(abs string) bool {
	s := filepath.ToSlash(abs)
	if p.match(p.abs, abs, s) {
		return true
	}
	return p.alt != "" && p.match(p.alt, abs, s)
}

func (p Pattern) match(pat, abs, s string) bool {
	if under(s, pat) {
		return true
	}
	if !p.glob {
		return foldCase && underPath(abs, filepath.FromSlash(pat))
	}
	if doublestar.MatchUnvalidated(pat, s) {
		return true
	}
	// A pattern that matches a directory covers what is below it.
	for dir := parentDir(s); ; dir = parentDir(dir) {
		if doublestar.MatchUnvalidated(pat, dir) {
			return true
		}
		if dir == "/" {
			return false
		}
	}
}

// under reports whether the slash path s is pat or lies below it.
func under(s, pat string) bool {
	return s == pat || (strings.HasPrefix(s, pat) && (strings.HasSuffix(pat, "/") || s[len(pat)] == '/'))
}

// matchSelf is Match for a path whose parent directories are known not
// to match (a walk checked them on the way down): a glob is matched
// against abs alone.
func (p Pattern) matchSelf(abs string) bool {
	if !p.glob {
		return p.Match(abs)
	}
	s := filepath.ToSlash(abs)
	if under(s, p.abs) || doublestar.MatchUnvalidated(p.abs, s) {
		return true
	}
	return p.alt != "" && (under(s, p.alt) || doublestar.MatchUnvalidated(p.alt, s))
}

// parentDir is path.Dir for a clean absolute slash path.
func parentDir(s string) string {
	i := strings.LastIndexByte(s, '/')
	if i <= 0 {
		return "/"
	}
	return s[:i]
}
