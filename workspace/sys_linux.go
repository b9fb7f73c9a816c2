package workspace

import (
	"os"

	"golang.org/x/sys/unix"
)

// openBeneath opens rel (workspace-relative, clean, "" for the workspace
// itself) from h in one system call, when no component of it is a link:
// openat2 with RESOLVE_BENEATH and RESOLVE_NO_SYMLINKS, so the kernel
// guarantees what the walk in resolve.go would, and the file opened is at
// rel exactly. ok is false when the caller must walk instead: a link on
// the way, a missing component, or a kernel without openat2.
func (h handle) openBeneath(rel string, flag int, display string) (f *os.File, ok bool) {
	fd, ok := h.openat2(rel, flag)
	if !ok {
		return nil, false
	}
	return newFile(fd, flag, display), true
}

// openDirBeneath opens the directory rel from h in one system call, as
// openBeneath does.
func (h handle) openDirBeneath(rel string) (handle, bool) {
	fd, ok := h.openat2(rel, unix.O_RDONLY|unix.O_DIRECTORY)
	return handle{fd: fd}, ok
}

func (h handle) openat2(rel string, flag int) (int, bool) {
	if rel == "" {
		rel = "."
	}
	how := unix.OpenHow{
		Flags:   uint64(flag | unix.O_NOFOLLOW | unix.O_CLOEXEC),
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	}
	// EINTR and EAGAIN (a rename elsewhere raced the lookup) are retried
	// a few times; then the walk decides.
	for range 8 {
		fd, err := unix.Openat2(h.fd, rel, &how)
		if err == unix.EINTR || err == unix.EAGAIN {
			continue
		}
		if err != nil {
			return -1, false
		}
		return fd, true
	}
	return -1, false
}
