package shell

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/risk/shellparse"
	"github.com/talonhq/talon/sandbox"
	"github.com/talonhq/talon/tool"
	"github.com/talonhq/talon/workspace"
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
	// MaxYieldMs is the longest yield_ms accepted: five minutes.
	MaxYieldMs = 300000
	// MaxEnv is how many variables one call's env may set.
	MaxEnv = 32
)

var (
	// ErrInvalidArguments reports arguments that do not describe a call.
	ErrInvalidArguments = errors.New("invalid shell arguments")
	// ErrForbiddenPassthrough reports a shell_env_passthrough name that
	// the tool never passes to a child.
	ErrForbiddenPassthrough = errors.New("forbidden shell_env_passthrough name")
	// ErrInvalidPolicy reports a shell table of a risk profile that
	// cannot be used.
	ErrInvalidPolicy = errors.New("invalid shell policy")
)

// safeEnv are the variables every child gets from talon's environment.
var safeEnv = []string{"PATH", "HOME", "LANG", "LC_ALL", "TERM", "TMPDIR", "USER"}

// Options configures a [Shell]. The zero value is the documented default
// for every field.
type Options struct {
	// Workspace is the directory commands run in unless a call names a
	// workdir inside it. "" means the current directory.
	Workspace string
	// Protected and ForbiddenPaths confine a call's workdir as they
	// confine the file tools: a workdir under them is refused.
	Protected      workspace.Protected
	ForbiddenPaths []string
	// AllowedCommands is the profile's allowed_commands; nil means
	// [shellparse.DefaultAllowedCommands].
	AllowedCommands []string
	// SafeBins overrides the safe stdin filters; nil means
	// [shellparse.DefaultSafeBins].
	SafeBins map[string]shellparse.SafeBin
	// SafeBinTrustedDirs are where a safe bin must be found; nil means
	// [shellparse.DefaultSafeBinTrustedDirs].
	SafeBinTrustedDirs []string
	// ShellEnvPassthrough names variables of talon's environment that
	// children get besides PATH, HOME, LANG, LC_ALL, TERM, TMPDIR and USER.
	ShellEnvPassthrough []string
	// PATH is the search path for commands and the PATH children get.
	// "" means talon's own PATH.
	PATH string
	// PathPrepend are absolute directories put in front of PATH.
	PathPrepend []string
	// Home is what ~ expands to; "" means the user's home directory.
	Home string
	// DefaultTimeout applies when a call in the foreground gives no
	// timeout_seconds; zero means [DefaultTimeout]. A line in the
	// background (background, yield_ms) has no timeout unless the call
	// gives one.
	DefaultTimeout time.Duration
	// AllowNoTimeout accepts timeout_seconds = 0, which runs without a
	// timeout. Without it, 0 is refused.
	AllowNoTimeout bool
	// MaxOutputBytes caps stdout and stderr each; zero means
	// [DefaultMaxOutputBytes].
	MaxOutputBytes int
	// Mode is the profile's shell.mode: "deny" refuses every line,
	// "full" allows every command (allowed_commands ["*"]), "ask" lets a
	// command off the allowlist through to be asked about instead of
	// denying it; "" and "allowlist" change nothing.
	Mode string
	// Allow, Ask and Deny are the profile's command rules (see
	// [shellparse.Rule]): deny wins, then ask, then allow.
	Allow, Ask, Deny []string
	// Jobs holds the background processes; nil means a manager of this
	// tool's own.
	Jobs *Manager
	// NoExitNotice keeps a background process's end from being sent to
	// the caller (notify_on_exit = false).
	NoExitNotice bool
	// Config, when set, gives each profile's shell table to
	// [Shell.ForProfile].
	Config *config.Config
	// Logger receives one line per finished command line. The zero value
	// logs nothing.
	Logger zerolog.Logger
}

// Shell is the shell tool. It is immutable and safe for concurrent use;
// its background processes live in its [Manager].
type Shell struct {
	opts     Options
	analyzer *shellparse.Analyzer
	rules    *shellparse.Rules
	root     *workspace.Root
	envNames []string
	schema   json.RawMessage
	jobs     *Manager
	// spawn starts every process the tool runs with its niceness raised:
	// sandbox.StartNice, which tests may wrap.
	spawn func(cmd *exec.Cmd, nice int) error
}

var (
	_ tool.Tool     = (*Shell)(nil)
	_ tool.Assessor = (*Shell)(nil)
	_ tool.Profiled = (*Shell)(nil)
)

