package git

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/talonhq/talon/tool"
	"github.com/talonhq/talon/workspace"
)

// Name is the tool's model-visible name.
const Name = "git_operations"

// Defaults of [Options].
const (
	// DefaultTimeout bounds one git command.
	DefaultTimeout = 30 * time.Second
	// DefaultMaxOutputBytes caps git's standard output; standard error is
	// capped at a sixteenth of it.
	DefaultMaxOutputBytes = 1 << 20
)

var (
	// ErrInvalidArguments is wrapped by every error about arguments that
	// are wrong for the operation.
	ErrInvalidArguments = errors.New("invalid git_operations arguments")
	// ErrRefused is wrapped by every refusal of an argument that could make
	// git run a program, reach a remote or leave the workspace.
	ErrRefused = errors.New("refused")
	// ErrNotRepository is returned when the workspace is not the top level
	// of a git repository.
	ErrNotRepository = errors.New("the workspace is not the top level of a git repository")
	// ErrNoGit is returned when no git binary can be found.
	ErrNoGit = errors.New("git is not installed")
)

// Options configures [Operations]. The zero value of each field is its
// documented default.
type Options struct {
	// Timeout bounds each git command; zero means [DefaultTimeout].
	Timeout time.Duration
	// MaxOutputBytes caps git's standard output; zero means
	// [DefaultMaxOutputBytes]. Output over the cap is dropped and the
	// result says so.
	MaxOutputBytes int
	// Binary is the git program; "" means "git" found in PATH when a call
	// is assessed or run.
	Binary string
	// PATH is where git is looked up and the PATH git runs with; "" means
	// talon's own PATH.
	PATH string
	// Logger receives one debug line per command; the zero value logs
	// nothing.
	Logger zerolog.Logger
}

// Operations is the git_operations tool. It is immutable and safe for
// concurrent use.
type Operations struct {
	root *workspace.Root
	opts Options
}

var (
	_ tool.Tool     = (*Operations)(nil)
	_ tool.Assessor = (*Operations)(nil)
)

// New returns the tool for the repository whose top level is root. It
// does not look for git or the repository: a missing one is a failed
// result of the call, so the catalog never depends on it.
func New(root *workspace.Root, opts Options) *Operations {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.MaxOutputBytes <= 0 {
		opts.MaxOutputBytes = DefaultMaxOutputBytes
	}
	if opts.PATH == "" {
		opts.PATH = os.Getenv("PATH")
	}
	if opts.PATH == "" {
		opts.PATH = "/usr/local/bin:/usr/bin:/bin"
	}
	return &Operations{root: root, opts: opts}
}

// Spec describes git_operations. Its description comes from the message
// catalog (tool-git-operations); the floor tier is low because reading
// operations are low and every call is assessed.
func (t *Operations) Spec() tool.Spec {
	return tool.Spec{
		Name:        Name,
		Input:       inputSchema,
		Output:      outputSchema,
		Tier:        tool.Low,
		Attribution: tool.Attribution{Kind: tool.KindBuiltin, Alias: Name},
	}
}

var outputSchema = json.RawMessage(`{"type":"object","properties":{` +
	`"operation":{"type":"string"},"argv":{"type":"array","items":{"type":"string"}},` +
	`"exit_code":{"type":"integer"},"stdout":{"type":"string"},"stderr":{"type":"string"},` +
	`"timed_out":{"type":"boolean"},"truncated":{"type":"boolean"}}}`)

// Data is the result's Output.Data.
type Data struct {
	// Operation is the operation run, "stash pop" for a stash action.
	Operation string `json:"operation"`
	// Argv is the git command that ran.
	Argv      []string `json:"argv"`
	ExitCode  int      `json:"exit_code"`
	Stdout    string   `json:"stdout"`
	Stderr    string   `json:"stderr"`
	TimedOut  bool     `json:"timed_out"`
	Truncated bool     `json:"truncated"`
}

// Assess reports the call's tier, the paths it names (the workspace when it
// names none), and its plan: the config probe and the operation, each with
// its exact argument vector. Arguments that could make git run a program,
// reach a remote or leave the workspace deny the call.
//
// # Errors
//
// Arguments that are wrong for the operation, and a missing git binary.
func (t *Operations) Assess(raw json.RawMessage) (tool.Assessment, error) {
	r, err := decode(raw)
	if err != nil {
		return tool.Assessment{}, err
	}
	c, err := check(t.root, r)
	if errors.Is(err, ErrRefused) {
		return tool.Assessment{
			Tier:    tool.High,
			Denied:  true,
			Reasons: []string{err.Error()},
			Paths:   []string{t.root.Dir()},
		}, nil
	}
	if err != nil {
		return tool.Assessment{}, err
	}
	plan, err := t.plan(c)
	if err != nil {
		return tool.Assessment{}, err
	}
	as := tool.Assessment{Tier: c.tier(), Plan: plan, Paths: c.abs}
	if len(as.Paths) == 0 {
		as.Paths = []string{t.root.Dir()}
	}
	if c.readOnly() {
		as.Reasons = []string{"git " + c.name() + " only reads the repository"}
	} else {
		as.Reasons = []string{"git " + c.name() + " changes the repository or the working tree"}
	}
	return as, nil
}

