package process

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/talonhq/talon/adapters/shell"
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
	DefaultLogLimit = shell.DefaultLogLimit
	// MaxLogLimit is the most bytes one log call returns.
	MaxLogLimit = 1 << 20
	// MaxInputBytes is the most one write or paste sends.
	MaxInputBytes = 64 << 10
	// MaxKeys is the most keys one send_keys types.
	MaxKeys = 256
)

// ErrInvalidArguments reports arguments that do not describe a call.
var ErrInvalidArguments = errors.New("invalid process arguments")

// Options configure the tool. The zero value is the documented default
// of each field.
type Options struct {
	// Shell configures the shell that judges and starts lines (start is
	// the shell with background); its Jobs are the processes this tool
	// shows. The zero value is the shell's defaults with a manager of
	// its own.
	Shell shell.Options
	// Logger receives a line per kill.
	Logger zerolog.Logger
}

// Tool is the process tool. It is immutable and safe for concurrent use;
// its processes live in its shell's [shell.Manager].
type Tool struct {
	opts  Options
	shell *shell.Shell
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
// The errors of [shell.New].
func New(opts Options) (*Tool, error) {
	sh, err := shell.New(opts.Shell)
	if err != nil {
		return nil, fmt.Errorf("process: %w", err)
	}
	return &Tool{opts: opts, shell: sh}, nil
}

// ForProfile returns the tool with the profile's shell, sharing the same
// processes.
func (t *Tool) ForProfile(p tool.ProfileSettings) (tool.Tool, error) {
	sh, err := t.shell.ForProfile(p)
	if err != nil {
		return nil, fmt.Errorf("process: %w", err)
	}
	return &Tool{opts: t.opts, shell: sh.(*shell.Shell)}, nil
}

// Manager returns the tool's process table.
func (t *Tool) Manager() *shell.Manager { return t.shell.Jobs() }

var schema = json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{`+
	`"action":{"type":"string","enum":["start","list","poll","log","write","send_keys","paste","kill"]},`+
	`"command":{"type":"string","minLength":1,"maxLength":%d},`+
	`"workdir":{"type":"string","maxLength":4096},`+
	`"env":{"type":"object","maxProperties":%d,"additionalProperties":{"type":"string"}},`+
	`"timeout_seconds":{"type":"integer","minimum":0,"maximum":%d},`+
	`"pty":{"type":"boolean"},`+
	`"id":{"type":"string","maxLength":32},`+
	`"wait_seconds":{"type":"integer","minimum":0,"maximum":%d},`+
	`"stream":{"type":"string","enum":["stdout","stderr"]},`+
	`"offset":{"type":"integer","minimum":0},`+
	`"limit":{"type":"integer","minimum":1,"maximum":%d},`+
	`"input":{"type":"string","maxLength":%d},`+
	`"eof":{"type":"boolean"},`+
	`"keys":{"type":"array","minItems":1,"maxItems":%d,"items":{"type":"string","minLength":1,"maxLength":16}},`+
	`"text":{"type":"string","maxLength":%d},`+
	`"bracketed":{"type":"boolean"}},`+
	`"required":["action"],"additionalProperties":false}`,
	shell.MaxCommandBytes, shell.MaxEnv, shell.MaxTimeoutSeconds, MaxWaitSeconds, MaxLogLimit, MaxInputBytes, MaxKeys, MaxInputBytes))

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
	Action    string          `json:"action"`
	Command   string          `json:"command"`
	Workdir   *string         `json:"workdir"`
	Env       json.RawMessage `json:"env"`
	Timeout   *int            `json:"timeout_seconds"`
	PTY       *bool           `json:"pty"`
	ID        string          `json:"id"`
	Wait      *int            `json:"wait_seconds"`
	Stream    string          `json:"stream"`
	Offset    *int64          `json:"offset"`
	Limit     int             `json:"limit"`
	Input     string          `json:"input"`
	EOF       bool            `json:"eof"`
	Keys      []string        `json:"keys"`
	Text      string          `json:"text"`
	Bracketed *bool           `json:"bracketed"`
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
	case "poll", "log", "write", "send_keys", "paste", "kill":
		if a.ID == "" {
			return args{}, fmt.Errorf("%w: %s needs id, as returned by start or by the shell's background and yield_ms", ErrInvalidArguments, a.Action)
		}
	case "list":
	default:
		return args{}, fmt.Errorf("%w: action %q: use start, list, poll, log, write, send_keys, paste or kill", ErrInvalidArguments, a.Action)
	}
	if a.Action != "start" && (a.Workdir != nil || a.Env != nil || a.Timeout != nil || a.PTY != nil) {
		return args{}, fmt.Errorf("%w: workdir, env, timeout_seconds and pty belong to start", ErrInvalidArguments)
	}
	if a.Action == "send_keys" && (len(a.Keys) == 0 || len(a.Keys) > MaxKeys) {
		return args{}, fmt.Errorf(`%w: send_keys needs keys, 1 to %d names like ["Up", "Enter"] or ["C-c"]`, ErrInvalidArguments, MaxKeys)
	}
	if a.Wait != nil && (*a.Wait < 0 || *a.Wait > MaxWaitSeconds) {
		return args{}, fmt.Errorf("%w: wait_seconds must be from 0 to %d", ErrInvalidArguments, MaxWaitSeconds)
	}
	if a.Limit < 0 || a.Limit > MaxLogLimit || a.Offset != nil && *a.Offset < 0 {
		return args{}, fmt.Errorf("%w: offset must be 0 or more and limit from 1 to %d", ErrInvalidArguments, MaxLogLimit)
	}
	if len(a.Input) > MaxInputBytes || len(a.Text) > MaxInputBytes {
		return args{}, fmt.Errorf("%w: input and text are limited to %d bytes; send them in parts", ErrInvalidArguments, MaxInputBytes)
	}
	return a, nil
}

// shellArgs are start's arguments as the shell's, in the background.
func shellArgs(a args) json.RawMessage {
	m := map[string]any{"command": a.Command, "background": true}
	if a.Workdir != nil {
		m["workdir"] = *a.Workdir
	}
	if a.Env != nil {
		m["env"] = a.Env
	}
	if a.Timeout != nil {
		m["timeout_seconds"] = *a.Timeout
	}
	if a.PTY != nil {
		m["pty"] = *a.PTY
	}
	b, _ := json.Marshal(m)
	return b
}

// Assess gives start the shell tool's assessment of its line (tier,
// reasons, plan, allowlist verdict, rule); list, poll and log are low;
// write, send_keys, paste and kill medium.
func (t *Tool) Assess(raw json.RawMessage) (tool.Assessment, error) {
	a, err := decode(raw)
	if err != nil {
		return tool.Assessment{}, err
	}
	switch a.Action {
	case "start":
		return t.shell.Assess(shellArgs(a))
	case "write", "send_keys", "paste", "kill":
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
		res, err := t.shell.Execute(ctx, shellArgs(a))
		if !res.Success && err == nil && !strings.Contains(res.Error, "nothing") {
			res.Error += "; nothing started"
		}
		return res, err
	case "list":
		return t.list(session), nil
	}
	j, err := t.Manager().Get(session, a.ID)
	if err != nil {
		return tool.Failure("%v", err), nil
	}
	switch a.Action {
	case "poll":
		wait := DefaultWaitSeconds
		if a.Wait != nil {
			wait = *a.Wait
		}
		return j.Poll(ctx, time.Duration(wait)*time.Second, a.Limit)
	case "log":
		return j.Log(a.Stream, a.Offset, a.Limit), nil
	case "write":
		if err := j.Write(a.Input, a.EOF); err != nil {
			return tool.Failure("%v", err), nil
		}
		text := fmt.Sprintf("wrote %d bytes to %s", len(a.Input), j.ID())
		if a.EOF {
			text += " and closed its standard input"
			if j.PTY() {
				text = fmt.Sprintf("wrote %d bytes and end of file (C-d) to %s", len(a.Input), j.ID())
			}
		}
		return tool.Text(text), nil
	case "send_keys":
		if err := j.SendKeys(a.Keys); err != nil {
			return tool.Failure("%v", err), nil
		}
		return tool.Text(fmt.Sprintf("sent %s to %s", strings.Join(a.Keys, " "), j.ID())), nil
	case "paste":
		if err := j.Paste(a.Text, a.Bracketed == nil || *a.Bracketed); err != nil {
			return tool.Failure("%v", err), nil
		}
		return tool.Text(fmt.Sprintf("pasted %d bytes into %s", len(a.Text), j.ID())), nil
	default:
		running := j.Kill()
		select {
		case <-j.Done():
		case <-ctx.Done():
			return tool.Result{}, ctx.Err()
		}
		code := j.State().ExitCode
		t.opts.Logger.Info().Str("process", j.ID()).Bool("was_running", running).Msg("background process killed")
		if !running {
			return tool.Text(fmt.Sprintf("%s had already exited with status %d", j.ID(), code)), nil
		}
		return tool.Text(fmt.Sprintf("killed %s (every process group of it); status %d", j.ID(), code)), nil
	}
}

func (t *Tool) list(session string) tool.Result {
	jobs := t.Manager().List(session)
	if len(jobs) == 0 {
		return tool.Text("no background processes in this session")
	}
	var b strings.Builder
	infos := make([]shell.Info, len(jobs))
	for i, j := range jobs {
		infos[i] = j.Info()
		in := ""
		if infos[i].Workdir != "" {
			in = " in " + infos[i].Workdir
		}
		fmt.Fprintf(&b, "%s %s, started %s, %d bytes out, %d bytes err%s: %s\n", j.ID(), infos[i].Status(),
			infos[i].Started.Format(time.RFC3339), infos[i].StdoutBytes, infos[i].StderrBytes, in, j.Line())
	}
	return tool.Result{Success: true, Output: tool.Output{Text: b.String(), Data: infos}}
}