// New builds the shell tool.
//
// # Errors
//
// An invalid allowed_commands pattern wraps [shellparse.ErrInvalidPattern];
// a passthrough name the tool never passes (PATH, LD_*, ...) wraps
// [ErrForbiddenPassthrough]; an unknown mode, rule or path_prepend entry
// wraps [ErrInvalidPolicy]; a workspace that cannot be opened is returned
// as it is.
func New(opts Options) (*Shell, error) {
	if opts.Workspace == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("find the working directory: %w; set the workspace", err)
		}
		opts.Workspace = wd
	}
	root, err := workspace.Open(opts.Workspace, workspace.Options{Protected: opts.Protected})
	if err != nil {
		return nil, fmt.Errorf("shell: %w", err)
	}
	return newWith(opts, root)
}

// newWith builds the tool over an open workspace, which profile variants
// share.
func newWith(opts Options, base *workspace.Root) (*Shell, error) {
	if opts.PATH == "" {
		opts.PATH = os.Getenv("PATH")
	}
	for _, d := range opts.PathPrepend {
		if !filepath.IsAbs(d) {
			return nil, fmt.Errorf("%w: path_prepend entry %q is not absolute; write the full path", ErrInvalidPolicy, d)
		}
	}
	if len(opts.PathPrepend) > 0 {
		opts.PATH = strings.Join(append(slices.Clone(opts.PathPrepend), opts.PATH), string(os.PathListSeparator))
	}
	if opts.DefaultTimeout <= 0 {
		opts.DefaultTimeout = DefaultTimeout
	}
	if opts.MaxOutputBytes <= 0 {
		opts.MaxOutputBytes = DefaultMaxOutputBytes
	}
	allowed, safe := opts.AllowedCommands, opts.SafeBins
	switch opts.Mode {
	case "", config.ShellModeAllowlist, config.ShellModeAsk:
	case config.ShellModeDeny:
		allowed, safe = []string{}, map[string]shellparse.SafeBin{}
	case config.ShellModeFull:
		allowed = []string{"*"}
	default:
		return nil, fmt.Errorf("%w: mode %q: use deny, allowlist, ask or full", ErrInvalidPolicy, opts.Mode)
	}
	rules, err := shellparse.NewRules(opts.Allow, opts.Ask, opts.Deny)
	if err != nil {
		return nil, fmt.Errorf("shell: %w", err)
	}
	a, err := shellparse.New(shellparse.Options{
		AllowedCommands:    allowed,
		SafeBins:           safe,
		SafeBinTrustedDirs: opts.SafeBinTrustedDirs,
		PATH:               opts.PATH,
		Dir:                base.Dir(),
		Home:               opts.Home,
	})
	if err != nil {
		return nil, fmt.Errorf("shell: %w", err)
	}
	root, err := base.WithForbidden(opts.ForbiddenPaths)
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
	if opts.Jobs == nil {
		opts.Jobs = NewManager(ManagerOptions{})
	}
	s := &Shell{opts: opts, analyzer: a, rules: rules, root: root, envNames: names, jobs: opts.Jobs, spawn: sandbox.StartNice}
	s.schema = json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{`+
		`"command":{"type":"string","minLength":1,"maxLength":%d},`+
		`"workdir":{"type":"string","maxLength":4096},`+
		`"env":{"type":"object","maxProperties":%d,"additionalProperties":{"type":"string"}},`+
		`"timeout_seconds":{"type":"integer","minimum":0,"maximum":%d},`+
		`"background":{"type":"boolean"},`+
		`"yield_ms":{"type":"integer","minimum":0,"maximum":%d},`+
		`"pty":{"type":"boolean"}},`+
		`"required":["command"],"additionalProperties":false}`, MaxCommandBytes, MaxEnv, MaxTimeoutSeconds, MaxYieldMs))
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
// allowed_commands, shell_env_passthrough, forbidden_paths and, when the
// tool was given the config, its shell table; nil allowed means the
// default list. The copy shares the workspace and the background
// processes.
func (s *Shell) ForProfile(p tool.ProfileSettings) (tool.Tool, error) {
	opts := s.opts
	opts.AllowedCommands = p.AllowedCommands
	opts.ShellEnvPassthrough = p.ShellEnvPassthrough
	opts.ForbiddenPaths = p.ForbiddenPaths
	opts.PATH = s.basePATH()
	if opts.Config != nil {
		prof := opts.Config.RiskProfiles[p.Name]
		if err := opts.apply(prof.Shell); err != nil {
			return nil, fmt.Errorf("risk profile %s: %w", p.Name, err)
		}
	}
	return newWith(opts, s.root)
}

// basePATH is PATH without the prepended directories.
func (s *Shell) basePATH() string {
	if len(s.opts.PathPrepend) == 0 {
		return s.opts.PATH
	}
	prefix := strings.Join(s.opts.PathPrepend, string(os.PathListSeparator)) + string(os.PathListSeparator)
	return strings.TrimPrefix(s.opts.PATH, prefix)
}

// apply sets the options a profile's shell table decides.
func (o *Options) apply(p config.ShellPolicy) error {
	o.Mode = p.Mode
	o.AllowNoTimeout = p.AllowNoTimeout
	o.Allow, o.Ask, o.Deny = slices.Clone(p.Allow), slices.Clone(p.Ask), slices.Clone(p.Deny)
	o.SafeBinTrustedDirs = p.SafeBinTrustedDirs()
	o.PathPrepend = slices.Clone(p.PathPrepend)
	bins, err := SafeBinsFrom(p)
	if err != nil {
		return err
	}
	o.SafeBins = bins
	return nil
}

// SafeBinsFrom turns a profile's safe_bins and safe_bin_profiles into the
// analyzer's safe bins: a bin with a profile gets that profile (the flags
// it lists take values, the flags it denies are refused, other flags are
// accepted one by one, and its operands are counted), a bin of the
// default set without one keeps talon's, and any other bin needs one.
//
// # Errors
//
// A bin that is neither a default one nor profiled wraps
// [ErrInvalidPolicy].
func SafeBinsFrom(p config.ShellPolicy) (map[string]shellparse.SafeBin, error) {
	defaults := shellparse.DefaultSafeBins()
	out := map[string]shellparse.SafeBin{}
	for _, name := range p.SafeBins() {
		if sp, ok := p.SafeBinProfiles[name]; ok {
			sb := shellparse.SafeBin{AnyFlag: true, DeniedFlags: slices.Clone(sp.DeniedFlags),
				Operands: sp.MaxPositional, MinOperands: sp.MinPositional}
			if len(sp.AllowedValueFlags) > 0 {
				sb.ValueFlags = map[string]shellparse.ArgKind{}
				for _, f := range sp.AllowedValueFlags {
					sb.ValueFlags[f] = shellparse.ArgText
				}
			}
			out[name] = sb
			continue
		}
		sb, ok := defaults[name]
		if !ok {
			return nil, fmt.Errorf("%w: safe bin %q has no profile: add a safe_bin_profiles.%s table naming its value flags and operands", ErrInvalidPolicy, name, name)
		}
		out[name] = sb
	}
	return out, nil
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
	`"timed_out":{"type":"boolean"},"truncated":{"type":"boolean"},` +
	`"id":{"type":"string"},"running":{"type":"boolean"}}}`)

// args are the decoded arguments of a call.
type args struct {
	Command string
	// Timeout is zero for no timeout; timeoutSet says the call gave one.
	Timeout    time.Duration
	timeoutSet bool
	// dir is the real working directory; workdir is as given.
	dir, workdir string
	// Env are NAME=value pairs, sorted by name.
	Env        []string
	Background bool
	Yield      time.Duration
	PTY        bool
}

type rawArgs struct {
	Command        *string                    `json:"command"`
	Workdir        *string                    `json:"workdir"`
	Env            map[string]json.RawMessage `json:"env"`
	TimeoutSeconds *json.RawMessage           `json:"timeout_seconds"`
	Background     *bool                      `json:"background"`
	YieldMs        *json.RawMessage           `json:"yield_ms"`
	PTY            *bool                      `json:"pty"`
}

// decodeArgs decodes and checks the arguments, so Execute and Assess are
// safe even when called without the runtime's schema validation. Every
// refusal names the field.
func (s *Shell) decodeArgs(raw json.RawMessage) (args, error) {
	var r rawArgs
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return args{}, fmt.Errorf(`%w: %v: pass an object like {"command": "ls -la", "workdir": "src", "timeout_seconds": 30}`, ErrInvalidArguments, err)
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
	a := args{Command: *r.Command, Timeout: s.opts.DefaultTimeout, dir: s.opts.Workspace}
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
		a.Timeout, a.timeoutSet = time.Duration(n)*time.Second, true
	}
	if r.Workdir != nil && *r.Workdir != "" {
		dir, err := s.workdir(*r.Workdir)
		if err != nil {
			return args{}, err
		}
		a.dir, a.workdir = dir, *r.Workdir
	}
	env, err := s.env(r.Env)
	if err != nil {
		return args{}, err
	}
	a.Env = env
	if r.Background != nil {
		a.Background = *r.Background
	}
	if r.YieldMs != nil && string(*r.YieldMs) != "null" {
		var n int64
		if err := json.Unmarshal(*r.YieldMs, &n); err != nil || n < 0 || n > MaxYieldMs {
			return args{}, fmt.Errorf("%w: yield_ms must be a whole number of milliseconds from 0 to %d (0 runs in the foreground; for longer, use background and poll)", ErrInvalidArguments, MaxYieldMs)
		}
		a.Yield = time.Duration(n) * time.Millisecond
	}
	if a.Background && a.Yield > 0 {
		return args{}, fmt.Errorf("%w: background and yield_ms exclude each other: background returns at once, yield_ms after that long; give one", ErrInvalidArguments)
	}
	if r.PTY != nil && *r.PTY {
		if runtime.GOOS == "windows" {
			return args{}, fmt.Errorf("%w: pty: %v", ErrInvalidArguments, errNoPTY)
		}
		a.PTY = true
	}
	return a, nil
}

// errNoPTY refuses pty where talon has no pseudo-terminals.
var errNoPTY = errors.New("a terminal (pty) is not available on this platform: run the command without pty")

// workdir resolves a call's workdir through the workspace's confinement,
// as the file tools resolve their paths: inside the workspace, not
// through a link that leaves it, not protected or forbidden, and a
// directory.
func (s *Shell) workdir(p string) (string, error) {
	real, err := s.root.Resolve(p)
	if err != nil {
		switch {
		case errors.Is(err, workspace.ErrOutsideWorkspace):
			return "", fmt.Errorf("%w: workdir %q is outside the workspace %s: give a directory inside it, relative to it", ErrInvalidArguments, p, s.opts.Workspace)
		case errors.Is(err, fs.ErrNotExist):
			return "", fmt.Errorf("%w: workdir %q does not exist in the workspace: create it first or give an existing directory", ErrInvalidArguments, p)
		}
		return "", fmt.Errorf("%w: workdir %q: %v", ErrInvalidArguments, p, err)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", fmt.Errorf("%w: workdir %q: %v", ErrInvalidArguments, p, err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("%w: workdir %q is not a directory: give the directory the command runs in", ErrInvalidArguments, p)
	}
	return real, nil
}

// env checks a call's env: names the line itself could assign (inert
// variables only, the refusal naming the variable), string values.
func (s *Shell) env(raw map[string]json.RawMessage) ([]string, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	if len(raw) > MaxEnv {
		return nil, fmt.Errorf("%w: env sets %d variables; the limit is %d", ErrInvalidArguments, len(raw), MaxEnv)
	}
	names := make([]string, 0, len(raw))
	for n := range raw {
		names = append(names, n)
	}
	slices.Sort(names)
	out := make([]string, 0, len(raw))
	for _, n := range names {
		var v string
		if err := json.Unmarshal(raw[n], &v); err != nil {
			return nil, fmt.Errorf("%w: env.%s must be a string, like {\"env\": {\"%s\": \"C\"}}", ErrInvalidArguments, n, n)
		}
		if why := s.analyzer.RefuseVar(n); why != "" {
			return nil, fmt.Errorf("%w: env.%s: %s", ErrInvalidArguments, n, why)
		}
		if strings.IndexByte(v, 0) >= 0 {
			return nil, fmt.Errorf("%w: env.%s contains a NUL byte", ErrInvalidArguments, n)
		}
		out = append(out, n+"="+v)
	}
	return out, nil
}

// Assess analyses the command line in its workdir and with its env: its
// tier, reasons, the files its redirections touch, whether every command
// passed the allowlist gate, the rule that decides it, and the plan an
// approval binds to.
func (s *Shell) Assess(raw json.RawMessage) (tool.Assessment, error) {
	a, err := s.decodeArgs(raw)
	if err != nil {
		return tool.Assessment{}, err
	}
	_, as, err := s.analyze(a)
	return as, err
}

// analyze is the analysis of one call under the profile's mode and
// rules.
func (s *Shell) analyze(a args) (*shellparse.Analysis, tool.Assessment, error) {
	an := s.analyzer.In(a.dir).Analyze(a.Command)
	as := tool.Assessment{Tier: an.Tier, Reasons: an.Reasons, Paths: an.Paths}
	if !an.Analysable {
		as.Denied = true
		return an, as, nil
	}
	an.Program.Export(a.Env)
	cmds := an.Program.Commands()
	if a.PTY && len(cmds) != 1 {
		return nil, tool.Assessment{}, fmt.Errorf("%w: pty runs one command on a terminal; this line has %d: drop pty, or run one command", ErrInvalidArguments, len(cmds))
	}
	if s.opts.Mode == config.ShellModeDeny {
		as.Reasons = append(slices.Clip(as.Reasons), "shell commands are denied for this profile (shell.mode = deny)")
	}
	as.Allowlisted = true
	covered := true
	var ask, allow *tool.Rule
	for _, c := range cmds {
		r, ruled := s.rules.Match(c)
		if ruled {
			as.Reasons = append(slices.Clip(as.Reasons), fmt.Sprintf("%q matches rule %s", c.String(), r))
		}
		switch {
		case ruled && r.Action == shellparse.RuleDeny:
			as.Denied = true
		case c.Allowed:
		case c.OffList && ruled:
			// An allow or ask rule lets the command past the gate.
		case c.OffList && s.opts.Mode == config.ShellModeAsk:
			as.Allowlisted = false
		default:
			as.Denied = true
		}
		if ruled && r.Action == shellparse.RuleAsk && ask == nil {
			ask = &tool.Rule{Action: r.Action, Pattern: r.Pattern}
		}
		if ruled && r.Action == shellparse.RuleAllow && allow == nil {
			allow = &tool.Rule{Action: r.Action, Pattern: r.Pattern}
		}
		if !(ruled && r.Action == shellparse.RuleAllow) && !(c.Allowed && c.Tier == tool.Low) {
			covered = false
		}
	}
	switch {
	case as.Denied:
		as.Allowlisted = false
	case ask != nil:
		as.Rule = ask
	case allow != nil && covered:
		as.Rule = allow
	}
	as.Plan = s.plan(an.Program, a.dir)
	return an, as, nil
}

// plan is the program's plan with every command's environment names.
func (s *Shell) plan(p *shellparse.Program, dir string) *tool.Plan {
	return p.PlanWith(dir, s.childEnvRule())
}

// childEnv is the environment of one command.
func (s *Shell) childEnv(c shellparse.Command) []string { return s.childEnvRule().For(c) }

// childEnvRule is the environment rule of this tool's children: the safe
// set and the passthrough names, with the tool's PATH.
func (s *Shell) childEnvRule() shellparse.ChildEnv {
	return shellparse.ChildEnv{Names: s.envNames, PATH: s.opts.PATH}
}

// Execute analyses the line again and runs its program without a shell:
// in the foreground, in the background (background), in the foreground
// and then the background (yield_ms), or on a terminal (pty). When the
// context carries an approved plan ([tool.WithApprovedPlan]), anything
// that differs from it is refused and nothing runs. A line that is not
// analysable or that the profile denies never runs.
func (s *Shell) Execute(ctx context.Context, raw json.RawMessage) (tool.Result, error) {
	if err := ctx.Err(); err != nil {
		return tool.Result{}, err
	}
	a, err := s.decodeArgs(raw)
	if err != nil {
		return tool.Failure("%v", err), nil
	}
	an, as, err := s.analyze(a)
	if err != nil {
		return tool.Failure("%v", err), nil
	}
	if !an.Analysable {
		return tool.Failure("the command cannot be analysed, so nothing ran: %s; rewrite it as plain commands joined by |, &&, || or ;", strings.Join(an.Reasons, "; ")), nil
	}
	if as.Denied {
		return tool.Failure("the command is not allowed, so nothing ran: %s", strings.Join(s.refusals(an), "; ")), nil
	}
	plan := as.Plan
	if approved := tool.ApprovedPlan(ctx); approved != nil {
		if diff := tool.PlanDiff(approved, plan, quoteEach); diff != "" {
			return tool.Failure("the command no longer matches the approved plan (%s), so nothing ran: ask for approval again", diff), nil
		}
	}
	if a.Background || a.Yield > 0 || a.PTY {
		return s.runJob(ctx, a, an.Program, plan)
	}
	start := time.Now()
	out := s.run(ctx, an.Program, a.dir, a.Timeout)
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

// Jobs returns the tool's background processes.
func (s *Shell) Jobs() *Manager { return s.jobs }

// refusals are the reasons that kept a line from being allowed.
func (s *Shell) refusals(an *shellparse.Analysis) []string {
	var out []string
	if s.opts.Mode == config.ShellModeDeny {
		out = append(out, "shell commands are denied for this profile (shell.mode = deny)")
	}
	for _, c := range an.Program.Commands() {
		if r, ok := s.rules.Match(c); ok && r.Action == shellparse.RuleDeny {
			out = append(out, fmt.Sprintf("%q is denied by rule %s", c.String(), r))
			continue
		}
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
