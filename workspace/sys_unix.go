//go:build unix

package workspace

import (
	"errors"
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// handle is an open directory. Every operation names one entry of it and
// never follows a symbolic link in that entry: the walk in resolve.go
// decides what a link means. A handle of a directory stays valid when the
// directory is renamed, so a path checked once cannot be redirected by
// swapping a component for a link afterwards.
type handle struct {
	fd       int
	borrowed bool // the workspace root's descriptor, owned by the Root
}

// raceFree reports that operations through handles cannot be redirected by
// a concurrent rename.
const raceFree = true

// openRoot opens the workspace directory for the Root's lifetime.
func openRoot(dir string) (*os.File, error) {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	return os.NewFile(uintptr(fd), dir), nil
}

// rootHandle borrows the root's descriptor. The caller keeps f alive.
func rootHandle(f *os.File, _ string) handle {
	return handle{fd: int(f.Fd()), borrowed: true}
}

func (h handle) close() {
	if !h.borrowed && h.fd >= 0 {
		_ = unix.Close(h.fd)
	}
}

// openDir opens the directory name in h without following a link.
func (h handle) openDir(name string) (handle, error) {
	for {
		fd, err := unix.Openat(h.fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return handle{fd: -1}, err
		}
		return handle{fd: fd}, nil
	}
}

// lstat describes name in h without following a link.
func (h handle) lstat(name string) (statInfo, error) {
	var st unix.Stat_t
	if name == "" {
		name = "."
	}
	for {
		err := unix.Fstatat(h.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return statInfo{}, err
		}
		return statInfo{name: name, mode: unixMode(uint32(st.Mode)), size: st.Size}, nil
	}
}

// readlink returns the target of the link name in h.
func (h handle) readlink(name string) (string, error) {
	for size := 256; ; size *= 2 {
		buf := make([]byte, size)
		n, err := unix.Readlinkat(h.fd, name, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return "", err
		}
		if n < size {
			return string(buf[:n]), nil
		}
		if size >= 1<<16 {
			return "", unix.ENAMETOOLONG
		}
	}
}

// openFile opens name in h; a link in name is never followed (the open
// fails with ELOOP, or EMLINK on some systems). The file is named display.
func (h handle) openFile(name string, flag int, perm fs.FileMode, display string) (*os.File, error) {
	if name == "" {
		name = "."
	}
	for {
		fd, err := unix.Openat(h.fd, name, flag|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(perm.Perm()))
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		return newFile(fd, flag, display), nil
	}
}

// newFile wraps fd. A file opened without blocking (so that a pipe swapped
// in cannot hang the open) is made blocking again first, so that os treats
// it as the ordinary file it is and does not try to poll it.
func newFile(fd, flag int, display string) *os.File {
	if flag&unix.O_NONBLOCK != 0 {
		// F_SETFL sets only the status flags; of those, the open asked
		// for O_NONBLOCK and perhaps O_APPEND.
		_, _ = unix.FcntlInt(uintptr(fd), unix.F_SETFL, flag&unix.O_APPEND)
	}
	return os.NewFile(uintptr(fd), display)
}

// file turns h into an *os.File named display; h must not be used or
// closed afterwards.
func (h handle) file(display string) (*os.File, error) {
	return os.NewFile(uintptr(h.fd), display), nil
}

// dup returns a new *os.File for the directory h, named display.
func (h handle) dup(display string) (*os.File, error) {
	fd, err := unix.FcntlInt(uintptr(h.fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), display), nil
}

func (h handle) mkdir(name string, perm fs.FileMode) error {
	return unix.Mkdirat(h.fd, name, uint32(perm.Perm()))
}

func (h handle) rename(from, to string) error {
	return unix.Renameat(h.fd, from, h.fd, to)
}

// remove deletes the file or empty directory name in h; a link is removed,
// not its target.
func (h handle) remove(name string, dir bool) error {
	flags := 0
	if dir {
		flags = unix.AT_REMOVEDIR
	}
	return unix.Unlinkat(h.fd, name, flags)
}

// sync makes the directory's entries durable; file systems that cannot
// sync a directory count as done.
func (h handle) sync() error {
	err := unix.Fsync(h.fd)
	if err != nil && (errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOTSUP)) {
		return nil
	}
	return err
}

// list returns the entries of h, read through a description of their own so
// that concurrent listings of one directory do not share an offset.
func (h handle) list(display string) ([]fs.DirEntry, error) {
	f, err := h.openFile(".", unix.O_RDONLY|unix.O_DIRECTORY, 0, display)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadDir(-1)
}

// isLinkErr reports the error an open without following gives for a link.
func isLinkErr(err error) bool {
	return errors.Is(err, unix.ELOOP) || errors.Is(err, unix.EMLINK)
}

// Flags for openFile, named once for every platform.
const (
	flagRead     = unix.O_RDONLY | unix.O_NONBLOCK
	flagCreate   = unix.O_WRONLY | unix.O_CREAT | unix.O_EXCL
	flagWriteDir = unix.O_RDONLY | unix.O_DIRECTORY
)

// unixMode converts st_mode to an fs.FileMode (type bits and permissions).
func unixMode(m uint32) fs.FileMode {
	mode := fs.FileMode(m & 0o777)
	switch m & unix.S_IFMT {
	case unix.S_IFDIR:
		mode |= fs.ModeDir
	case unix.S_IFLNK:
		mode |= fs.ModeSymlink
	case unix.S_IFIFO:
		mode |= fs.ModeNamedPipe
	case unix.S_IFSOCK:
		mode |= fs.ModeSocket
	case unix.S_IFCHR:
		mode |= fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFBLK:
		mode |= fs.ModeDevice
	case unix.S_IFREG:
	default:
		mode |= fs.ModeIrregular
	}
	if m&unix.S_ISUID != 0 {
		mode |= fs.ModeSetuid
	}
	if m&unix.S_ISGID != 0 {
		mode |= fs.ModeSetgid
	}
	if m&unix.S_ISVTX != 0 {
		mode |= fs.ModeSticky
	}
	return mode
}
