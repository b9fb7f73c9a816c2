package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"syscall"
)

// Open opens the file or directory p for reading. p is resolved as by
// [Root.Resolve], and the file opened is exactly the one resolved: the
// last component is opened in the directory the walk ended in, without
// following a link, so no rename racing the call can substitute another
// file. The returned file's Name is its real absolute path.
//
// # Errors
//
// Those of [Root.Resolve]. A device, pipe or socket is opened without
// blocking; callers check the type with Stat.
func (r *Root) Open(p string) (*os.File, error) {
	defer runtime.KeepAlive(r.file)
	_, rel, err := r.locate(p, false)
	if err != nil {
		return nil, err
	}
	// No link on the way: the kernel opens rel beneath the root in one
	// call, and rel is where p leads, already checked.
	if f, ok := r.h.openBeneath(rel, flagRead, r.join(rel)); ok {
		return f, nil
	}
	for range maxRetries {
		s, err := r.find(p, findOpts{follow: true})
		if err != nil {
			return nil, err
		}
		if s.info == nil {
			s.close()
			return nil, &fs.PathError{Op: "open", Path: p, Err: fs.ErrNotExist}
		}
		f, err := s.h.openFile(s.name, flagRead, 0, s.abs(r))
		s.close()
		if isLinkErr(err) || errors.Is(err, fs.ErrNotExist) {
			continue // replaced since it was resolved: resolve again
		}
		if err != nil {
			return nil, &fs.PathError{Op: "open", Path: p, Err: err}
		}
		return f, nil
	}
	return nil, fmt.Errorf("open %q: %w; try again", p, errBusy)
}

// Lstat describes p without following a link in its last component.
func (r *Root) Lstat(p string) (fs.FileInfo, error) {
	defer runtime.KeepAlive(r.file)
	s, err := r.find(p, findOpts{})
	if err != nil {
		return nil, err
	}
	defer s.close()
	if s.info == nil {
		return nil, &fs.PathError{Op: "lstat", Path: p, Err: fs.ErrNotExist}
	}
	return *s.info, nil
}

// Stat describes what p leads to.
func (r *Root) Stat(p string) (fs.FileInfo, error) {
	defer runtime.KeepAlive(r.file)
	s, err := r.find(p, findOpts{follow: true})
	if err != nil {
		return nil, err
	}
	defer s.close()
	if s.info == nil {
		return nil, &fs.PathError{Op: "stat", Path: p, Err: fs.ErrNotExist}
	}
	return *s.info, nil
}

// WriteFile replaces the file p with data so that a reader sees either the
// old content or the new, never a mix, and a crash leaves one of the two on
// disk: it writes a temporary file in the directory p resolves into, syncs
// it, renames it over p there and syncs the directory. Missing parent
// directories are created (0755). A link in the last component is
// followed when its target is inside the workspace, and kept: writing
// "AGENTS.md -> docs/agents.md" writes docs/agents.md. It returns the real
// absolute path written and whether the file is new.
//
// An existing file keeps its permission bits and perm is ignored; a new
// file gets exactly perm (the umask is not applied).
//
// # Errors
//
// Those of [Root.ResolveForWrite]; a directory wraps [ErrIsDirectory],
// another non-regular file [ErrNotRegular]. On any failure the temporary
// file is removed and p is left as it was.
func (r *Root) WriteFile(p string, data []byte, perm fs.FileMode) (string, bool, error) {
	defer runtime.KeepAlive(r.file)
	for range maxRetries {
		s, err := r.find(p, findOpts{follow: true, write: true, missingOK: true})
		if err != nil {
			return "", false, err
		}
		real, created, err := r.writeAt(s, data, perm)
		s.close()
		if errors.Is(err, errChanged) {
			continue
		}
		if err != nil {
			return "", false, &fs.PathError{Op: "write", Path: p, Err: err}
		}
		return real, created, nil
	}
	return "", false, fmt.Errorf("write %q: %w; try again", p, errBusy)
}

// errChanged says an entry changed between resolving and using it.
var errChanged = errors.New("changed while in use")

