//go:build unix

package commandtool

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/internal/proctest"
	"github.com/talonhq/talon/tool"
)

// hostEnv is a LookupEnv with talon's PATH and the given variables.
func hostEnv(vars map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		if v, ok := vars[k]; ok {
			return v, true
		}
		if k == "PATH" {
			return os.LookupEnv("PATH")
		}
		return "", false
	}
}

func mustNew(t testing.TB, name string, ct config.CommandTool, opts Options) *Tool {
	t.Helper()
	if opts.LookupEnv == nil {
		opts.LookupEnv = hostEnv(nil)
	}
	tl, err := New(name, ct, opts)
	if err != nil {
		t.Fatalf("New(%s): %v", name, err)
	}
	return tl
}

func call(t testing.TB, tl *Tool, args string) tool.Result {
	t.Helper()
	res, err := tl.Execute(context.Background(), json.RawMessage(args))
	if err != nil {
		t.Fatalf("Execute(%s): %v", args, err)
	}
	return res
}

func params(props string, required ...string) map[string]any {
	var p map[string]any
	if err := json.Unmarshal([]byte(`{"type":"object","properties":`+props+`}`), &p); err != nil {
		panic(err)
	}
	if required != nil {
		r := make([]any, len(required))
		for i, s := range required {
			r[i] = s
		}
		p["required"] = r
	}
	return p
}

func TestExecuteRendersOneElementEach(t *testing.T) {
	proctest.NeedBins(t, "printf")
	tl := mustNew(t, "show", config.CommandTool{
		Command: []string{"printf", "<%s>\n", "{{ input.s }}", "n={{ input.n }}", "{{ input.b }}",
			"{{ json input }}", "{{ json input.o }}", `{{ "{{" }}.Name}}`},
		Parameters: params(`{"s":{"type":"string"},"n":{"type":"number"},"b":{"type":"boolean"},"o":{"type":"object"}}`, "s", "n", "b", "o"),
	}, Options{Workspace: t.TempDir()})
	res := call(t, tl, `{"s":"a b; $(touch pwned) ${HOME} *","n":1.5,"b":false,"o":{"k":[1]}}`)
	if !res.Success {
		t.Fatalf("result = %+v", res)
	}
	want := "<a b; $(touch pwned) ${HOME} *>\n<n=1.5>\n<false>\n" +
		`<{"s":"a b; $(touch pwned) ${HOME} *","n":1.5,"b":false,"o":{"k":[1]}}>` + "\n" +
		`<{"k":[1]}>` + "\n<{{.Name}}>\n"
	if res.Output.Text != want {
		t.Fatalf("output:\n%s\nwant:\n%s", res.Output.Text, want)
	}
	if d := res.Output.Data.(Data); d.ExitCode != 0 || d.Stdout != want {
		t.Fatalf("data = %+v", d)
	}
}

