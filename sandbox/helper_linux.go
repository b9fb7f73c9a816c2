package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/talonhq/talon/sandbox/internal/helper"
)

// Main is the helper: talon's hidden [HelperCommand] subcommand, and the
// entry a test binary's TestMain calls when os.Args[1] is HelperCommand.
// args are the arguments after HelperCommand:
//
//	exec FLAGS... -- BINARY ARGV...   restrict this process, then execve
//	probe ACTION [ARG]                try one action and report how it went
//
// exec normally never reaches Main: the helper's init function performs it
// before talon's other packages are initialized. It returns only on
// failure, with 126 (127 when BINARY is missing) after writing the reason
// to stderr. probe returns 0 when the action
// succeeded, 1 when it was refused with a permission error, 2 otherwise.
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

// probe tries one action a sandboxed child should not be able to take.
func probe(args []string) int {
	if len(args) == 0 {
		fmt.Fprintf(os.Stderr, "talon sandbox: %v: want an action\n", ErrHelperUsage)
		return 2
	}
	arg := ""
	if len(args) > 1 {
		arg = args[1]
	}
	var err error
	switch args[0] {
	case "write":
		err = os.WriteFile(arg, []byte("written by a sandbox probe\n"), 0o600)
	case "read":
		_, err = os.ReadFile(arg)
	case "list":
		_, err = os.ReadDir(arg)
	case "tmp":
		err = errors.New("TMPDIR is not set")
		if dir := os.Getenv("TMPDIR"); dir != "" {
			err = os.WriteFile(filepath.Join(dir, "probe"), nil, 0o600)
		}
	case "connect":
		var c net.Conn
		if c, err = net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", arg), 2*time.Second); err == nil {
			_ = c.Close()
		}
	case "bind":
		var l net.Listener
		if arg == "" {
			arg = "0"
		}
		if l, err = net.Listen("tcp", net.JoinHostPort("127.0.0.1", arg)); err == nil {
			_ = l.Close()
		}
	case "mptcp-connect":
		err = mptcpConnect(arg)
	case "signal":
		pid, perr := strconv.Atoi(arg)
		if perr != nil {
			err = perr
			break
		}
		err = syscall.Kill(pid, 0)
	case "fork":
		err = forkMany(arg)
	default:
		fmt.Fprintf(os.Stderr, "talon sandbox: %v: unknown probe %q\n", ErrHelperUsage, args[0])
		return 2
	}
	switch {
	case err == nil:
		fmt.Println("allowed")
		return 0
	case errors.Is(err, fs.ErrPermission), errors.Is(err, syscall.EAGAIN), errors.Is(err, syscall.EPROTONOSUPPORT):
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
