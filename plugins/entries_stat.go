//go:build linux || android || darwin

package plugins

import (
	"fmt"
	"os"
	"syscall"
	"time"
)

// statKey is what stat says of an entry, as a string, and its change
// time; ok is false where the system does not say.
func statKey(fi os.FileInfo) (key string, changed time.Time, ok bool) {
	st, isStat := fi.Sys().(*syscall.Stat_t)
	if !isStat {
		return "", time.Time{}, false
	}
	mtime, ctime := statTimes(st)
	key = fmt.Sprintf("%d:%d:%d:%o:%d:%d", uint64(st.Dev), uint64(st.Ino), st.Size, uint32(st.Mode), mtime.UnixNano(), ctime.UnixNano()) //nolint:unconvert // the types differ by platform
	return key, ctime, true
}
