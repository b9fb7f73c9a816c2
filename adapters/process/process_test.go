package process

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/talonhq/talon/adapters/shell"
	"github.com/talonhq/talon/tool"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// newTool builds the tool over a fresh workspace holding a script that
// prints three lines, with sleep, cat, seq and the script allowed.
func newTool(t *testing.T, mo ManagerOptions) (*Tool, string) {
	t.Helper()
	ws := t.TempDir()
	script := filepath.Join(ws, "lines.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho line1\necho line2\necho oops >&2\necho line3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	m := NewManager(mo)
	t.Cleanup(func() { _ = m.Close() })
	tl, err := New(Options{Workspace: ws, Manager: m,
		AllowedCommands: []string{"sleep", "cat", "seq", "echo", "ls", "mkdir", script}})
	if err != nil {
		t.Fatal(err)
	}
	return tl, script
}

func in(session string) context.Context {
	return tool.WithCall(context.Background(), tool.Call{Name: Name, SessionID: session})
}

func call(t *testing.T, tl *Tool, ctx context.Context, args string) tool.Result {
	t.Helper()
	res, err := tl.Execute(ctx, json.RawMessage(args))
	if err != nil {
		t.Fatalf("%s: %v", args, err)
	}
	return res
}

func startID(t *testing.T, tl *Tool, ctx context.Context, command string) string {
	t.Helper()
	b, _ := json.Marshal(map[string]string{"action": "start", "command": command})
	res := call(t, tl, ctx, string(b))
	if !res.Success {
		t.Fatalf("start %q: %s", command, res.Error)
	}
	return res.Output.Data.(Info).ID
}

// pollUntilDone polls until the process exited and returns all output.
func pollUntilDone(t *testing.T, tl *Tool, ctx context.Context, id string) (stdout, stderr string, last PollData) {
	t.Helper()
	for range 20 {
		res := call(t, tl, ctx, `{"action":"poll","id":"`+id+`","wait_seconds":2}`)
		if !res.Success {
			t.Fatalf("poll: %s", res.Error)
		}
		last = res.Output.Data.(PollData)
		stdout += last.Stdout
		stderr += last.Stderr
		if !last.Running && !strings.Contains(res.Output.Text, "more output") {
			return stdout, stderr, last
		}
	}
	t.Fatal("the process never finished")
	return
}

func TestPollAndLog(t *testing.T) {
	tl, script := newTool(t, ManagerOptions{})
	ctx := in("s1")
	id := startID(t, tl, ctx, script)
	out, errOut, last := pollUntilDone(t, tl, ctx, id)
	if out != "line1\nline2\nline3\n" || errOut != "oops\n" || *last.ExitCode != 0 {
		t.Fatalf("stdout %q stderr %q exit %v", out, errOut, last.ExitCode)
	}
	tests := []struct {
		name, args, want string
	}{
		{name: "from an offset", args: `{"action":"log","id":"` + id + `","offset":6,"limit":5}`, want: "line2"},
		{name: "tail", args: `{"action":"log","id":"` + id + `","limit":6}`, want: "line3\n"},
		{name: "stderr", args: `{"action":"log","id":"` + id + `","stream":"stderr","offset":0}`, want: "oops\n"},
		{name: "past the end", args: `{"action":"log","id":"` + id + `","offset":100}`, want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, tl, ctx, tt.args)
			if d := res.Output.Data.(LogData); !res.Success || d.Text != tt.want {
				t.Errorf("log = %q (%s), want %q", d.Text, res.Error, tt.want)
			}
		})
	}
	res := call(t, tl, ctx, `{"action":"list"}`)
	if !strings.Contains(res.Output.Text, id+" exited with status 0") {
		t.Errorf("list = %s", res.Output.Text)
	}
}

func TestWriteStdin(t *testing.T) {
	tl, _ := newTool(t, ManagerOptions{})
	ctx := in("s1")
	id := startID(t, tl, ctx, "cat")
	if res := call(t, tl, ctx, `{"action":"write","id":"`+id+`","input":"hello\n"}`); !res.Success {
		t.Fatal(res.Error)
	}
	res := call(t, tl, ctx, `{"action":"poll","id":"`+id+`","wait_seconds":5}`)
	if d := res.Output.Data.(PollData); d.Stdout != "hello\n" || !d.Running {
		t.Fatalf("poll after write = %+v", d)
	}
	call(t, tl, ctx, `{"action":"write","id":"`+id+`","input":"bye\n","eof":true}`)
	out, _, last := pollUntilDone(t, tl, ctx, id)
	if out != "bye\n" || *last.ExitCode != 0 {
		t.Fatalf("after eof: %q, %v", out, last.ExitCode)
	}
	if res := call(t, tl, ctx, `{"action":"write","id":"`+id+`","input":"x"}`); res.Success {
		t.Error("write after eof succeeded")
	}
}

