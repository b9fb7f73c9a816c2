package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// maxRetries bounds how often one walk starts over because an entry
// changed under it (a directory swapped for a link, a link for a file).
const maxRetries = 64

// errBusy is returned when a path keeps changing while it is resolved.
var errBusy = errors.New("the path kept changing while it was resolved")

// statInfo describes one entry, links not followed. It implements
// fs.FileInfo without a modification time.
type statInfo struct {
	name string
	mode fs.FileMode
	size int64
}

func (s statInfo) Name() string       { return s.name }
func (s statInfo) Size() int64        { return s.size }
func (s statInfo) Mode() fs.FileMode  { return s.mode }
func (s statInfo) ModTime() time.Time { return time.Time{} }
func (s statInfo) IsDir() bool        { return s.mode.IsDir() }
func (s statInfo) Sys() any           { return nil }

func (s statInfo) isLink() bool { return s.mode&fs.ModeSymlink != 0 }

// findOpts says how [Root.find] treats the path.
type findOpts struct {
	follow    bool // follow a link in the last component
	write     bool // the caller changes the path: write-protected rules apply
	missingOK bool // the last component, and directories above it, may be missing
}

// spot is where a path leads: an open directory, and the entry in it.
type spot struct {
	h       handle    // the deepest existing directory on the way
	dirRel  string    // its real path, workspace-relative with '/', "" for the root
	pending []string  // directories below h that do not exist yet
	name    string    // the last component; "" for the workspace itself
	info    *statInfo // the last component, links not followed; nil when missing
}

func (s spot) close() { s.h.close() }

// rel is the real workspace-relative path of the spot.
func (s spot) rel() string {
	parts := make([]string, 0, len(s.pending)+2)
	if s.dirRel != "" {
		parts = append(parts, s.dirRel)
	}
	parts = append(parts, s.pending...)
	if s.name != "" {
		parts = append(parts, s.name)
	}
	return strings.Join(parts, "/")
}

// abs is the real absolute path of the spot.
func (s spot) abs(r *Root) string {
	rel := s.rel()
	if rel == "" {
		return r.dir
	}
	return filepath.Join(r.dir, filepath.FromSlash(rel))
}

// find resolves p inside the workspace and checks it against the
// protected paths and forbidden patterns, as given and where it leads. The
// caller closes the spot.
func (r *Root) find(p string, o findOpts) (spot, error) {
	abs, rel, err := r.locate(p, o.write)
	if err != nil {
		return spot{}, err
	}
	s, ok, err := r.fastSpot(p, rel, o)
	if !ok {
		s, err = r.walk(p, abs, rel, o)
	}
	if err != nil {
		return spot{}, err
	}
	if real := s.abs(r); real != abs {
		if err := r.refuse(p, real, real, o.write); err != nil {
			s.close()
			return spot{}, err
		}
	}
	return s, nil
}

// fastSpot finds rel in two system calls when its directory has no link
// on the way (openat2 with RESOLVE_NO_SYMLINKS, where the kernel has it)
// and its last component is not a link to follow. ok is false when the
// walk must decide.
func (r *Root) fastSpot(p, rel string, o findOpts) (spot, bool, error) {
	if rel == "" {
		return spot{}, false, nil
	}
	dirRel, name := "", rel
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		dirRel, name = rel[:i], rel[i+1:]
	}
	h := r.h
	if dirRel != "" {
		var ok bool
		if h, ok = r.h.openDirBeneath(dirRel); !ok {
			return spot{}, false, nil
		}
	}
	st, err := h.lstat(name)
	switch {
	case err == nil && st.isLink() && o.follow:
	case err == nil:
		st.name = name
		return spot{h: h, dirRel: dirRel, name: name, info: &st}, true, nil
	case errors.Is(err, fs.ErrNotExist) && o.missingOK:
		return spot{h: h, dirRel: dirRel, name: name}, true, nil
	case errors.Is(err, fs.ErrNotExist):
		h.close()
		return spot{}, true, &fs.PathError{Op: "resolve", Path: p, Err: fs.ErrNotExist}
	}
	h.close()
	return spot{}, false, nil
}

// split turns a clean slash-separated relative path into its components.
func split(rel string) []string {
	if rel == "" || rel == "." {
		return nil
	}
	return strings.Split(rel, "/")
}

