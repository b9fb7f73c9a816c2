package server

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/rs/zerolog"
	"golang.org/x/sys/unix"

	"github.com/talonhq/talon/approval"
	"github.com/talonhq/talon/sandbox"
	"github.com/talonhq/talon/tool"
)

// controlRoleEnv makes the test binary play a client of the control socket
// (see init):
//
//	decide DIR ID          approve ID, print "pid N" and then "ok" or the error
//	daemon DIR ID OUT      start "detached", print its pid and exit at once
//	                       (a double fork)
//	detached DIR ID OUT P  wait until P is no longer the parent, then decide,
//	                       writing the output to OUT
const controlRoleEnv = "TALON_CONTROL_TEST_ROLE"

func init() {
	switch os.Getenv(controlRoleEnv) {
	case "":
		// A client started without its role would run every test of this
		// package, each starting clients of its own: refuse to, rather
		// than fork without bound. go test passes only -test.* flags.
		if len(os.Args) > 1 && !strings.HasPrefix(os.Args[1], "-") {
			fmt.Fprintf(os.Stderr, "%s is not set: a client of the control test must have a role\n", controlRoleEnv)
			os.Exit(2)
		}
		return
	case "decide":
		os.Exit(decideAs(os.Stdout, os.Args[1], os.Args[2]))
	case "daemon":
		os.Exit(startDetached(os.Args[1:]))
	case "detached":
		os.Exit(runDetached(os.Args[1:]))
	}
	os.Exit(2)
}

func decideAs(w *os.File, dir, id string) int {
	fmt.Fprintf(w, "pid %d\n", os.Getpid())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := Decide(ctx, dir, id, approval.Yes); err != nil {
		fmt.Fprintln(w, err)
		return 1
	}
	fmt.Fprintln(w, "ok")
	return 0
}

func startDetached(args []string) int {
	exe, err := os.Executable()
	if err != nil {
		return 1
	}
	cmd := exec.Command(exe, append(args, strconv.Itoa(os.Getpid()))...)
	cmd.Env = append(os.Environ(), controlRoleEnv+"=detached")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return 1
	}
	fmt.Printf("pid %d\n", cmd.Process.Pid)
	return 0 // the child is orphaned as this process exits
}

func runDetached(args []string) int {
	dir, id, out := args[0], args[1], args[2]
	first, _ := strconv.Atoi(args[3])
	for deadline := time.Now().Add(10 * time.Second); os.Getppid() == first; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			return 1
		}
	}
	tmp := out + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return 1
	}
	code := decideAs(f, dir, id)
	_ = f.Close()
	_ = os.Rename(tmp, out)
	return code
}

// pendingFixture is a control endpoint holding one pending request.
type pendingFixture struct {
	dir, id string
	q       *approval.Queue
	log     *syncBuffer
	done    chan approval.Answer
}

func newPendingFixture(t *testing.T) *pendingFixture {
	t.Helper()
	f := &pendingFixture{dir: shortDir(t), log: &syncBuffer{}, done: make(chan approval.Answer, 1)}
	f.q = approval.NewQueue(approval.QueueOptions{Timeout: time.Minute})
	c, err := ListenControl(f.dir, f.q, zerolog.New(f.log))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		a, _ := f.q.Approve(ctx, approval.Request{Tool: "file_write", Attribution: "builtin.file_write", Tier: tool.Medium})
		f.done <- a
	}()
	t.Cleanup(func() {
		cancel()
		<-f.done
	})
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(2 * time.Millisecond) {
		if list := f.q.List(); len(list) == 1 {
			f.id = list[0].ID
			return f
		}
		if time.Now().After(deadline) {
			t.Fatal("the request never became pending")
		}
	}
}

// stillPending fails unless the request is still waiting.
func (f *pendingFixture) stillPending(t *testing.T) {
	t.Helper()
	select {
	case a := <-f.done:
		f.done <- a
		t.Fatalf("the request was decided: %v", a)
	default:
	}
	if list := f.q.List(); len(list) != 1 || list[0].ID != f.id {
		t.Fatalf("pending = %+v", list)
	}
}