func TestKillGroup(t *testing.T) {
	tl, _ := newTool(t, ManagerOptions{})
	ctx := in("s1")
	id := startID(t, tl, ctx, "sleep 30 | cat")
	p, err := tl.mgr.get("s1", id)
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	deadline := time.Now().Add(5 * time.Second)
	for len(pids) < 2 && time.Now().Before(deadline) {
		p.mu.Lock()
		pids = pids[:0]
		for _, c := range p.cmds {
			pids = append(pids, c.Process.Pid)
		}
		p.mu.Unlock()
		time.Sleep(10 * time.Millisecond)
	}
	if len(pids) != 2 {
		t.Fatalf("pipeline processes = %v", pids)
	}
	res := call(t, tl, ctx, `{"action":"kill","id":"`+id+`"}`)
	if !res.Success || !strings.Contains(res.Output.Text, "killed") {
		t.Fatalf("kill: %+v", res)
	}
	for _, pid := range pids {
		if err := syscall.Kill(-pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("process group %d still exists: %v", pid, err)
		}
	}
	res = call(t, tl, ctx, `{"action":"list"}`)
	if !strings.Contains(res.Output.Text, "killed (status 137)") {
		t.Errorf("list after kill = %s", res.Output.Text)
	}
}

func TestSessionIsolation(t *testing.T) {
	tl, _ := newTool(t, ManagerOptions{})
	id := startID(t, tl, in("alice"), "sleep 30")
	for _, args := range []string{
		`{"action":"poll","id":"` + id + `","wait_seconds":0}`,
		`{"action":"log","id":"` + id + `"}`,
		`{"action":"write","id":"` + id + `","input":"x"}`,
		`{"action":"kill","id":"` + id + `"}`,
	} {
		if res := call(t, tl, in("mallory"), args); res.Success || !strings.Contains(res.Error, "no such background process") {
			t.Errorf("another session: %s = %+v", args, res)
		}
	}
	if res := call(t, tl, in("mallory"), `{"action":"list"}`); strings.Contains(res.Output.Text, id) {
		t.Errorf("another session lists %s", id)
	}
	if res := call(t, tl, in("alice"), `{"action":"poll","id":"`+id+`","wait_seconds":0}`); !res.Output.Data.(PollData).Running {
		t.Error("the owner's process is not running after another session tried to kill it")
	}
}

func TestTTLReaping(t *testing.T) {
	c := &clock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	tl, _ := newTool(t, ManagerOptions{Now: c.Now})
	ctx := in("s1")
	id := startID(t, tl, ctx, "echo hi")
	pollUntilDone(t, tl, ctx, id)
	c.Add(9 * time.Minute)
	if res := call(t, tl, ctx, `{"action":"list"}`); !strings.Contains(res.Output.Text, id) {
		t.Fatalf("reaped before the TTL: %s", res.Output.Text)
	}
	c.Add(2 * time.Minute)
	if res := call(t, tl, ctx, `{"action":"list"}`); strings.Contains(res.Output.Text, id) {
		t.Fatalf("not reaped after the TTL: %s", res.Output.Text)
	}
	if res := call(t, tl, ctx, `{"action":"log","id":"`+id+`"}`); res.Success {
		t.Error("log of a reaped process succeeded")
	}
}

func TestLiveLimit(t *testing.T) {
	tl, _ := newTool(t, ManagerOptions{MaxLive: 2})
	ctx := in("s1")
	startID(t, tl, ctx, "sleep 30")
	startID(t, tl, ctx, "sleep 30")
	if res := call(t, tl, ctx, `{"action":"start","command":"sleep 30"}`); res.Success || !strings.Contains(res.Error, "too many") {
		t.Fatalf("third start = %+v", res)
	}
	startID(t, tl, in("s2"), "sleep 30") // another session has its own limit
}

