package sandbox

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/talonhq/talon/sandbox/internal/helper"
)

// Main is the helper: talon's hidden [HelperCommand] subcommand, and the
// entry a test binary's TestMain calls when os.Args[1] is HelperCommand.
// args are the arguments after HelperCommand:
//
//	exec FLAGS... -- BINARY ARGV...   restrict this process, then run BINARY
//	probe ACTION [ARG...]             try one action and report how it went
//
// exec normally never reaches Main: the helper's init function performs it
// before talon's other packages are initialized. It returns only on
// failure, with 126 (127 when BINARY is missing) after writing the reason
// to stderr. probe returns 0 when the action
// succeeded, 1 when it was refused (a permission error, a read-only file
// system, or what it looked for is hidden), 2 otherwise.
func Main(args []string) int {
	if len(args) == 0 {
		fmt.Fprintf(os.Stderr, "talon sandbox: %v: want exec or probe\n", ErrHelperUsage)
		return 2
	}
	switch args[0] {
	case "exec":
		return helper.Exec(args[1:])
	case "probe":
		return probe(args[1:])
	}
	fmt.Fprintf(os.Stderr, "talon sandbox: %v: unknown step %q\n", ErrHelperUsage, args[0])
	return 2
}

// errHidden reports that what a probe looked for is not there to reach:
// another process's files, a socket under a hidden directory. For a probe
// that is the protection at work.
var errHidden = errors.New("not visible from here")

// probes are the actions a probe child can try, each with its arguments.
var probes = map[string]func(args []string) error{
	"write": func(a []string) error {
		return hidden(os.WriteFile(arg(a, 0), []byte("written by a sandbox probe\n"), 0o600))
	},
	"read": func(a []string) error { _, err := os.ReadFile(arg(a, 0)); return hidden(err) },
	"rename": func(a []string) error { // and back, when it worked
		if err := os.Rename(arg(a, 0), arg(a, 1)); errors.Is(err, syscall.EBUSY) {
			// The sandbox pins the directories of protected paths: a
			// mount point cannot be moved.
			return fmt.Errorf("%w: %w", fs.ErrPermission, err)
		} else if err != nil {
			return err
		}
		return os.Rename(arg(a, 1), arg(a, 0))
	},
	"list": func(a []string) error { _, err := os.ReadDir(arg(a, 0)); return hidden(err) },
	"tmp": func([]string) error {
		dir := os.Getenv("TMPDIR")
		if dir == "" {
			return errors.New("TMPDIR is not set")
		}
		return os.WriteFile(filepath.Join(dir, "probe"), nil, 0o600)
	},
	"connect": func(a []string) error {
		c, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", arg(a, 0)), 2*time.Second)
		if err == nil {
			_ = c.Close()
		}
		return err
	},
	"bind": func(a []string) error {
		port := arg(a, 0)
		if port == "" {
			port = "0"
		}
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", port))
		if err == nil {
			_ = l.Close()
		}
		return err
	},
	"mptcp-connect": func(a []string) error { return mptcpConnect(arg(a, 0)) },
	"signal":        func(a []string) error { return signalProcess(arg(a, 0)) },
	"fork":          func(a []string) error { return forkMany(arg(a, 0)) },
	"environ":       func(a []string) error { return procContains(arg(a, 0), "environ", arg(a, 1)) },
	"cmdline":       func(a []string) error { return procContains(arg(a, 0), "cmdline", arg(a, 1)) },
	"fd":            func(a []string) error { return procFD(arg(a, 0), arg(a, 1)) },
	"mem":           func(a []string) error { return procMem(arg(a, 0), arg(a, 1), arg(a, 2)) },
	"unix":          func(a []string) error { return unixConnect(arg(a, 0)) },
	"udp":           func([]string) error { return openSocket(unix.AF_INET, unix.SOCK_DGRAM, 0) },
	"raw":           func([]string) error { return openSocket(unix.AF_INET, unix.SOCK_RAW, unix.IPPROTO_ICMP) },
	"packet":        func([]string) error { return openSocket(unix.AF_PACKET, unix.SOCK_RAW, int(htons(unix.ETH_P_ALL))) },
	"ping":          func([]string) error { return openSocket(unix.AF_INET, unix.SOCK_DGRAM, unix.IPPROTO_ICMP) },
	"vsock":         func([]string) error { return openSocket(unix.AF_VSOCK, unix.SOCK_STREAM, 0) },
	"adjtime":       func([]string) error { return sameTick() },
	"mknod": func(a []string) error {
		path := arg(a, 0)
		if path == "" {
			path = filepath.Join(os.Getenv("TMPDIR"), "null")
		}
		return mknodNull(path)
	},
	"caps":   func([]string) error { return effectiveCaps() },
	"detach": func(a []string) error { return detach(arg(a, 0), arg(a, 1)) },
	"sleep":  func([]string) error { time.Sleep(time.Minute); return nil },
	"hold":   func(a []string) error { return hold(arg(a, 0), arg(a, 1)) },
}

