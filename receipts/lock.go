package receipts

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// dirLock is the exclusive lock a writing Store holds on its directory.
type dirLock struct {
	f *os.File
}

// acquireLock takes the directory's lock file without waiting. The lock is
// tied to the open file, so the operating system drops it when the process
// dies, however it dies; the pid written into the file only names the
// holder in the error another writer gets.
func acquireLock(dir string) (*dirLock, error) {
	path := filepath.Join(dir, lockFileName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open lock file: %w", err)
	}
	held, err := tryLock(f)
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if held {
		pid := readPID(f)
		_ = f.Close()
		if pid > 0 {
			return nil, fmt.Errorf("%w: process %d holds %s; stop it, or give this process another data directory", ErrLocked, pid, path)
		}
		return nil, fmt.Errorf("%w: another process holds %s; stop it, or give this process another data directory", ErrLocked, path)
	}
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte("pid "+strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return &dirLock{f: f}, nil
}

func (l *dirLock) release() error {
	if l == nil || l.f == nil {
		return nil
	}
	unlock(l.f)
	err := l.f.Close()
	l.f = nil
	return err
}

func readPID(f *os.File) int {
	buf := make([]byte, 64)
	n, _ := f.ReadAt(buf, 0)
	s, ok := bytes.CutPrefix(bytes.TrimSpace(buf[:n]), []byte("pid "))
	if !ok {
		return 0
	}
	pid, err := strconv.Atoi(string(s))
	if err != nil || pid <= 0 {
		return 0
	}
	return pid
}
