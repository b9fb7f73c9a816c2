//go:build linux

package dirwatch

import (
	"errors"
	"path/filepath"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// mask is what changes a lookup: entries made, removed, renamed, their
// mode or links changed, or rewritten; and the directory itself moved or
// removed.
const mask = unix.IN_CREATE | unix.IN_DELETE | unix.IN_MOVED_FROM | unix.IN_MOVED_TO | unix.IN_ATTRIB |
	unix.IN_CLOSE_WRITE | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF | unix.IN_ONLYDIR

var w struct {
	mu      sync.Mutex
	once    bool
	fd      int // -1 when inotify is not available
	gen     uint64
	watched map[string]bool // by the path asked for
	buf     [4096]byte
}

func start() {
	if w.once {
		return
	}
	w.once = true
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		w.fd = -1
		return
	}
	w.fd = fd
	w.watched = map[string]bool{}
}

// Add watches dirs, each through its nearest existing parent when it does
// not exist. It reports false when one could not be watched.
func Add(dirs ...string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	start()
	if w.fd < 0 {
		return false
	}
	ok := true
	for _, d := range dirs {
		if d == "" || !filepath.IsAbs(d) || w.watched[d] {
			continue
		}
		if !addLocked(d) {
			ok = false
			continue
		}
		w.watched[d] = true
	}
	return ok
}

// addLocked watches d or its nearest existing parent.
func addLocked(d string) bool {
	for p := filepath.Clean(d); ; p = filepath.Dir(p) {
		_, err := unix.InotifyAddWatch(w.fd, p, mask)
		if err == nil {
			return true
		}
		if !errors.Is(err, unix.ENOENT) && !errors.Is(err, unix.ENOTDIR) || p == "/" {
			return false
		}
	}
}

// Generation counts the changes seen so far in the watched directories,
// after reading those the kernel has queued. ok is false when nothing can
// be watched.
func Generation() (gen uint64, ok bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	start()
	if w.fd < 0 {
		return 0, false
	}
	for {
		n, err := unix.Read(w.fd, w.buf[:])
		if err != nil || n <= 0 {
			// EAGAIN: nothing queued. Any other error leaves the count,
			// and the next call tries again.
			return w.gen, true
		}
		w.gen++
		// A directory that went away, was moved or overflowed the queue
		// is watched afresh by path the next time it is added.
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&w.buf[off]))
			if ev.Mask&(unix.IN_IGNORED|unix.IN_DELETE_SELF|unix.IN_MOVE_SELF|unix.IN_Q_OVERFLOW|unix.IN_CREATE) != 0 {
				clear(w.watched)
			}
			off += unix.SizeofInotifyEvent + int(ev.Len)
		}
	}
}
