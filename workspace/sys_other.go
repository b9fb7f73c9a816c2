//go:build !unix

package workspace

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// handle is a directory named by its path. Without descriptor-relative
// system calls, each operation checks the entry and then uses its path:
// a concurrent rename can still redirect it between the two (see
// raceFree).
type handle struct {
	path     string
	borrowed bool
}

// raceFree is false here: operations go by path.
const raceFree = false

// errLink stands for the error an open that does not follow links gives.
var errLink = errors.New("is a symbolic link")

func openRoot(dir string) (*os.File, error) { return os.Open(dir) }

func rootHandle(_ *os.File, dir string) handle { return handle{path: dir, borrowed: true} }

func (h handle) close() {}

func (h handle) join(name string) string {
	if name == "" || name == "." {
		return h.path
	}
	return filepath.Join(h.path, name)
}

func (h handle) openDir(name string) (handle, error) {
	st, err := h.lstat(name)
	if err != nil {
		return handle{}, err
	}
	switch {
	case st.mode&fs.ModeSymlink != 0:
		return handle{}, errLink
	case !st.mode.IsDir():
		return handle{}, syscall.ENOTDIR
	}
	return handle{path: h.join(name)}, nil
}

func (h handle) lstat(name string) (statInfo, error) {
	fi, err := os.Lstat(h.join(name))
	if err != nil {
		return statInfo{}, unwrapPathErr(err)
	}
	return statInfo{name: fi.Name(), mode: fi.Mode(), size: fi.Size()}, nil
}

func (h handle) readlink(name string) (string, error) {
	t, err := os.Readlink(h.join(name))
	return t, unwrapPathErr(err)
}

func (h handle) openFile(name string, flag int, perm fs.FileMode, display string) (*os.File, error) {
	if flag&os.O_CREATE == 0 {
		st, err := h.lstat(name)
		if err != nil {
			return nil, err
		}
		if st.mode&fs.ModeSymlink != 0 {
			return nil, errLink
		}
	}
	f, err := os.OpenFile(h.join(name), flag, perm)
	if err != nil {
		return nil, unwrapPathErr(err)
	}
	_ = display
	return f, nil
}

func (h handle) openBeneath(string, int, string) (*os.File, bool) { return nil, false }

// openDirBeneath always defers to the walk.
func (h handle) openDirBeneath(string) (handle, bool) { return handle{}, false }

// file opens the directory h by its path; display is its path already.
func (h handle) file(string) (*os.File, error) { return os.Open(h.path) }

func (h handle) dup(string) (*os.File, error) { return os.Open(h.path) }

func (h handle) mkdir(name string, perm fs.FileMode) error {
	return unwrapPathErr(os.Mkdir(h.join(name), perm))
}

func (h handle) rename(from, to string) error {
	return unwrapPathErr(os.Rename(h.join(from), h.join(to)))
}

func (h handle) remove(name string, _ bool) error {
	return unwrapPathErr(os.Remove(h.join(name)))
}

func (h handle) sync() error { return nil }

func (h handle) list(string) ([]fs.DirEntry, error) {
	ents, err := os.ReadDir(h.path)
	return ents, unwrapPathErr(err)
}

func isLinkErr(err error) bool { return errors.Is(err, errLink) }

const (
	flagRead     = os.O_RDONLY
	flagCreate   = os.O_WRONLY | os.O_CREATE | os.O_EXCL
	flagWriteDir = os.O_RDONLY
)

func unwrapPathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}
