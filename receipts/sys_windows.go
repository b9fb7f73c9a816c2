//go:build windows

package receipts

import (
	"errors"
	"io/fs"
	"os"

	"golang.org/x/sys/windows"
)

// lockOffsetHigh places the locked byte far beyond the pid text, so another
// process can still read who holds the lock.
const lockOffsetHigh = 1

func tryLock(f *os.File) (held bool, err error) {
	ol := &windows.Overlapped{OffsetHigh: lockOffsetHigh}
	err = windows.LockFileEx(windows.Handle(f.Fd()),
		windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, ol)
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) {
		return true, nil
	}
	return false, err
}

// waitLock takes the lock, waiting for another holder.
func waitLock(f *os.File) error {
	ol := &windows.Overlapped{OffsetHigh: lockOffsetHigh}
	return windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, ol)
}

func unlock(f *os.File) {
	ol := &windows.Overlapped{OffsetHigh: lockOffsetHigh}
	_ = windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, ol)
}

// syncDir is a no-op: Windows cannot open a directory for flushing, and
// NTFS journals directory entries itself.
func syncDir(string) error { return nil }

// checkKeyMode is a no-op: Windows file modes do not express ACLs.
func checkKeyMode(string, fs.FileMode) error { return nil }
