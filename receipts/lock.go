package receipts

import (
	"fmt"
	"os"
	"strconv"
)

// fileLock is an advisory lock held on an open file. The operating system
// drops it when the process dies, however it dies.
type fileLock struct {
	f *os.File
}

// tryLockFile takes an exclusive lock on path (created when missing)
// without waiting. held reports that another open file holds it; then the
// returned lock is nil.
func tryLockFile(path string) (l *fileLock, held bool, err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, false, fmt.Errorf("open lock file: %w", err)
	}
	held, err = tryLock(f)
	if err != nil || held {
		_ = f.Close()
		if err != nil {
			return nil, false, fmt.Errorf("lock %s: %w", path, err)
		}
		return nil, true, nil
	}
	return &fileLock{f: f}, false, nil
}

// lockFile takes an exclusive lock on path (created when missing), waiting
// for another holder to let go. It is held only around short file
// operations (creating or rotating the key), so the wait is short.
func lockFile(path string) (*fileLock, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open lock file: %w", err)
	}
	if err := waitLock(f); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return &fileLock{f: f}, nil
}

// notePID writes "pid <n>" into the lock file, naming the holder for
// someone looking at the directory.
func (l *fileLock) notePID() {
	if err := l.f.Truncate(0); err == nil {
		_, _ = l.f.WriteAt([]byte("pid "+strconv.Itoa(os.Getpid())+"\n"), 0)
	}
}

func (l *fileLock) release() error {
	if l == nil || l.f == nil {
		return nil
	}
	unlock(l.f)
	err := l.f.Close()
	l.f = nil
	return err
}
