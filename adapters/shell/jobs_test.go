//go:build unix

package shell

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/talonhq/talon/internal/proctest"
	"github.com/talonhq/talon/tool"
)

// fixtures holds programs built once per test binary.
var fixtures struct {
	once sync.Once
	dir  string
	bin  string
	err  error
}

// vimish builds testdata/vimish, a program that refuses to run without a
// terminal and names the keys it reads.
func vimish(t *testing.T) string {
	t.Helper()
	proctest.NeedBins(t, "go")
	fixtures.once.Do(func() {
		fixtures.dir, fixtures.err = os.MkdirTemp("", "talon-shell-fixtures")
		if fixtures.err != nil {
			return
		}
		fixtures.bin = filepath.Join(fixtures.dir, "vimish")
		out, err := exec.Command("go", "build", "-o", fixtures.bin, "./testdata/vimish").CombinedOutput()
		if err != nil {
			fixtures.err = err
			fixtures.bin = string(out)
		}
	})
	if fixtures.err != nil {
		t.Fatalf("build vimish: %v\n%s", fixtures.err, fixtures.bin)
	}
	return fixtures.bin
}

func removeFixtures() {
	if fixtures.dir != "" {
		_ = os.RemoveAll(fixtures.dir)
	}
}

// args renders a shell call.
func callArgs(t *testing.T, m map[string]any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// inSession is a context of a call of session, with the notices it gets.
func inSession(session string) (context.Context, *notices) {
	n := &notices{got: make(chan tool.Notice, 8)}
	ctx := tool.WithCall(context.Background(), tool.Call{Name: Name, SessionID: session})
	return tool.WithNotifier(ctx, func(no tool.Notice) { n.got <- no }), n
}

type notices struct{ got chan tool.Notice }

func (n *notices) next(t *testing.T) tool.Notice {
	t.Helper()
	select {
	case no := <-n.got:
		return no
	case <-time.After(20 * time.Second):
		t.Fatal("no notice arrived")
		return tool.Notice{}
	}
}

func (n *notices) none(t *testing.T) {
	t.Helper()
	select {
	case no := <-n.got:
		t.Fatalf("unexpected notice %+v", no)
	default:
	}
}

// jobOf returns the job a result started.
func jobOf(t *testing.T, s *Shell, session string, res tool.Result) *Job {
	t.Helper()
	var id string
	switch d := res.Output.Data.(type) {
	case Info:
		id = d.ID
	case PollData:
		id = d.ID
	default:
		t.Fatalf("result %+v started no process", res)
	}
	j, err := s.Jobs().Get(session, id)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// pollFor polls j until its output so far contains want (or it ended).
func pollFor(t *testing.T, j *Job, want string) string {
	t.Helper()
	var seen strings.Builder
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		res, err := j.Poll(context.Background(), 2*time.Second, 0)
		if err != nil {
			t.Fatal(err)
		}
		d := res.Output.Data.(PollData)
		seen.WriteString(d.Stdout + d.Stderr)
		if strings.Contains(seen.String(), want) {
			return seen.String()
		}
		if !d.Running && !j.pending() {
			break
		}
	}
	t.Fatalf("%s never wrote %q; it wrote %q (%s)", j.ID(), want, seen.String(), j.Info().Status())
	return ""
}

func waitDone(t *testing.T, j *Job) JobState {
	t.Helper()
	select {
	case <-j.Done():
	case <-time.After(20 * time.Second):
		j.Kill()
		t.Fatalf("%s never ended", j.ID())
	}
	return j.State()
}

func TestWorkdir(t *testing.T) {
	proctest.NeedBins(t, "pwd", "ls")
	ws := t.TempDir()
	outside := t.TempDir()
	for _, d := range []string{"sub/deep", "dotdot"} {
		if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(ws, "file.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "sub", "only-here.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(ws, "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(ws, "sub"), filepath.Join(ws, "in")); err != nil {
		t.Fatal(err)
	}
	s := newShell(t, Options{Workspace: ws, ForbiddenPaths: []string{"dotdot"}})
	real := s.opts.Workspace
	tests := []struct {
		name, workdir, command string
		want                   string // text, or the refusal
		ok                     bool
	}{
		{name: "subdirectory", workdir: "sub", command: "pwd", want: filepath.Join(real, "sub") + "\n", ok: true},
		{name: "globs and relative paths resolve there", workdir: "sub", command: "ls *.txt", want: "only-here.txt\n", ok: true},
		{name: "absolute inside", workdir: filepath.Join(real, "sub", "deep"), command: "pwd", want: filepath.Join(real, "sub", "deep") + "\n", ok: true},
		{name: "link that stays inside runs where it leads", workdir: "in", command: "pwd", want: filepath.Join(real, "sub") + "\n", ok: true},
		{name: "dot dot out", workdir: "../", command: "pwd", want: "workdir \"../\" is outside the workspace"},
		{name: "absolute outside", workdir: outside, command: "pwd", want: "is outside the workspace"},
		{name: "link out", workdir: "out", command: "pwd", want: "workdir \"out\" is outside the workspace"},
		{name: "missing", workdir: "nope", command: "pwd", want: "workdir \"nope\" does not exist"},
		{name: "a file", workdir: "file.txt", command: "pwd", want: "workdir \"file.txt\" is not a directory"},
		{name: "forbidden", workdir: "dotdot", command: "pwd", want: "forbidden"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := callArgs(t, map[string]any{"command": tt.command, "workdir": tt.workdir})
			res, err := s.Execute(context.Background(), a)
			if err != nil {
				t.Fatal(err)
			}
			if res.Success != tt.ok {
				t.Fatalf("result %+v, want success %v", res, tt.ok)
			}
			if tt.ok && res.Output.Text != tt.want || !tt.ok && !strings.Contains(res.Error, tt.want) {
				t.Fatalf("result %q %q, want %q", res.Output.Text, res.Error, tt.want)
			}
			as, err := s.Assess(a)
			if !tt.ok {
				if err == nil {
					t.Fatalf("Assess accepted workdir %q: %+v", tt.workdir, as)
				}
				return
			}
			if err != nil || as.Plan.Commands[0].Dir != strings.TrimSuffix(tt.want, "\n") && tt.command == "pwd" {
				t.Fatalf("plan dir = %+v, %v", as.Plan, err)
			}
		})
	}
	t.Run("an approval in one directory does not cover another", func(t *testing.T) {
		root, _ := s.Assess(callArgs(t, map[string]any{"command": "pwd"}))
		res, err := s.Execute(tool.WithApprovedPlan(context.Background(), root.Plan), callArgs(t, map[string]any{"command": "pwd", "workdir": "sub"}))
		if err != nil || res.Success || !strings.Contains(res.Error, "would run in") {
			t.Fatalf("Execute = %+v, %v", res, err)
		}
	})
}

func TestEnv(t *testing.T) {
	proctest.NeedBins(t, "printenv", "env")
	s := newShell(t, Options{})
	tests := []struct {
		name    string
		command string
		env     any
		want    string
		summary string
		ok      bool
	}{
		{name: "reaches the child", command: "printenv TZ", env: map[string]any{"TZ": "UTC"}, want: "UTC\n", summary: "TZ=UTC printenv TZ", ok: true},
		{name: "every command of the line", command: "printenv LC_ALL | printenv LC_ALL", env: map[string]any{"LC_ALL": "C"}, want: "C\n", summary: "LC_ALL=C printenv LC_ALL | LC_ALL=C printenv LC_ALL", ok: true},
		{name: "the line's own assignment wins", command: "TZ=Asia/Tokyo printenv TZ", env: map[string]any{"TZ": "UTC"}, want: "Asia/Tokyo\n", ok: true},
		{name: "env -i starts empty", command: "env -i printenv TZ", env: map[string]any{"TZ": "UTC"}, want: "[exit status 1]"},
		{name: "PATH", command: "printenv", env: map[string]any{"PATH": "/tmp"}, want: "env.PATH: assigning PATH is not allowed"},
		{name: "LD_PRELOAD", command: "printenv", env: map[string]any{"LD_PRELOAD": "/x.so"}, want: "env.LD_PRELOAD: assigning LD_PRELOAD is not allowed"},
		{name: "GIT_DIR", command: "printenv", env: map[string]any{"GIT_DIR": "/x"}, want: "env.GIT_DIR: assigning GIT_DIR is not allowed"},
		{name: "not a string", command: "printenv", env: map[string]any{"TZ": 3}, want: "env.TZ must be a string"},
		{name: "not a name", command: "printenv", env: map[string]any{"A B": "x"}, want: "env.A B"},
		{name: "not an object", command: "printenv", env: []string{"TZ=UTC"}, want: "invalid shell arguments"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := callArgs(t, map[string]any{"command": tt.command, "env": tt.env})
			res, err := s.Execute(context.Background(), a)
			if err != nil {
				t.Fatal(err)
			}
			text := res.Output.Text + res.Error
			if res.Success != tt.ok || !strings.Contains(text, tt.want) {
				t.Fatalf("result %+v, want success %v and %q", res, tt.ok, tt.want)
			}
			if tt.summary != "" {
				as, err := s.Assess(a)
				if err != nil || as.Plan.Summary != tt.summary || !contains(as.Plan.Commands[0].Env, "TZ", "LC_ALL") {
					t.Fatalf("plan = %+v, %v; want summary %q", as.Plan, err, tt.summary)
				}
			}
		})
	}
}

func contains(list []string, any ...string) bool {
	for _, a := range any {
		for _, l := range list {
			if l == a {
				return true
			}
		}
	}
	return false
}

func TestBackgroundArguments(t *testing.T) {
	s := newShell(t, Options{})
	for _, tt := range []struct {
		name string
		args map[string]any
		want string
	}{
		{name: "negative yield", args: map[string]any{"command": "true", "yield_ms": -1}, want: "yield_ms must be"},
		{name: "huge yield", args: map[string]any{"command": "true", "yield_ms": MaxYieldMs + 1}, want: "yield_ms must be"},
		{name: "fractional yield", args: map[string]any{"command": "true", "yield_ms": 1.5}, want: "yield_ms must be"},
		{name: "both", args: map[string]any{"command": "true", "yield_ms": 100, "background": true}, want: "background and yield_ms"},
		{name: "pty pipeline", args: map[string]any{"command": "true | true", "pty": true}, want: "pty runs one command"},
		{name: "background not a boolean", args: map[string]any{"command": "true", "background": "yes"}, want: "invalid shell arguments"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, err := s.Execute(context.Background(), callArgs(t, tt.args))
			if err != nil || res.Success || !strings.Contains(res.Error, tt.want) {
				t.Fatalf("Execute = %+v, %v; want a refusal with %q", res, err, tt.want)
			}
			if _, err := s.Assess(callArgs(t, tt.args)); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Assess error = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestBackground(t *testing.T) {
	proctest.NeedBins(t, "sleep", "echo")
	s := newShell(t, Options{})
	t.Cleanup(func() { _ = s.Jobs().Close() })
	ctx, n := inSession("s1")
	start := time.Now()
	res, err := s.Execute(ctx, callArgs(t, map[string]any{"command": "sleep 0.3; echo built", "background": true}))
	if err != nil || !res.Success || !strings.HasPrefix(res.Output.Text, "started p") {
		t.Fatalf("Execute = %+v, %v", res, err)
	}
	j := jobOf(t, s, "s1", res)
	if st := j.State(); st.Finished && time.Since(start) < 300*time.Millisecond {
		t.Fatalf("background returned after the line ended: %+v", st)
	}
	pollFor(t, j, "built")
	no := n.next(t)
	if no.Data["process"] != j.ID() || no.Data["status"] != "exited" || no.Data["exit_code"] != 0 || !strings.Contains(no.Text, "exited with status 0") {
		t.Fatalf("notice = %+v", no)
	}
	if _, err := s.Jobs().Get("s2", j.ID()); err == nil {
		t.Fatal("another session sees the process")
	}
}

// TestYield is a build that outlasts yield_ms, goes on in the background
// and is polled to completion; a line that ends in time is a foreground
// result and leaves no process behind.
func TestYield(t *testing.T) {
	proctest.NeedBins(t, "sleep", "echo")
	s := newShell(t, Options{})
	t.Cleanup(func() { _ = s.Jobs().Close() })
	ctx, n := inSession("s1")
	res, err := s.Execute(ctx, callArgs(t, map[string]any{"command": "echo compiling; sleep 1; echo built", "yield_ms": 200}))
	if err != nil || !res.Success {
		t.Fatalf("Execute = %+v, %v", res, err)
	}
	d, ok := res.Output.Data.(PollData)
	if !ok || !d.Running || !strings.Contains(res.Output.Text, "still running after 200ms") || d.Stdout != "compiling\n" {
		t.Fatalf("yielded result = %q %+v", res.Output.Text, res.Output.Data)
	}
	j := jobOf(t, s, "s1", res)
	out := pollFor(t, j, "built")
	if strings.Contains(out, "compiling") {
		t.Errorf("poll repeated what the yield returned: %q", out)
	}
	if st := waitDone(t, j); st.ExitCode != 0 {
		t.Fatalf("state = %+v", st)
	}
	if no := n.next(t); no.Data["process"] != j.ID() {
		t.Fatalf("notice = %+v", no)
	}

	res, err = s.Execute(ctx, callArgs(t, map[string]any{"command": "echo quick", "yield_ms": 10000}))
	if err != nil || !res.Success || res.Output.Text != "quick\n" {
		t.Fatalf("a line that ends within yield_ms = %+v, %v", res, err)
	}
	if data(t, res).ExitCode != 0 {
		t.Fatalf("data = %+v", res.Output.Data)
	}
	if got := s.Jobs().List("s1"); len(got) != 1 {
		t.Fatalf("processes after a finished yield: %d, want only the earlier one", len(got))
	}
	n.none(t)
}

func TestExitNoticeOff(t *testing.T) {
	proctest.NeedBins(t, "true")
	s := newShell(t, Options{NoExitNotice: true})
	t.Cleanup(func() { _ = s.Jobs().Close() })
	ctx, n := inSession("s1")
	res, _ := s.Execute(ctx, callArgs(t, map[string]any{"command": "true", "background": true}))
	waitDone(t, jobOf(t, s, "s1", res))
	n.none(t)
}

func TestBackgroundTimeout(t *testing.T) {
	proctest.NeedBins(t, "sleep")
	s := newShell(t, Options{})
	t.Cleanup(func() { _ = s.Jobs().Close() })
	ctx, n := inSession("s1")
	res, _ := s.Execute(ctx, callArgs(t, map[string]any{"command": "sleep 30", "background": true, "timeout_seconds": 1}))
	j := jobOf(t, s, "s1", res)
	if st := waitDone(t, j); !st.TimedOut || st.ExitCode != statusTimedOut {
		t.Fatalf("state = %+v", st)
	}
	if no := n.next(t); no.Data["status"] != "timed_out" {
		t.Fatalf("notice = %+v", no)
	}
}

// TestPTY drives a program that refuses to run without a terminal: it
// runs under pty, reads named keys and a bracketed paste, and its screen
// arrives without control sequences.
func TestPTY(t *testing.T) {
	bin := vimish(t)
	s := newShell(t, Options{})
	t.Cleanup(func() { _ = s.Jobs().Close() })

	res, err := s.Execute(context.Background(), callArgs(t, map[string]any{"command": bin}))
	if err != nil || res.Success || !strings.Contains(res.Error, "not a terminal") {
		t.Fatalf("without pty = %+v, %v", res, err)
	}

	ctx, n := inSession("s1")
	res, err = s.Execute(ctx, callArgs(t, map[string]any{"command": bin, "pty": true, "background": true}))
	if err != nil || !res.Success {
		t.Fatalf("Execute = %+v, %v", res, err)
	}
	j := jobOf(t, s, "s1", res)
	screen := pollFor(t, j, "READY 80x24")
	if strings.ContainsAny(screen, "\x1b\r") {
		t.Errorf("the screen keeps control sequences: %q", screen)
	}
	for _, step := range []struct {
		keys []string
		want string
	}{
		{keys: []string{"Up"}, want: "key: Up"},
		{keys: []string{"Left", "Enter"}, want: "key: Enter"},
		{keys: []string{"C-c"}, want: "key: C-c"},
		{keys: []string{"x"}, want: "key: x"},
	} {
		if err := j.SendKeys(step.keys); err != nil {
			t.Fatal(err)
		}
		pollFor(t, j, step.want)
	}
	if err := j.Paste("hello there", true); err != nil {
		t.Fatal(err)
	}
	pollFor(t, j, "paste: hello there")
	if err := j.SendKeys([]string{"Entr"}); err == nil || !strings.Contains(err.Error(), `unknown key name "Entr"`) {
		t.Fatalf("unknown key: %v", err)
	}
	if err := j.SendKeys([]string{"q"}); err != nil {
		t.Fatal(err)
	}
	if st := waitDone(t, j); st.ExitCode != 0 {
		t.Fatalf("state = %+v", st)
	}
	n.next(t)
}

// TestPTYInterrupt: C-c on the terminal is the terminal's interrupt, which
// reaches the program as SIGINT.
func TestPTYInterrupt(t *testing.T) {
	bin := vimish(t)
	s := newShell(t, Options{})
	t.Cleanup(func() { _ = s.Jobs().Close() })
	ctx, _ := inSession("s1")
	res, err := s.Execute(ctx, callArgs(t, map[string]any{"command": bin + " -cooked", "pty": true, "yield_ms": 100}))
	if err != nil || !res.Success {
		t.Fatalf("Execute = %+v, %v", res, err)
	}
	j := jobOf(t, s, "s1", res)
	if !strings.Contains(res.Output.Text, "READY") {
		pollFor(t, j, "READY") // the yield returned before the program spoke
	}
	if err := j.Write("typed line\n", false); err != nil {
		t.Fatal(err)
	}
	pollFor(t, j, "line: typed line")
	if err := j.SendKeys([]string{"C-c"}); err != nil {
		t.Fatal(err)
	}
	pollFor(t, j, "got SIGINT")
	if st := waitDone(t, j); st.ExitCode != 3 {
		t.Fatalf("state = %+v, want the program's own status 3", st)
	}
}

// TestPTYForeground runs a terminal program to its end within the call.
func TestPTYForeground(t *testing.T) {
	proctest.NeedBins(t, "tty")
	s := newShell(t, Options{})
	res, err := s.Execute(context.Background(), callArgs(t, map[string]any{"command": "tty", "pty": true}))
	if err != nil || !res.Success || !strings.HasPrefix(res.Output.Text, "/dev/") {
		t.Fatalf("tty under pty = %+v, %v", res, err)
	}
	if got := s.Jobs().List(""); len(got) != 0 {
		t.Fatalf("a foreground terminal run left %d processes", len(got))
	}
	res, _ = s.Execute(context.Background(), callArgs(t, map[string]any{"command": "tty"}))
	if res.Success {
		t.Fatalf("tty without pty = %+v", res)
	}
}

func TestEncodeKeys(t *testing.T) {
	tests := []struct {
		keys []string
		pty  bool
		want string
		err  string
	}{
		{keys: []string{"Enter"}, pty: true, want: "\r"},
		{keys: []string{"Enter"}, want: "\n"},
		{keys: []string{"C-c", "C-d", "C-[", "C-@"}, pty: true, want: "\x03\x04\x1b\x00"},
		{keys: []string{"Up", "Down", "Right", "Left"}, pty: true, want: "\x1b[A\x1b[B\x1b[C\x1b[D"},
		{keys: []string{"escape", "TAB", "BSpace", "PgDn", "F1", "F12"}, pty: true, want: "\x1b\t\x7f\x1b[6~\x1bOP\x1b[24~"},
		{keys: []string{"M-b", "M-Enter"}, pty: true, want: "\x1bb\x1b\r"},
		{keys: []string{"q", ":", "é"}, pty: true, want: "q:é"},
		{keys: []string{"Entr"}, err: `unknown key name "Entr"`},
		{keys: []string{"C-"}, err: "unknown key name"},
		{keys: []string{"wq"}, err: "unknown key name"},
		{keys: []string{"M-"}, err: "unknown key name"},
	}
	for _, tt := range tests {
		got, err := encodeKeys(tt.keys, tt.pty)
		switch {
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("encodeKeys(%q) error = %v, want %q", tt.keys, err, tt.err)
		case tt.err == "" && (err != nil || string(got) != tt.want):
			t.Errorf("encodeKeys(%q) = %q, %v; want %q", tt.keys, got, err, tt.want)
		}
	}
}

func TestVTCleaner(t *testing.T) {
	tests := []struct {
		name   string
		writes []string
		want   string
	}{
		{name: "plain", writes: []string{"a\nb\n"}, want: "a\nb\n"},
		{name: "crlf", writes: []string{"a\r\nb\r\n"}, want: "a\nb\n"},
		{name: "lone cr redraws", writes: []string{"10%\r50%\r100%\n"}, want: "10%\n50%\n100%\n"},
		{name: "colours", writes: []string{"\x1b[1;32mok\x1b[0m\n"}, want: "ok\n"},
		{name: "split sequence", writes: []string{"a\x1b[3", "1mb\x1b", "[0mc"}, want: "abc"},
		{name: "osc title", writes: []string{"\x1b]0;title\x07x\x1b]2;t\x1b\\y"}, want: "xy"},
		{name: "cursor position starts a line", writes: []string{"\x1b[2J\x1b[Htop\x1b[5;1Hnext"}, want: "top\nnext"},
		{name: "charset and keypad", writes: []string{"\x1b(Ba\x1b=b"}, want: "ab"},
		{name: "controls dropped", writes: []string{"a\x07b\x08c\tz"}, want: "abc\tz"},
		{name: "utf-8 kept", writes: []string{"héllo ✓"}, want: "héllo ✓"},
		{name: "cr split from lf", writes: []string{"a\r", "\nb"}, want: "a\nb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			v := newVTCleaner(&b)
			for _, w := range tt.writes {
				if n, err := v.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write = %d, %v", n, err)
				}
			}
			v.Flush()
			if b.String() != tt.want {
				t.Fatalf("cleaned = %q, want %q", b.String(), tt.want)
			}
		})
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

// TestBackgroundThatEndsAtOnce: a background line is handed back as a
// process, and its end notified, however soon it ends.
func TestBackgroundThatEndsAtOnce(t *testing.T) {
	proctest.NeedBins(t, "true")
	s := newShell(t, Options{})
	t.Cleanup(func() { _ = s.Jobs().Close() })
	for range 20 {
		ctx, n := inSession("s1")
		res, err := s.Execute(ctx, callArgs(t, map[string]any{"command": "true", "background": true}))
		if err != nil || !res.Success || !strings.HasPrefix(res.Output.Text, "started p") {
			t.Fatalf("Execute = %+v, %v", res, err)
		}
		j := jobOf(t, s, "s1", res)
		if no := n.next(t); no.Data["process"] != j.ID() {
			t.Fatalf("notice = %+v", no)
		}
	}
}