func TestLoadErrors(t *testing.T) {
	ws := t.TempDir()
	obj := map[string]any{"type": "object"}
	tests := []struct {
		name    string
		tool    string
		ct      config.CommandTool
		want    []string
		sentinl error
	}{
		{name: "unknown variable", tool: "t", ct: config.CommandTool{Command: []string{"echo", "{{ inputs.x }}"}},
			want: []string{`command tool "t"`, `command[1] uses the unknown variable "inputs.x"`}},
		{name: "undeclared parameter", tool: "t", ct: config.CommandTool{Command: []string{"echo", "{{ input.x }}"}},
			want: []string{`refers to parameter "x", which parameters.properties does not declare`}},
		{name: "undeclared parameter with properties", tool: "t", ct: config.CommandTool{Command: []string{"echo", "{{ input.y }}"}, Parameters: params(`{"x":{"type":"string"}}`)},
			want: []string{`parameter "y"`}},
		{name: "program is a template", tool: "t", ct: config.CommandTool{Command: []string{"{{ input.p }}"}, Parameters: params(`{"p":{"type":"string"}}`, "p")},
			want: []string{"command[0] must name a fixed program"}},
		{name: "empty command", tool: "t", ct: config.CommandTool{}, want: []string{"has an empty command"}},
		{name: "blank program", tool: "t", ct: config.CommandTool{Command: []string{" "}}, want: []string{"has an empty command"}},
		{name: "parameters not an object", tool: "t", ct: config.CommandTool{Command: []string{"echo"}, Parameters: map[string]any{"type": "string"}},
			want: []string{`type = "object"`}},
		{name: "parameters without type", tool: "t", ct: config.CommandTool{Command: []string{"echo"}, Parameters: map[string]any{"properties": map[string]any{}}},
			want: []string{`type = "object"`}},
		{name: "parameters do not compile", tool: "t", ct: config.CommandTool{Command: []string{"echo"}, Parameters: params(`{"x":{"type":"strange"}}`)},
			want: []string{"not a valid JSON Schema"}},
		{name: "properties not a table", tool: "t", ct: config.CommandTool{Command: []string{"echo"}, Parameters: map[string]any{"type": "object", "properties": "x"}},
			want: []string{"not a valid JSON Schema"}},
		{name: "missing var in command", tool: "rg", ct: config.CommandTool{Command: []string{"echo", "${TALON_TEST_NOPE}"}, Parameters: obj},
			want: []string{`command tool "rg"`, "${TALON_TEST_NOPE} in command[1] is not set"}},
		{name: "missing var in env", tool: "rg", ct: config.CommandTool{Command: []string{"echo"}, Env: map[string]string{"TOKEN": "${TALON_TEST_TOKEN}"}},
			want: []string{`command tool "rg"`, "${TALON_TEST_TOKEN} in env.TOKEN is not set"}},
		{name: "missing var in cwd", tool: "rg", ct: config.CommandTool{Command: []string{"echo"}, Cwd: "${TALON_TEST_DIR}/x"},
			want: []string{"${TALON_TEST_DIR} in cwd is not set"}},
		{name: "bad var syntax", tool: "t", ct: config.CommandTool{Command: []string{"echo", "${HOME"}},
			want: []string{`without "}"`}},
		{name: "bad env name", tool: "t", ct: config.CommandTool{Command: []string{"echo"}, Env: map[string]string{"A=B": "x"}},
			want: []string{"not a variable name"}},
		{name: "bad tier", tool: "t", ct: config.CommandTool{Command: []string{"echo"}, Tier: "extreme"},
			want: []string{`unknown tier "extreme"`}},
		{name: "negative timeout", tool: "t", ct: config.CommandTool{Command: []string{"echo"}, TimeoutSeconds: -1},
			want: []string{"timeout = -1 is negative"}},
		{name: "name too long", tool: strings.Repeat("n", 59), ct: config.CommandTool{Command: []string{"echo"}},
			want: []string{"65 characters long; the limit is 64", "choose a shorter name"}},
		{name: "empty name", tool: "", ct: config.CommandTool{Command: []string{"echo"}},
			want: []string{"empty name"}},
		{name: "several problems at once", tool: "t", ct: config.CommandTool{Command: []string{"echo", "{{ x }}", "${NOPE_1}"}, Tier: "x"},
			want: []string{`unknown variable "x"`, "${NOPE_1}", `unknown tier "x"`}},
		{name: "program missing", tool: "t", ct: config.CommandTool{Command: []string{"talon-no-such-program"}},
			want: []string{"program talon-no-such-program is not found in PATH"}, sentinl: ErrUnavailable},
		{name: "cwd missing", tool: "t", ct: config.CommandTool{Command: []string{"echo"}, Cwd: "does/not/exist"},
			want: []string{"the working directory " + filepath.Join(ws, "does/not/exist") + " does not exist"}, sentinl: ErrUnavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			proctest.NeedBins(t, "echo")
			_, err := New(tt.tool, tt.ct, Options{Workspace: ws, LookupEnv: hostEnv(map[string]string{"HOME": "/h"})})
			want := tt.sentinl
			if want == nil {
				want = ErrInvalid
			}
			if !errors.Is(err, want) {
				t.Fatalf("New error = %v, want %v", err, want)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

func TestCheckProblems(t *testing.T) {
	ct := config.CommandTool{
		Command:    []string{"echo", "{{ input.opt }}"},
		Parameters: params(`{"opt":{"type":"string"}}`),
	}
	got := Check("my.tool", ct, Options{Workspace: t.TempDir(), LookupEnv: hostEnv(nil)})
	var notes []string
	for _, p := range got {
		if p.Severity != SeverityNote {
			t.Errorf("unexpected %s: %s", p.Severity, p.Msg)
		}
		if p.Tool != "my.tool" || p.Key[0] != "tools" || p.Key[2] != "my.tool" {
			t.Errorf("problem %+v has the wrong tool or key", p)
		}
		notes = append(notes, p.Msg)
	}
	all := strings.Join(notes, "\n")
	for _, w := range []string{"exposed as tool__my_tool", `optional parameter "opt"`, "no description"} {
		if !strings.Contains(all, w) {
			t.Errorf("notes lack %q:\n%s", w, all)
		}
	}
}

func TestSpec(t *testing.T) {
	proctest.NeedBins(t, "echo")
	tests := []struct {
		name     string
		tool     string
		ct       config.CommandTool
		wantName string
		tier     tool.Tier
		input    string
	}{
		{name: "defaults", tool: "rg", ct: config.CommandTool{Command: []string{"echo"}, Description: "Search"},
			wantName: "tool__rg", tier: tool.High, input: `{"type":"object"}`},
		{name: "sanitized", tool: "my.tool", ct: config.CommandTool{Command: []string{"echo"}, Tier: "low"},
			wantName: "tool__my_tool", tier: tool.Low, input: `{"type":"object"}`},
		{name: "exactly 64", tool: strings.Repeat("x", 58), ct: config.CommandTool{Command: []string{"echo"}, Tier: "medium"},
			wantName: "tool__" + strings.Repeat("x", 58), tier: tool.Medium, input: `{"type":"object"}`},
		{name: "parameters", tool: "p", ct: config.CommandTool{Command: []string{"echo"}, Parameters: params(`{"a":{"type":"integer"}}`, "a")},
			wantName: "tool__p", tier: tool.High, input: `{"properties":{"a":{"type":"integer"}},"required":["a"],"type":"object"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustNew(t, tt.tool, tt.ct, Options{Workspace: t.TempDir()}).Spec()
			if s.Name != tt.wantName || s.Tier != tt.tier || string(s.Input) != tt.input {
				t.Fatalf("spec = %s %s %s, want %s %s %s", s.Name, s.Tier, s.Input, tt.wantName, tt.tier, tt.input)
			}
			if s.Attribution.String() != "command."+tt.tool || s.Attribution.Kind != tool.KindCommand {
				t.Fatalf("attribution = %s", s.Attribution)
			}
			if s.Description == "" || tool.ValidateName(s.Name) != nil {
				t.Fatalf("spec = %+v", s)
			}
		})
	}
}

func TestSchemaFailureRunsNothing(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	bin := proctest.Script(t, dir, "record.sh", "echo yes > "+marker+"\n")
	tl := mustNew(t, "rec", config.CommandTool{
		Command:    []string{bin, "{{ input.n }}"},
		Parameters: params(`{"n":{"type":"integer","minimum":1},"opt":{"type":"string"}}`, "n"),
	}, Options{Workspace: dir})
	tests := []struct {
		name string
		args string
		want string
	}{
		{name: "wrong type", args: `{"n":"two"}`, want: "/n"},
		{name: "below minimum", args: `{"n":0}`, want: "/n"},
		{name: "missing required", args: `{}`, want: "n"},
		{name: "not an object", args: `[1]`, want: "must be a JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, tl, tt.args)
			if res.Success || !strings.Contains(res.Error, tt.want) || !strings.Contains(res.Error, "nothing ran") {
				t.Fatalf("result = %+v, want a failure naming %q", res, tt.want)
			}
			if _, err := tl.Assess(json.RawMessage(tt.args)); err == nil {
				t.Fatal("Assess accepted arguments Execute refused")
			}
			if _, err := os.Stat(marker); err == nil {
				t.Fatal("the program ran")
			}
		})
	}
}

func TestMissingParameterRunsNothing(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	bin := proctest.Script(t, dir, "record.sh", "echo yes > "+marker+"\n")
	tl := mustNew(t, "rec", config.CommandTool{
		Command:    []string{bin, "--opt={{ input.opt }}"},
		Parameters: params(`{"opt":{"type":"string"}}`),
	}, Options{Workspace: dir})
	res := call(t, tl, `{}`)
	if res.Success || !strings.Contains(res.Error, `parameter "opt" is missing from the arguments`) {
		t.Fatalf("result = %+v", res)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the program ran")
	}
	if res := call(t, tl, `{"opt":"x"}`); !res.Success {
		t.Fatalf("with the parameter: %+v", res)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatal("the program did not run with the parameter")
	}
}

func TestNonZeroExitIsFailureWithStderr(t *testing.T) {
	dir := t.TempDir()
	bin := proctest.Script(t, dir, "fail.sh", "echo partial\necho something broke >&2\nexit 3\n")
	res := call(t, mustNew(t, "f", config.CommandTool{Command: []string{bin}}, Options{Workspace: dir}), `{}`)
	if res.Success || !strings.Contains(res.Error, "tool__f exited with status 3") || !strings.Contains(res.Error, "[stderr]\nsomething broke") {
		t.Fatalf("result = %+v", res)
	}
	if d := res.Output.Data.(Data); d.ExitCode != 3 || d.Stdout != "partial\n" {
		t.Fatalf("data = %+v", d)
	}
	// A long stderr is cut to its end.
	proctest.NeedBins(t, "head", "tr")
	bin = proctest.Script(t, dir, "loud.sh", "head -c 100000 /dev/zero | tr '\\000' x >&2\necho LAST >&2\nexit 1\n")
	res = call(t, mustNew(t, "l", config.CommandTool{Command: []string{bin}}, Options{Workspace: dir}), `{}`)
	if res.Success || len(res.Error) > maxStderrText+200 || !strings.HasSuffix(res.Error, "LAST") || !strings.Contains(res.Error, "earlier bytes left out") {
		t.Fatalf("error is %d bytes: %.200q", len(res.Error), res.Error)
	}
}

func TestSuccessOutput(t *testing.T) {
	dir := t.TempDir()
	bin := proctest.Script(t, dir, "ok.sh", "echo out\necho note >&2\n")
	res := call(t, mustNew(t, "ok", config.CommandTool{Command: []string{bin}}, Options{Workspace: dir}), `{}`)
	if !res.Success || res.Output.Text != "out\n[stderr]\nnote" {
		t.Fatalf("result = %+v", res)
	}
	quiet := proctest.Script(t, dir, "quiet.sh", "exit 0\n")
	res = call(t, mustNew(t, "q", config.CommandTool{Command: []string{quiet}}, Options{Workspace: dir}), `{}`)
	if !res.Success || res.Output.Text != tool.NoOutput {
		t.Fatalf("result = %+v", res)
	}
}

func TestEnv(t *testing.T) {
	proctest.NeedBins(t, "env")
	host := hostEnv(map[string]string{"HOME": "/home/op", "SECRET": "s3cr3t", "LANG": "C.UTF-8", "TOKEN": "tok"})
	tests := []struct {
		name   string
		env    map[string]string
		want   []string
		absent []string
	}{
		{name: "unset: the minimal safe environment", want: []string{"HOME=/home/op", "LANG=C.UTF-8", "PATH="},
			absent: []string{"SECRET", "TOKEN"}},
		{name: "allowlist: only what is listed", env: map[string]string{"PATH": "${PATH}", "API": "${TOKEN}", "MODE": "x"},
			want: []string{"API=tok", "MODE=x", "PATH="}, absent: []string{"SECRET", "HOME", "LANG"}},
		{name: "empty allowlist: nothing", env: map[string]string{}, absent: []string{"PATH", "HOME", "SECRET"}},
	}
	envBin, _ := exec.LookPath("env")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tl := mustNew(t, "env", config.CommandTool{Command: []string{envBin}, Env: tt.env}, Options{Workspace: t.TempDir(), LookupEnv: host})
			res := call(t, tl, `{}`)
			if !res.Success && res.Output.Data.(Data).ExitCode != 0 {
				t.Fatalf("result = %+v", res)
			}
			out := res.Output.Data.(Data).Stdout
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("child env lacks %s:\n%s", w, out)
				}
			}
			for _, a := range tt.absent {
				if strings.Contains(out, a+"=") {
					t.Errorf("child env has %s:\n%s", a, out)
				}
			}
			a, err := tl.Assess(json.RawMessage(`{}`))
			if err != nil {
				t.Fatal(err)
			}
			names := a.Plan.Commands[0].Env
			if !slices.IsSorted(names) || len(names) != strings.Count(out, "=") && len(names) != len(strings.Split(strings.TrimSpace(out), "\n")) {
				t.Errorf("plan env names %v do not match the child's env:\n%s", names, out)
			}
		})
	}
}

func TestCwd(t *testing.T) {
	proctest.NeedBins(t, "pwd")
	ws := t.TempDir()
	other := t.TempDir()
	if err := os.Mkdir(filepath.Join(ws, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	host := hostEnv(map[string]string{"OTHER": other})
	tests := []struct {
		name string
		cwd  string
		want string
	}{
		{name: "default is the workspace", want: ws},
		{name: "relative to the workspace", cwd: "sub", want: filepath.Join(ws, "sub")},
		{name: "expanded at load", cwd: "${OTHER}", want: other},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tl := mustNew(t, "pwd", config.CommandTool{Command: []string{"pwd"}, Cwd: tt.cwd}, Options{Workspace: ws, LookupEnv: host})
			res := call(t, tl, `{}`)
			if !res.Success || strings.TrimSpace(res.Output.Text) != tt.want {
				t.Fatalf("result = %+v, want %s", res, tt.want)
			}
		})
	}
}

func TestOutputOverCapKillsGroup(t *testing.T) {
	proctest.NeedBins(t, "head", "sleep")
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pids")
	// 17 MiB to stdout, then a long wait with a child in the background.
	bin := proctest.Script(t, dir, "flood.sh", "echo $$ >> "+pidFile+"\nsleep 300 &\necho $! >> "+pidFile+
		"\nhead -c 17825792 /dev/zero\nwait\n")
	tl := mustNew(t, "flood", config.CommandTool{Command: []string{bin}}, Options{Workspace: dir})
	start := time.Now()
	res := call(t, tl, `{}`)
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("the call took %s", d)
	}
	if res.Success || !strings.Contains(res.Error, "wrote more than 16 MiB to stdout") || !strings.Contains(res.Error, "process group was killed") {
		t.Fatalf("result = %+v", res)
	}
	proctest.AssertAllGone(t, proctest.ReadPids(t, pidFile, 2), 2)
}

func TestTimeoutKillsGrandchildren(t *testing.T) {
	proctest.NeedBins(t, "sleep")
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pids")
	// The script starts a child shell that starts a sleep: a grandchild.
	bin := proctest.Script(t, dir, "spawner.sh", "echo $$ >> "+pidFile+"\nsleep 300 &\necho $! >> "+pidFile+
		"\nsh -c 'sleep 300 & echo $! >> "+pidFile+"; wait' &\nwait\n")
	tl := mustNew(t, "spawn", config.CommandTool{Command: []string{bin}, TimeoutSeconds: 1}, Options{Workspace: dir})
	start := time.Now()
	res := call(t, tl, `{}`)
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("the call took %s after a 1s timeout", d)
	}
	if res.Success || !strings.Contains(res.Error, "timed out after 1s") || !res.Output.Data.(Data).TimedOut {
		t.Fatalf("result = %+v", res)
	}
	proctest.AssertAllGone(t, proctest.ReadPids(t, pidFile, 3), 3)
}

func TestCancelKillsGroup(t *testing.T) {
	proctest.NeedBins(t, "sleep")
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pids")
	bin := proctest.Script(t, dir, "spawner.sh", "echo $$ >> "+pidFile+"\nsleep 300 &\necho $! >> "+pidFile+"\nwait\n")
	tl := mustNew(t, "spawn", config.CommandTool{Command: []string{bin}}, Options{Workspace: dir})
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error)
	go func() {
		_, err := tl.Execute(ctx, json.RawMessage(`{}`))
		errc <- err
	}()
	pids := proctest.ReadPids(t, pidFile, 2)
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("Execute error = %v, want context.Canceled", err)
	}
	proctest.AssertAllGone(t, pids, 2)
}

func TestBinaryResolvedAtLoadAndCall(t *testing.T) {
	d1, d2 := t.TempDir(), t.TempDir()
	marker := filepath.Join(t.TempDir(), "ran")
	proctest.Script(t, d2, "prog", "echo d2 >> "+marker+"\n")
	tl := mustNew(t, "prog", config.CommandTool{Command: []string{"prog"}, Env: map[string]string{"PATH": d1 + ":" + d2}},
		Options{Workspace: t.TempDir()})
	if tl.Binary() != filepath.Join(d2, "prog") {
		t.Fatalf("binary = %s, want it found with the child's PATH in %s", tl.Binary(), d2)
	}
	if res := call(t, tl, `{}`); !res.Success {
		t.Fatalf("result = %+v", res)
	}
	// A program of the same name appears earlier in PATH: refused.
	proctest.Script(t, d1, "prog", "echo d1 >> "+marker+"\n")
	res := call(t, tl, `{}`)
	if res.Success || !strings.Contains(res.Error, "now resolves to "+filepath.Join(d1, "prog")) {
		t.Fatalf("result = %+v", res)
	}
	// The program disappears: refused.
	_ = os.Remove(filepath.Join(d1, "prog"))
	_ = os.Remove(filepath.Join(d2, "prog"))
	res = call(t, tl, `{}`)
	if res.Success || !strings.Contains(res.Error, "not found") {
		t.Fatalf("result = %+v", res)
	}
	if b, _ := os.ReadFile(marker); string(b) != "d2\n" {
		t.Fatalf("runs recorded %q, want exactly the first", b)
	}
}

func TestAssessAndApprovedPlan(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	bin := proctest.Script(t, dir, "rec.sh", "echo \"$1\" >> "+marker+"\n")
	tl := mustNew(t, "rec", config.CommandTool{
		Command:    []string{bin, "{{ input.x }}"},
		Parameters: params(`{"x":{"type":"string"}}`, "x"),
		Env:        map[string]string{"B": "2", "A": "1"},
	}, Options{Workspace: dir})
	a, err := tl.Assess(json.RawMessage(`{"x":"one two"}`))
	if err != nil {
		t.Fatal(err)
	}
	want := tool.PlannedCommand{Argv: []string{bin, "one two"}, Binary: bin, Dir: dir, Env: []string{"A", "B"}}
	if a.Tier != tool.High || !a.Allowlisted || a.Denied || a.Plan == nil || len(a.Plan.Commands) != 1 {
		t.Fatalf("assessment = %+v", a)
	}
	got := a.Plan.Commands[0]
	if !slices.Equal(got.Argv, want.Argv) || got.Binary != want.Binary || got.Dir != want.Dir || !slices.Equal(got.Env, want.Env) {
		t.Fatalf("plan = %+v, want %+v", got, want)
	}
	if a.Plan.Summary != bin+" 'one two'" {
		t.Fatalf("summary = %q", a.Plan.Summary)
	}
	tests := []struct {
		name    string
		args    string
		plan    *tool.Plan
		runs    bool
		wantErr string
	}{
		{name: "matching plan runs", args: `{"x":"one two"}`, plan: a.Plan, runs: true},
		{name: "other arguments refused", args: `{"x":"three"}`, plan: a.Plan, wantErr: "the arguments changed to " + bin + " three"},
		{name: "other binary refused", args: `{"x":"one two"}`, plan: withCmd(a.Plan, func(c *tool.PlannedCommand) { c.Binary = "/bin/other" }), wantErr: "resolves to"},
		{name: "other dir refused", args: `{"x":"one two"}`, plan: withCmd(a.Plan, func(c *tool.PlannedCommand) { c.Dir = "/" }), wantErr: "would run in"},
		{name: "other env refused", args: `{"x":"one two"}`, plan: withCmd(a.Plan, func(c *tool.PlannedCommand) { c.Env = []string{"A"} }), wantErr: "environment changed"},
		{name: "no commands refused", args: `{"x":"one two"}`, plan: &tool.Plan{Summary: a.Plan.Summary}, wantErr: "0 commands were approved"},
		{name: "no approval: allowed outright", args: `{"x":"free"}`, runs: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before, _ := os.ReadFile(marker)
			ctx := context.Background()
			if tt.plan != nil {
				ctx = tool.WithApprovedPlan(ctx, tt.plan)
			}
			res, err := tl.Execute(ctx, json.RawMessage(tt.args))
			if err != nil {
				t.Fatal(err)
			}
			after, _ := os.ReadFile(marker)
			if ran := len(after) > len(before); ran != tt.runs {
				t.Fatalf("ran = %v, want %v (result %+v)", ran, tt.runs, res)
			}
			if tt.wantErr != "" && (res.Success || !strings.Contains(res.Error, tt.wantErr) || !strings.Contains(res.Error, "nothing ran")) {
				t.Fatalf("result = %+v, want a refusal naming %q", res, tt.wantErr)
			}
		})
	}
}

func withCmd(p *tool.Plan, f func(*tool.PlannedCommand)) *tool.Plan {
	q := *p
	q.Commands = slices.Clone(p.Commands)
	f(&q.Commands[0])
	return &q
}

func TestLoad(t *testing.T) {
	proctest.NeedBins(t, "echo")
	echo := config.CommandTool{Command: []string{"echo", "hi"}, Description: "Say hi"}
	tests := []struct {
		name     string
		commands map[string]config.CommandTool
		policy   config.ToolPolicy
		want     []string
		skipped  []string
		warnings int
		wantErr  string
	}{
		{name: "none"},
		{name: "all registered, sorted", commands: map[string]config.CommandTool{"b": echo, "a": echo}, want: []string{"tool__a", "tool__b"}},
		{name: "allow narrows", commands: map[string]config.CommandTool{"git_log": echo, "rm": echo},
			policy: config.ToolPolicy{Allow: []string{"tool__git_*"}}, want: []string{"tool__git_log"}, skipped: []string{"tool__rm"}},
		{name: "deny wins over allow", commands: map[string]config.CommandTool{"a": echo, "b": echo},
			policy: config.ToolPolicy{Allow: []string{"tool__*"}, Deny: []string{"tool__b"}}, want: []string{"tool__a"}, skipped: []string{"tool__b"}},
		{name: "deny all", commands: map[string]config.CommandTool{"a": echo},
			policy: config.ToolPolicy{Deny: []string{"*"}}, skipped: []string{"tool__a"}},
		{name: "policy sees the sanitized name", commands: map[string]config.CommandTool{"my.tool": echo},
			policy: config.ToolPolicy{Allow: []string{"tool__my_tool"}}, want: []string{"tool__my_tool"}},
		{name: "unavailable is skipped with a warning", commands: map[string]config.CommandTool{"a": echo, "gone": {Command: []string{"talon-no-such-program"}}},
			want: []string{"tool__a"}, skipped: []string{"tool__gone"}, warnings: 1},
		{name: "a denied tool is not even checked", commands: map[string]config.CommandTool{"bad": {Command: []string{"{{ nope }}"}}},
			policy: config.ToolPolicy{Deny: []string{"tool__bad"}}, skipped: []string{"tool__bad"}},
		{name: "errors fail the load", commands: map[string]config.CommandTool{"a": echo, "bad": {Command: []string{"echo", "{{ nope }}"}}},
			wantErr: `command tool "bad": command[1] uses the unknown variable "nope"`},
		{name: "two names for one tool", commands: map[string]config.CommandTool{"my.tool": echo, "my_tool": echo},
			wantErr: `command tools "my.tool" and "my_tool" both become tool__my_tool`},
		{name: "too long", commands: map[string]config.CommandTool{strings.Repeat("x", 60): echo}, wantErr: "limit is 64"},
		{name: "bad policy pattern", commands: map[string]config.CommandTool{"a": echo},
			policy: config.ToolPolicy{Allow: []string{"tool__[a"}}, wantErr: "does not compile"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := &config.Config{}
			cfg.Tools.Commands = tt.commands
			cfg.Tools.ToolPolicy = tt.policy
			set, err := Load(cfg, Options{Workspace: t.TempDir(), LookupEnv: hostEnv(nil)})
			if tt.wantErr != "" {
				if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Load error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got, skipped []string
			for _, tl := range set.Tools {
				got = append(got, tl.Spec().Name)
			}
			for _, s := range set.Skipped {
				skipped = append(skipped, s.Qualified)
				if s.Reason == "" {
					t.Errorf("skip %s has no reason", s.Qualified)
				}
			}
			if !slices.Equal(got, tt.want) || !slices.Equal(skipped, tt.skipped) || len(set.Warnings) != tt.warnings {
				t.Fatalf("tools %v skipped %v warnings %q; want %v %v %d", got, skipped, set.Warnings, tt.want, tt.skipped, tt.warnings)
			}
		})
	}
	if set, err := Load(nil, Options{}); err != nil || len(set.Tools) != 0 {
		t.Fatalf("Load(nil) = %+v, %v", set, err)
	}
}
