package server

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/talonhq/talon/internal/procstat"
)

// peerOf asks the kernel who is at the other end of c: SO_PEERCRED for
// the pid and uid at connect(), and SO_PEERPIDFD (Linux 6.5 and later) for
// a handle that tells whether that same process still runs once the check
// is done, so a pid reused by another process cannot pass for it.
func peerOf(c net.Conn) (peerCred, error) {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return peerCred{}, fmt.Errorf("the control connection is a %T, not a Unix socket", c)
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return peerCred{}, err
	}
	var (
		cred       *unix.Ucred
		credErr    error
		pidfd      = -1
		pidfdError error
	)
	if err := raw.Control(func(fd uintptr) {
		cred, credErr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
		pidfd, pidfdError = unix.GetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_PEERPIDFD)
	}); err != nil {
		return peerCred{}, err
	}
	if credErr != nil {
		return peerCred{}, fmt.Errorf("SO_PEERCRED: %w", credErr)
	}
	p := peerCred{pid: int(cred.Pid), uid: int(cred.Uid)}
	switch {
	case pidfdError == nil && pidfd >= 0:
		// Signal 0 checks the process exists; only ESRCH means it is gone
		// (a root peer of a non-root talon answers EPERM and still runs).
		p.alive = func() bool { return !errors.Is(unix.PidfdSendSignal(pidfd, 0, nil, 0), unix.ESRCH) }
		p.release = func() { _ = unix.Close(pidfd) }
	case errors.Is(pidfdError, unix.ESRCH):
		p.gone = true
	}
	return p, nil
}

// procfs reads the process tree from /proc.
type procfs struct {
	pid, uid int
	// exe is talon's own executable, comm its process name.
	exe  os.FileInfo
	comm string
}

var _ procTree = (*procfs)(nil)

// newProcTree describes this process for the peer check.
func newProcTree() (procTree, error) {
	exe, err := os.Stat("/proc/self/exe")
	if err != nil {
		return nil, fmt.Errorf("find talon's own executable to tell its processes apart: %w", err)
	}
	st, err := readStat(os.Getpid())
	if err != nil {
		return nil, err
	}
	return &procfs{pid: os.Getpid(), uid: os.Geteuid(), exe: exe, comm: st.Comm}, nil
}

func (p *procfs) self() (int, int) { return p.pid, p.uid }

func readStat(pid int) (procstat.Stat, error) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procstat.Stat{}, err
	}
	return procstat.Parse(data)
}

func (p *procfs) parent(pid int) (int, error) {
	st, err := readStat(pid)
	if err != nil {
		return 0, err
	}
	ppid, err := st.Int(procstat.PPID)
	if err != nil {
		return 0, err
	}
	return int(ppid), nil //nolint:gosec // a pid fits an int
}

// talon compares pid's executable with talon's. A process of the same
// user that hides its executable (it is non-dumpable, as talon makes
// itself, and this process is not root) counts as talon when it has
// talon's process name; one of another user cannot be talon's tool.
func (p *procfs) talon(pid int) (bool, error) {
	dir := "/proc/" + strconv.Itoa(pid)
	fi, err := os.Stat(dir + "/exe")
	switch {
	case err == nil:
		return sameExecutable(p.exe, fi), nil
	case errors.Is(err, fs.ErrNotExist):
		// A kernel thread, or a process that just exited.
		return false, nil
	case !errors.Is(err, fs.ErrPermission):
		return false, err
	}
	di, err := os.Stat(dir)
	if err != nil {
		return false, err
	}
	if st, ok := di.Sys().(*syscall.Stat_t); !ok || int(st.Uid) != p.uid {
		return false, nil
	}
	st, err := readStat(pid)
	if err != nil {
		return false, err
	}
	return st.Comm == p.comm, nil
}

// cmdline is at most 512 bytes of pid's command line, arguments
// separated by spaces.
func (p *procfs) cmdline(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		return ""
	}
	if len(b) > 512 {
		b = b[:512]
	}
	return strings.TrimSpace(strings.ReplaceAll(string(b), "\x00", " "))
}
