package helper

import (
	"os"
	"os/signal"
	"runtime"
	"syscall"
)

func init() {
	if len(os.Args) > 2 && os.Args[1] == Command && os.Args[2] == "exec" {
		os.Exit(Exec(os.Args[3:]))
	}
}

// forwarded are the signals the helper passes on to the program: as PID
// 1 of its namespace the program would ignore those it has no handler
// for, and a terminal's Ctrl-C or a window change must reach it.
var forwarded = []os.Signal{
	syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT,
	syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGWINCH,
}

// Exec runs the program after "--" in args under the spec before it (as
// [Spec.Args] wrote it), with this process's environment plus TMPDIR, and
// returns its exit status (128+N when signal N ended it).
//
// In new namespaces (Spec.NS) it first prepares the mounts. Then it
// restricts a thread and starts the program from it, so that the program
// inherits every restriction, and stays as its init: it forwards signals,
// reaps what is orphaned, and when the program exits, exits with its
// status, which makes the kernel end everything left in the PID
// namespace. Without namespaces it is the program's child subreaper and
// kills what is left itself. When talon exits (the Death descriptor
// reaches end of file) it kills the program and does the same.
//
// It returns 126 (127 when the program is missing) after writing the
// reason to stderr when the program cannot start.
func Exec(args []string) int {
	s, rest, err := Parse(args)
	if err != nil || len(rest) < 2 {
		os.Stderr.WriteString("talon sandbox: bad arguments: want FLAGS... -- BINARY ARGV...\n")
		return 126
	}
	runtime.LockOSThread() // mounts and namespaces are set up from the main thread
	if s.Child {
		return restrictAndExec(s, rest)
	}
	if s.Death > 0 {
		syscall.CloseOnExec(s.Death)
	}
	if s.NS {
		if err := mountNamespace(s); err != nil {
			os.Stderr.WriteString("talon sandbox: namespaces: " + err.Error() + "; the program did not run\n")
			return 126
		}
	}
	if s.Probe {
		return 0
	}
	// Nothing inside may trace the helper or read its memory: it keeps
	// threads that were never restricted.
	_, _, _ = syscall.RawSyscall6(syscall.SYS_PRCTL, prSetDumpable, 0, 0, 0, 0, 0)
	if !s.NS {
		_, _, _ = syscall.RawSyscall6(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0, 0, 0, 0)
	}
	// One processor: the helper mostly waits, and every processor more is
	// a thread the runtime would start for nothing.
	runtime.GOMAXPROCS(1)
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, forwarded...)
	dead := watchDeath(s.Death)
	if s.NS {
		return run(s, rest, sigs, dead)
	}
	// Restrictions belong to a thread (rlimits excepted). Without
	// namespaces a thread of its own takes them, starts the program and
	// supervises it, and the main thread stays as talon started it, which
	// is how talon tells a helper from a sandboxed process (see sandbox's
	// sweep). The thread lives as long as the helper, so the parent-death
	// signal the program gets fires only when the helper ends.
	status := make(chan int)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the helper
		status <- run(s, rest, sigs, dead)
	}()
	return <-status
}

// run starts the program, restricted, and supervises it. Without rlimits
// it restricts the calling thread and forks the program from it. With
// rlimits, which belong to the whole process, it starts the helper again
// instead (through /proc/self/exe, which a hidden path does not hide), as
// a child that restricts itself, sets them and execs the program: set on
// the helper they would starve its own runtime (a thread it cannot
// create, memory it cannot map), and a limit set after the program
// started could be outrun.
func run(s Spec, rest []string, sigs <-chan os.Signal, dead <-chan struct{}) int {
	path, argv, env := rest[0], rest[1:], os.Environ()
	if s.Lim == (Limits{}) {
		if err := Restrict(s); err != nil {
			os.Stderr.WriteString("talon sandbox: " + err.Error() + "; the program did not run\n")
			return 126
		}
		if s.Tmp != "" {
			env = setEnv(env, "TMPDIR", s.Tmp)
		}
	} else {
		child := s
		child.Child, child.Probe, child.Death = true, false, 0 // the mounts are made; NS says so
		path, argv = "/proc/self/exe", append(append([]string{"talon", Command, "exec"}, child.Args()...), rest...)
	}
	pid, err := syscall.ForkExec(path, argv, &syscall.ProcAttr{
		Env:   env,
		Files: []uintptr{0, 1, 2},
		Sys:   &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL},
	})
	if err != nil {
		os.Stderr.WriteString("talon: " + rest[0] + ": " + err.Error() + "\n")
		if err == syscall.ENOENT {
			return 127
		}
		return 126
	}
	return supervise(pid, sigs, dead, !s.NS)
}

// restrictAndExec is the child step: it restricts this process, rlimits
// included, and execs the program in its place.
func restrictAndExec(s Spec, rest []string) int {
	if err := Restrict(s); err != nil {
		os.Stderr.WriteString("talon sandbox: " + err.Error() + "; the program did not run\n")
		return 126
	}
	env := os.Environ()
	if s.Tmp != "" {
		env = setEnv(env, "TMPDIR", s.Tmp)
	}
	err := syscall.Exec(rest[0], rest[1:], env)
	os.Stderr.WriteString("talon: " + rest[0] + ": " + err.Error() + "\n")
	if err == syscall.ENOENT {
		return 127
	}
	return 126
}

// watchDeath returns a channel closed when fd reaches end of file (or
// fails); nil without a descriptor, or when fd is not the pipe talon
// passes.
func watchDeath(fd int) <-chan struct{} {
	if fd <= 0 {
		return nil
	}
	var st syscall.Stat_t
	if syscall.Fstat(fd, &st) != nil || st.Mode&syscall.S_IFMT != syscall.S_IFIFO {
		return nil
	}
	// Through the poller, the read parks a goroutine instead of holding a
	// thread: once the rlimits are set the helper should need no new one.
	_ = syscall.SetNonblock(fd, true)
	f := os.NewFile(uintptr(fd), "talon")
	dead := make(chan struct{})
	go func() {
		var b [1]byte
		for {
			if _, err := f.Read(b[:]); err != nil {
				close(dead)
				return
			}
		}
	}()
	return dead
}

// supervise waits for the program as its init (or subreaper), reaping
// every child, and returns its status. Signals are passed on and talon's
// exit is handled by goroutines of their own, which end the wait by
// killing the program.
func supervise(target int, sigs <-chan os.Signal, dead <-chan struct{}, sweep bool) int {
	killed := make(chan struct{})
	go func() {
		for {
			select {
			case sig := <-sigs:
				_ = syscall.Kill(target, sig.(syscall.Signal))
			case <-dead:
				close(killed)
				_ = syscall.Kill(target, syscall.SIGKILL)
				return
			}
		}
	}()
	status := 0
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, 0, nil)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			break // no child left
		}
		if pid != target {
			continue // an orphan, reaped
		}
		if ws.Signaled() {
			status = 128 + int(ws.Signal())
		} else {
			status = ws.ExitStatus()
		}
		break
	}
	if sweep {
		killDescendants()
	}
	select {
	case <-killed:
		return 128 + int(syscall.SIGKILL)
	default:
		return status
	}
}

func setEnv(env []string, k, v string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if len(kv) > len(k) && kv[:len(k)+1] == k+"=" {
			continue
		}
		out = append(out, kv)
	}
	return append(out, k+"="+v)
}
