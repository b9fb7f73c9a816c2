//go:build unix

package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/talonhq/talon/internal/proctest"
)

func lookPath(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("%s is not installed", name)
	}
	return p
}

func TestRun(t *testing.T) {
	proctest.NeedBins(t, "sh", "env", "pwd", "cat", "printf")
	dir := t.TempDir()
	tests := []struct {
		name    string
		cmd     Cmd
		code    int
		stdout  string
		stderr  string
		errIs   error
		started bool
	}{
		{name: "stdout", cmd: Cmd{Argv: []string{"printf", "%s|", "a b", "c"}}, stdout: "a b|c|"},
		{name: "argv0 is what the program sees", cmd: Cmd{Argv: []string{"shown-name", "-c", `printf %s "$0"`}, Binary: lookPath(t, "sh")}, stdout: "shown-name"},
		{name: "stderr and exit status", cmd: Cmd{Argv: []string{"sh", "-c", "echo oops >&2; exit 3"}}, code: 3, stderr: "oops\n"},
		{name: "only the given environment", cmd: Cmd{Argv: []string{"env"}, Env: []string{"ONLY=1"}}, stdout: "ONLY=1\n"},
		{name: "nil environment is empty", cmd: Cmd{Argv: []string{"env"}}, stdout: ""},
		{name: "working directory", cmd: Cmd{Argv: []string{"pwd"}, Dir: dir}, stdout: dir + "\n"},
		{name: "stdin from a reader", cmd: Cmd{Argv: []string{"cat"}, Stdin: strings.NewReader("fed")}, stdout: "fed"},
		{name: "no stdin is the null device", cmd: Cmd{Argv: []string{"cat"}}, stdout: ""},
		{name: "signal status", cmd: Cmd{Argv: []string{"sh", "-c", "kill -TERM $$"}}, code: 128 + int(syscall.SIGTERM)},
		{name: "missing program", cmd: Cmd{Argv: []string{"no-such-program-talon"}}, code: -1, errIs: exec.ErrNotFound},
		{name: "missing binary path", cmd: Cmd{Argv: []string{"x"}, Binary: filepath.Join(dir, "nope")}, code: -1, errIs: os.ErrNotExist},
		{name: "empty argv", cmd: Cmd{}, code: -1, errIs: ErrNoCommand},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := Run(context.Background(), tt.cmd)
			if tt.errIs != nil {
				if !errors.Is(out.Err, tt.errIs) {
					t.Fatalf("Err = %v, want %v", out.Err, tt.errIs)
				}
			} else if out.Err != nil {
				t.Fatalf("Err = %v", out.Err)
			}
			if out.ExitCode != tt.code || out.Stdout != tt.stdout || out.Stderr != tt.stderr {
				t.Fatalf("outcome = %+v, want code %d stdout %q stderr %q", out, tt.code, tt.stdout, tt.stderr)
			}
			if out.TimedOut || out.Canceled || out.Overflowed {
				t.Fatalf("outcome = %+v: unexpected flags", out)
			}
		})
	}
}

func TestRunTimeoutKillsGroup(t *testing.T) {
	bin, pidFile := proctest.Spawner(t, t.TempDir())
	start := time.Now()
	out := Run(context.Background(), Cmd{Argv: []string{"spawner"}, Binary: bin, Timeout: 500 * time.Millisecond})
	if !out.TimedOut || out.Canceled || out.ExitCode != 137 {
		t.Fatalf("outcome = %+v, want timed out with status 137", out)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("Run took %s after a 500ms timeout", d)
	}
	proctest.AssertAllGone(t, proctest.ReadPids(t, pidFile, 3), 3)
}

func TestRunCancelKillsGroup(t *testing.T) {
	bin, pidFile := proctest.Spawner(t, t.TempDir())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan Outcome)
	go func() { done <- Run(ctx, Cmd{Argv: []string{"spawner"}, Binary: bin}) }()
	pids := proctest.ReadPids(t, pidFile, 3)
	cancel()
	out := <-done
	if !out.Canceled || out.TimedOut {
		t.Fatalf("outcome = %+v, want canceled", out)
	}
	proctest.AssertAllGone(t, pids, 3)
}

func TestRunLeftoversKilled(t *testing.T) {
	// The program exits at once; its background child keeps stdout open.
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pids")
	proctest.NeedBins(t, "sleep")
	bin := proctest.Script(t, dir, "leaver.sh", "sleep 300 &\necho $! > "+pidFile+"\necho done\n")
	start := time.Now()
	out := Run(context.Background(), Cmd{Argv: []string{"leaver"}, Binary: bin})
	if out.Err != nil || out.ExitCode != 0 || out.Stdout != "done\n" {
		t.Fatalf("outcome = %+v", out)
	}
	if d := time.Since(start); d >= drainDelay {
		t.Fatalf("Run took %s: the leftover group was not killed", d)
	}
	proctest.AssertAllGone(t, proctest.ReadPids(t, pidFile, 1), 1)
}

