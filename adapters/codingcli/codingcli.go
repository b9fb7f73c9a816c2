package codingcli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/rs/zerolog"

	"github.com/talonhq/talon/sandbox"
	"github.com/talonhq/talon/secret"
	"github.com/talonhq/talon/tool"
)

// Defaults of [Options].
const (
	// DefaultTimeout bounds one run of a CLI.
	DefaultTimeout = 10 * time.Minute
	// DefaultMaxOutputBytes caps the answer kept from standard output.
	DefaultMaxOutputBytes = 1 << 20
	// MaxPromptBytes bounds the prompt; it travels as one argument.
	MaxPromptBytes = 65536
	// maxStderr caps standard error, quoted when the CLI fails.
	maxStderr = 64 << 10
	// errorExcerpt bounds the output quoted in a failure.
	errorExcerpt = 2000
)

// Vendor describes one coding-agent CLI.
type Vendor struct {
	// Tool is the tool's name, e.g. "claude_code".
	Tool string
	// Product names the CLI for people, e.g. "Claude Code".
	Product string
	// Program is the executable's usual name, looked up in PATH.
	Program string
	// Install says how to install the CLI.
	Install string
	// Before and After surround the operator's extra arguments and the
	// prompt: argv is Program, Before, extra arguments, After, prompt.
	Before, After []string
	// Env names the variables the CLI reads its credentials and endpoint
	// from; they are handed down when set.
	Env []string
}

// The vendors.
var (
	ClaudeCode = Vendor{
		Tool: "claude_code", Product: "Claude Code", Program: "claude",
		Install: "npm install -g @anthropic-ai/claude-code",
		After:   []string{"-p"},
		Env:     []string{"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL", "ANTHROPIC_MODEL", "CLAUDE_CONFIG_DIR"},
	}
	CodexCLI = Vendor{
		Tool: "codex_cli", Product: "Codex CLI", Program: "codex",
		Install: "npm install -g @openai/codex",
		Before:  []string{"exec"},
		Env:     []string{"OPENAI_API_KEY", "OPENAI_BASE_URL", "CODEX_HOME"},
	}
	GeminiCLI = Vendor{
		Tool: "gemini_cli", Product: "Gemini CLI", Program: "gemini",
		Install: "npm install -g @google/gemini-cli",
		After:   []string{"-p"},
		Env: []string{"GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_CLOUD_PROJECT", "GOOGLE_CLOUD_LOCATION",
			"GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_APPLICATION_CREDENTIALS"},
	}
)

// Vendors lists the three CLIs.
var Vendors = []Vendor{ClaudeCode, CodexCLI, GeminiCLI}

