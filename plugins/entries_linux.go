//go:build linux || android

package plugins

import (
	"syscall"
	"time"
)

func statTimes(st *syscall.Stat_t) (mtime, ctime time.Time) {
	return time.Unix(st.Mtim.Unix()), time.Unix(st.Ctim.Unix())
}
