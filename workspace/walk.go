package workspace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
)

// MaxWalkDepth is how deep [Root.Walk] descends below its start; deeper
// directories are skipped and reported.
const MaxWalkDepth = 256

// Entry is one file [Root.Walk] found.
type Entry struct {
	// Path is where the walk found the file, absolute.
	Path string
	// Real is where the file lives: it differs from Path for a symbolic
	// link to a file elsewhere in the workspace.
	Real string
	// Refused is set when a protected-path rule or a forbidden pattern
	// covers the file (a [*RefusedError]); Open then returns it. Tools
	// leave such files out of their results.
	Refused error
	// Dir is set for a directory, which the walk visits only when it is
	// refused, in place of entering it.
	Dir bool

	root *Root
	h    handle // the directory holding Path, open during the visit
	name string
	link bool
}

// Link reports whether the entry is a symbolic link.
func (e Entry) Link() bool { return e.link }

// Open opens the file for reading, only during the visit. A regular file
// is opened in the directory the walk holds, without following a link;
// a link is resolved again from the workspace root.
func (e Entry) Open() (*os.File, error) {
	if e.Refused != nil {
		return nil, e.Refused
	}
	if e.link {
		return e.root.Open(e.Real)
	}
	defer runtime.KeepAlive(e.root.file)
	f, err := e.h.openFile(e.name, flagRead, 0, e.Real)
	if err != nil {
		if isLinkErr(err) {
			err = errChanged
		}
		return nil, &fs.PathError{Op: "open", Path: e.root.Rel(e.Path), Err: err}
	}
	return f, nil
}

// WalkOptions configures [Root.Walk]. The zero value is the default.
type WalkOptions struct {
	// Skipped is told about every entry skipped because it could not be
	// read or lies too deep; nil ignores them.
	Skipped func(path string, err error)
}

// Walk calls visit for every regular file under start, a directory inside
// the workspace given as to [Root.Open], in lexical order of the paths it
// finds them at. Every directory is opened in its parent without following
// a link, so the walk never leaves the workspace, however entries are
// renamed while it runs.
//
// A symbolic link is visited when it leads to a regular file inside the
// workspace; links to directories are never followed. Directories named
// .git are skipped. A file that is protected or forbidden is visited with
// [Entry.Refused] set; so is such a directory (with [Entry.Dir] set), which
// the walk does not enter. The walk stops at the first error visit returns, or
// when ctx is done.
//
// # Errors
//
// Those of opening start (see [Root.Open]); [ErrNotDirectory] when start is
// a file; the error visit or ctx returned.
func (r *Root) Walk(ctx context.Context, start string, opts WalkOptions, visit func(Entry) error) error {
	defer runtime.KeepAlive(r.file)
	var (
		h   handle
		rel string
	)
	for attempt := 0; ; attempt++ {
		s, err := r.find(start, findOpts{follow: true})
		if err != nil {
			return err
		}
		if s.info == nil {
			s.close()
			return &fs.PathError{Op: "walk", Path: start, Err: fs.ErrNotExist}
		}
		if !s.info.IsDir() {
			s.close()
			return &fs.PathError{Op: "walk", Path: start, Err: ErrNotDirectory}
		}
		rel = s.rel()
		if s.name == "" {
			h = s.h
			break
		}
		h, err = s.h.openDir(s.name)
		s.close()
		if err == nil {
			break
		}
		if attempt >= maxRetries || !(isLinkErr(err) || errors.Is(err, fs.ErrNotExist)) {
			return &fs.PathError{Op: "walk", Path: start, Err: err}
		}
	}
	defer h.close()
	w := &walker{r: r, ctx: ctx, opts: opts, visit: visit}
	return w.dir(h, rel, 0)
}

// WalkOpen walks dir, a directory [Root.Open] returned, as [Root.Walk]
// walks start, but without resolving a path again: the walk starts in the
// directory dir holds open, so what a call checked and opened is what it
// walks, whatever was renamed since.
//
// # Errors
//
// [ErrNotDirectory] when dir is not a directory; an error when dir was
// not opened in this workspace; the error visit or ctx returned.
func (r *Root) WalkOpen(ctx context.Context, dir *os.File, opts WalkOptions, visit func(Entry) error) error {
	defer runtime.KeepAlive(r.file)
	defer runtime.KeepAlive(dir)
	rel, err := r.heldDir(dir, "walk")
	if err != nil {
		return err
	}
	w := &walker{r: r, ctx: ctx, opts: opts, visit: visit}
	return w.dir(rootHandle(dir, dir.Name()), rel, 0)
}

// ErrLinkOnTheWay is returned by [Root.OpenDirIn] when a component of the
// path is a symbolic link.
var ErrLinkOnTheWay = errors.New("a symbolic link is on the way")

