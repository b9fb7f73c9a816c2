package shell

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/talonhq/talon/risk/shellparse"
	"github.com/talonhq/talon/sandbox"
	"github.com/talonhq/talon/tool"
)

// Name is the tool's model-visible name.
const Name = "shell"

// Defaults and limits.
const (
	// DefaultTimeout applies when the call names no timeout_seconds and
	// Options.DefaultTimeout is zero.
	DefaultTimeout = 60 * time.Second
	// MaxTimeoutSeconds is the largest timeout_seconds accepted.
	MaxTimeoutSeconds = 3600
	// DefaultMaxOutputBytes caps stdout and stderr, each, when
	// Options.MaxOutputBytes is zero.
	DefaultMaxOutputBytes = 1 << 20
	// MaxCommandBytes is the longest command line accepted.
	MaxCommandBytes = 16 << 10
)

var (
	// ErrInvalidArguments reports arguments that do not describe a call.
	ErrInvalidArguments = errors.New("invalid shell arguments")
	// ErrForbiddenPassthrough reports a shell_env_passthrough name that
	// the tool never passes to a child.
	ErrForbiddenPassthrough = errors.New("forbidden shell_env_passthrough name")
)

// safeEnv are the variables every child gets from talon's environment.
var safeEnv = []string{"PATH", "HOME", "LANG", "LC_ALL", "TERM", "TMPDIR", "USER"}

// Options configures a [Shell]. The zero value is the documented default
// for every field.
type Options struct {
	// Workspace is the directory commands run in. "" means the current
	// directory.
	Workspace string
	// AllowedCommands is the profile's allowed_commands; nil means
	// [shellparse.DefaultAllowedCommands].
	AllowedCommands []string
	// SafeBins overrides the safe stdin filters; nil means
	// [shellparse.DefaultSafeBins].
	SafeBins map[string]shellparse.SafeBin
	// ShellEnvPassthrough names variables of talon's environment that
	// children get besides PATH, HOME, LANG, LC_ALL, TERM, TMPDIR and USER.
	ShellEnvPassthrough []string
	// PATH is the search path for commands and the PATH children get.
	// "" means talon's own PATH.
	PATH string
	// Home is what ~ expands to; "" means the user's home directory.
	Home string
	// DefaultTimeout applies when a call gives no timeout_seconds; zero
	// means [DefaultTimeout].
	DefaultTimeout time.Duration
	// AllowNoTimeout accepts timeout_seconds = 0, which runs without a
	// timeout. Without it, 0 is refused.
	AllowNoTimeout bool
	// MaxOutputBytes caps stdout and stderr each; zero means
	// [DefaultMaxOutputBytes].
	MaxOutputBytes int
	// Logger receives one line per finished command line. The zero value
	// logs nothing.
	Logger zerolog.Logger
}

// Shell is the shell tool. It is immutable and safe for concurrent use.
type Shell struct {
	opts     Options
	analyzer *shellparse.Analyzer
	envNames []string
	schema   json.RawMessage
	// spawn starts every process the tool runs with its niceness raised:
	// sandbox.StartNice, which tests may wrap.
	spawn func(cmd *exec.Cmd, nice int) error
}

var (
	_ tool.Tool     = (*Shell)(nil)
	_ tool.Assessor = (*Shell)(nil)
)

