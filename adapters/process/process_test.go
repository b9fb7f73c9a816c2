package process

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/talonhq/talon/adapters/shell"
	"github.com/talonhq/talon/internal/proctest"
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
func newTool(t *testing.T, mo shell.ManagerOptions) (*Tool, string) {
	t.Helper()
	ws := t.TempDir()
	script := filepath.Join(ws, "lines.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho line1\necho line2\necho oops >&2\necho line3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	m := shell.NewManager(mo)
	t.Cleanup(func() { _ = m.Close() })
	tl, err := New(Options{Shell: shell.Options{Workspace: ws, Jobs: m,
		AllowedCommands: []string{"sleep", "cat", "seq", "echo", "ls", "mkdir", script, filepath.Join(ws, "spawner.sh")}}})
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
	return res.Output.Data.(shell.Info).ID
}

// pollUntilDone polls until the process exited and returns all output.
func pollUntilDone(t *testing.T, tl *Tool, ctx context.Context, id string) (stdout, stderr string, last shell.PollData) {
	t.Helper()
	for range 20 {
		res := call(t, tl, ctx, `{"action":"poll","id":"`+id+`","wait_seconds":2}`)
		if !res.Success {
			t.Fatalf("poll: %s", res.Error)
		}
		last = res.Output.Data.(shell.PollData)
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
	tl, script := newTool(t, shell.ManagerOptions{})
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
			if d := res.Output.Data.(shell.LogData); !res.Success || d.Text != tt.want {
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
	tl, _ := newTool(t, shell.ManagerOptions{})
	ctx := in("s1")
	id := startID(t, tl, ctx, "cat")
	if res := call(t, tl, ctx, `{"action":"write","id":"`+id+`","input":"hello\n"}`); !res.Success {
		t.Fatal(res.Error)
	}
	res := call(t, tl, ctx, `{"action":"poll","id":"`+id+`","wait_seconds":5}`)
	if d := res.Output.Data.(shell.PollData); d.Stdout != "hello\n" || !d.Running {
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
	tl, _ := newTool(t, shell.ManagerOptions{})
	ctx := in("s1")
	script, pidFile := proctest.Spawner(t, tl.opts.Shell.Workspace)
	id := startID(t, tl, ctx, script+" | cat")
	pids := proctest.ReadPids(t, pidFile, 3)
	res := call(t, tl, ctx, `{"action":"kill","id":"`+id+`"}`)
	if !res.Success || !strings.Contains(res.Output.Text, "killed") {
		t.Fatalf("kill: %+v", res)
	}
	proctest.AssertAllGone(t, pids, 3)
	res = call(t, tl, ctx, `{"action":"list"}`)
	if !strings.Contains(res.Output.Text, "killed (status 137)") {
		t.Errorf("list after kill = %s", res.Output.Text)
	}
}

func TestSessionIsolation(t *testing.T) {
	tl, _ := newTool(t, shell.ManagerOptions{})
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
	if res := call(t, tl, in("alice"), `{"action":"poll","id":"`+id+`","wait_seconds":0}`); !res.Output.Data.(shell.PollData).Running {
		t.Error("the owner's process is not running after another session tried to kill it")
	}
}

func TestTTLReaping(t *testing.T) {
	c := &clock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	tl, _ := newTool(t, shell.ManagerOptions{Now: c.Now})
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
	tl, _ := newTool(t, shell.ManagerOptions{MaxLive: 2})
	ctx := in("s1")
	startID(t, tl, ctx, "sleep 30")
	startID(t, tl, ctx, "sleep 30")
	if res := call(t, tl, ctx, `{"action":"start","command":"sleep 30"}`); res.Success || !strings.Contains(res.Error, "too many") {
		t.Fatalf("third start = %+v", res)
	}
	startID(t, tl, in("s2"), "sleep 30") // another session has its own limit
}

func TestOutputCapMarker(t *testing.T) {
	tl, _ := newTool(t, shell.ManagerOptions{MaxOutputBytes: 100})
	ctx := in("s1")
	id := startID(t, tl, ctx, "seq 1 1000")
	for range 20 {
		if mustGet(t, tl, id).State().Finished {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	res := call(t, tl, ctx, `{"action":"poll","id":"`+id+`","wait_seconds":2}`)
	if !strings.Contains(res.Output.Text, "earlier bytes dropped") || !strings.HasSuffix(res.Output.Data.(shell.PollData).Stdout, "999\n1000\n") {
		t.Fatalf("poll over the cap = %s", res.Output.Text)
	}
	if d := call(t, tl, ctx, `{"action":"log","id":"`+id+`","offset":0}`).Output.Data.(shell.LogData); d.Dropped == 0 || len(d.Text) != 100 {
		t.Errorf("log from 0 over the cap = %+v", d)
	}
}

func mustGet(t *testing.T, tl *Tool, id string) *shell.Job {
	t.Helper()
	p, err := tl.Manager().Get("s1", id)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestAssessLikeShell checks that start is assessed exactly as the shell
// tool assesses the same line, and that the other actions have fixed tiers.
func TestAssessLikeShell(t *testing.T) {
	tl, _ := newTool(t, shell.ManagerOptions{})
	sh, err := shell.New(shell.Options{Workspace: tl.opts.Shell.Workspace, AllowedCommands: tl.opts.Shell.AllowedCommands})
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"ls -la", "mkdir build", "rm -rf /", "echo $(id)", "sleep 30 | cat"} {
		b, _ := json.Marshal(map[string]string{"action": "start", "command": line})
		got, err := tl.Assess(b)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := sh.Assess(json.RawMessage(`{"command":` + strconvQuote(line) + `}`))
		gb, _ := json.Marshal(got)
		wb, _ := json.Marshal(want)
		if string(gb) != string(wb) {
			t.Errorf("%q: process %s, shell %s", line, gb, wb)
		}
	}
	for action, tier := range map[string]tool.Tier{"list": tool.Low, "poll": tool.Low, "log": tool.Low, "write": tool.Medium, "send_keys": tool.Medium, "paste": tool.Medium, "kill": tool.Medium} {
		got, err := tl.Assess(json.RawMessage(`{"action":"` + action + `","id":"p1","keys":["Enter"]}`))
		if err != nil || got.Tier != tier {
			t.Errorf("%s: %v %v", action, got.Tier, err)
		}
	}
	if res := call(t, tl, in("s1"), `{"action":"start","command":"rm -rf /"}`); res.Success || !strings.Contains(res.Error, "nothing ran") {
		t.Errorf("start of a denied line = %+v", res)
	}
	approved := &tool.Plan{Summary: "ls"}
	ctx := tool.WithApprovedPlan(in("s1"), approved)
	if res := call(t, tl, ctx, `{"action":"start","command":"ls -la"}`); res.Success || !strings.Contains(res.Error, "approved plan") {
		t.Errorf("start with another approved plan = %+v", res)
	}
}

func TestCloseKillsEverything(t *testing.T) {
	tl, _ := newTool(t, shell.ManagerOptions{})
	ctx := in("s1")
	id := startID(t, tl, ctx, "sleep 30")
	p := mustGet(t, tl, id)
	if err := tl.Manager().Close(); err != nil {
		t.Fatal(err)
	}
	if st := p.State(); !st.Finished || !st.Killed {
		t.Errorf("after Close: %+v", st)
	}
	if res := call(t, tl, ctx, `{"action":"start","command":"sleep 1"}`); res.Success {
		t.Error("start after Close succeeded")
	}
}

func strconvQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