// hidden marks a path that does not exist as hidden: the probes are
// given paths that exist outside the sandbox, and inside it a denied
// directory is an empty mount.
func hidden(err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w (%w)", errHidden, err)
	}
	return err
}

func arg(a []string, i int) string {
	if i < len(a) {
		return a[i]
	}
	return ""
}

// probe tries one action a sandboxed child should not be able to take.
func probe(args []string) int {
	if len(args) == 0 {
		fmt.Fprintf(os.Stderr, "talon sandbox: %v: want an action\n", ErrHelperUsage)
		return 2
	}
	f, ok := probes[args[0]]
	if !ok {
		fmt.Fprintf(os.Stderr, "talon sandbox: %v: unknown probe %q\n", ErrHelperUsage, args[0])
		return 2
	}
	err := f(args[1:])
	switch {
	case err == nil:
		fmt.Println("allowed")
		return 0
	case errors.Is(err, fs.ErrPermission), errors.Is(err, syscall.EAGAIN), errors.Is(err, syscall.EPROTONOSUPPORT),
		errors.Is(err, syscall.EROFS), errors.Is(err, errHidden):
		fmt.Println("denied:", err)
		return 1
	}
	fmt.Println("error:", err)
	return 2
}

// forkMany starts n sleeping copies of /bin/sh at once.
func forkMany(arg string) error {
	n, err := strconv.Atoi(arg)
	if err != nil {
		return err
	}
	var pids []int
	defer func() {
		for _, p := range pids {
			_ = syscall.Kill(p, syscall.SIGKILL)
			var ws syscall.WaitStatus
			_, _ = syscall.Wait4(p, &ws, 0, nil)
		}
	}()
	for range n {
		pid, err := syscall.ForkExec("/bin/sh", []string{"sh", "-c", "sleep 5"}, &syscall.ProcAttr{})
		if err != nil {
			return err
		}
		pids = append(pids, pid)
	}
	return nil
}

// mptcpConnect connects a multipath TCP socket to a loopback port.
func mptcpConnect(arg string) error {
	port, err := strconv.Atoi(arg)
	if err != nil {
		return err
	}
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, ipprotoMPTCP)
	if err != nil {
		return err
	}
	defer syscall.Close(fd)
	return syscall.Connect(fd, &syscall.SockaddrInet4{Port: port, Addr: [4]byte{127, 0, 0, 1}})
}

// ownNumber reports a pid that names this probe, or the init of the PID
// namespace it runs in: a namespace numbers its own processes, so that is
// another process than the one meant, which is hidden.
func ownNumber(pid int) bool {
	return pid == os.Getpid() || (pid == 1 && os.Getppid() == 1)
}

// signalProcess sends signal 0 to pid; a process that does not exist, or
// is one of the sandbox's own, counts as hidden.
func signalProcess(arg string) error {
	pid, err := strconv.Atoi(arg)
	if err != nil {
		return err
	}
	if ownNumber(pid) {
		return fmt.Errorf("pid %d is this sandbox's own: %w", pid, errHidden)
	}
	err = syscall.Kill(pid, 0)
	if errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("pid %d: %w", pid, errHidden)
	}
	return err
}

// procFile opens /proc/PID/NAME, reporting a process that is not visible
// as hidden.
func procFile(pid, name string) (string, error) {
	n, err := strconv.Atoi(pid)
	if err != nil {
		return "", fmt.Errorf("bad pid %q", pid)
	}
	p := filepath.Join("/proc", pid, name)
	if ownNumber(n) {
		return p, fmt.Errorf("pid %d is this sandbox's own: %w", n, errHidden)
	}
	if _, err := os.Lstat(filepath.Join("/proc", pid)); errors.Is(err, fs.ErrNotExist) {
		return p, fmt.Errorf("%s: %w", p, errHidden)
	}
	return p, nil
}