func TestOutputCapMarker(t *testing.T) {
	tl, _ := newTool(t, ManagerOptions{MaxOutputBytes: 100})
	ctx := in("s1")
	id := startID(t, tl, ctx, "seq 1 1000")
	for range 20 {
		if fin, _, _, _ := mustGet(t, tl, id).state(); fin {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	res := call(t, tl, ctx, `{"action":"poll","id":"`+id+`","wait_seconds":2}`)
	if !strings.Contains(res.Output.Text, "earlier bytes dropped") || !strings.HasSuffix(res.Output.Data.(PollData).Stdout, "999\n1000\n") {
		t.Fatalf("poll over the cap = %s", res.Output.Text)
	}
	if d := call(t, tl, ctx, `{"action":"log","id":"`+id+`","offset":0}`).Output.Data.(LogData); d.Dropped == 0 || len(d.Text) != 100 {
		t.Errorf("log from 0 over the cap = %+v", d)
	}
}

func mustGet(t *testing.T, tl *Tool, id string) *proc {
	t.Helper()
	p, err := tl.mgr.get("s1", id)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestAssessLikeShell checks that start is assessed exactly as the shell
// tool assesses the same line, and that the other actions have fixed tiers.
func TestAssessLikeShell(t *testing.T) {
	tl, _ := newTool(t, ManagerOptions{})
	sh, err := shell.New(shell.Options{Workspace: tl.opts.Workspace, AllowedCommands: tl.opts.AllowedCommands})
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"ls -la", "mkdir build", "rm -rf /", "echo $(id)", "sleep 30 | cat"} {
		b, _ := json.Marshal(map[string]string{"action": "start", "command": line})
		got, err := tl.Assess(b)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := sh.Assess(shellArgs(line))
		gb, _ := json.Marshal(got)
		wb, _ := json.Marshal(want)
		if string(gb) != string(wb) {
			t.Errorf("%q: process %s, shell %s", line, gb, wb)
		}
	}
	for action, tier := range map[string]tool.Tier{"list": tool.Low, "poll": tool.Low, "log": tool.Low, "write": tool.Medium, "kill": tool.Medium} {
		got, err := tl.Assess(json.RawMessage(`{"action":"` + action + `","id":"p1"}`))
		if err != nil || got.Tier != tier {
			t.Errorf("%s: %v %v", action, got.Tier, err)
		}
	}
	if res := call(t, tl, in("s1"), `{"action":"start","command":"rm -rf /"}`); res.Success || !strings.Contains(res.Error, "nothing started") {
		t.Errorf("start of a denied line = %+v", res)
	}
	approved := &tool.Plan{Summary: "ls"}
	ctx := tool.WithApprovedPlan(in("s1"), approved)
	if res := call(t, tl, ctx, `{"action":"start","command":"ls -la"}`); res.Success || !strings.Contains(res.Error, "approved plan") {
		t.Errorf("start with another approved plan = %+v", res)
	}
}

func TestCloseKillsEverything(t *testing.T) {
	tl, _ := newTool(t, ManagerOptions{})
	ctx := in("s1")
	id := startID(t, tl, ctx, "sleep 30")
	p := mustGet(t, tl, id)
	if err := tl.mgr.Close(); err != nil {
		t.Fatal(err)
	}
	if fin, _, _, killed := p.state(); !fin || !killed {
		t.Errorf("after Close: finished %v killed %v", fin, killed)
	}
	if res := call(t, tl, ctx, `{"action":"start","command":"sleep 1"}`); res.Success {
		t.Error("start after Close succeeded")
	}
}

func TestRing(t *testing.T) {
	r := newRing(4, nil)
	_, _ = r.Write([]byte("ab"))
	_, _ = r.Write([]byte("cdef"))
	if d, next, dropped := r.Read(0, 10); string(d) != "cdef" || next != 6 || dropped != 2 {
		t.Errorf("Read(0) = %q %d %d", d, next, dropped)
	}
	_, _ = r.Write([]byte("0123456789"))
	if d, next, dropped := r.Read(14, 2); string(d) != "89" || next != 16 || dropped != 0 {
		t.Errorf("Read(14) = %q %d %d", d, next, dropped)
	}
}

// TestRingMatchesNaive checks the circular buffer against keeping
// everything, for many write sizes and windows.
func TestRingMatchesNaive(t *testing.T) {
	const size = 7
	r := newRing(size, nil)
	var all []byte
	for i := range 40 {
		chunk := make([]byte, i%11)
		for j := range chunk {
			chunk[j] = byte('a' + (len(all)+j)%26)
		}
		_, _ = r.Write(chunk)
		all = append(all, chunk...)
		for off := int64(0); off <= int64(len(all)); off++ {
			for _, limit := range []int{1, 3, size} {
				got, next, dropped := r.Read(off, limit)
				start := max(int64(len(all))-size, 0)
				from := max(off, start)
				want := all[from:min(int64(len(all)), from+int64(limit))]
				if string(got) != string(want) || next != from+int64(len(want)) || dropped != from-off {
					t.Fatalf("after %d bytes, Read(%d, %d) = %q %d %d; want %q", len(all), off, limit, got, next, dropped, want)
				}
			}
		}
	}
}
