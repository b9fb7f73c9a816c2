package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
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
)

// Root is a workspace directory that paths are confined to. It is
// immutable and safe for concurrent use.
type Root struct {
	dir    string // absolute, clean, symlink-free
	prefix string // dir with exactly one trailing separator
}

// New returns the workspace rooted at dir, which must exist and be a
// directory. A relative dir is taken from the working directory; the root is
// stored absolute and with every symbolic link resolved, so a workspace
// reached through a link is the directory the link points to.
//
// # Errors
//
// A missing dir wraps [fs.ErrNotExist]; a dir that is a file wraps
// [ErrNotDirectory].
func New(dir string) (*Root, error) {
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
	prefix := real
	if !strings.HasSuffix(prefix, string(filepath.Separator)) {
		prefix += string(filepath.Separator)
	}
	return &Root{dir: real, prefix: prefix}, nil
}

// Dir returns the absolute, symlink-free workspace directory.
func (r *Root) Dir() string { return r.dir }

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
//   - p does not exist: wraps [fs.ErrNotExist] (a missing path whose nearest
//     existing parent lies outside the workspace is reported as outside, so
//     nothing is revealed about places outside);
//   - p is empty or contains a NUL byte: [ErrEmptyPath], [ErrInvalidPath].
func (r *Root) Resolve(p string) (string, error) {
	abs, err := r.absolute(p)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err == nil {
		if !r.Contains(real) {
			return "", r.outside(p, abs)
		}
		return real, nil
	}
	if !isNotExist(err) {
		return "", fmt.Errorf("resolve %q: %w", p, stripPath(err))
	}
	// The path is missing. Say so only when the part that exists is inside.
	anc, err := deepestExisting(abs)
	if err != nil {
		return "", fmt.Errorf("resolve %q: %w", p, stripPath(err))
	}
	realAnc, err := filepath.EvalSymlinks(anc)
	if err != nil {
		if isNotExist(err) {
			return "", r.dangling(p)
		}
		return "", fmt.Errorf("resolve %q: %w", p, stripPath(err))
	}
	if !r.Contains(realAnc) {
		return "", r.outside(p, abs)
	}
	return "", &fs.PathError{Op: "resolve", Path: p, Err: fs.ErrNotExist}
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
//   - p, or an ancestor, is a symbolic link to nothing: wraps
//     [ErrDanglingLink];
//   - p is empty or contains a NUL byte: [ErrEmptyPath], [ErrInvalidPath].
//
// The returned path may name an existing directory; the caller decides
// whether that is an error.
func (r *Root) ResolveForWrite(p string) (string, error) {
	abs, err := r.absolute(p)
	if err != nil {
		return "", err
	}
	if _, err := os.Lstat(abs); err == nil {
		real, err := filepath.EvalSymlinks(abs)
		if err != nil {
			if isNotExist(err) {
				return "", r.dangling(p)
			}
			return "", fmt.Errorf("resolve %q: %w", p, stripPath(err))
		}
		if !r.Contains(real) {
			return "", r.outside(p, abs)
		}
		return real, nil
	} else if !isNotExist(err) {
		return "", fmt.Errorf("resolve %q: %w", p, stripPath(err))
	}
	anc, err := deepestExisting(abs)
	if err != nil {
		return "", fmt.Errorf("resolve %q: %w", p, stripPath(err))
	}
	realAnc, err := filepath.EvalSymlinks(anc)
	if err != nil {
		if isNotExist(err) {
			return "", r.dangling(p)
		}
		return "", fmt.Errorf("resolve %q: %w", p, stripPath(err))
	}
	if !r.Contains(realAnc) {
		return "", r.outside(p, abs)
	}
	rest, err := filepath.Rel(anc, abs)
	if err != nil {
		return "", fmt.Errorf("resolve %q: %w", p, err)
	}
	return filepath.Join(realAnc, rest), nil
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

// absolute validates p and returns it cleaned and absolute.
func (r *Root) absolute(p string) (string, error) {
	if p == "" {
		return "", fmt.Errorf("%w: give a path relative to the workspace %s", ErrEmptyPath, r.dir)
	}
	if strings.IndexByte(p, 0) >= 0 {
		return "", fmt.Errorf("path %q: %w: it contains a NUL byte; remove it", p, ErrInvalidPath)
	}
	if filepath.IsAbs(p) {
		return filepath.Clean(p), nil
	}
	return filepath.Join(r.dir, p), nil
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