func TestRunOverflow(t *testing.T) {
	proctest.NeedBins(t, "head", "sleep")
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pids")
	bin := proctest.Script(t, dir, "flood.sh", "echo $$ > "+pidFile+"\nhead -c 5000 /dev/zero\nsleep 300\n")
	tests := []struct {
		name   string
		policy Overflow
		stream string
		code   int
	}{
		{name: "kill", policy: Kill, stream: "stdout", code: 137},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			out := Run(context.Background(), Cmd{Argv: []string{"flood"}, Binary: bin, MaxStdout: 1000, Overflow: tt.policy})
			if !out.Overflowed || out.OverflowStream != tt.stream || out.ExitCode != tt.code || len(out.Stdout) != 1000 {
				t.Fatalf("outcome = code %d overflowed %v stream %q stdout %d bytes", out.ExitCode, out.Overflowed, out.OverflowStream, len(out.Stdout))
			}
			if d := time.Since(start); d > 3*time.Second {
				t.Fatalf("Run took %s: the group was not killed promptly", d)
			}
			proctest.AssertAllGone(t, proctest.ReadPids(t, pidFile, 1), 1)
		})
	}
}

func TestRunOverflowDiscard(t *testing.T) {
	proctest.NeedBins(t, "head")
	bin := proctest.Script(t, t.TempDir(), "noisy.sh", "head -c 5000 /dev/zero >&2\necho fine\n")
	out := Run(context.Background(), Cmd{Argv: []string{"noisy"}, Binary: bin, MaxStderr: 10})
	if out.ExitCode != 0 || !out.Overflowed || out.OverflowStream != "stderr" || len(out.Stderr) != 10 || out.Stdout != "fine\n" {
		t.Fatalf("outcome = %+v", out)
	}
}

func TestRunAlreadyCanceled(t *testing.T) {
	proctest.NeedBins(t, "true")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out := Run(ctx, Cmd{Argv: []string{"true"}})
	if !out.Canceled || out.Err == nil || out.ExitCode != -1 {
		t.Fatalf("outcome = %+v, want canceled before start", out)
	}
}

func TestStartOwnGroup(t *testing.T) {
	proctest.NeedBins(t, "sleep")
	cmd := CommandContext(context.Background(), "sleep", "300")
	if err := Start(cmd); err != nil {
		t.Fatal(err)
	}
	pgid, err := syscall.Getpgid(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	if pgid != cmd.Process.Pid {
		t.Errorf("pgid = %d, want the child's own pid %d", pgid, cmd.Process.Pid)
	}
	if err := KillGroup(cmd.Process); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if n, ok := SignalStatus(cmd.ProcessState); !ok || n != 137 {
		t.Fatalf("SignalStatus = %d, %v; want 137, true", n, ok)
	}
	if err := KillGroup(cmd.Process); err != nil {
		t.Fatalf("KillGroup of a gone group = %v, want nil", err)
	}
}

func TestCommandPrepared(t *testing.T) {
	cmd := Command("true")
	if cmd.SysProcAttr == nil || !cmd.SysProcAttr.Setpgid {
		t.Fatal("Command did not ask for a process group")
	}
	if err := KillGroup(nil); err != nil {
		t.Fatal(err)
	}
	if _, ok := SignalStatus(nil); ok {
		t.Fatal("SignalStatus(nil) reported a signal")
	}
}

func TestRenice(t *testing.T) {
	proctest.NeedBins(t, "sleep")
	// Niceness is per thread on Linux, and Renice adds to the calling
	// thread's: compare with this thread's, not the main thread's (which
	// another test's StartNice may have raised).
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cmd := CommandContext(context.Background(), "sleep", "300")
	if err := Start(cmd); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = KillGroup(cmd.Process)
		_ = cmd.Wait()
	}()
	Renice(cmd.Process, 5)
	Renice(nil, 5)
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", cmd.Process.Pid))
	if err != nil {
		t.Skip("no /proc")
	}
	fields := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+2:]))
	self, _ := os.ReadFile("/proc/thread-self/stat")
	selfFields := strings.Fields(string(self[bytes.LastIndexByte(self, ')')+2:]))
	// Field 19 of stat (index 16 after the command) is the nice value.
	got, _ := strconv.Atoi(fields[16])
	base, _ := strconv.Atoi(selfFields[16])
	if want := min(base+5, 19); got != want {
		t.Fatalf("nice = %d, want %d", got, want)
	}
}
