//go:build unix

package shell

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/talonhq/talon/internal/proctest"
	"github.com/talonhq/talon/risk/shellparse"
	"github.com/talonhq/talon/tool"
	"github.com/talonhq/talon/toolfactory"
)

func TestMain(m *testing.M) {
	code := m.Run()
	removeFixtures()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

func newShell(t *testing.T, opts Options) *Shell {
	t.Helper()
	if opts.Workspace == "" {
		opts.Workspace = t.TempDir()
	}
	if opts.AllowedCommands == nil {
		opts.AllowedCommands = []string{"*"}
	}
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func call(command string, timeout ...int) json.RawMessage {
	m := map[string]any{"command": command}
	if len(timeout) > 0 {
		m["timeout_seconds"] = timeout[0]
	}
	b, _ := json.Marshal(m)
	return b
}

func data(t *testing.T, r tool.Result) Data {
	t.Helper()
	d, ok := r.Output.Data.(Data)
	if !ok {
		t.Fatalf("Output.Data is %T, want Data", r.Output.Data)
	}
	return d
}

func TestExecute(t *testing.T) {
	proctest.NeedBins(t, "printf", "sort", "echo", "cat", "ls", "wc", "printenv", "true", "false", "sleep", "sh", "touch")
	t.Setenv("TALON_TEST_SECRET", "hidden")
	t.Setenv("TALON_TEST_PASS", "passed")
	t.Setenv("LANG", "C.UTF-8")
	tests := []struct {
		name     string
		command  string
		setup    func(t *testing.T, dir string)
		success  bool
		text     string // exact text, when set
		contains []string
		exit     int
	}{
		{name: "pipeline", command: `printf 'b\na\n' | sort`, success: true, text: "a\nb\n"},
		{name: "and skips after failure", command: "false && echo no; echo yes", success: true, text: "yes\n"},
		{name: "or runs after failure", command: "false || echo fallback", success: true, text: "fallback\n"},
		{name: "or skips after success", command: "true || echo no", success: true, text: tool.NoOutput},
		{name: "status of a pipeline is the last command's", command: "false | true", success: true},
		{name: "non-zero exit", command: "ls /nonexistent-talon-path", exit: 2, contains: []string{"[stderr]\n", "nonexistent-talon-path", "[exit status 2]"}},
		{name: "redirect to file then read", command: "echo hi > out.txt && cat out.txt", success: true, text: "hi\n"},
		{name: "append", command: "echo a > f && echo b >> f && cat f", success: true, text: "a\nb\n"},
		{name: "stderr to null", command: "ls /nonexistent-talon-path 2>/dev/null", exit: 2, text: "[exit status 2]"},
		{name: "stderr into pipe", command: "ls /nonexistent-talon-path 2>&1 | wc -l", success: true, text: "1\n"},
		{name: "stdout to stderr", command: "echo oops >&2", success: true, text: "[stderr]\noops\n"},
		{name: "pipe all", command: "ls /nonexistent-talon-path |& wc -l", success: true, text: "1\n"},
		{name: "heredoc", command: "cat <<'EOF'\nhello $x\nEOF\n", success: true, text: "hello $x\n"},
		{name: "here-string", command: "wc -c <<< abc", success: true, text: "4\n"},
		{name: "input redirect", command: "echo data > in.txt && cat < in.txt", success: true, text: "data\n"},
		{name: "missing input file", command: "cat < missing.txt", exit: 1, contains: []string{"missing.txt"}},
		{name: "assignment reaches child", command: "TZ=Europe/Paris printenv TZ", success: true, text: "Europe/Paris\n"},
		{name: "env -i leaves only assignments", command: "env -i TZ=UTC printenv", success: true, text: "TZ=UTC\n"},
		{name: "env -u removes", command: "env -u LANG printenv LANG", exit: 1},
		{name: "variable not passed through is absent", command: "printenv TALON_TEST_SECRET", exit: 1},
		{name: "passthrough variable present", command: "printenv TALON_TEST_PASS", success: true, text: "passed\n"},
		{name: "sh -c runs its commands", command: "sh -c 'echo one; echo two'", success: true, text: "one\ntwo\n"},
		{name: "timeout wrapper status", command: "timeout 0.2 sleep 5", exit: 124},
		{name: "timeout wrapper then or", command: "timeout 0.2 sleep 5 || echo timed", success: true, text: "timed\n"},
		{name: "glob expands in workspace", command: "ls *.txt", success: true, text: "a.txt\nb.txt\n",
			setup: func(t *testing.T, dir string) {
				for _, n := range []string{"a.txt", "b.txt"} {
					if err := os.WriteFile(filepath.Join(dir, n), nil, 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}},
		{name: "redirect refuses a fifo", command: "cat < fifo", exit: 1, contains: []string{"not a regular file"},
			setup: func(t *testing.T, dir string) {
				if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
					t.Skip("no fifo support:", err)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if tt.setup != nil {
				tt.setup(t, dir)
			}
			s := newShell(t, Options{Workspace: dir, ShellEnvPassthrough: []string{"TALON_TEST_PASS"}})
			res, err := s.Execute(context.Background(), call(tt.command))
			if err != nil {
				t.Fatalf("Execute: %v", err)
			}
			text := res.Output.Text
			if res.Success != tt.success {
				t.Fatalf("Success = %v, want %v; text %q error %q", res.Success, tt.success, text, res.Error)
			}
			if !res.Success && res.Error != text {
				t.Errorf("failed result error %q differs from text %q", res.Error, text)
			}
			if tt.text != "" && text != tt.text {
				t.Errorf("text = %q, want %q", text, tt.text)
			}
			for _, c := range tt.contains {
				if !strings.Contains(text, c) {
					t.Errorf("text %q lacks %q", text, c)
				}
			}
			if d := data(t, res); d.ExitCode != tt.exit {
				t.Errorf("exit code = %d, want %d (text %q)", d.ExitCode, tt.exit, text)
			}
		})
	}
}

func TestExecuteRefuses(t *testing.T) {
	tests := []struct {
		name string
		opts Options
		args json.RawMessage
		want string
	}{
		{name: "not analysable", args: call("echo $(id)"), want: "cannot be analysed, so nothing ran"},
		{name: "not allowed", opts: Options{AllowedCommands: []string{"ls"}}, args: call("ls; curl x"), want: `"curl" is not allowed by policy`},
		{name: "forbidden assignment", args: call("LD_PRELOAD=/x.so ls"), want: "assigning LD_PRELOAD is not allowed"},
		{name: "assignment outside the inert list", args: call("FOO=bar ls"), want: "assigning FOO is not allowed"},
		{name: "missing command", args: json.RawMessage(`{}`), want: "command is required"},
		{name: "blank command", args: call("   "), want: "command is required"},
		{name: "command too long", args: call(strings.Repeat("x", MaxCommandBytes+1)), want: "the limit is 16384"},
		{name: "timeout above range", args: call("ls", 3601), want: "out of range"},
		{name: "negative timeout", args: call("ls", -1), want: "out of range"},
		{name: "no timeout refused", args: call("ls", 0), want: "not allowed by this profile"},
		{name: "fractional timeout", args: json.RawMessage(`{"command":"ls","timeout_seconds":1.5}`), want: "whole number"},
		{name: "unknown field", args: json.RawMessage(`{"command":"ls","cwd":"/"}`), want: "unknown field"},
		{name: "not an object", args: json.RawMessage(`["ls"]`), want: "invalid shell arguments"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newShell(t, tt.opts)
			res, err := s.Execute(context.Background(), tt.args)
			if err != nil {
				t.Fatalf("Execute: %v", err)
			}
			if res.Success || !strings.Contains(res.Error, tt.want) {
				t.Fatalf("result = %+v, want a failure containing %q", res, tt.want)
			}
		})
	}
}

func TestNoTimeoutWhenAllowed(t *testing.T) {
	proctest.NeedBins(t, "echo")
	s := newShell(t, Options{AllowNoTimeout: true})
	res, err := s.Execute(context.Background(), call("echo ok", 0))
	if err != nil || !res.Success || res.Output.Text != "ok\n" {
		t.Fatalf("Execute = %+v, %v", res, err)
	}
}

func TestOutputCap(t *testing.T) {
	proctest.NeedBins(t, "seq")
	s := newShell(t, Options{MaxOutputBytes: 100})
	res, err := s.Execute(context.Background(), call("seq 1 100000"))
	if err != nil || !res.Success {
		t.Fatalf("Execute = %+v, %v", res, err)
	}
	d := data(t, res)
	if !d.Truncated || !strings.HasSuffix(res.Output.Text, "[output truncated at 100 bytes]\n") {
		t.Fatalf("truncated=%v text=%q", d.Truncated, res.Output.Text)
	}
	if !strings.HasPrefix(d.Stdout, "1\n2\n3\n") || len(d.Stdout) > 100+len("\n[output truncated at 100 bytes]\n") {
		t.Fatalf("stdout = %q", d.Stdout)
	}
}

func TestCapBuffer(t *testing.T) {
	tests := []struct {
		name   string
		max    int
		writes []string
		want   string
	}{
		{name: "under the cap", max: 10, writes: []string{"abc", "def"}, want: "abcdef"},
		{name: "exactly the cap", max: 6, writes: []string{"abc", "def"}, want: "abcdef"},
		{name: "over the cap", max: 4, writes: []string{"abc", "def"}, want: "abcd\n[output truncated at 4 bytes]\n"},
		{name: "cut after newline", max: 4, writes: []string{"abc\ndef"}, want: "abc\n[output truncated at 4 bytes]\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newCapBuffer(tt.max)
			for _, w := range tt.writes {
				if n, err := b.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write = %d, %v", n, err)
				}
			}
			if got := b.String(); got != tt.want {
				t.Fatalf("String = %q, want %q", got, tt.want)
			}
		})
	}
}

func fixtureProgram(script, pidFile string) *shellparse.Program {
	return &shellparse.Program{Steps: []shellparse.Step{{Pipeline: []shellparse.Command{
		{Argv: []string{"spawner", pidFile}, Binary: script, Tier: tool.High, Allowed: true},
	}}}}
}

func TestTimeoutKillsProcessGroup(t *testing.T) {
	dir := t.TempDir()
	script, pidFile := proctest.Spawner(t, dir)
	s := newShell(t, Options{Workspace: dir})
	start := time.Now()
	out := s.run(context.Background(), fixtureProgram(script, pidFile), dir, 700*time.Millisecond)
	if !out.timedOut || out.canceled != nil {
		t.Fatalf("outcome = %+v, want timed out", out)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("run took %v after a 700ms timeout", d)
	}
	proctest.AssertAllGone(t, proctest.ReadPids(t, pidFile, 3), 3)
}

func TestCancelKillsProcessGroup(t *testing.T) {
	dir := t.TempDir()
	script, pidFile := proctest.Spawner(t, dir)
	s := newShell(t, Options{Workspace: dir})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan outcome)
	go func() { done <- s.run(ctx, fixtureProgram(script, pidFile), dir, time.Minute) }()
	pids := proctest.ReadPids(t, pidFile, 3)
	cancel()
	select {
	case out := <-done:
		if !errors.Is(out.canceled, context.Canceled) {
			t.Fatalf("outcome = %+v, want canceled", out)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("run did not return after cancel")
	}
	proctest.AssertAllGone(t, pids, 3)
}

func TestExecuteTimeoutAndCancel(t *testing.T) {
	proctest.NeedBins(t, "sleep")
	s := newShell(t, Options{})
	start := time.Now()
	res, err := s.Execute(context.Background(), call("sleep 30", 1))
	if err != nil || res.Success {
		t.Fatalf("Execute = %+v, %v; want a failed result", res, err)
	}
	if d := data(t, res); !d.TimedOut || !strings.Contains(res.Error, "[timed out after 1s") {
		t.Fatalf("result = %+v", res)
	}
	if time.Since(start) > 5*time.Second {
		t.Fatalf("timeout took %v", time.Since(start))
	}

	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	res, err = s.Execute(ctx, call("sleep 30"))
	if !errors.Is(err, context.Canceled) || res.Success {
		t.Fatalf("Execute after cancel = %+v, %v; want context.Canceled", res, err)
	}
}

func TestNice(t *testing.T) {
	proctest.NeedBins(t, "cut")
	// Niceness is per thread on Linux: the base is this thread's, which
	// every thread of the test process shares unless it was reniced.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	self, err := os.ReadFile("/proc/thread-self/stat")
	if err != nil {
		t.Skip("no /proc")
	}
	fields := strings.Fields(string(self[bytes.LastIndexByte(self, ')')+2:]))
	base, _ := strconv.Atoi(fields[16])
	s := newShell(t, Options{})
	res, err := s.Execute(context.Background(), call("nice -n 7 cut -d ' ' -f 19 /proc/self/stat"))
	if err != nil || !res.Success {
		t.Fatalf("Execute = %+v, %v", res, err)
	}
	if want := strconv.Itoa(min(base+7, 19)) + "\n"; res.Output.Text != want {
		t.Fatalf("niceness = %q, want %q", res.Output.Text, want)
	}
}

func TestAssess(t *testing.T) {
	dir := t.TempDir()
	s := newShell(t, Options{Workspace: dir, AllowedCommands: []string{"ls", "echo"}})
	tests := []struct {
		name        string
		command     string
		tier        tool.Tier
		denied      bool
		allowlisted bool
		commands    int
		paths       []string
	}{
		{name: "low pipeline", command: "ls -la | wc -l", tier: tool.Low, allowlisted: true, commands: 2},
		{name: "not allowed", command: "ls; curl x", tier: tool.High, denied: true, commands: 2},
		{name: "not analysable", command: "echo $(id)", tier: tool.High, denied: true},
		{name: "writes a file", command: "echo x > out.txt", tier: tool.High, allowlisted: true, commands: 1, paths: []string{filepath.Join(dir, "out.txt")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := s.Assess(call(tt.command))
			if err != nil {
				t.Fatal(err)
			}
			if a.Tier != tt.tier || a.Denied != tt.denied || a.Allowlisted != tt.allowlisted || len(a.Reasons) == 0 {
				t.Fatalf("Assess(%q) = %+v", tt.command, a)
			}
			if strings.Join(a.Paths, ",") != strings.Join(tt.paths, ",") {
				t.Fatalf("Paths = %q, want %q", a.Paths, tt.paths)
			}
			if tt.commands == 0 {
				if a.Plan != nil {
					t.Fatalf("Plan = %+v, want none", a.Plan)
				}
				return
			}
			if a.Plan == nil || len(a.Plan.Commands) != tt.commands {
				t.Fatalf("Plan = %+v, want %d commands", a.Plan, tt.commands)
			}
			c := a.Plan.Commands[0]
			if !filepath.IsAbs(c.Binary) || c.Dir != dir || !containsString(c.Env, "PATH") {
				t.Fatalf("planned command = %+v", c)
			}
		})
	}
	if _, err := s.Assess(json.RawMessage(`{"timeout_seconds": 5}`)); !errors.Is(err, ErrInvalidArguments) {
		t.Fatalf("Assess without command: %v", err)
	}
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestApprovedPlanBinding(t *testing.T) {
	proctest.NeedBins(t, "touch", "ls")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	s := newShell(t, Options{Workspace: dir})
	args := call("touch marker *.txt")
	a, err := s.Assess(args)
	if err != nil || a.Plan == nil {
		t.Fatalf("Assess = %+v, %v", a, err)
	}
	approved := a.Plan

	t.Run("glob matches more files now", func(t *testing.T) {
		if err := os.WriteFile(filepath.Join(dir, "b.txt"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		defer os.Remove(filepath.Join(dir, "b.txt"))
		res, err := s.Execute(tool.WithApprovedPlan(context.Background(), approved), args)
		if err != nil || res.Success || !strings.Contains(res.Error, "no longer matches the approved plan") {
			t.Fatalf("Execute = %+v, %v", res, err)
		}
		if _, err := os.Stat(filepath.Join(dir, "marker")); err == nil {
			t.Fatal("the refused command ran")
		}
	})
	tampered := func(f func(p *tool.Plan)) *tool.Plan {
		b, _ := json.Marshal(approved)
		var p tool.Plan
		_ = json.Unmarshal(b, &p)
		f(&p)
		return &p
	}
	for _, tc := range []struct {
		name string
		plan *tool.Plan
		want string
	}{
		{name: "binary differs", plan: tampered(func(p *tool.Plan) { p.Commands[0].Binary = "/tmp/touch" }), want: "now resolves to"},
		{name: "dir differs", plan: tampered(func(p *tool.Plan) { p.Commands[0].Dir = "/" }), want: "would run in"},
		{name: "env differs", plan: tampered(func(p *tool.Plan) { p.Commands[0].Env = append(p.Commands[0].Env, "EXTRA") }), want: "environment"},
		{name: "argv differs", plan: tampered(func(p *tool.Plan) { p.Commands[0].Argv[1] = "other" }), want: "arguments"},
		{name: "command count differs", plan: tampered(func(p *tool.Plan) { p.Commands = append(p.Commands, p.Commands[0]) }), want: "were approved"},
		{name: "summary differs", plan: tampered(func(p *tool.Plan) { p.Summary = "touch other" }), want: "line changed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := s.ExecutePlan(context.Background(), args, tc.plan)
			if err != nil || res.Success || !strings.Contains(res.Error, tc.want) {
				t.Fatalf("ExecutePlan = %+v, %v; want refusal naming %q", res, err, tc.want)
			}
			if _, err := os.Stat(filepath.Join(dir, "marker")); err == nil {
				t.Fatal("the refused command ran")
			}
		})
	}
	t.Run("matching plan runs", func(t *testing.T) {
		res, err := s.ExecutePlan(context.Background(), args, approved)
		if err != nil || !res.Success {
			t.Fatalf("ExecutePlan = %+v, %v", res, err)
		}
		if _, err := os.Stat(filepath.Join(dir, "marker")); err != nil {
			t.Fatal("the approved command did not run")
		}
	})
	t.Run("nil plan refused", func(t *testing.T) {
		res, err := s.ExecutePlan(context.Background(), args, nil)
		if err != nil || res.Success {
			t.Fatalf("ExecutePlan(nil) = %+v, %v", res, err)
		}
	})
}

func TestNew(t *testing.T) {
	tests := []struct {
		name    string
		opts    Options
		wantErr error
	}{
		{name: "defaults", opts: Options{}},
		{name: "forbidden passthrough", opts: Options{ShellEnvPassthrough: []string{"LD_PRELOAD"}}, wantErr: ErrForbiddenPassthrough},
		{name: "forbidden passthrough prefix", opts: Options{ShellEnvPassthrough: []string{"DYLD_LIBRARY_PATH"}}, wantErr: ErrForbiddenPassthrough},
		{name: "malformed passthrough", opts: Options{ShellEnvPassthrough: []string{"A=B"}}, wantErr: ErrForbiddenPassthrough},
		{name: "bad allowlist", opts: Options{AllowedCommands: []string{"[x"}}, wantErr: shellparse.ErrInvalidPattern},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.Workspace = t.TempDir()
			s, err := New(tt.opts)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("New error = %v, want %v", err, tt.wantErr)
			}
			if err == nil && (s.opts.DefaultTimeout != DefaultTimeout || s.opts.MaxOutputBytes != DefaultMaxOutputBytes || s.Spec().Tier != tool.Low) {
				t.Fatalf("defaults not applied: %+v", s.opts)
			}
		})
	}
}

func TestForProfile(t *testing.T) {
	s := newShell(t, Options{AllowedCommands: []string{"ls"}})
	nt, err := s.ForProfile(tool.ProfileSettings{AllowedCommands: []string{"git"}})
	if err != nil {
		t.Fatal(err)
	}
	narrow := nt.(*Shell)
	if a, _ := narrow.Assess(call("ls")); !a.Denied {
		t.Fatalf("ls under a git-only profile: %+v", a)
	}
	if a, _ := s.Assess(call("ls")); a.Denied {
		t.Fatalf("ls under the original profile: %+v", a)
	}
}

func TestRegistered(t *testing.T) {
	f, ok := toolfactory.Get(Name)
	if !ok || f.Tier != tool.Low {
		t.Fatalf("factory = %+v, %v", f, ok)
	}
	tl, err := f.New(toolfactory.Env{Workspace: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if err := tool.ValidateName(tl.Spec().Name); err != nil {
		t.Fatal(err)
	}
	if _, ok := tl.(tool.Assessor); !ok {
		t.Fatal("the shell tool is not an Assessor")
	}
}
