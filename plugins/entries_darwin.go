package plugins

import (
	"syscall"
	"time"
)

func statTimes(st *syscall.Stat_t) (mtime, ctime time.Time) {
	return time.Unix(st.Mtimespec.Unix()), time.Unix(st.Ctimespec.Unix())
}