// baseEnv are the variables every CLI gets when they are set.
var baseEnv = []string{"HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "TZ"}

var (
	// ErrNotInstalled is returned when the CLI's program cannot be found.
	ErrNotInstalled = errors.New("not installed")
	// ErrNoWorkspace is returned by [New] without a workspace.
	ErrNoWorkspace = errors.New("no workspace")
)

// Options configures a [CLI]. The zero value of each field but Workspace
// is its documented default.
type Options struct {
	// Workspace is the absolute directory the CLI runs in.
	Workspace string
	// Binary is the CLI's path; "" means the vendor's program found in
	// PATH when a call is assessed or run.
	Binary string
	// ExtraArgs go between the vendor's leading arguments and the prompt.
	ExtraArgs []string
	// Timeout bounds one run; zero means DefaultTimeout.
	Timeout time.Duration
	// MaxOutputBytes caps the answer; zero means DefaultMaxOutputBytes.
	MaxOutputBytes int
	// EnvPassthrough names more variables handed down when set.
	EnvPassthrough []string
	// PATH is where the program is looked up and the PATH it runs with;
	// "" means talon's own PATH.
	PATH string
	// LookupEnv reads talon's environment; nil means secret.Lookup.
	LookupEnv func(string) (string, bool)
	// Logger receives one line per run; prompts and answers are never
	// logged.
	Logger zerolog.Logger
}

// CLI is one coding-CLI tool. It is immutable and safe for concurrent use.
type CLI struct {
	v    Vendor
	opts Options
	// allowed are the allowed_commands patterns of the risk profile the
	// tool serves; see [CLI.ForProfile].
	allowed []string
}

var (
	_ tool.Tool     = (*CLI)(nil)
	_ tool.Assessor = (*CLI)(nil)
	_ tool.Profiled = (*CLI)(nil)
)

// ForProfile returns the tool as one risk profile sees it. A run is
// allowlisted — under supervised it asks instead of being blocked — when
// the profile's allowed_commands names the CLI the way the shell's
// allowlist names a command: its program name ("claude"), an absolute glob
// over the resolved binary ("/opt/codex/bin/*"), or "*".
func (c *CLI) ForProfile(p tool.ProfileSettings) (tool.Tool, error) {
	cp := *c
	cp.allowed = slices.Clone(p.AllowedCommands)
	return &cp, nil
}

// allowlisted says whether the profile's allowed_commands names bin.
func (c *CLI) allowlisted(bin string) bool {
	for _, p := range c.allowed {
		var ok bool
		switch {
		case p == "*":
			ok = true
		case strings.ContainsRune(p, '/'):
			ok, _ = doublestar.Match(p, bin)
		default:
			ok, _ = doublestar.Match(p, filepath.Base(bin))
		}
		if ok {
			return true
		}
	}
	return false
}

// New returns the tool of vendor v. The CLI need not be installed: each
// call looks for it and says how to install it when it is missing.
//
// # Errors
//
// A Workspace that is empty or not an absolute directory wraps
// [ErrNoWorkspace].
func New(v Vendor, opts Options) (*CLI, error) {
	if opts.Workspace == "" || !filepath.IsAbs(opts.Workspace) {
		return nil, fmt.Errorf("%s: %w: give an absolute workspace directory", v.Tool, ErrNoWorkspace)
	}
	if fi, err := os.Stat(opts.Workspace); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("%s: %w: %s is not a directory", v.Tool, ErrNoWorkspace, opts.Workspace)
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.MaxOutputBytes <= 0 {
		opts.MaxOutputBytes = DefaultMaxOutputBytes
	}
	if opts.LookupEnv == nil {
		opts.LookupEnv = secret.Lookup
	}
	if opts.PATH == "" {
		opts.PATH, _ = opts.LookupEnv("PATH")
	}
	opts.ExtraArgs = slices.Clone(opts.ExtraArgs)
	opts.EnvPassthrough = slices.Clone(opts.EnvPassthrough)
	return &CLI{v: v, opts: opts}, nil
}

const schema = `{"type":"object","properties":{` +
	`"prompt":{"type":"string","minLength":1,"maxLength":65536}},` +
	`"required":["prompt"],"additionalProperties":false}`

// Spec describes the tool.
func (c *CLI) Spec() tool.Spec {
	return tool.Spec{
		Name:        c.v.Tool,
		Input:       json.RawMessage(schema),
		Tier:        tool.High,
		Attribution: tool.Attribution{Kind: tool.KindBuiltin, Alias: c.v.Tool},
	}
}

type args struct {
	Prompt string `json:"prompt"`
}

func (c *CLI) decode(raw json.RawMessage) (string, error) {
	var a args
	if err := tool.DecodeArgs(raw, &a); err != nil {
		return "", fmt.Errorf("invalid arguments: %v: pass an object like {\"prompt\": \"Add a test for parse.go\"}", err)
	}
	p := strings.TrimSpace(a.Prompt)
	switch {
	case p == "":
		return "", errors.New("prompt is empty: say what the agent should do")
	case len(p) > MaxPromptBytes:
		return "", fmt.Errorf("prompt is %d bytes long; the limit is %d: shorten it, or put the details in a file in the workspace and name the file", len(p), MaxPromptBytes)
	case strings.HasPrefix(p, "-"):
		return "", errors.New("prompt starts with '-', which the CLI would read as an option: begin it with a word")
	case strings.ContainsRune(p, 0):
		return "", errors.New("prompt contains a NUL character: remove it")
	}
	return p, nil
}

// binary finds the CLI: the configured program, or the vendor's in PATH.
func (c *CLI) binary() (string, error) {
	where := fmt.Sprintf("[tools.coding_cli.%s] binary", c.v.Tool)
	if b := c.opts.Binary; b != "" {
		if !strings.ContainsRune(b, filepath.Separator) {
			if p := c.lookPath(b); p != "" {
				return p, nil
			}
			return "", fmt.Errorf("the %s CLI is %w: %s (from %s) is not in PATH; install it (%s) or set %s to its full path", c.v.Product, ErrNotInstalled, b, where, c.v.Install, where)
		}
		abs, err := filepath.Abs(b)
		if err != nil || !executable(abs) {
			return "", fmt.Errorf("the %s CLI is %w at %s: %s names no executable file; install it (%s) or fix %s", c.v.Product, ErrNotInstalled, b, where, c.v.Install, where)
		}
		return abs, nil
	}
	if p := c.lookPath(c.v.Program); p != "" {
		return p, nil
	}
	return "", fmt.Errorf("the %s CLI is %w: %s is not in PATH; install it (%s), or the operator sets %s to its full path", c.v.Product, ErrNotInstalled, c.v.Program, c.v.Install, where)
}

func (c *CLI) lookPath(name string) string {
	for _, dir := range filepath.SplitList(c.opts.PATH) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue // a relative PATH entry would depend on the directory
		}
		if p := filepath.Join(dir, name); executable(p) {
			return p
		}
	}
	return ""
}

