package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
)

var (
	// ErrOutsideWorkspace is wrapped by every refusal of a path whose real
	// location is outside the workspace.
	ErrOutsideWorkspace = errors.New("outside the workspace")
	// ErrEmptyPath is returned for an empty path argument.
	ErrEmptyPath = errors.New("path is empty")
	// ErrInvalidPath is returned for a path no file system accepts, such as
	// one containing a NUL byte.
	ErrInvalidPath = errors.New("invalid path")
	// ErrDanglingLink is returned when a symbolic link on the way to a path
	// points to nothing, so where the path really leads cannot be checked.
	ErrDanglingLink = errors.New("symbolic link points to nothing")
	// ErrNotDirectory is returned by [New] when the workspace is not a
	// directory.
	ErrNotDirectory = errors.New("not a directory")
	// ErrProtected is wrapped by [*RefusedError] for a path under a
	// protected-path rule.
	ErrProtected = errors.New("protected path")
	// ErrForbidden is wrapped by [*RefusedError] for a path that matches
	// a forbidden_paths pattern.
	ErrForbidden = errors.New("forbidden path")
	// ErrIsDirectory is returned when a file operation names a directory.
	ErrIsDirectory = errors.New("is a directory")
	// ErrNotRegular is returned when a file operation names a device, a
	// pipe or a socket.
	ErrNotRegular = errors.New("not a regular file")
	// ErrTooManyLinks is returned for a chain of symbolic links longer
	// than [MaxLinks].
	ErrTooManyLinks = errors.New("too many levels of symbolic links")
)

// MaxLinks is the most symbolic links followed for one path.
const MaxLinks = 40

// Options configures [Open]. The zero value confines paths to the
// workspace and nothing more.
type Options struct {
	// Protected lists places no tool may read or change, and repository
	// files no tool may change, even inside the workspace.
	Protected Protected
	// Forbidden are forbidden_paths patterns (see [CompilePattern]):
	// relative ones are relative to the workspace.
	Forbidden []string
	// Home expands a leading ~/ in Forbidden; "" means the home of
	// Protected, else the user's home directory.
	Home string
	// Patterns are forbidden patterns already compiled, for patterns
	// anchored elsewhere than at this directory (a plugin's granted
	// directory refusing the workspace's forbidden_paths).
	Patterns []Pattern
}

// Root is a workspace directory that paths are confined to. It is
// immutable and safe for concurrent use.
type Root struct {
	dir       string // absolute, clean, symlink-free
	prefix    string // dir with exactly one trailing separator
	file      *os.File
	h         handle
	protected Protected
	forbidden []Pattern
	home      string
}

// New returns the workspace rooted at dir, which must exist and be a
// directory, with no protected paths or forbidden patterns. See [Open].
func New(dir string) (*Root, error) { return Open(dir, Options{}) }