// walk resolves rel (workspace-relative, clean) one component at a time
// from the open workspace directory. No component is opened in a way that
// follows a link: a link is read and its target resolved from the root
// again, so a link (or a directory swapped for one mid-walk) cannot lead
// outside, whatever happens concurrently.
func (r *Root) walk(p, abs, rel string, o findOpts) (spot, error) {
	comps := split(rel)
	linkEnd := 0 // comps[:linkEnd] came from a link's target
	hops, retries := 0, 0
	// follow replaces the components from i on with a link's target and
	// what came after the link.
	follow := func(h handle, cur []string, i int) error {
		target, err := h.readlink(comps[i])
		if err != nil {
			return err
		}
		hops++
		if hops > MaxLinks {
			return fmt.Errorf("path %q: %w", p, ErrTooManyLinks)
		}
		// outside refuses a link out of the workspace; a protected or
		// forbidden place out there is refused by its rule, which says
		// more.
		outside := func(to string) error {
			to = filepath.Join(append([]string{to}, comps[i+1:]...)...)
			if err := r.refuse(p, to, to, o.write); err != nil {
				return err
			}
			return r.outside(p, abs)
		}
		var base string
		if filepath.IsAbs(target) {
			trel, ok := r.insideRel(filepath.Clean(target))
			if !ok {
				return outside(filepath.Clean(target))
			}
			base = trel
		} else {
			base = path.Join(strings.Join(cur, "/"), filepath.ToSlash(target))
			if base == ".." || strings.HasPrefix(base, "../") || path.IsAbs(base) {
				return outside(filepath.Join(r.dir, filepath.FromSlash(base)))
			}
		}
		head := split(base)
		linkEnd = len(head)
		comps = append(head, comps[i+1:]...)
		return nil
	}
	retry := func() error {
		retries++
		if retries > maxRetries {
			return fmt.Errorf("path %q: %w; try again", p, errBusy)
		}
		return nil
	}

restart:
	h := r.h
	cur := make([]string, 0, len(comps))
	for i := 0; i < len(comps); i++ {
		c := comps[i]
		if i == len(comps)-1 {
			st, err := h.lstat(c)
			if err != nil {
				if !isNotExist(err) {
					h.close()
					return spot{}, &fs.PathError{Op: "resolve", Path: p, Err: err}
				}
				if i < linkEnd {
					h.close()
					return spot{}, r.dangling(p)
				}
				if !o.missingOK {
					h.close()
					return spot{}, &fs.PathError{Op: "resolve", Path: p, Err: fs.ErrNotExist}
				}
				return spot{h: h, dirRel: strings.Join(cur, "/"), name: c}, nil
			}
			if st.isLink() && o.follow {
				err := follow(h, cur, i)
				h.close()
				if errors.Is(err, syscall.EINVAL) || isNotExist(err) {
					if err := retry(); err != nil {
						return spot{}, err
					}
				} else if err != nil {
					return spot{}, wrapWalkErr(p, err)
				}
				goto restart
			}
			st.name = c
			return spot{h: h, dirRel: strings.Join(cur, "/"), name: c, info: &st}, nil
		}
		nh, err := h.openDir(c)
		if err == nil {
			h.close()
			h = nh
			cur = append(cur, c)
			continue
		}
		if errors.Is(err, fs.ErrNotExist) {
			if i < linkEnd {
				h.close()
				return spot{}, r.dangling(p)
			}
			if !o.missingOK {
				h.close()
				return spot{}, &fs.PathError{Op: "resolve", Path: p, Err: fs.ErrNotExist}
			}
			return spot{h: h, dirRel: strings.Join(cur, "/"), pending: comps[i : len(comps)-1], name: comps[len(comps)-1]}, nil
		}
		// A link, a file, or something that changed: look at it.
		st, lerr := h.lstat(c)
		switch {
		case lerr != nil && isNotExist(lerr):
			if err := retry(); err != nil {
				h.close()
				return spot{}, err
			}
			i--
		case lerr != nil:
			h.close()
			return spot{}, &fs.PathError{Op: "resolve", Path: p, Err: lerr}
		case st.isLink():
			err := follow(h, cur, i)
			h.close()
			if errors.Is(err, syscall.EINVAL) || isNotExist(err) {
				if err := retry(); err != nil {
					return spot{}, err
				}
			} else if err != nil {
				return spot{}, wrapWalkErr(p, err)
			}
			goto restart
		case !st.IsDir():
			// A file where a directory is expected: the path cannot
			// exist. A writer learns why when it creates the directory.
			if o.missingOK {
				return spot{h: h, dirRel: strings.Join(cur, "/"), pending: comps[i : len(comps)-1], name: comps[len(comps)-1]}, nil
			}
			h.close()
			return spot{}, &fs.PathError{Op: "resolve", Path: p, Err: fs.ErrNotExist}
		case isPermission(err):
			h.close()
			return spot{}, &fs.PathError{Op: "resolve", Path: p, Err: err}
		default:
			// A directory again: it was swapped back.
			if err := retry(); err != nil {
				h.close()
				return spot{}, err
			}
			i--
		}
	}
	st, err := h.lstat(".")
	if err != nil {
		return spot{}, &fs.PathError{Op: "resolve", Path: p, Err: err}
	}
	st.name = "."
	return spot{h: h, info: &st}, nil
}

