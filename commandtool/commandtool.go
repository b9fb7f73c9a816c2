package commandtool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/rs/zerolog"

	"github.com/talonhq/talon/sandbox"
	"github.com/talonhq/talon/tool"
)

// Prefix starts the model-visible name of every command tool.
const Prefix = "tool__"

// DefaultMaxOutput caps stdout and stderr, each, when
// Options.MaxOutputBytes is zero: 16 MiB. Over the cap the process group
// is killed and the call fails.
const DefaultMaxOutput = sandbox.DefaultMaxOutput

// maxStderrText is how much of stderr's end a result shows.
const maxStderrText = 4 << 10

var (
	// ErrInvalid reports a [tools.commands.<name>] table that cannot
	// become a tool; the problems say which keys to fix.
	ErrInvalid = errors.New("invalid command tool")
	// ErrUnavailable reports a command tool whose program or working
	// directory does not exist on this machine.
	ErrUnavailable = errors.New("command tool unavailable")
)

// Tool is one operator-defined command tool. It is immutable and safe for
// concurrent use.
type Tool struct {
	name      string // as configured
	spec      tool.Spec
	argv      []element
	program   string // command[0] after ${VAR} expansion
	binary    string // resolved at load
	lookPATH  string // the PATH the binary was found with
	dir       string
	env       []string // KEY=VALUE, sorted
	envNames  []string
	timeout   time.Duration
	maxOutput int
	schema    *tool.Schema
	log       zerolog.Logger
}

var (
	_ tool.Tool     = (*Tool)(nil)
	_ tool.Assessor = (*Tool)(nil)
)

// Spec describes the tool: tool__<name>, the configured description,
// parameters as the input schema, the configured tier (high by default)
// and attribution command.<name>.
func (t *Tool) Spec() tool.Spec { return t.spec }

// Binary returns the program's absolute path, resolved when the tool was
// built.
func (t *Tool) Binary() string { return t.binary }

// Assess renders the call and returns its plan: the argv, the resolved
// binary, the working directory and the names of the child's environment.
// Its tier is the configured tier. The operator named the program in the
// config, so the call counts as allowlisted: under the supervised level a
// high-tier command tool asks rather than being blocked.
//
// # Errors
//
// Arguments that fail the schema or cannot be rendered are an error; the
// runtime turns it into a failed result and nothing runs.
func (t *Tool) Assess(raw json.RawMessage) (tool.Assessment, error) {
	argv, err := t.prepare(raw)
	if err != nil {
		return tool.Assessment{}, err
	}
	return tool.Assessment{
		Tier:        t.spec.Tier,
		Reasons:     []string{"operator command tool: runs " + t.binary},
		Plan:        t.plan(argv),
		Allowlisted: true,
	}, nil
}

// prepare validates the arguments against the tool's own schema (even when
// the runtime did already, so unvalidated input is never rendered) and
// renders the argv.
func (t *Tool) prepare(raw json.RawMessage) ([]string, error) {
	norm, err := tool.NormalizeArgs(raw)
	if err != nil {
		return nil, err
	}
	if err := t.schema.Validate(norm); err != nil {
		return nil, fmt.Errorf("%w; fix the arguments and call again", err)
	}
	a, err := decodeArgs(norm)
	if err != nil {
		return nil, err
	}
	argv := make([]string, len(t.argv))
	for i, el := range t.argv {
		if argv[i], err = el.render(a); err != nil {
			return nil, err
		}
	}
	return argv, nil
}

func (t *Tool) plan(argv []string) *tool.Plan {
	return &tool.Plan{
		Summary: quoteArgv(argv),
		Commands: []tool.PlannedCommand{{
			Argv: argv, Binary: t.binary, Dir: t.dir, Env: slices.Clone(t.envNames),
		}},
	}
}