// Open returns the workspace rooted at dir, which must exist and be a
// directory. A relative dir is taken from the working directory; the root
// is stored absolute and with every symbolic link resolved, so a workspace
// reached through a link is the directory the link points to. The
// directory is opened once: every later path is resolved from that open
// directory, one component at a time.
//
// # Errors
//
// A missing dir wraps [fs.ErrNotExist]; a dir that is a file wraps
// [ErrNotDirectory]; a forbidden pattern that does not compile is an
// error naming it.
func Open(dir string, opts Options) (*Root, error) {
	if dir == "" {
		return nil, fmt.Errorf("workspace: %w: set the workspace to an existing directory", ErrEmptyPath)
	}
	if strings.IndexByte(dir, 0) >= 0 {
		return nil, fmt.Errorf("workspace %q: %w: it contains a NUL byte", dir, ErrInvalidPath)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("workspace %q: %w", dir, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("workspace %q: %w: create it or set the workspace to an existing directory", dir, err)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return nil, fmt.Errorf("workspace %q: %w", dir, err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("workspace %q is %w: set the workspace to a directory", dir, ErrNotDirectory)
	}
	f, err := openRoot(real)
	if err != nil {
		return nil, fmt.Errorf("workspace %q: %w", dir, err)
	}
	prefix := real
	if !strings.HasSuffix(prefix, string(filepath.Separator)) {
		prefix += string(filepath.Separator)
	}
	home := opts.Home
	if home == "" {
		home = opts.Protected.Home()
	}
	r := &Root{dir: real, prefix: prefix, file: f, h: rootHandle(f, real), protected: opts.Protected, home: home}
	if len(opts.Forbidden) > 0 {
		if r.forbidden, err = r.compile(opts.Forbidden); err != nil {
			return nil, err
		}
	}
	r.forbidden = append(r.forbidden, opts.Patterns...)
	return r, nil
}

// WithForbidden returns a copy of r that also refuses every path matching
// one of patterns (forbidden_paths of a risk profile), replacing the
// patterns r had. The copy shares r's open directory.
func (r *Root) WithForbidden(patterns []string) (*Root, error) {
	c := *r
	var err error
	if c.forbidden, err = r.compile(patterns); err != nil {
		return nil, err
	}
	return &c, nil
}

func (r *Root) compile(patterns []string) ([]Pattern, error) {
	out := make([]Pattern, 0, len(patterns))
	for _, p := range patterns {
		cp, err := CompilePattern(p, r.dir, r.home)
		if err != nil {
			return nil, err
		}
		out = append(out, cp)
	}
	return out, nil
}

// Close closes the workspace directory. r, and every copy [Root.WithForbidden]
// made of it, can no longer be used: Close must not run before or during
// another call of r. A Root kept for the life of the process need not be
// closed.
func (r *Root) Close() error { return r.file.Close() }

// Dir returns the absolute, symlink-free workspace directory.
func (r *Root) Dir() string { return r.dir }

// Protected returns the protected-path list r enforces.
func (r *Root) Protected() Protected { return r.protected }

// Contains reports whether the absolute path real, which must already be
// symlink-free, is the workspace directory or lies below it.
func (r *Root) Contains(real string) bool {
	return real == r.dir || strings.HasPrefix(real, r.prefix)
}

// Resolve returns the real location of p, an existing file or directory,
// for reading. p is relative to the workspace or absolute; it is cleaned and
// every symbolic link on the way is resolved, including the last component.
//
// # Errors
//
//   - the real location is outside the workspace: wraps [ErrOutsideWorkspace];
//   - p, or its real location, is protected or matches a forbidden
//     pattern: a [*RefusedError] wrapping [ErrProtected] or [ErrForbidden];
//   - p does not exist: wraps [fs.ErrNotExist] (a missing path whose nearest
//     existing parent lies outside the workspace is reported as outside, so
//     nothing is revealed about places outside);
//   - p is empty or contains a NUL byte: [ErrEmptyPath], [ErrInvalidPath].
//
// # Notes
//
// The path returned is where p led at the time of the call. Use [Root.Open],
// [Root.WriteFile] and the other methods to act on a path: they resolve it
// and act on what they resolved in one step.
func (r *Root) Resolve(p string) (string, error) {
	defer runtime.KeepAlive(r.file)
	s, err := r.find(p, findOpts{follow: true, write: false})
	if err != nil {
		return "", err
	}
	defer s.close()
	if s.info == nil {
		return "", &fs.PathError{Op: "resolve", Path: p, Err: fs.ErrNotExist}
	}
	return s.abs(r), nil
}

// ResolveForWrite returns the real location at which p is to be created or
// overwritten. Parents that do not exist yet are fine: the deepest existing
// ancestor is resolved and must be inside the workspace, and the missing
// components are appended to it. When p itself is a symbolic link, it is
// resolved and its target must be inside the workspace: writing through
// "AGENTS.md -> docs/agents.md" writes docs/agents.md and keeps the link.
//
// # Errors
//
//   - the real location (or that of the deepest existing ancestor) is
//     outside the workspace: wraps [ErrOutsideWorkspace];
//   - p, or its real location, is protected (including the repository
//     files no tool may change) or matches a forbidden pattern: a
//     [*RefusedError];
//   - p, or an ancestor, is a symbolic link to nothing: wraps
//     [ErrDanglingLink];
//   - p is empty or contains a NUL byte: [ErrEmptyPath], [ErrInvalidPath].
//
// The returned path may name an existing directory; the caller decides
// whether that is an error.
func (r *Root) ResolveForWrite(p string) (string, error) {
	defer runtime.KeepAlive(r.file)
	s, err := r.find(p, findOpts{follow: true, write: true, missingOK: true})
	if err != nil {
		return "", err
	}
	defer s.close()
	return s.abs(r), nil
}

// Rel returns abs relative to the workspace with forward slashes, for
// output: "notes/a.md", or "." for the workspace itself. A path outside the
// workspace is returned absolute, with forward slashes.
func (r *Root) Rel(abs string) string {
	rel, err := filepath.Rel(r.dir, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return filepath.ToSlash(abs)
	}
	return filepath.ToSlash(rel)
}

// locate validates p and returns it cleaned and absolute, and relative to
// the workspace (slash-separated, "" for the root). A path that a
// protected-path rule or a forbidden pattern covers as given is refused by
// that rule, inside the workspace or not, so the refusal names it. A path
// outside the workspace lexically counts as inside when its existing part
// resolves into the workspace (the workspace reached through an alias);
// it is then checked where it leads, too.
func (r *Root) locate(p string, write bool) (abs, rel string, err error) {
	if p == "" {
		return "", "", fmt.Errorf("%w: give a path relative to the workspace %s", ErrEmptyPath, r.dir)
	}
	if strings.IndexByte(p, 0) >= 0 {
		return "", "", fmt.Errorf("path %q: %w: it contains a NUL byte; remove it", p, ErrInvalidPath)
	}
	if filepath.IsAbs(p) {
		abs = filepath.Clean(p)
	} else {
		abs = filepath.Join(r.dir, p)
	}
	if err := r.refuse(p, abs, "", write); err != nil {
		return "", "", err
	}
	rel, ok := r.insideRel(abs)
	if !ok {
		return abs, "", r.outside(p, abs)
	}
	if real := r.join(rel); real != abs {
		if err := r.refuse(p, real, real, write); err != nil {
			return "", "", err
		}
	}
	return abs, rel, nil
}

// join returns the absolute path of rel, a clean workspace-relative path.
func (r *Root) join(rel string) string {
	if rel == "" {
		return r.dir
	}
	return filepath.Join(r.dir, filepath.FromSlash(rel))
}

// insideRel returns abs relative to the workspace when it lies inside,
// lexically or once the part of it that exists outside the workspace is
// resolved.
func (r *Root) insideRel(abs string) (string, bool) {
	if abs == r.dir {
		return "", true
	}
	if strings.HasPrefix(abs, r.prefix) {
		return filepath.ToSlash(abs[len(r.prefix):]), true
	}
	// Outside lexically: the place may still be the workspace under
	// another name. What exists of it lies outside, beyond a tool's reach.
	real := resolveLoosely(abs)
	if real == abs {
		return "", false
	}
	if real == r.dir {
		return "", true
	}
	if strings.HasPrefix(real, r.prefix) {
		return filepath.ToSlash(real[len(r.prefix):]), true
	}
	return "", false
}

// outside builds the refusal for p, whose cleaned absolute form is abs.
func (r *Root) outside(p, abs string) error {
	if r.Contains(abs) {
		return fmt.Errorf("path %q leads %w through a symbolic link: paths must stay inside the workspace %s", p, ErrOutsideWorkspace, r.dir)
	}
	return fmt.Errorf("path %q is %w: paths must stay inside the workspace %s", p, ErrOutsideWorkspace, r.dir)
}

func (r *Root) dangling(p string) error {
	return fmt.Errorf("path %q: a %w: use a path without broken links inside the workspace %s", p, ErrDanglingLink, r.dir)
}

// deepestExisting returns the longest prefix of the clean absolute path abs
// that exists (as any kind of entry, links not followed).
func deepestExisting(abs string) (string, error) {
	cur := abs
	for {
		_, err := os.Lstat(cur)
		if err == nil {
			return cur, nil
		}
		if !isNotExist(err) {
			return "", err
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return "", err
		}
		cur = parent
	}
}

// isNotExist reports whether err means a path component is missing. A
// component that is a file where a directory is expected counts as missing.
func isNotExist(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

// stripPath drops the absolute path from a *fs.PathError so messages show
// only the path the caller gave.
func stripPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
