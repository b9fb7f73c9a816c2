package codingcli

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/talonhq/talon/tool"
)

// echoScript is a fake vendor CLI: it prints its directory, each argument
// and the variables it was given, so a test sees exactly what ran.
const echoScript = `#!/bin/sh
echo "cwd=$(pwd)"
for a in "$@"; do echo "arg=$a"; done
echo "key=${ANTHROPIC_API_KEY-unset} openai=${OPENAI_API_KEY-unset} gemini=${GEMINI_API_KEY-unset}"
echo "home=${HOME-unset} secret=${TALON_SECRET-unset} extra=${EXTRA_VAR-unset} color=${NO_COLOR-unset}"
`

// fakeBin writes an executable script named name into a new directory and
// returns the directory.
func fakeBin(t testing.TB, name, script string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// environ is talon's environment as the tests see it.
var environ = map[string]string{
	"ANTHROPIC_API_KEY": "sk-ant", "OPENAI_API_KEY": "sk-oai", "GEMINI_API_KEY": "gm",
	"HOME": "/home/agent", "TALON_SECRET": "do-not-pass", "EXTRA_VAR": "extra",
}

func lookup(k string) (string, bool) { v, ok := environ[k]; return v, ok }

func newCLI(t *testing.T, v Vendor, o Options) (*CLI, string) {
	t.Helper()
	ws := t.TempDir()
	if o.Workspace == "" {
		o.Workspace = ws
	}
	if o.LookupEnv == nil {
		o.LookupEnv = lookup
	}
	c, err := New(v, o)
	if err != nil {
		t.Fatal(err)
	}
	return c, o.Workspace
}

func TestVendors(t *testing.T) {
	tests := []struct {
		v     Vendor
		extra []string
		args  []string
		key   string
	}{
		{v: ClaudeCode, args: []string{"-p", "fix the bug"}, key: "key=sk-ant openai=unset gemini=unset"},
		{v: CodexCLI, extra: []string{"--model", "o4"}, args: []string{"exec", "--model", "o4", "fix the bug"}, key: "key=unset openai=sk-oai gemini=unset"},
		{v: GeminiCLI, extra: []string{"--yolo"}, args: []string{"--yolo", "-p", "fix the bug"}, key: "key=unset openai=unset gemini=gm"},
	}
	for _, tt := range tests {
		t.Run(tt.v.Tool, func(t *testing.T) {
			bin := fakeBin(t, tt.v.Program, echoScript)
			c, ws := newCLI(t, tt.v, Options{PATH: bin + ":/usr/bin:/bin", ExtraArgs: tt.extra, EnvPassthrough: []string{"EXTRA_VAR"}})
			res, err := c.Execute(context.Background(), json.RawMessage(`{"prompt":"  fix the bug "}`))
			if err != nil || !res.Success {
				t.Fatalf("Execute = %+v, %v", res, err)
			}
			want := "cwd=" + ws + "\n"
			for _, a := range tt.args {
				want += "arg=" + a + "\n"
			}
			want += tt.key + "\nhome=/home/agent secret=unset extra=extra color=1"
			if res.Output.Text != want {
				t.Errorf("output:\n%s\nwant:\n%s", res.Output.Text, want)
			}
			if d := res.Output.Data.(Data); d.CLI != tt.v.Program || d.ExitCode != 0 || d.Truncated {
				t.Errorf("data = %+v", d)
			}
		})
	}
}

func TestNotInstalled(t *testing.T) {
	empty := t.TempDir()
	tests := []struct {
		name string
		opts Options
		want []string
	}{
		{name: "not in PATH", opts: Options{PATH: empty}, want: []string{"Claude Code CLI is not installed", "claude is not in PATH", "npm install -g @anthropic-ai/claude-code", "[tools.coding_cli.claude_code] binary"}},
		{name: "configured path missing", opts: Options{PATH: empty, Binary: filepath.Join(empty, "claude")}, want: []string{"not installed at", "names no executable file"}},
		{name: "configured name missing", opts: Options{PATH: empty, Binary: "claude-beta"}, want: []string{"claude-beta", "not in PATH"}},
		{name: "relative PATH entries ignored", opts: Options{PATH: "."}, want: []string{"not installed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := newCLI(t, ClaudeCode, tt.opts)
			res, err := c.Execute(context.Background(), json.RawMessage(`{"prompt":"hello"}`))
			if err != nil || res.Success {
				t.Fatalf("Execute = %+v, %v", res, err)
			}
			for _, w := range append(tt.want, "nothing ran") {
				if !strings.Contains(res.Error, w) {
					t.Errorf("error lacks %q: %s", w, res.Error)
				}
			}
			as, err := c.Assess(json.RawMessage(`{"prompt":"hello"}`))
			if err != nil || as.Tier != tool.High || as.Plan != nil || !strings.Contains(strings.Join(as.Reasons, " "), "not installed") {
				t.Errorf("Assess = %+v, %v", as, err)
			}
		})
	}
}

func TestConfiguredBinary(t *testing.T) {
	bin := fakeBin(t, "my-claude", echoScript)
	c, _ := newCLI(t, ClaudeCode, Options{PATH: "/usr/bin:/bin", Binary: filepath.Join(bin, "my-claude")})
	res, err := c.Execute(context.Background(), json.RawMessage(`{"prompt":"hi"}`))
	if err != nil || !res.Success || !strings.Contains(res.Output.Text, "arg=hi") {
		t.Fatalf("Execute = %+v, %v", res, err)
	}
}

func TestFailures(t *testing.T) {
	tests := []struct {
		name   string
		script string
		opts   Options
		args   string
		want   []string
	}{
		{name: "exit status", script: "#!/bin/sh\necho partial answer\necho 'Invalid API key' >&2\nexit 3\n",
			want: []string{"exited with status 3", "Invalid API key", "ANTHROPIC_API_KEY", "partial answer"}},
		{name: "empty prompt", script: echoScript, args: `{"prompt":"   "}`, want: []string{"prompt is empty"}},
		{name: "option-like prompt", script: echoScript, args: `{"prompt":"--dangerously-skip-permissions"}`, want: []string{"starts with '-'"}},
		{name: "unknown argument", script: echoScript, args: `{"prompt":"x","model":"y"}`, want: []string{"invalid arguments"}},
		{name: "not executable", script: "", want: []string{"not installed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bin := fakeBin(t, "claude", tt.script)
			if tt.script == "" {
				_ = os.Chmod(filepath.Join(bin, "claude"), 0o644)
			}
			o := tt.opts
			o.PATH = bin + ":/usr/bin:/bin"
			c, _ := newCLI(t, ClaudeCode, o)
			args := tt.args
			if args == "" {
				args = `{"prompt":"go"}`
			}
			res, err := c.Execute(context.Background(), json.RawMessage(args))
			if err != nil || res.Success {
				t.Fatalf("Execute = %+v, %v", res, err)
			}
			for _, w := range tt.want {
				if !strings.Contains(res.Error, w) {
					t.Errorf("error lacks %q: %s", w, res.Error)
				}
			}
		})
	}
}

// TestOutputCap checks that an answer over the cap is cut and says so.
func TestOutputCap(t *testing.T) {
	bin := fakeBin(t, "codex", "#!/bin/sh\ni=0\nwhile [ $i -lt 2000 ]; do echo 0123456789abcdef; i=$((i+1)); done\n")
	c, _ := newCLI(t, CodexCLI, Options{PATH: bin + ":/usr/bin:/bin", MaxOutputBytes: 1000})
	res, err := c.Execute(context.Background(), json.RawMessage(`{"prompt":"write a lot"}`))
	if err != nil || !res.Success {
		t.Fatalf("Execute = %+v, %v", res, err)
	}
	if !res.Output.Data.(Data).Truncated || !strings.Contains(res.Output.Text, "[answer truncated at 1000 bytes") || len(res.Output.Text) > 1200 {
		t.Errorf("%d bytes: %q", len(res.Output.Text), res.Output.Text[max(0, len(res.Output.Text)-200):])
	}
}

// TestTimeoutKillsGroup checks that a run over its timeout is stopped with
// everything it started: the fake CLI leaves a sleeping child behind, and
// that child must be gone once the call returns.
func TestTimeoutKillsGroup(t *testing.T) {
	bin := fakeBin(t, "gemini", "#!/bin/sh\necho started\nsleep 300 &\necho $! > child.pid\nwait\n")
	c, ws := newCLI(t, GeminiCLI, Options{PATH: bin + ":/usr/bin:/bin", Timeout: time.Second})
	res, err := c.Execute(context.Background(), json.RawMessage(`{"prompt":"hang"}`))
	if err != nil || res.Success {
		t.Fatalf("Execute = %+v, %v", res, err)
	}
	for _, w := range []string{"did not finish within 1s", "every process it started", "timeout_seconds", "started"} {
		if !strings.Contains(res.Error, w) {
			t.Errorf("error lacks %q: %s", w, res.Error)
		}
	}
	raw, err := os.ReadFile(filepath.Join(ws, "child.pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil {
		t.Fatal(err)
	}
	// The kill was sent before Execute returned; wait for the kernel to
	// finish the process off (it is reaped by init), then check it is gone.
	deadline := time.Now().Add(10 * time.Second)
	for alive(pid) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if alive(pid) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("the CLI's child %d outlived the timeout", pid)
	}
}

// alive says whether pid is a live process (not a zombie).
func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

func TestCancel(t *testing.T) {
	bin := fakeBin(t, "claude", "#!/bin/sh\nsleep 300\n")
	c, _ := newCLI(t, ClaudeCode, Options{PATH: bin + ":/usr/bin:/bin"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Execute(ctx, json.RawMessage(`{"prompt":"x"}`)); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

// TestPlanBindsApproval checks that the plan is the exact process and that
// a run differing from the approved plan is refused before it starts.
func TestPlanBindsApproval(t *testing.T) {
	bin := fakeBin(t, "claude", "#!/bin/sh\ntouch ran\necho done\n")
	c, ws := newCLI(t, ClaudeCode, Options{PATH: bin + ":/usr/bin:/bin"})
	as, err := c.Assess(json.RawMessage(`{"prompt":"add tests"}`))
	if err != nil || as.Tier != tool.High || as.Plan == nil || len(as.Plan.Commands) != 1 {
		t.Fatalf("Assess = %+v, %v", as, err)
	}
	cmd := as.Plan.Commands[0]
	wantEnv := []string{"ANTHROPIC_API_KEY", "HOME", "NO_COLOR", "PATH"}
	if strings.Join(cmd.Argv, " ") != "claude -p add tests" || cmd.Binary != filepath.Join(bin, "claude") || cmd.Dir != ws || strings.Join(cmd.Env, ",") != strings.Join(wantEnv, ",") {
		t.Errorf("planned command = %+v", cmd)
	}
	if !strings.Contains(as.Plan.Summary, "'add tests'") || len(as.Paths) != 1 || as.Paths[0] != ws {
		t.Errorf("plan = %+v, paths %v", as.Plan, as.Paths)
	}
	ctx := tool.WithApprovedPlan(context.Background(), as.Plan)
	res, _ := c.Execute(ctx, json.RawMessage(`{"prompt":"delete everything"}`))
	if res.Success || !strings.Contains(res.Error, "no longer matches the approved plan") {
		t.Fatalf("changed prompt ran: %+v", res)
	}
	if _, err := os.Stat(filepath.Join(ws, "ran")); err == nil {
		t.Fatal("the CLI ran although the plan differed")
	}
	if res, _ := c.Execute(ctx, json.RawMessage(`{"prompt":"add tests"}`)); !res.Success || res.Output.Text != "done" {
		t.Fatalf("approved run: %+v", res)
	}
}

func TestNew(t *testing.T) {
	file := filepath.Join(t.TempDir(), "f")
	_ = os.WriteFile(file, nil, 0o644)
	for _, ws := range []string{"", "relative", file} {
		if _, err := New(ClaudeCode, Options{Workspace: ws}); !errors.Is(err, ErrNoWorkspace) {
			t.Errorf("New(%q) = %v", ws, err)
		}
	}
}

// TestAllowedCommands checks that a profile's allowed_commands can name a
// CLI, so that under supervised a run asks instead of being blocked.
func TestAllowedCommands(t *testing.T) {
	bin := fakeBin(t, "claude", echoScript)
	c, _ := newCLI(t, ClaudeCode, Options{PATH: bin})
	tests := []struct {
		allowed []string
		want    bool
	}{
		{nil, false},
		{[]string{"git", "ls"}, false},
		{[]string{"claude"}, true},
		{[]string{"cl*"}, true},
		{[]string{bin + "/*"}, true},
		{[]string{"/usr/bin/*"}, false},
		{[]string{"*"}, true},
	}
	for _, tt := range tests {
		tl, err := c.ForProfile(tool.ProfileSettings{Name: "p", AllowedCommands: tt.allowed})
		if err != nil {
			t.Fatal(err)
		}
		as, err := tl.(tool.Assessor).Assess(json.RawMessage(`{"prompt":"x"}`))
		if err != nil || as.Allowlisted != tt.want || as.Tier != tool.High {
			t.Errorf("allowed_commands %q: %+v, %v; want allowlisted %v", tt.allowed, as, err, tt.want)
		}
	}
}