// Execute runs the operation. When the context carries an approved plan,
// anything that differs from it is refused and nothing runs.
func (t *Operations) Execute(ctx context.Context, raw json.RawMessage) (tool.Result, error) {
	if err := ctx.Err(); err != nil {
		return tool.Result{}, err
	}
	r, err := decode(raw)
	if err != nil {
		return tool.Failure("%v", err), nil
	}
	c, err := check(t.root, r)
	if err != nil {
		if errors.Is(err, ErrRefused) {
			return tool.Failure("%v; nothing ran", err), nil
		}
		return tool.Failure("%v", err), nil
	}
	if err := t.checkRepository(); err != nil {
		return tool.Failure("%v", err), nil
	}
	plan, err := t.plan(c)
	if err != nil {
		return tool.Failure("%v", err), nil
	}
	if approved := tool.ApprovedPlan(ctx); approved != nil {
		if diff := tool.PlanDiff(approved, plan, quoteArgv); diff != "" {
			return tool.Failure("the git command no longer matches the approved plan (%s), so nothing ran: ask for approval again", diff), nil
		}
	}
	probe, op := plan.Commands[0], plan.Commands[1]

	cfg, res, err := t.readConfig(ctx, probe)
	if res != nil || err != nil {
		return derefResult(res), err
	}
	if refusal := cfg.refusal(c); refusal != "" {
		return tool.Failure("%s; nothing ran", refusal), nil
	}
	if c.op == OpCommit && (cfg.userName == "" || cfg.userEmail == "") {
		return tool.Failure("commit needs an author: the repository config has no %s (talon ignores the global and system git config): "+
			"set user.name and user.email in the repository, for example with the shell tool: git config user.name \"Your Name\"; git config user.email you@example.com; nothing ran",
			missingIdentity(cfg)), nil
	}

	start := time.Now()
	out := t.run(ctx, op)
	t.opts.Logger.Debug().Str("operation", c.name()).Int("exit_code", out.ExitCode).
		Bool("timed_out", out.TimedOut).Dur("duration", time.Since(start)).Msg("git command finished")
	return t.result(c, op.Argv, out), runErr(ctx, out)
}

func derefResult(r *tool.Result) tool.Result {
	if r == nil {
		return tool.Result{}
	}
	return *r
}

// checkRepository requires .git directly in the workspace, so git never
// discovers a repository above it whose working tree reaches outside.
func (t *Operations) checkRepository() error {
	_, err := os.Lstat(filepath.Join(t.root.Dir(), ".git"))
	if err == nil {
		return nil
	}
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w (%s has no .git): git_operations works only on a repository whose top level is the workspace; create one with git init, or set the workspace to the repository's top level", ErrNotRepository, t.root.Dir())
	}
	return fmt.Errorf("check the repository in %s: %w", t.root.Dir(), err)
}

// result turns what git did into the model's result.
func (t *Operations) result(c call, argv []string, out outcome) tool.Result {
	var b strings.Builder
	b.WriteString(out.Stdout)
	line := func(s string) {
		if b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") {
			b.WriteByte('\n')
		}
		b.WriteString(s)
	}
	if out.Stderr != "" {
		line("[stderr]\n")
		b.WriteString(out.Stderr)
	}
	if out.Overflowed {
		line(fmt.Sprintf("[output truncated at %d bytes: narrow it with paths, ref or max_count]\n", t.opts.MaxOutputBytes))
	}
	data := Data{
		Operation: c.name(), Argv: argv, ExitCode: out.ExitCode,
		Stdout: out.Stdout, Stderr: out.Stderr, TimedOut: out.TimedOut, Truncated: out.Overflowed,
	}
	switch {
	case out.Canceled:
		line("[canceled: git was stopped]")
		return tool.Result{Error: b.String(), Output: tool.Output{Text: b.String(), Data: data}}
	case out.TimedOut:
		line(fmt.Sprintf("[timed out after %s: git was stopped; narrow the operation with paths or max_count]", t.opts.Timeout))
		return tool.Result{Error: b.String(), Output: tool.Output{Text: b.String(), Data: data}}
	case out.Err != nil:
		return tool.Result{Error: fmt.Sprintf("git %s could not run: %v", c.name(), out.Err), Output: tool.Output{Data: data}}
	case out.ExitCode != 0:
		line(fmt.Sprintf("[exit status %d] git %s failed: %s", out.ExitCode, c.name(), hint(c)))
		return tool.Result{Error: b.String(), Output: tool.Output{Text: b.String(), Data: data}}
	}
	if strings.TrimSpace(b.String()) == "" {
		b.WriteString("done: " + summary(c))
	}
	return tool.Result{Success: true, Output: tool.Output{Text: b.String(), Data: data}}
}

// hint says what to try after a failed operation.
func hint(c call) string {
	switch c.op {
	case OpCommit:
		return "read git's message above; if nothing is staged, stage changes with the add operation first"
	case OpCheckout, OpSwitch:
		return "read git's message above; commit or stash local changes first, and check names with the branch operation"
	case OpStash:
		return "read git's message above; list the stashes with stash_action list"
	case OpAdd, OpRestore:
		return "read git's message above; check the paths with the status operation"
	}
	return "read git's message above and check the ref and paths"
}

// missingIdentity names the identity settings that are missing.
func missingIdentity(cfg repoConfig) string {
	switch {
	case cfg.userName == "" && cfg.userEmail == "":
		return "user.name and user.email"
	case cfg.userName == "":
		return "user.name"
	}
	return "user.email"
}
