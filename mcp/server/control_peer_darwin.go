package server

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// peerOf asks the kernel who is at the other end of c: LOCAL_PEERCRED for
// the uid and LOCAL_PEERPID for the pid at connect(). macOS has no handle
// that outlives a pid, so a peer that exits during the check is not
// noticed.
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
		xu             *unix.Xucred
		pid            int
		credErr, pidEr error
	)
	if err := raw.Control(func(fd uintptr) {
		xu, credErr = unix.GetsockoptXucred(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
		pid, pidEr = unix.GetsockoptInt(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERPID)
	}); err != nil {
		return peerCred{}, err
	}
	if credErr != nil {
		return peerCred{}, fmt.Errorf("LOCAL_PEERCRED: %w", credErr)
	}
	if pidEr != nil {
		return peerCred{}, fmt.Errorf("LOCAL_PEERPID: %w", pidEr)
	}
	return peerCred{pid: pid, uid: int(xu.Uid)}, nil
}

// sysctlTree reads the process tree with sysctl: kern.proc.pid for the
// parent, uid and name, kern.procargs2 for the executable's path and the
// command line.
type sysctlTree struct {
	pid, uid int
	exe      os.FileInfo
	comm     string
}

var _ procTree = (*sysctlTree)(nil)

func newProcTree() (procTree, error) {
	path, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find talon's own executable to tell its processes apart: %w", err)
	}
	exe, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("find talon's own executable to tell its processes apart: %w", err)
	}
	kp, err := kinfo(os.Getpid())
	if err != nil {
		return nil, err
	}
	return &sysctlTree{pid: os.Getpid(), uid: os.Geteuid(), exe: exe, comm: cString(kp.Proc.P_comm[:])}, nil
}

func (t *sysctlTree) self() (int, int) { return t.pid, t.uid }

func kinfo(pid int) (*unix.KinfoProc, error) {
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil {
		return nil, fmt.Errorf("kern.proc.pid %d: %w", pid, err)
	}
	if int(kp.Proc.P_pid) != pid {
		return nil, fmt.Errorf("no process %d", pid)
	}
	return kp, nil
}

func (t *sysctlTree) parent(pid int) (int, error) {
	kp, err := kinfo(pid)
	if err != nil {
		return 0, err
	}
	return int(kp.Eproc.Ppid), nil
}

// talon compares pid's executable with talon's. A process of the same
// user whose arguments cannot be read counts as talon when it has
// talon's process name; one of another user cannot be talon's tool.
func (t *sysctlTree) talon(pid int) (bool, error) {
	if path, _, err := procArgs(pid); err == nil && path != "" {
		if fi, err := os.Stat(path); err == nil {
			return sameExecutable(t.exe, fi), nil
		}
	}
	kp, err := kinfo(pid)
	if err != nil {
		return false, err
	}
	if int(kp.Eproc.Ucred.Uid) != t.uid {
		return false, nil
	}
	return cString(kp.Proc.P_comm[:]) == t.comm, nil
}

func (t *sysctlTree) cmdline(pid int) string {
	_, args, err := procArgs(pid)
	if err != nil {
		return ""
	}
	s := strings.Join(args, " ")
	if len(s) > 512 {
		s = s[:512]
	}
	return s
}

// procArgs reads kern.procargs2: argc (int32), the executable's path, NUL
// padding, then argc arguments, each NUL-terminated.
func procArgs(pid int) (string, []string, error) {
	b, err := unix.SysctlRaw("kern.procargs2", pid)
	if err != nil {
		return "", nil, err
	}
	return parseProcArgs(b)
}

func cString(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}