// Execute validates and renders the call, checks that the program still
// resolves to the binary found at load and that the plan matches an
// approved one ([tool.ApprovedPlan]), and runs it without a shell in a
// process group of its own, under the timeout and the output caps.
//
// A schema failure, a template that cannot be rendered, a changed binary
// or plan, a non-zero exit, a timeout and output over the cap are failed
// results; nothing runs in the first four cases. A caller's cancellation
// kills the process group and is returned as the error.
func (t *Tool) Execute(ctx context.Context, raw json.RawMessage) (tool.Result, error) {
	if err := ctx.Err(); err != nil {
		return tool.Result{}, err
	}
	name := t.spec.Name
	argv, err := t.prepare(raw)
	if err != nil {
		return tool.Failure("%s: %v; nothing ran", name, err), nil
	}
	bin, err := lookPath(t.program, t.lookPATH, t.dir)
	switch {
	case err != nil:
		return tool.Failure("%s: %v; nothing ran: check the installation, then reload talon", name, err), nil
	case bin != t.binary:
		return tool.Failure("%s: %s now resolves to %s instead of %s, so nothing ran: reload talon to accept the new binary", name, t.program, bin, t.binary), nil
	}
	plan := t.plan(argv)
	if approved := tool.ApprovedPlan(ctx); approved != nil {
		if diff := tool.PlanDiff(approved, plan, quoteArgv); diff != "" {
			return tool.Failure("%s no longer matches the approved plan (%s), so nothing ran: ask for approval again", name, diff), nil
		}
	}
	out := sandbox.Run(ctx, sandbox.Cmd{
		Argv: argv, Binary: t.binary, Dir: t.dir, Env: t.env, Timeout: t.timeout,
		MaxStdout: t.maxOutput, MaxStderr: t.maxOutput, Overflow: sandbox.Kill,
	})
	t.log.Debug().Str("tool", name).Str("attribution", t.spec.Attribution.String()).
		Int("exit_code", out.ExitCode).Bool("timed_out", out.TimedOut).Bool("overflowed", out.Overflowed).
		Dur("duration", out.Duration).Msg("command tool finished")
	if out.Canceled {
		if err := ctx.Err(); err != nil {
			return tool.Result{}, err
		}
		return tool.Result{}, context.Canceled
	}
	return t.result(out), nil
}

// Data is a result's Output.Data.
type Data struct {
	ExitCode int    `json:"exit_code"`
	Stdout   string `json:"stdout"`
	Stderr   string `json:"stderr"`
	TimedOut bool   `json:"timed_out"`
}

var outputSchema = json.RawMessage(`{"type":"object","properties":{` +
	`"exit_code":{"type":"integer"},"stdout":{"type":"string"},"stderr":{"type":"string"},` +
	`"timed_out":{"type":"boolean"}}}`)

// result turns an outcome into what the model reads.
func (t *Tool) result(out sandbox.Outcome) tool.Result {
	name := t.spec.Name
	data := Data{ExitCode: out.ExitCode, Stdout: out.Stdout, Stderr: out.Stderr, TimedOut: out.TimedOut}
	fail := func(format string, a ...any) tool.Result {
		msg := fmt.Sprintf(format, a...)
		if s := stderrTail(out.Stderr); s != "" {
			msg += "\n[stderr]\n" + s
		}
		return tool.Result{Error: msg, Output: tool.Output{Data: data}}
	}
	switch {
	case out.Overflowed:
		data.Stdout, data.Stderr = "", ""
		return tool.Result{Error: fmt.Sprintf(
			"%s wrote more than %s to %s, so its process group was killed and the output dropped: ask for less output",
			name, byteSize(t.maxOutput), out.OverflowStream), Output: tool.Output{Data: data}}
	case out.TimedOut:
		return fail("%s timed out after %s, so its process group was killed", name, t.timeout)
	case out.Err != nil:
		return fail("%s could not run %s: %v; check the program and the working directory %s", name, t.binary, out.Err, t.dir)
	case out.ExitCode != 0:
		return fail("%s exited with status %d", name, out.ExitCode)
	}
	text := out.Stdout
	if s := stderrTail(out.Stderr); s != "" {
		if text != "" && !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		text += "[stderr]\n" + s
	}
	if strings.TrimSpace(text) == "" {
		text = tool.NoOutput
	}
	return tool.Result{Success: true, Output: tool.Output{Text: text, Data: data}}
}

// stderrTail is the end of stderr, at most maxStderrText bytes, cut at a
// character boundary, with a note of what was left out.
func stderrTail(s string) string {
	s = strings.TrimRight(s, "\n")
	if len(s) <= maxStderrText {
		return s
	}
	cut := len(s) - maxStderrText
	for cut < len(s) && !utf8.RuneStart(s[cut]) {
		cut++
	}
	return fmt.Sprintf("[%d earlier bytes left out]\n%s", cut, s[cut:])
}

func byteSize(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.Itoa(n>>20) + " MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.Itoa(n>>10) + " KiB"
	}
	return strconv.Itoa(n) + " bytes"
}

// quoteArgv renders an argv for people: plain words as they are, others in
// single quotes, and anything with control or invisible characters in Go
// quotes so it cannot disguise itself on a terminal.
func quoteArgv(argv []string) string {
	parts := make([]string, len(argv))
	for i, a := range argv {
		parts[i] = quoteArg(a)
	}
	return strings.Join(parts, " ")
}

func quoteArg(s string) string {
	if s == "" {
		return "''"
	}
	plain := true
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', strings.ContainsRune("_@%+=:,./-", r):
		case !unicode.IsPrint(r) || r == utf8.RuneError:
			return strconv.Quote(s)
		default:
			plain = false
		}
	}
	if plain {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
