// Package proctest helps tests prove that a process and everything it
// started are gone: a fixture that spawns grandchildren and records their
// pids, and the checks that read them back.
package proctest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// NeedBins skips the test when any of the programs is not on PATH.
func NeedBins(tb testing.TB, names ...string) {
	tb.Helper()
	for _, n := range names {
		if _, err := exec.LookPath(n); err != nil {
			tb.Skipf("%s is not installed", n)
		}
	}
}

// Script writes an executable /bin/sh script into dir and returns its path.
func Script(tb testing.TB, dir, name, body string) string {
	tb.Helper()
	NeedBins(tb, "sh")
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		tb.Fatal(err)
	}
	return p
}

// Spawner writes a script that records its own pid and the pids of two
// background sleeps (its children) in pidFile, one per line, then waits:
// three pids in all once it is running.
func Spawner(tb testing.TB, dir string) (script, pidFile string) {
	tb.Helper()
	NeedBins(tb, "sleep")
	pidFile = filepath.Join(dir, "pids")
	script = Script(tb, dir, "spawner.sh", "echo $$ >> "+pidFile+"\nsleep 300 &\necho $! >> "+pidFile+
		"\nsleep 300 &\necho $! >> "+pidFile+"\nwait\n")
	return script, pidFile
}

// ReadPids reads the pids a fixture recorded, waiting up to five seconds
// for at least want of them.
func ReadPids(tb testing.TB, pidFile string, want int) []int {
	tb.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		b, _ := os.ReadFile(pidFile)
		var pids []int
		for _, f := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(f); err == nil {
				pids = append(pids, n)
			}
		}
		if len(pids) >= want || time.Now().After(deadline) {
			return pids
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Alive reports a process that exists and is not a zombie.
func Alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		if _, serr := os.Stat("/proc/self/stat"); serr != nil {
			return syscall.Kill(pid, 0) == nil
		}
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	return i >= 0 && i+2 < len(b) && b[i+2] != 'Z' && b[i+2] != 'X'
}

// AssertAllGone fails unless at least want pids were recorded and every one
// of them exits within three seconds. Survivors are killed at cleanup, so a
// failing test leaves nothing behind.
func AssertAllGone(tb testing.TB, pids []int, want int) {
	tb.Helper()
	tb.Cleanup(func() {
		for _, p := range pids {
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
	})
	if len(pids) < want {
		tb.Fatalf("the fixture recorded %d pids, want %d", len(pids), want)
	}
	deadline := time.Now().Add(3 * time.Second)
	for _, p := range pids {
		for Alive(p) {
			if time.Now().After(deadline) {
				tb.Fatalf("pid %d survived (pids %v)", p, pids)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}