func executable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// env is the CLI's whole environment: the base and vendor variables and
// the operator's passthrough that are set, PATH, and NO_COLOR=1.
func (c *CLI) env() []string {
	out := []string{"PATH=" + c.opts.PATH, "NO_COLOR=1"}
	seen := map[string]bool{"PATH": true, "NO_COLOR": true}
	for _, list := range [][]string{baseEnv, c.v.Env, c.opts.EnvPassthrough} {
		for _, n := range list {
			if seen[n] {
				continue
			}
			seen[n] = true
			if v, ok := c.opts.LookupEnv(n); ok {
				out = append(out, n+"="+v)
			}
		}
	}
	return out
}

func names(env []string) []string {
	out := make([]string, len(env))
	for i, kv := range env {
		out[i], _, _ = strings.Cut(kv, "=")
	}
	slices.Sort(out)
	return out
}

// argv is the argument vector of one run.
func (c *CLI) argv(prompt string) []string {
	a := []string{c.v.Program}
	a = append(a, c.v.Before...)
	a = append(a, c.opts.ExtraArgs...)
	a = append(a, c.v.After...)
	return append(a, prompt)
}

// plan is the process a call runs.
func (c *CLI) plan(prompt string, bin string, env []string) *tool.Plan {
	argv := c.argv(prompt)
	return &tool.Plan{
		Summary:  fmt.Sprintf("%s in %s: %s", c.v.Product, c.opts.Workspace, quoteArgv(argv)),
		Commands: []tool.PlannedCommand{{Argv: argv, Binary: bin, Dir: c.opts.Workspace, Env: names(env)}},
	}
}

// Assess reports a high-tier call with the exact process as the plan.
func (c *CLI) Assess(raw json.RawMessage) (tool.Assessment, error) {
	prompt, err := c.decode(raw)
	if err != nil {
		return tool.Assessment{}, fmt.Errorf("decode %s arguments: %w", c.v.Tool, err)
	}
	as := tool.Assessment{
		Tier:    tool.High,
		Reasons: []string{fmt.Sprintf("runs the %s agent in %s: it may read and change any file there and send the workspace's contents to its vendor's API", c.v.Product, c.opts.Workspace)},
		Paths:   []string{c.opts.Workspace},
	}
	bin, err := c.binary()
	if err != nil {
		as.Reasons = append(as.Reasons, err.Error()+"; the call will fail without running anything")
		return as, nil
	}
	as.Plan = c.plan(prompt, bin, c.env())
	as.Allowlisted = c.allowlisted(bin)
	if as.Allowlisted {
		as.Reasons = append(as.Reasons, bin+" is in the profile's allowed_commands")
	}
	return as, nil
}

