package process

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/talonhq/talon/adapters/shell"
	"github.com/talonhq/talon/risk/shellparse"
	"github.com/talonhq/talon/tool"
)

// Name is the tool's model-visible name.
const Name = "process"

// Limits of the arguments.
const (
	// MaxWaitSeconds bounds how long poll waits.
	MaxWaitSeconds = 30
	// DefaultWaitSeconds is poll's wait when wait_seconds is absent.
	DefaultWaitSeconds = 5
	// DefaultLogLimit is how many bytes log and poll return per stream.
	DefaultLogLimit = 64 << 10
	// MaxLogLimit is the most bytes one log call returns.
	MaxLogLimit = 1 << 20
	// MaxInputBytes is the most one write sends.
	MaxInputBytes = 64 << 10
)

// ErrInvalidArguments reports arguments that do not describe a call.
var ErrInvalidArguments = errors.New("invalid process arguments")

// safeEnv are the variables every child gets from talon's environment, as
// for the shell tool.
var safeEnv = []string{"PATH", "HOME", "LANG", "LC_ALL", "TERM", "TMPDIR", "USER"}

// Options configure the tool. The zero value is the documented default
// of each field.
type Options struct {
	// Workspace is where commands run; "" means the working directory.
	Workspace string
	// AllowedCommands is the profile's allowed_commands; nil means the
	// default list.
	AllowedCommands []string
	// ShellEnvPassthrough names variables children get besides the safe
	// set.
	ShellEnvPassthrough []string
	// PATH resolves commands and is the children's PATH; "" means talon's.
	PATH string
	// Home is what ~ expands to; "" means the user's home directory.
	Home string
	// Manager holds the processes; nil means a new one.
	Manager *Manager
	// Logger receives a line per start and kill.
	Logger zerolog.Logger
}

// Tool is the process tool. It is immutable and safe for concurrent use;
// its processes live in its [Manager].
type Tool struct {
	opts     Options
	shell    *shell.Shell
	analyzer *shellparse.Analyzer
	envNames []string
	mgr      *Manager
}

var (
	_ tool.Tool     = (*Tool)(nil)
	_ tool.Assessor = (*Tool)(nil)
	_ tool.Profiled = (*Tool)(nil)
)