// New builds the shell tool.
//
// # Errors
//
// An invalid allowed_commands pattern wraps [shellparse.ErrInvalidPattern];
// a passthrough name the tool never passes (PATH, LD_*, ...) wraps
// [ErrForbiddenPassthrough].
func New(opts Options) (*Shell, error) {
	if opts.Workspace == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("find the working directory: %w; set the workspace", err)
		}
		opts.Workspace = wd
	}
	if opts.PATH == "" {
		opts.PATH = os.Getenv("PATH")
	}
	if opts.DefaultTimeout <= 0 {
		opts.DefaultTimeout = DefaultTimeout
	}
	if opts.MaxOutputBytes <= 0 {
		opts.MaxOutputBytes = DefaultMaxOutputBytes
	}
	a, err := shellparse.New(shellparse.Options{
		AllowedCommands: opts.AllowedCommands,
		SafeBins:        opts.SafeBins,
		PATH:            opts.PATH,
		Dir:             opts.Workspace,
		Home:            opts.Home,
	})
	if err != nil {
		return nil, fmt.Errorf("shell: %w", err)
	}
	opts.Workspace = a.Dir()
	names := slices.Clone(safeEnv)
	for _, n := range opts.ShellEnvPassthrough {
		if n == "" || strings.ContainsAny(n, "=\x00") {
			return nil, fmt.Errorf("%w %q: use a plain variable name", ErrForbiddenPassthrough, n)
		}
		if n != "PATH" && forbidden(n) {
			return nil, fmt.Errorf("%w %q: it changes which programs run or what code they load; remove it from shell_env_passthrough", ErrForbiddenPassthrough, n)
		}
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	opts.AllowedCommands = slices.Clone(opts.AllowedCommands)
	opts.ShellEnvPassthrough = slices.Clone(opts.ShellEnvPassthrough)
	s := &Shell{opts: opts, analyzer: a, envNames: names, spawn: sandbox.StartNice}
	s.schema = json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{`+
		`"command":{"type":"string","minLength":1,"maxLength":%d},`+
		`"timeout_seconds":{"type":"integer","minimum":0,"maximum":%d}},`+
		`"required":["command"],"additionalProperties":false}`, MaxCommandBytes, MaxTimeoutSeconds))
	return s, nil
}

// forbidden reports a name from the analyzer's default forbidden list.
func forbidden(name string) bool {
	for _, f := range shellparse.DefaultForbiddenEnv() {
		if p, ok := strings.CutSuffix(f, "*"); ok && strings.HasPrefix(name, p) || name == f {
			return true
		}
	}
	return false
}

// ForProfile returns a copy of the tool that applies another profile's
// allowed_commands and shell_env_passthrough; nil allowed means the
// default list.
func (s *Shell) ForProfile(p tool.ProfileSettings) (tool.Tool, error) {
	opts := s.opts
	opts.AllowedCommands = p.AllowedCommands
	opts.ShellEnvPassthrough = p.ShellEnvPassthrough
	return New(opts)
}

// Spec describes the tool. Its description comes from the message catalog
// (tool-shell).
func (s *Shell) Spec() tool.Spec {
	return tool.Spec{
		Name:        Name,
		Input:       s.schema,
		Output:      outputSchema,
		Tier:        tool.Low, // the floor: every call is assessed
		Attribution: tool.Attribution{Kind: tool.KindBuiltin, Alias: Name},
	}
}

var outputSchema = json.RawMessage(`{"type":"object","properties":{` +
	`"exit_code":{"type":"integer"},"stdout":{"type":"string"},"stderr":{"type":"string"},` +
	`"timed_out":{"type":"boolean"},"truncated":{"type":"boolean"}}}`)

// args are the decoded arguments of a call.
type args struct {
	Command string
	// Timeout is zero for no timeout.
	Timeout time.Duration
}

type rawArgs struct {
	Command        *string          `json:"command"`
	TimeoutSeconds *json.RawMessage `json:"timeout_seconds"`
}

// decodeArgs decodes and checks the arguments, so Execute and Assess are
// safe even when called without the runtime's schema validation.
func (s *Shell) decodeArgs(raw json.RawMessage) (args, error) {
	var r rawArgs
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return args{}, fmt.Errorf(`%w: %v: pass an object like {"command": "ls -la", "timeout_seconds": 30}`, ErrInvalidArguments, err)
	}
	if dec.More() {
		return args{}, fmt.Errorf("%w: trailing data after the object", ErrInvalidArguments)
	}
	if r.Command == nil || strings.TrimSpace(*r.Command) == "" {
		return args{}, fmt.Errorf(`%w: command is required: pass the line to run, for example {"command": "ls -la"}`, ErrInvalidArguments)
	}
	if len(*r.Command) > MaxCommandBytes {
		return args{}, fmt.Errorf("%w: command is %d bytes long; the limit is %d: split it into several calls", ErrInvalidArguments, len(*r.Command), MaxCommandBytes)
	}
	a := args{Command: *r.Command, Timeout: s.opts.DefaultTimeout}
	if r.TimeoutSeconds != nil && string(*r.TimeoutSeconds) != "null" {
		var n int
		if err := json.Unmarshal(*r.TimeoutSeconds, &n); err != nil {
			return args{}, fmt.Errorf("%w: timeout_seconds must be a whole number of seconds from 0 to %d", ErrInvalidArguments, MaxTimeoutSeconds)
		}
		if n < 0 || n > MaxTimeoutSeconds {
			return args{}, fmt.Errorf("%w: timeout_seconds %d is out of range: use 1 to %d", ErrInvalidArguments, n, MaxTimeoutSeconds)
		}
		if n == 0 && !s.opts.AllowNoTimeout {
			return args{}, fmt.Errorf("%w: timeout_seconds 0 (no timeout) is not allowed by this profile: give a timeout from 1 to %d", ErrInvalidArguments, MaxTimeoutSeconds)
		}
		a.Timeout = time.Duration(n) * time.Second
	}
	return a, nil
}

// Assess analyses the command line: its tier, reasons, the files its
// redirections touch, whether every command passed the allowlist, and the
// plan an approval binds to.
func (s *Shell) Assess(raw json.RawMessage) (tool.Assessment, error) {
	a, err := s.decodeArgs(raw)
	if err != nil {
		return tool.Assessment{}, err
	}
	an := s.analyzer.Analyze(a.Command)
	as := tool.Assessment{
		Tier:        an.Tier,
		Reasons:     an.Reasons,
		Paths:       an.Paths,
		Allowlisted: an.Analysable && an.Allowed,
		Denied:      !an.Analysable || !an.Allowed,
	}
	if an.Program != nil {
		as.Plan = s.plan(an.Program)
	}
	return as, nil
}

// plan is the program's plan with every command's environment names.
func (s *Shell) plan(p *shellparse.Program) *tool.Plan {
	return p.PlanWith(s.opts.Workspace, s.env())
}

// childEnv is the environment of one command.
func (s *Shell) childEnv(c shellparse.Command) []string { return s.env().For(c) }

// env is the environment rule of this tool's children: the safe set and
// the passthrough names, with the tool's PATH.
func (s *Shell) env() shellparse.ChildEnv {
	return shellparse.ChildEnv{Names: s.envNames, PATH: s.opts.PATH}
}

// Execute analyses the line again and runs its program without a shell.
// When the context carries an approved plan ([tool.WithApprovedPlan]),
// anything that differs from it is refused and nothing runs. A line that
// is not analysable or not allowed never runs.
func (s *Shell) Execute(ctx context.Context, raw json.RawMessage) (tool.Result, error) {
	if err := ctx.Err(); err != nil {
		return tool.Result{}, err
	}
	a, err := s.decodeArgs(raw)
	if err != nil {
		return tool.Failure("%v", err), nil
	}
	an := s.analyzer.Analyze(a.Command)
	if !an.Analysable {
		return tool.Failure("the command cannot be analysed, so nothing ran: %s; rewrite it as plain commands joined by |, &&, || or ;", strings.Join(an.Reasons, "; ")), nil
	}
	if !an.Allowed {
		return tool.Failure("the command is not allowed, so nothing ran: %s", strings.Join(refusals(an), "; ")), nil
	}
	plan := s.plan(an.Program)
	if approved := tool.ApprovedPlan(ctx); approved != nil {
		if diff := tool.PlanDiff(approved, plan, quoteEach); diff != "" {
			return tool.Failure("the command no longer matches the approved plan (%s), so nothing ran: ask for approval again", diff), nil
		}
	}
	start := time.Now()
	out := s.run(ctx, an.Program, a.Timeout)
	s.opts.Logger.Debug().Int("exit_code", out.exitCode).Bool("timed_out", out.timedOut).
		Dur("duration", time.Since(start)).Int("commands", len(plan.Commands)).Msg("shell command finished")
	if out.canceled != nil {
		return s.result(out, a.Timeout), out.canceled
	}
	return s.result(out, a.Timeout), nil
}

// ExecutePlan runs the call only if it still matches the approved plan.
func (s *Shell) ExecutePlan(ctx context.Context, raw json.RawMessage, approved *tool.Plan) (tool.Result, error) {
	if approved == nil {
		return tool.Failure("no approved plan was given, so nothing ran: assess the call and approve its plan"), nil
	}
	return s.Execute(tool.WithApprovedPlan(ctx, approved), raw)
}

// refusals are the reasons that kept a line from being allowed.
func refusals(an *shellparse.Analysis) []string {
	var out []string
	for _, c := range an.Program.Commands() {
		if !c.Allowed {
			out = append(out, c.Reasons...)
		}
	}
	return out
}

// Data is the result's Output.Data.
type Data struct {
	ExitCode  int    `json:"exit_code"`
	Stdout    string `json:"stdout"`
	Stderr    string `json:"stderr"`
	TimedOut  bool   `json:"timed_out"`
	Truncated bool   `json:"truncated"`
}

// result turns an outcome into the model's result: stdout, then stderr
// under a [stderr] marker, then the exit status when it is not zero.
func (s *Shell) result(out outcome, timeout time.Duration) tool.Result {
	var b strings.Builder
	stdout, stderr := out.stdout.String(), out.stderr.String()
	b.WriteString(stdout)
	if stderr != "" {
		if b.Len() > 0 && !strings.HasSuffix(stdout, "\n") {
			b.WriteByte('\n')
		}
		b.WriteString("[stderr]\n")
		b.WriteString(stderr)
	}
	line := func(s string) {
		if b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") {
			b.WriteByte('\n')
		}
		b.WriteString(s)
	}
	switch {
	case out.canceled != nil:
		line("[canceled: the process groups were killed]")
	case out.timedOut:
		line(fmt.Sprintf("[timed out after %s: the process groups were killed]", timeout))
	case out.exitCode != 0:
		line(fmt.Sprintf("[exit status %d]", out.exitCode))
	}
	data := Data{
		ExitCode:  out.exitCode,
		Stdout:    stdout,
		Stderr:    stderr,
		TimedOut:  out.timedOut,
		Truncated: out.stdout.Overflowed() || out.stderr.Overflowed(),
	}
	text := b.String()
	if out.exitCode == 0 && !out.timedOut && out.canceled == nil {
		if strings.TrimSpace(text) == "" {
			text = tool.NoOutput
		}
		return tool.Result{Success: true, Output: tool.Output{Text: text, Data: data}}
	}
	return tool.Result{Error: text, Output: tool.Output{Text: text, Data: data}}
}

// quoteEach renders an argument vector with every word in Go quotes.
func quoteEach(argv []string) string { return fmt.Sprintf("%q", argv) }