// writeAt writes data at the spot s, creating its pending directories.
func (r *Root) writeAt(s spot, data []byte, perm fs.FileMode) (string, bool, error) {
	if s.name == "" {
		return "", false, ErrIsDirectory
	}
	mode := perm.Perm()
	if s.info != nil {
		switch {
		case s.info.IsDir():
			return "", false, ErrIsDirectory
		case s.info.isLink():
			return "", false, errChanged
		case !s.info.Mode().IsRegular():
			return "", false, ErrNotRegular
		}
		mode = s.info.mode.Perm()
	}
	h := s.h
	defer func() {
		if h != s.h {
			h.close()
		}
	}()
	for _, d := range s.pending {
		if err := h.mkdir(d, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return "", false, err
		}
		nh, err := h.openDir(d)
		if err != nil {
			if st, lerr := h.lstat(d); lerr == nil && !st.isLink() && !st.IsDir() {
				return "", false, syscall.ENOTDIR // a file is in the way
			}
			if isLinkErr(err) || errors.Is(err, syscall.ENOTDIR) || errors.Is(err, fs.ErrNotExist) {
				return "", false, errChanged
			}
			return "", false, err
		}
		if h != s.h {
			h.close()
		}
		h = nh
	}
	real := s.abs(r)
	tmp, f, err := createTemp(h, real)
	if err != nil {
		return "", false, err
	}
	ok := false
	defer func() {
		if !ok {
			_ = f.Close()
			_ = h.remove(tmp, false)
		}
	}()
	if _, err := f.Write(data); err != nil {
		return "", false, err
	}
	if err := f.Chmod(mode); err != nil {
		return "", false, fmt.Errorf("set mode: %w", err)
	}
	if err := f.Sync(); err != nil {
		return "", false, fmt.Errorf("sync: %w", err)
	}
	if err := f.Close(); err != nil {
		return "", false, fmt.Errorf("close: %w", err)
	}
	if s.info == nil {
		// A new file: refuse to replace whatever appeared meanwhile,
		// which was not checked.
		if st, err := h.lstat(s.name); err == nil && (st.IsDir() || st.isLink()) {
			_ = h.remove(tmp, false)
			ok = true
			return "", false, errChanged
		}
	}
	if err := h.rename(tmp, s.name); err != nil {
		if errors.Is(err, syscall.EISDIR) || errors.Is(err, syscall.ENOTEMPTY) || errors.Is(err, syscall.EEXIST) {
			return "", false, ErrIsDirectory
		}
		return "", false, fmt.Errorf("rename into place: %w", err)
	}
	ok = true
	if err := h.sync(); err != nil {
		// The rename happened: only its durability is in doubt.
		return "", false, fmt.Errorf("sync directory: %w", err)
	}
	return real, s.info == nil, nil
}

// createTemp creates a new temporary file in h for the file real.
func createTemp(h handle, real string) (string, *os.File, error) {
	for range 1000 {
		name := ".talon-write-" + strconv.FormatUint(rand.Uint64()&0xffffffffff, 36) + ".tmp"
		f, err := h.openFile(name, flagCreate, 0o600, real)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", nil, fmt.Errorf("create temporary file: %w", err)
		}
		return name, f, nil
	}
	return "", nil, errors.New("create temporary file: too many name collisions")
}

// Remove deletes the file or empty directory p. A link is removed, not its
// target. The workspace itself cannot be removed.
func (r *Root) Remove(p string) error {
	defer runtime.KeepAlive(r.file)
	s, err := r.find(p, findOpts{write: true})
	if err != nil {
		return err
	}
	defer s.close()
	switch {
	case s.info == nil:
		return &fs.PathError{Op: "remove", Path: p, Err: fs.ErrNotExist}
	case s.name == "":
		return &fs.PathError{Op: "remove", Path: p, Err: fs.ErrPermission}
	}
	if err := s.h.remove(s.name, s.info.IsDir()); err != nil {
		return &fs.PathError{Op: "remove", Path: p, Err: err}
	}
	return nil
}

// Mkdir creates the directory p; its parent must exist.
func (r *Root) Mkdir(p string, perm fs.FileMode) error {
	defer runtime.KeepAlive(r.file)
	s, err := r.find(p, findOpts{write: true, missingOK: true})
	if err != nil {
		return err
	}
	defer s.close()
	switch {
	case s.info != nil:
		return &fs.PathError{Op: "mkdir", Path: p, Err: fs.ErrExist}
	case len(s.pending) > 0:
		return &fs.PathError{Op: "mkdir", Path: p, Err: fs.ErrNotExist}
	}
	if err := s.h.mkdir(s.name, perm); err != nil {
		return &fs.PathError{Op: "mkdir", Path: p, Err: err}
	}
	return nil
}

// Chmod sets the permission bits of the file p. The file is opened without
// following a link and changed through that descriptor, so it must be
// readable.
func (r *Root) Chmod(p string, perm fs.FileMode) error {
	defer runtime.KeepAlive(r.file)
	for range maxRetries {
		s, err := r.find(p, findOpts{follow: true, write: true})
		if err != nil {
			return err
		}
		if s.info == nil {
			s.close()
			return &fs.PathError{Op: "chmod", Path: p, Err: fs.ErrNotExist}
		}
		f, err := s.h.openFile(s.name, flagRead, 0, s.abs(r))
		s.close()
		if isLinkErr(err) || errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return &fs.PathError{Op: "chmod", Path: p, Err: err}
		}
		err = f.Chmod(perm)
		_ = f.Close()
		if err != nil {
			return &fs.PathError{Op: "chmod", Path: p, Err: stripPath(err)}
		}
		return nil
	}
	return fmt.Errorf("chmod %q: %w; try again", p, errBusy)
}