func isPermission(err error) bool { return errors.Is(err, fs.ErrPermission) }

// wrapWalkErr keeps errors the walk made itself and wraps system errors
// with the caller's path.
func wrapWalkErr(p string, err error) error {
	var re *RefusedError
	if errors.As(err, &re) || errors.Is(err, ErrOutsideWorkspace) || errors.Is(err, ErrTooManyLinks) || errors.Is(err, ErrDanglingLink) {
		return err
	}
	return &fs.PathError{Op: "resolve", Path: p, Err: err}
}

// RefusedError is a path a protected-path rule or a forbidden_paths
// pattern covers. It wraps [ErrProtected] or [ErrForbidden].
type RefusedError struct {
	// Path is the path as the caller gave it.
	Path string
	// Real is where Path leads, when that differs from Path and is what
	// the rule covers.
	Real string
	// Write says the call would have changed the path.
	Write bool
	// Rule is the protected-path rule, for [ErrProtected].
	Rule *Rule
	// Pattern is the forbidden pattern as configured, for [ErrForbidden].
	Pattern string
}

func (e *RefusedError) Error() string {
	what := e.Path
	if e.Real != "" {
		what = fmt.Sprintf("%s leads to %s, which", e.Path, e.Real)
	}
	verb := "read"
	if e.Write {
		verb = "change"
	}
	if e.Rule == nil {
		return fmt.Sprintf("%s is a forbidden path (pattern %q): this profile lets no tool %s it", what, e.Pattern, verb)
	}
	if e.Rule.Access == ReadOnly {
		return fmt.Sprintf("%s is write-protected (%s): talon never lets a tool change it; reading it is allowed", what, e.Rule.Why)
	}
	return fmt.Sprintf("%s is protected (%s): talon never lets a tool %s it", what, e.Rule.Why, verb)
}

// Unwrap returns [ErrProtected] or [ErrForbidden].
func (e *RefusedError) Unwrap() error {
	if e.Rule != nil {
		return ErrProtected
	}
	return ErrForbidden
}

// refuse checks abs, the path p as given (real == "") or where it leads,
// against the protected paths and forbidden patterns.
func (r *Root) refuse(p, abs, real string, write bool) error {
	if rule := r.protected.check(abs, write); rule != nil {
		return &RefusedError{Path: p, Real: r.show(real), Write: write, Rule: rule}
	}
	for _, pat := range r.forbidden {
		if pat.Match(abs) {
			return &RefusedError{Path: p, Real: r.show(real), Write: write, Pattern: pat.Text}
		}
	}
	return nil
}

// refuseBelow is refuse for the entry abs of a directory whose own path
// passed refuse: forbidden globs are matched against abs alone.
func (r *Root) refuseBelow(p, abs string) error {
	if rule := r.protected.check(abs, false); rule != nil {
		return &RefusedError{Path: p, Rule: rule}
	}
	for _, pat := range r.forbidden {
		if pat.matchSelf(abs) {
			return &RefusedError{Path: p, Pattern: pat.Text}
		}
	}
	return nil
}

// show renders a real path for a message: workspace-relative inside it.
func (r *Root) show(real string) string {
	if real == "" {
		return ""
	}
	return r.Rel(real)
}

// Check reports whether a tool may read (write false) or change (write
// true) abs, a clean absolute path, under r's protected paths and
// forbidden patterns, without touching the disk. It returns the
// [*RefusedError] that would refuse it, or nil. Tools that reach files
// by other means than r (a granted directory of a plugin) use it.
func (r *Root) Check(p, abs string, write bool) error {
	return r.refuse(p, filepath.Clean(abs), "", write)
}