// Data is Output.Data of a run.
type Data struct {
	CLI        string `json:"cli"`
	ExitCode   int    `json:"exit_code"`
	DurationMS int64  `json:"duration_ms"`
	// Truncated says the answer went over the cap and was cut.
	Truncated bool `json:"truncated,omitempty"`
}

// Execute runs the CLI with the prompt in the workspace and returns what
// it printed.
func (c *CLI) Execute(ctx context.Context, raw json.RawMessage) (tool.Result, error) {
	if err := ctx.Err(); err != nil {
		return tool.Result{}, err
	}
	prompt, err := c.decode(raw)
	if err != nil {
		return tool.Failure("%v", err), nil
	}
	bin, err := c.binary()
	if err != nil {
		return tool.Failure("%s: %v; nothing ran", c.v.Tool, err), nil
	}
	env := c.env()
	plan := c.plan(prompt, bin, env)
	if approved := tool.ApprovedPlan(ctx); approved != nil {
		if diff := tool.PlanDiff(approved, plan, quoteArgv); diff != "" {
			return tool.Failure("the run no longer matches the approved plan (%s), so nothing ran: ask for approval again", diff), nil
		}
	}
	cmd := plan.Commands[0]
	out := sandbox.Run(ctx, sandbox.Cmd{
		Argv:      cmd.Argv,
		Binary:    cmd.Binary,
		Dir:       cmd.Dir,
		Env:       env,
		Timeout:   c.opts.Timeout,
		MaxStdout: c.opts.MaxOutputBytes,
		MaxStderr: maxStderr,
	})
	c.opts.Logger.Debug().Str("cli", c.v.Program).Int("exit", out.ExitCode).Dur("took", out.Duration).
		Bool("timed_out", out.TimedOut).Bool("overflowed", out.Overflowed).Msg(c.v.Tool)
	if out.Canceled {
		return tool.Result{}, ctx.Err()
	}
	data := Data{CLI: c.v.Program, ExitCode: out.ExitCode, DurationMS: out.Duration.Milliseconds(), Truncated: out.Overflowed && out.OverflowStream == "stdout"}
	switch {
	case out.Err != nil:
		return tool.Failure("%s: %s could not start: %v; the operator checks the installation (%s)", c.v.Tool, bin, out.Err, c.v.Install), nil
	case out.TimedOut:
		return tool.Failure("%s: %s did not finish within %s and was stopped, with every process it started; files it changed so far stay changed: give it a smaller task, or the operator raises [tools.coding_cli] timeout_seconds%s",
			c.v.Tool, c.v.Product, c.opts.Timeout, partial(out.Stdout)), nil
	case out.ExitCode != 0:
		return tool.Failure("%s: %s exited with status %d%s; if it says it is not logged in or has no API key, the operator signs the CLI in or exports %s before starting talon%s",
			c.v.Tool, c.v.Product, out.ExitCode, said(out.Stderr), c.v.Env[0], partial(out.Stdout)), nil
	}
	text := strings.TrimSpace(out.Stdout)
	if data.Truncated {
		text += fmt.Sprintf("\n\n[answer truncated at %d bytes: ask for a shorter answer, or for the details to be written to a file in the workspace]", c.opts.MaxOutputBytes)
	}
	return tool.Result{Success: true, Output: tool.Output{Text: text, Data: data}}, nil
}

func said(stderr string) string {
	s := strings.TrimSpace(stderr)
	if s == "" {
		return ""
	}
	return ": " + tail(s, errorExcerpt)
}

func partial(stdout string) string {
	s := strings.TrimSpace(stdout)
	if s == "" {
		return ""
	}
	return "\nIts output so far:\n" + tail(s, errorExcerpt)
}

// tail keeps the last n bytes of s, where a CLI's conclusion is.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := len(s) - n
	for cut < len(s) && s[cut]&0xC0 == 0x80 {
		cut++
	}
	return "… " + s[cut:]
}

// quoteArgv renders an argument vector for people: plain words as they
// are, anything else in single quotes.
func quoteArgv(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = quoteWord(a)
	}
	return strings.Join(q, " ")
}

func quoteWord(s string) string {
	if s == "" {
		return "''"
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:@,+%^~", r)) {
			return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		}
	}
	return s
}