// New builds the tool.
//
// # Errors
//
// The errors of [shell.New]: an invalid allowed_commands pattern or a
// forbidden passthrough name.
func New(opts Options) (*Tool, error) {
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
	sh, err := shell.New(shell.Options{Workspace: opts.Workspace, AllowedCommands: opts.AllowedCommands,
		ShellEnvPassthrough: opts.ShellEnvPassthrough, PATH: opts.PATH, Home: opts.Home})
	if err != nil {
		return nil, fmt.Errorf("process: %w", err)
	}
	a, err := shellparse.New(shellparse.Options{AllowedCommands: opts.AllowedCommands, PATH: opts.PATH, Dir: opts.Workspace, Home: opts.Home})
	if err != nil {
		return nil, fmt.Errorf("process: %w", err)
	}
	opts.Workspace = a.Dir()
	names := slices.Clone(safeEnv)
	for _, n := range opts.ShellEnvPassthrough {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	if opts.Manager == nil {
		opts.Manager = NewManager(ManagerOptions{})
	}
	return &Tool{opts: opts, shell: sh, analyzer: a, envNames: names, mgr: opts.Manager}, nil
}

// ForProfile returns the tool with the profile's allowed_commands and
// shell_env_passthrough, sharing the same processes.
func (t *Tool) ForProfile(p tool.ProfileSettings) (tool.Tool, error) {
	opts := t.opts
	opts.AllowedCommands = p.AllowedCommands
	opts.ShellEnvPassthrough = p.ShellEnvPassthrough
	return New(opts)
}

// Manager returns the tool's process table.
func (t *Tool) Manager() *Manager { return t.mgr }

var schema = json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{`+
	`"action":{"type":"string","enum":["start","list","poll","log","write","kill"]},`+
	`"command":{"type":"string","minLength":1,"maxLength":%d},`+
	`"id":{"type":"string","maxLength":32},`+
	`"wait_seconds":{"type":"integer","minimum":0,"maximum":%d},`+
	`"stream":{"type":"string","enum":["stdout","stderr"]},`+
	`"offset":{"type":"integer","minimum":0},`+
	`"limit":{"type":"integer","minimum":1,"maximum":%d},`+
	`"input":{"type":"string","maxLength":%d},`+
	`"eof":{"type":"boolean"}},`+
	`"required":["action"],"additionalProperties":false}`, shell.MaxCommandBytes, MaxWaitSeconds, MaxLogLimit, MaxInputBytes))

// Spec describes the tool; its description comes from the message catalog.
func (t *Tool) Spec() tool.Spec {
	return tool.Spec{
		Name:        Name,
		Input:       schema,
		Tier:        tool.Low, // the floor: start is assessed like the shell
		Attribution: tool.Attribution{Kind: tool.KindBuiltin, Alias: Name},
	}
}

type args struct {
	Action  string `json:"action"`
	Command string `json:"command"`
	ID      string `json:"id"`
	Wait    *int   `json:"wait_seconds"`
	Stream  string `json:"stream"`
	Offset  *int64 `json:"offset"`
	Limit   int    `json:"limit"`
	Input   string `json:"input"`
	EOF     bool   `json:"eof"`
}

func decode(raw json.RawMessage) (args, error) {
	var a args
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		raw = []byte("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		return args{}, fmt.Errorf(`%w: %v: pass an object like {"action": "start", "command": "make test"}`, ErrInvalidArguments, err)
	}
	if dec.More() {
		return args{}, fmt.Errorf("%w: trailing data after the object", ErrInvalidArguments)
	}
	switch a.Action {
	case "start":
		if strings.TrimSpace(a.Command) == "" {
			return args{}, fmt.Errorf(`%w: start needs command, the line to run`, ErrInvalidArguments)
		}
		if len(a.Command) > shell.MaxCommandBytes {
			return args{}, fmt.Errorf("%w: command is longer than %d bytes", ErrInvalidArguments, shell.MaxCommandBytes)
		}
	case "poll", "log", "write", "kill":
		if a.ID == "" {
			return args{}, fmt.Errorf("%w: %s needs id, as returned by start", ErrInvalidArguments, a.Action)
		}
	case "list":
	default:
		return args{}, fmt.Errorf("%w: action %q: use start, list, poll, log, write or kill", ErrInvalidArguments, a.Action)
	}
	if a.Wait != nil && (*a.Wait < 0 || *a.Wait > MaxWaitSeconds) {
		return args{}, fmt.Errorf("%w: wait_seconds must be from 0 to %d", ErrInvalidArguments, MaxWaitSeconds)
	}
	if a.Limit < 0 || a.Limit > MaxLogLimit || a.Offset != nil && *a.Offset < 0 {
		return args{}, fmt.Errorf("%w: offset must be 0 or more and limit from 1 to %d", ErrInvalidArguments, MaxLogLimit)
	}
	if len(a.Input) > MaxInputBytes {
		return args{}, fmt.Errorf("%w: input is longer than %d bytes; write it in parts", ErrInvalidArguments, MaxInputBytes)
	}
	return a, nil
}

func shellArgs(command string) json.RawMessage {
	b, _ := json.Marshal(map[string]string{"command": command})
	return b
}

// Assess gives start the shell tool's assessment of its command (tier,
// reasons, plan, allowlist verdict); list, poll and log are low, write
// and kill medium.
func (t *Tool) Assess(raw json.RawMessage) (tool.Assessment, error) {
	a, err := decode(raw)
	if err != nil {
		return tool.Assessment{}, err
	}
	switch a.Action {
	case "start":
		return t.shell.Assess(shellArgs(a.Command))
	case "write", "kill":
		return tool.Assessment{Tier: tool.Medium, Reasons: []string{a.Action + " changes a running process"}}, nil
	}
	return tool.Assessment{Tier: tool.Low, Reasons: []string{a.Action + " only reads"}}, nil
}

// Execute runs one action in the caller's session.
func (t *Tool) Execute(ctx context.Context, raw json.RawMessage) (tool.Result, error) {
	if err := ctx.Err(); err != nil {
		return tool.Result{}, err
	}
	a, err := decode(raw)
	if err != nil {
		return tool.Failure("%v", err), nil
	}
	c, _ := tool.CallFrom(ctx)
	session := c.SessionID
	switch a.Action {
	case "start":
		return t.start(ctx, session, a)
	case "list":
		return t.list(session), nil
	}
	p, err := t.mgr.get(session, a.ID)
	if err != nil {
		return tool.Failure("%v", err), nil
	}
	switch a.Action {
	case "poll":
		return t.poll(ctx, p, a)
	case "log":
		return t.log(p, a), nil
	case "write":
		return t.write(p, a), nil
	default:
		running := p.kill()
		select {
		case <-p.done:
		case <-ctx.Done():
			return tool.Result{}, ctx.Err()
		}
		_, code, _, _ := p.state()
		t.opts.Logger.Info().Str("process", p.id).Bool("was_running", running).Msg("background process killed")
		if !running {
			return tool.Text(fmt.Sprintf("%s had already exited with status %d", p.id, code)), nil
		}
		return tool.Text(fmt.Sprintf("killed %s (every process group of it); status %d", p.id, code)), nil
	}
}

func (t *Tool) start(ctx context.Context, session string, a args) (tool.Result, error) {
	as, err := t.shell.Assess(shellArgs(a.Command))
	if err != nil {
		return tool.Failure("%v", err), nil
	}
	an := t.analyzer.Analyze(a.Command)
	if as.Denied || !an.Analysable || !an.Allowed || as.Plan == nil {
		return tool.Failure("the command is not allowed or cannot be analysed, so nothing started: %s", strings.Join(as.Reasons, "; ")), nil
	}
	mine := t.plan(an.Program)
	if d := tool.PlanDiff(as.Plan, mine, quoteEach); d != "" {
		return tool.Failure("the command's plan could not be reproduced (%s), so nothing started", d), nil
	}
	if approved := tool.ApprovedPlan(ctx); approved != nil {
		if d := tool.PlanDiff(approved, mine, quoteEach); d != "" {
			return tool.Failure("the command no longer matches the approved plan (%s), so nothing started: ask for approval again", d), nil
		}
	}
	p, err := t.mgr.start(session, mine.Summary, runner{dir: t.opts.Workspace, env: t.childEnv}, an.Program)
	if err != nil {
		return tool.Failure("%v", err), nil
	}
	t.opts.Logger.Info().Str("process", p.id).Int("commands", len(mine.Commands)).Msg("background process started")
	text := fmt.Sprintf("started %s: %s\npoll it with {\"action\":\"poll\",\"id\":%q}", p.id, p.line, p.id)
	return tool.Result{Success: true, Output: tool.Output{Text: text, Data: info(p)}}, nil
}

// plan is the program's plan with each command's environment names, as
// the shell tool computes it.
func (t *Tool) plan(prog *shellparse.Program) *tool.Plan {
	return prog.PlanWith(t.opts.Workspace, t.env())
}

// childEnv is one command's environment.
func (t *Tool) childEnv(c shellparse.Command) []string { return t.env().For(c) }

// env is the environment rule of this tool's children, the shell's rule.
func (t *Tool) env() shellparse.ChildEnv {
	return shellparse.ChildEnv{Names: t.envNames, PATH: t.opts.PATH}
}

// Info describes one background process in results.
type Info struct {
	ID          string    `json:"id"`
	Command     string    `json:"command"`
	Started     time.Time `json:"started"`
	Running     bool      `json:"running"`
	ExitCode    *int      `json:"exit_code,omitempty"`
	Killed      bool      `json:"killed,omitempty"`
	StdoutBytes int64     `json:"stdout_bytes"`
	StderrBytes int64     `json:"stderr_bytes"`
}

func info(p *proc) Info {
	fin, code, _, killed := p.state()
	i := Info{ID: p.id, Command: p.line, Started: p.started.UTC(), Running: !fin, Killed: killed,
		StdoutBytes: p.stdout.Total(), StderrBytes: p.stderr.Total()}
	if fin {
		i.ExitCode = &code
	}
	return i
}

func (i Info) status() string {
	switch {
	case i.Running:
		return "running"
	case i.Killed:
		return fmt.Sprintf("killed (status %d)", *i.ExitCode)
	default:
		return fmt.Sprintf("exited with status %d", *i.ExitCode)
	}
}

func (t *Tool) list(session string) tool.Result {
	procs := t.mgr.list(session)
	if len(procs) == 0 {
		return tool.Text("no background processes in this session")
	}
	var b strings.Builder
	infos := make([]Info, len(procs))
	for i, p := range procs {
		infos[i] = info(p)
		fmt.Fprintf(&b, "%s %s, started %s, %d bytes out, %d bytes err: %s\n", p.id, infos[i].status(),
			infos[i].Started.Format(time.RFC3339), infos[i].StdoutBytes, infos[i].StderrBytes, p.line)
	}
	return tool.Result{Success: true, Output: tool.Output{Text: b.String(), Data: infos}}
}

// PollData is poll's Output.Data.
type PollData struct {
	Info
	Stdout string `json:"stdout"`
	Stderr string `json:"stderr"`
}

// poll waits up to wait_seconds for the process to exit or write, then
// returns what it wrote since the previous poll.
func (t *Tool) poll(ctx context.Context, p *proc, a args) (tool.Result, error) {
	wait := DefaultWaitSeconds
	if a.Wait != nil {
		wait = *a.Wait
	}
	timer := time.NewTimer(time.Duration(wait) * time.Second)
	defer timer.Stop()
	for {
		changed := p.changes()
		p.mu.Lock()
		curOut, curErr := p.pollOut, p.pollErr
		p.mu.Unlock()
		fin, _, _, _ := p.state()
		if fin || p.stdout.Total() > curOut || p.stderr.Total() > curErr || wait == 0 {
			break
		}
		select {
		case <-changed:
		case <-p.done:
		case <-timer.C:
			wait = 0
		case <-ctx.Done():
			return tool.Result{}, ctx.Err()
		}
	}
	limit := a.Limit
	if limit == 0 {
		limit = DefaultLogLimit
	}
	p.mu.Lock()
	out, nextOut, dropOut := p.stdout.Read(p.pollOut, limit)
	errb, nextErr, dropErr := p.stderr.Read(p.pollErr, limit)
	p.pollOut, p.pollErr = nextOut, nextErr
	p.mu.Unlock()
	d := PollData{Info: info(p), Stdout: string(out), Stderr: string(errb)}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s\n", p.id, d.status())
	section(&b, "stdout", out, dropOut)
	section(&b, "stderr", errb, dropErr)
	if nextOut < p.stdout.Total() || nextErr < p.stderr.Total() {
		b.WriteString("[more output waiting: poll again]\n")
	}
	return tool.Result{Success: true, Output: tool.Output{Text: b.String(), Data: d}}, nil
}

func section(b *strings.Builder, name string, data []byte, dropped int64) {
	if len(data) == 0 && dropped == 0 {
		return
	}
	fmt.Fprintf(b, "[%s]\n", name)
	if dropped > 0 {
		b.WriteString(dropMarker(dropped))
	}
	b.Write(data)
	if len(data) > 0 && data[len(data)-1] != '\n' {
		b.WriteByte('\n')
	}
}

// LogData is log's Output.Data.
type LogData struct {
	ID     string `json:"id"`
	Stream string `json:"stream"`
	Offset int64  `json:"offset"`
	Next   int64  `json:"next"`
	Total  int64  `json:"total"`
	// Dropped counts bytes from the requested offset that are no longer
	// kept.
	Dropped int64  `json:"dropped"`
	Text    string `json:"text"`
}

// log returns a window of one stream: from offset, or the newest limit
// bytes when offset is absent.
func (t *Tool) log(p *proc, a args) tool.Result {
	r, stream := p.stdout, "stdout"
	if a.Stream == "stderr" {
		r, stream = p.stderr, "stderr"
	}
	limit := a.Limit
	if limit == 0 {
		limit = DefaultLogLimit
	}
	total := r.Total()
	off := max(total-int64(limit), 0)
	if a.Offset != nil {
		off = *a.Offset
	}
	data, next, dropped := r.Read(off, limit)
	d := LogData{ID: p.id, Stream: stream, Offset: next - int64(len(data)), Next: next, Total: total, Dropped: dropped, Text: string(data)}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s bytes %d-%d of %d\n", p.id, stream, d.Offset, next, total)
	if dropped > 0 {
		b.WriteString(dropMarker(dropped))
	}
	b.Write(data)
	return tool.Result{Success: true, Output: tool.Output{Text: b.String(), Data: d}}
}

func (t *Tool) write(p *proc, a args) tool.Result {
	p.inMu.Lock()
	defer p.inMu.Unlock()
	if p.stdinW == nil {
		return tool.Failure("%s: %v", p.id, ErrStdinClosed)
	}
	if a.Input != "" {
		// A pipe write blocks only when the child stops reading with a
		// full pipe; bound that wait.
		_ = p.stdinW.SetWriteDeadline(time.Now().Add(5 * time.Second))
		if _, err := p.stdinW.WriteString(a.Input); err != nil {
			return tool.Failure("%s: write to standard input: %v", p.id, err)
		}
	}
	text := fmt.Sprintf("wrote %d bytes to %s", len(a.Input), p.id)
	if a.EOF {
		_ = p.stdinW.Close()
		p.stdinW = nil
		text += " and closed its standard input"
	}
	return tool.Text(text)
}

// quoteEach renders an argument vector with every word in Go quotes, as the
// shell tool does.
func quoteEach(argv []string) string { return fmt.Sprintf("%q", argv) }