// TestControlRefusesToolProcesses has processes that talon started, the
// way it starts tool processes, try to approve a pending call.
func TestControlRefusesToolProcesses(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	env := []string{controlRoleEnv + "=decide", "PATH=" + os.Getenv("PATH")}
	tests := []struct {
		name string
		// run starts the client and returns its output.
		run func(t *testing.T, f *pendingFixture) string
	}{
		{name: "a plain child", run: func(t *testing.T, f *pendingFixture) string {
			cmd := exec.Command(exe, f.dir, f.id)
			cmd.Env = env
			out, _ := cmd.CombinedOutput()
			return string(out)
		}},
		{name: "a shell line of sandbox.Run with the sandbox off", run: func(t *testing.T, f *pendingFixture) string {
			sandbox.Configure(sandbox.Policy{Mode: sandbox.Off})
			o := sandbox.Run(context.Background(), sandbox.Cmd{Argv: []string{"/bin/sh", "-c", `"$0" "$1" "$2"; exit 0`, exe, f.dir, f.id},
				Binary: "/bin/sh", Env: env, Timeout: 20 * time.Second})
			if o.Err != nil {
				t.Fatal(o.Err)
			}
			return o.Stdout + o.Stderr
		}},
		{name: "a copy of talon's executable run by sandbox.Run with the sandbox off", run: func(t *testing.T, f *pendingFixture) string {
			// The spawner refuses talon's own executable, not a copy of it.
			sandbox.Configure(sandbox.Policy{Mode: sandbox.Off})
			bin := copyExecutable(t, exe, filepath.Join(f.dir, "copy"))
			o := sandbox.Run(context.Background(), sandbox.Cmd{Argv: []string{bin, f.dir, f.id}, Binary: bin, Env: env, Timeout: 20 * time.Second})
			if o.Err != nil {
				t.Fatal(o.Err)
			}
			return o.Stdout + o.Stderr
		}},
		{name: "a grandchild through a shell", run: func(t *testing.T, f *pendingFixture) string {
			cmd := exec.Command("/bin/sh", "-c", `"$0" "$1" "$2"; exit 0`, exe, f.dir, f.id)
			cmd.Env = env
			out, _ := cmd.CombinedOutput()
			return string(out)
		}},
		{name: "a double-forked daemon", run: func(t *testing.T, f *pendingFixture) string {
			// talon serve is a child subreaper, so an orphan of a tool
			// process is reparented to it, not to init.
			setSubreaper(t, true)
			return runDaemon(t, exe, f)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newPendingFixture(t)
			out := tt.run(t, f)
			pid := clientPid(t, out)
			if !strings.Contains(out, "approvals must come from a person's terminal") {
				t.Errorf("client output lacks the refusal:\n%s", out)
			}
			f.stillPending(t)
			var refusal map[string]any
			for _, line := range strings.Split(f.log.String(), "\n") {
				if strings.Contains(line, `"peer_pid":`+strconv.Itoa(pid)) {
					_ = json.Unmarshal([]byte(line), &refusal)
				}
			}
			// Every client here descends from this test process, the server.
			if refusal["level"] != "warn" || refusal["check"] != checkServerDescendant || !strings.Contains(fmt.Sprint(refusal["peer_cmdline"]), f.id) {
				t.Errorf("no warning naming pid %d, its command line and the check:\n%s", pid, f.log.String())
			}
			// The server itself, which no tool process is, still decides.
			if err := Decide(context.Background(), f.dir, f.id, approval.Yes); err != nil {
				t.Fatalf("the operator's Decide: %v", err)
			}
			if a := <-f.done; a != approval.Yes {
				t.Fatalf("answer = %v", a)
			}
			f.done <- approval.Yes
		})
	}
}

// TestControlTakesApprovalsFromPeople has a process that this server did
// not start — a double-forked daemon while the server is no subreaper,
// so init adopts it, as it adopts nothing talon starts — approve the
// pending call, as a person's terminal does.
func TestControlTakesApprovalsFromPeople(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	setSubreaper(t, false)
	f := newPendingFixture(t)
	out := runDaemon(t, exe, f)
	if pid := clientPid(t, out); !strings.Contains(out, "ok") {
		t.Fatalf("pid %d, a process talon did not start, was refused:\n%s\nserver log:\n%s", pid, out, f.log.String())
	}
	if a := <-f.done; a != approval.Yes {
		t.Fatalf("answer = %v", a)
	}
	f.done <- approval.Yes
	if strings.Contains(f.log.String(), "refused") {
		t.Fatalf("the server logged a refusal:\n%s", f.log.String())
	}
}

// setSubreaper makes this process a child subreaper or stops it being one
// for the rest of the test.
func setSubreaper(t *testing.T, on bool) {
	t.Helper()
	var was int32
	if err := unix.Prctl(unix.PR_GET_CHILD_SUBREAPER, uintptr(unsafe.Pointer(&was)), 0, 0, 0); err != nil {
		t.Skipf("no child subreaper: %v", err)
	}
	v := uintptr(0)
	if on {
		v = 1
	}
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, v, 0, 0, 0); err != nil {
		t.Skipf("no child subreaper: %v", err)
	}
	t.Cleanup(func() { _ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, uintptr(was), 0, 0, 0) })
}

// runDaemon starts a client that double-forks and returns what the
// detached process printed. The detached process is killed and, when
// this process adopted it, reaped at the end of the test.
func runDaemon(t *testing.T, exe string, f *pendingFixture) string {
	t.Helper()
	out := filepath.Join(f.dir, "daemon.out")
	cmd := exec.Command(exe, f.dir, f.id, out)
	cmd.Env = []string{controlRoleEnv + "=daemon", "PATH=" + os.Getenv("PATH")}
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("daemon: %v\n%s", err, b)
	}
	pid := clientPid(t, string(b))
	t.Cleanup(func() { stopDaemon(pid, f.id) })
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if b, err := os.ReadFile(out); err == nil {
			return string(b)
		}
		if time.Now().After(deadline) {
			t.Fatal("the daemon never reported")
		}
	}
}

// stopDaemon kills the detached client pid, if that pid still names it,
// and reaps it if this process adopted it.
func stopDaemon(pid int, id string) {
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); err == nil && strings.Contains(string(b), id) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	var ws syscall.WaitStatus
	_, _ = syscall.Wait4(pid, &ws, 0, nil) // ECHILD unless this process adopted it
}

// copyExecutable copies exe to path, a file of its own.
func copyExecutable(t *testing.T, exe, path string) string {
	t.Helper()
	data, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o700); err != nil { //nolint:gosec // an executable
		t.Fatal(err)
	}
	return path
}

// clientPid reads the "pid N" line a client printed.
func clientPid(t *testing.T, out string) int {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		if n, ok := strings.CutPrefix(line, "pid "); ok {
			if pid, err := strconv.Atoi(n); err == nil {
				return pid
			}
		}
	}
	t.Fatalf("the client printed no pid:\n%s", out)
	return 0
}