// procContains reads /proc/PID/NAME and succeeds when it holds marker: a
// process of that number that does not is another one than meant.
func procContains(pid, name, marker string) error {
	p, err := procFile(pid, name)
	if err != nil {
		return err
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	if marker == "" || !bytes.Contains(b, []byte(marker)) {
		return fmt.Errorf("%s does not hold the marker: %w", p, errHidden)
	}
	return nil
}

// procFD succeeds when one of PID's open descriptors is the file target.
func procFD(pid, target string) error {
	dir, err := procFile(pid, "fd")
	if err != nil {
		return err
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	var last error
	for _, e := range ents {
		l, err := os.Readlink(filepath.Join(dir, e.Name()))
		if err != nil {
			last = err
			continue
		}
		if l == target {
			return nil
		}
	}
	if last != nil {
		return last
	}
	return fmt.Errorf("no descriptor of %s is %s: %w", pid, target, errHidden)
}

// procMem reads len(marker) bytes at addr (hex) of PID's memory and
// succeeds when they are the marker.
func procMem(pid, addr, marker string) error {
	p, err := procFile(pid, "mem")
	if err != nil {
		return err
	}
	at, err := strconv.ParseUint(strings.TrimPrefix(addr, "0x"), 16, 64)
	if err != nil || marker == "" {
		return fmt.Errorf("bad address %q or empty marker", addr)
	}
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	b := make([]byte, len(marker))
	if _, err := f.ReadAt(b, int64(at)); err != nil {
		return err
	}
	if string(b) != marker {
		return fmt.Errorf("%s at %s does not hold the marker: %w", p, addr, errHidden)
	}
	return nil
}

// unixConnect connects to the Unix socket at path; a socket that is not
// there (a hidden directory) counts as hidden.
func unixConnect(path string) error {
	c, err := net.DialTimeout("unix", path, 2*time.Second)
	if err == nil {
		_ = c.Close()
		return nil
	}
	if errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ECONNREFUSED) {
		return fmt.Errorf("%s: %w", path, errHidden)
	}
	return err
}

func openSocket(domain, typ, proto int) error {
	fd, err := unix.Socket(domain, typ|unix.SOCK_CLOEXEC, proto)
	if err != nil {
		return err
	}
	return unix.Close(fd)
}

func htons(v uint16) uint16 { return v<<8 | v>>8 }

// sameTick sets the kernel clock's tick length to the value it has: a
// change of nothing that needs CAP_SYS_TIME.
func sameTick() error {
	var tx unix.Timex
	if _, err := unix.Adjtimex(&tx); err != nil {
		return err
	}
	set := unix.Timex{Modes: unix.ADJ_TICK, Tick: tx.Tick}
	_, err := unix.Adjtimex(&set)
	return err
}

// mknodNull makes a character device like /dev/null at path (CAP_MKNOD)
// and removes it again.
func mknodNull(path string) error {
	if err := unix.Mknod(path, unix.S_IFCHR|0o600, int(unix.Mkdev(1, 3))); err != nil {
		return err
	}
	return os.Remove(path)
}

// effectiveCaps fails with a permission error when this process holds no
// capability at all.
func effectiveCaps() error {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return err
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "CapEff:"); ok {
			if strings.Trim(strings.TrimSpace(v), "0") == "" {
				return fmt.Errorf("no effective capability: %w", fs.ErrPermission)
			}
			return nil
		}
	}
	return errors.New("no CapEff line in /proc/self/status")
}

// detach leaves a process running after this probe exits, the way a
// daemon does: "setsid" starts it in a session of its own, "double"
// starts a child that does so and exits at once. The survivor is `probe
// sleep MARKER`, found by its marker.
func detach(mode, marker string) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	attr := &syscall.ProcAttr{Env: os.Environ(), Sys: &syscall.SysProcAttr{Setsid: true}}
	switch mode {
	case "setsid":
		_, err = syscall.ForkExec(exe, []string{helperArgv0, HelperCommand, "probe", "sleep", marker}, attr)
		return err
	case "double":
		pid, err := syscall.ForkExec(exe, []string{helperArgv0, HelperCommand, "probe", "detach", "setsid", marker}, &syscall.ProcAttr{Env: os.Environ()})
		if err != nil {
			return err
		}
		var ws syscall.WaitStatus
		if _, err := syscall.Wait4(pid, &ws, 0, nil); err != nil {
			return err
		}
		if ws.ExitStatus() != 0 {
			return fmt.Errorf("the middle process exited with %d", ws.ExitStatus())
		}
		return nil
	}
	return fmt.Errorf("unknown detach mode %q: use setsid or double", mode)
}

// holdMarker stays in memory while the process holds: the mem probe reads
// it through /proc/PID/mem.
var holdMarker []byte

// hold stands for talon in the proofs about processes: it keeps marker in
// its memory and its environment (the caller puts it there), holds the
// file open, prints the marker's address, and waits for the end of its
// standard input.
func hold(marker, file string) error {
	holdMarker = []byte(marker)
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	fmt.Printf("%#x\n", uintptr(unsafe.Pointer(&holdMarker[0])))
	_, err = bufio.NewReader(os.Stdin).ReadString('\n')
	if errors.Is(err, io.EOF) {
		err = nil
	}
	return err
}