// OpenDirIn opens the directory sub below dir, a directory [Root.Open]
// returned, one component at a time from dir's open descriptor, following
// no link: a component that is a link fails with [ErrLinkOnTheWay]. Each
// component is checked against the protected paths and forbidden
// patterns. sub is relative, slash-separated, without "..". The returned
// file's Name is its real absolute path, so it can be walked with
// [Root.WalkOpen].
//
// # Errors
//
// A missing component wraps [fs.ErrNotExist]; a file on the way wraps
// [ErrNotDirectory]; a refusal is a [*RefusedError].
func (r *Root) OpenDirIn(dir *os.File, sub string) (*os.File, error) {
	defer runtime.KeepAlive(r.file)
	defer runtime.KeepAlive(dir)
	rel, err := r.heldDir(dir, "open")
	if err != nil {
		return nil, err
	}
	clean := path.Clean(sub)
	if sub == "" || path.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, "../") || strings.IndexByte(sub, 0) >= 0 {
		return nil, fmt.Errorf("open %q: %w: give a relative path without ..", sub, ErrInvalidPath)
	}
	h := rootHandle(dir, dir.Name())
	for _, c := range split(clean) {
		crel := c
		if rel != "" {
			crel = rel + "/" + c
		}
		cabs := r.join(crel)
		if err := r.refuse(r.Rel(cabs), cabs, "", false); err != nil {
			h.close()
			return nil, err
		}
		nh, err := h.openDir(c)
		if err != nil {
			st, lerr := h.lstat(c)
			h.close()
			switch {
			case lerr == nil && st.isLink():
				err = ErrLinkOnTheWay
			case lerr == nil && !st.IsDir():
				err = ErrNotDirectory
			case isNotExist(err):
				err = fs.ErrNotExist
			}
			return nil, &fs.PathError{Op: "open", Path: r.Rel(cabs), Err: err}
		}
		h.close()
		h, rel = nh, crel
	}
	if h.borrowed {
		// sub named dir itself.
		return h.dup(dir.Name())
	}
	return h.file(r.join(rel))
}

// heldDir returns the workspace-relative path of dir, a directory Open
// returned.
func (r *Root) heldDir(dir *os.File, op string) (string, error) {
	name := dir.Name()
	var rel string
	switch {
	case name == r.dir:
	case strings.HasPrefix(name, r.prefix):
		rel = filepath.ToSlash(name[len(r.prefix):])
	default:
		return "", fmt.Errorf("%s %s: not a directory opened in the workspace %s", op, name, r.dir)
	}
	fi, err := dir.Stat()
	if err != nil {
		return "", &fs.PathError{Op: op, Path: r.Rel(name), Err: stripPath(err)}
	}
	if !fi.IsDir() {
		return "", &fs.PathError{Op: op, Path: r.Rel(name), Err: ErrNotDirectory}
	}
	return rel, nil
}

type walker struct {
	r     *Root
	ctx   context.Context
	opts  WalkOptions
	visit func(Entry) error
}

func (w *walker) abs(rel string) string {
	if rel == "" {
		return w.r.dir
	}
	return filepath.Join(w.r.dir, filepath.FromSlash(rel))
}

func (w *walker) skipped(abs string, err error) {
	if w.opts.Skipped != nil {
		w.opts.Skipped(abs, err)
	}
}

// dir visits the directory h, whose real workspace-relative path is rel.
func (w *walker) dir(h handle, rel string, depth int) error {
	dirAbs := w.abs(rel)
	ents, err := h.list(dirAbs)
	if err != nil {
		if depth == 0 {
			return &fs.PathError{Op: "walk", Path: w.r.Rel(dirAbs), Err: err}
		}
		w.skipped(dirAbs, err)
		return nil
	}
	// Sorting directories as "name/" visits files in the lexical order of
	// their full paths.
	key := func(e fs.DirEntry) string {
		if e.IsDir() {
			return e.Name() + "/"
		}
		return e.Name()
	}
	slices.SortFunc(ents, func(a, b fs.DirEntry) int { return strings.Compare(key(a), key(b)) })
	for _, e := range ents {
		if err := w.ctx.Err(); err != nil {
			return err
		}
		name := e.Name()
		if name == ".git" {
			continue
		}
		crel := name
		if rel != "" {
			crel = rel + "/" + name
		}
		cabs := w.abs(crel)
		switch t := e.Type(); {
		case t.IsDir():
			if depth+1 >= MaxWalkDepth {
				w.skipped(cabs, fmt.Errorf("more than %d directories deep", MaxWalkDepth))
				continue
			}
			if err := w.r.refuseBelow(crel, cabs); err != nil {
				if err := w.visit(Entry{Path: cabs, Real: cabs, Refused: err, Dir: true, root: w.r}); err != nil {
					return err
				}
				continue
			}
			nh, err := h.openDir(name)
			if err != nil {
				if !isLinkErr(err) && !errors.Is(err, fs.ErrNotExist) {
					w.skipped(cabs, err)
				}
				continue
			}
			err = w.dir(nh, crel, depth+1)
			nh.close()
			if err != nil {
				return err
			}
		case t.IsRegular():
			ent := Entry{Path: cabs, Real: cabs, Refused: w.r.refuseBelow(crel, cabs), root: w.r, h: h, name: name}
			if err := w.visit(ent); err != nil {
				return err
			}
		case t&fs.ModeSymlink != 0:
			ent, ok := w.link(crel, cabs)
			if !ok {
				continue
			}
			if err := w.visit(ent); err != nil {
				return err
			}
		}
	}
	return nil
}

// link resolves a symbolic link the walk found; it is visited when it
// leads to a regular file inside the workspace.
func (w *walker) link(rel, abs string) (Entry, bool) {
	s, err := w.r.find(rel, findOpts{follow: true})
	if err != nil {
		var re *RefusedError
		if errors.As(err, &re) {
			return Entry{Path: abs, Real: abs, Refused: err, root: w.r, link: true}, true
		}
		return Entry{}, false
	}
	defer s.close()
	if s.info == nil || !s.info.Mode().IsRegular() {
		return Entry{}, false
	}
	return Entry{Path: abs, Real: s.abs(w.r), root: w.r, link: true}, true
}
