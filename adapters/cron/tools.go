package cron

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/talonhq/talon/risk"
	"github.com/talonhq/talon/runtime"
	"github.com/talonhq/talon/tool"
	"github.com/talonhq/talon/toolfactory"
)

// Names of the tools.
const (
	AddName    = "cron_add"
	ListName   = "cron_list"
	RemoveName = "cron_remove"
	RunName    = "cron_run"
	RunsName   = "cron_runs"
)

// Limits of the tools' arguments.
const (
	MaxAllowedTools  = 64
	MaxScheduleBytes = 200
	MaxArgsBytes     = 64 << 10
	DefaultRunsLimit = 20
	MaxRunsLimit     = MaxRunsPerJob
	// maxOutputShown is how much of a manual run's output cron_run shows.
	maxOutputShown = 4 << 10
)

// ErrInvalidArguments reports arguments that do not describe a call.
var ErrInvalidArguments = errors.New("invalid arguments")

// Options configure the cron tools. The zero value is the default.
type Options struct {
	// Store is the database; nil means a store that fails every call.
	Store *Store
	// Caller runs manual runs and checks new jobs: the runtime.
	Caller toolfactory.Caller
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Logger notes unexpected database failures.
	Logger zerolog.Logger
}

// Tool is one of the cron tools. It is immutable and safe for concurrent
// use.
type Tool struct {
	name   string
	tier   tool.Tier
	schema json.RawMessage
	opts   Options
	run    func(t *Tool, ctx context.Context, raw json.RawMessage) (tool.Result, error)
}

var _ tool.Tool = (*Tool)(nil)

// New returns the cron tool called name, or an error for a name that is
// not one of them.
func New(name string, opts Options) (*Tool, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Store == nil {
		opts.Store = NewStore("", StoreOptions{})
	}
	t := &Tool{name: name, opts: opts}
	switch name {
	case AddName:
		t.tier, t.run = tool.Medium, (*Tool).add
		t.schema = json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{`+
			`"name":{"type":"string","pattern":"^[a-zA-Z0-9_-]{1,64}$"},`+
			`"schedule":{"type":"string","minLength":1,"maxLength":%d},`+
			`"tool":{"type":"string","pattern":"^[a-zA-Z0-9_-]{1,64}$"},`+
			`"args":{"type":"object"},`+
			`"allowed_tools":{"type":"array","maxItems":%d,"items":{"type":"string","pattern":"^[a-zA-Z0-9_-]{1,64}$"}},`+
			`"profile":{"type":"string","minLength":1,"maxLength":64}},`+
			`"required":["name","schedule","tool"],"additionalProperties":false}`, MaxScheduleBytes, MaxAllowedTools))
	case ListName:
		t.tier, t.run = tool.Low, (*Tool).list
		t.schema = json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`)
	case RemoveName:
		t.tier, t.run = tool.Medium, (*Tool).remove
		t.schema = nameSchema
	case RunName:
		t.tier, t.run = tool.Medium, (*Tool).runNow
		t.schema = nameSchema
	case RunsName:
		t.tier, t.run = tool.Low, (*Tool).runs
		t.schema = json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{`+
			`"name":{"type":"string","pattern":"^[a-zA-Z0-9_-]{1,64}$"},`+
			`"limit":{"type":"integer","minimum":1,"maximum":%d}},"additionalProperties":false}`, MaxRunsLimit))
	default:
		return nil, fmt.Errorf("cron: no tool named %q", name)
	}
	return t, nil
}

var nameSchema = json.RawMessage(`{"type":"object","properties":{` +
	`"name":{"type":"string","pattern":"^[a-zA-Z0-9_-]{1,64}$"}},"required":["name"],"additionalProperties":false}`)

// Spec describes the tool; its description comes from the message catalog.
func (t *Tool) Spec() tool.Spec {
	return tool.Spec{
		Name:        t.name,
		Input:       t.schema,
		Tier:        t.tier,
		Attribution: tool.Attribution{Kind: tool.KindBuiltin, Alias: t.name},
	}
}

// Execute runs the call.
func (t *Tool) Execute(ctx context.Context, raw json.RawMessage) (tool.Result, error) {
	if err := ctx.Err(); err != nil {
		return tool.Result{}, err
	}
	return t.run(t, ctx, raw)
}

func decode(raw json.RawMessage, v any) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		raw = []byte("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%w: %v", ErrInvalidArguments, err)
	}
	if dec.More() {
		return fmt.Errorf("%w: trailing data after the object", ErrInvalidArguments)
	}
	return nil
}

// caller is who makes the current call.
type caller struct {
	profile, channel, session string
}

func callerOf(ctx context.Context) caller {
	c, _ := tool.CallFrom(ctx)
	p := c.Profile
	if p == "" {
		p = risk.DefaultProfile
	}
	ch := c.Channel
	if ch == "" {
		ch = tool.ChannelAPI
	}
	return caller{profile: p, channel: ch, session: c.SessionID}
}

// sees reports whether the caller may see, run and remove a job: its own
// profile's jobs, or every job from the local CLI.
func (c caller) sees(j Job) bool { return c.channel == tool.ChannelCLI || j.Profile == c.profile }

func (t *Tool) failure(err error) (tool.Result, error) {
	if errors.Is(err, context.Canceled) {
		return tool.Result{}, err
	}
	if !errors.Is(err, ErrNoJob) && !errors.Is(err, ErrJobExists) && !errors.Is(err, ErrTooManyJobs) {
		t.opts.Logger.Warn().Err(err).Str("tool", t.name).Msg("cron database failure")
	}
	return tool.Failure("%s: %v", t.name, err), nil
}

// explainer is the part of the runtime that checks a call without running it.
type explainer interface {
	Explain(ctx context.Context, c tool.Call) (runtime.Explanation, *tool.Result, error)
}

type addArgs struct {
	Name         string          `json:"name"`
	Schedule     string          `json:"schedule"`
	Tool         string          `json:"tool"`
	Args         json.RawMessage `json:"args"`
	AllowedTools []string        `json:"allowed_tools"`
	Profile      string          `json:"profile"`
}

func (t *Tool) add(ctx context.Context, raw json.RawMessage) (tool.Result, error) {
	var a addArgs
	if err := decode(raw, &a); err != nil {
		return tool.Failure("%s: %v", t.name, err), nil
	}
	for _, n := range append([]string{a.Name, a.Tool}, a.AllowedTools...) {
		if err := tool.ValidateName(n); err != nil {
			return tool.Failure("%s: %v", t.name, err), nil
		}
	}
	sched, err := ParseSchedule(a.Schedule)
	if err != nil {
		return tool.Failure("%s: %v", t.name, err), nil
	}
	args := bytes.TrimSpace(a.Args)
	if len(args) == 0 || bytes.Equal(args, []byte("null")) {
		args = []byte("{}")
	}
	if args[0] != '{' {
		return tool.Failure("%s: args must be a JSON object: the arguments of the scheduled call", t.name), nil
	}
	if len(args) > MaxArgsBytes {
		return tool.Failure("%s: args are %d bytes; the limit is %d", t.name, len(args), MaxArgsBytes), nil
	}
	allowed := a.AllowedTools
	if len(allowed) == 0 {
		allowed = []string{a.Tool}
	}
	slices.Sort(allowed)
	allowed = slices.Compact(allowed)
	if !slices.Contains(allowed, a.Tool) {
		return tool.Failure("%s: the job's tool %s is not in its allowed_tools %v: add it, or leave allowed_tools out to allow only that tool", t.name, a.Tool, allowed), nil
	}
	who := callerOf(ctx)
	profile := who.profile
	if a.Profile != "" && a.Profile != who.profile {
		if who.channel != tool.ChannelCLI {
			return tool.Failure("%s: a job runs under your own profile (%s); only the local CLI may name another profile", t.name, who.profile), nil
		}
		profile = a.Profile
	}
	var notes []string
	if ex, ok := t.opts.Caller.(explainer); ok {
		expl, bad, err := ex.Explain(ctx, tool.Call{Name: a.Tool, Args: args, Channel: tool.ChannelCron, Profile: profile, CallerAllowlist: allowed, SessionID: SessionPrefix + a.Name})
		switch {
		case err != nil:
			if ctx.Err() != nil {
				return tool.Result{}, ctx.Err()
			}
			return tool.Failure("%s: %v", t.name, err), nil
		case bad != nil:
			return tool.Failure("%s: the scheduled call's arguments are wrong: %s", t.name, bad.Error), nil
		case expl.Decision == risk.Ask:
			notes = append(notes, "note: this call needs approval under profile "+profile+", and a scheduled call has no person to ask, so its runs will be denied")
		case expl.Decision == risk.Deny:
			notes = append(notes, "note: policy would deny this call now: "+expl.Why)
		}
	}
	now := t.opts.Now().UTC()
	next := sched.First(now)
	if next.IsZero() {
		return tool.Failure("%s: %s is in the past: give a future time", t.name, sched), nil
	}
	j := Job{
		Name: a.Name, Schedule: sched.String(), Tool: a.Tool, Args: json.RawMessage(args),
		AllowedTools: allowed, Profile: profile, CreatedBy: who.session, Created: now, Next: next,
	}
	if err := t.opts.Store.Add(ctx, j); err != nil {
		return t.failure(err)
	}
	text := fmt.Sprintf("added cron job %s: %s %s, profile %s, next run %s", j.Name, j.Tool, j.Schedule, j.Profile, next.Format(time.RFC3339))
	for _, n := range notes {
		text += "\n" + n
	}
	return tool.Result{Success: true, Output: tool.Output{Text: text, Data: j}}, nil
}

func (t *Tool) list(ctx context.Context, raw json.RawMessage) (tool.Result, error) {
	var a struct{}
	if err := decode(raw, &a); err != nil {
		return tool.Failure("%s: %v", t.name, err), nil
	}
	if !t.opts.Store.exists() {
		return tool.Text("no cron jobs"), nil
	}
	jobs, err := t.opts.Store.List(ctx)
	if err != nil {
		return t.failure(err)
	}
	who := callerOf(ctx)
	jobs = slices.DeleteFunc(jobs, func(j Job) bool { return !who.sees(j) })
	if len(jobs) == 0 {
		return tool.Text("no cron jobs"), nil
	}
	var b strings.Builder
	for _, j := range jobs {
		fmt.Fprintf(&b, "%s: %s %s (profile %s; allowed %s; next %s; last %s)\n",
			j.Name, j.Tool, j.Schedule, j.Profile, strings.Join(j.AllowedTools, ","), when(j.Next, "none"), when(j.Last, "never"))
	}
	return tool.Result{Success: true, Output: tool.Output{Text: b.String(), Data: jobs}}, nil
}

func when(t time.Time, zero string) string {
	if t.IsZero() {
		return zero
	}
	return t.UTC().Format(time.RFC3339)
}

type nameArgs struct {
	Name string `json:"name"`
}

// visibleJob returns the named job if the caller may act on it; another
// profile's job is reported as missing.
func (t *Tool) visibleJob(ctx context.Context, name string) (Job, error) {
	if !t.opts.Store.exists() {
		return Job{}, fmt.Errorf("%w: %q; cron_list shows the jobs", ErrNoJob, name)
	}
	j, err := t.opts.Store.Get(ctx, name)
	if err != nil {
		return Job{}, err
	}
	if !callerOf(ctx).sees(j) {
		return Job{}, fmt.Errorf("%w: %q; cron_list shows the jobs", ErrNoJob, name)
	}
	return j, nil
}

func (t *Tool) remove(ctx context.Context, raw json.RawMessage) (tool.Result, error) {
	var a nameArgs
	if err := decode(raw, &a); err != nil {
		return tool.Failure("%s: %v", t.name, err), nil
	}
	if _, err := t.visibleJob(ctx, a.Name); err != nil {
		return t.failure(err)
	}
	if err := t.opts.Store.Remove(ctx, a.Name); err != nil {
		return t.failure(err)
	}
	return tool.Text("removed cron job " + a.Name), nil
}

func (t *Tool) runNow(ctx context.Context, raw json.RawMessage) (tool.Result, error) {
	var a nameArgs
	if err := decode(raw, &a); err != nil {
		return tool.Failure("%s: %v", t.name, err), nil
	}
	j, err := t.visibleJob(ctx, a.Name)
	if err != nil {
		return t.failure(err)
	}
	r := execute(ctx, t.opts.Caller, j, t.opts.Now)
	if ctx.Err() != nil {
		return tool.Result{}, ctx.Err()
	}
	r.Trigger = TriggerManual
	id, err := t.opts.Store.AddRun(context.WithoutCancel(ctx), r)
	if err != nil {
		t.opts.Logger.Warn().Err(err).Str("job", j.Name).Msg("cron: cannot record the run")
	}
	r.ID = id
	_ = t.opts.Store.touch(context.WithoutCancel(ctx), j.Name, r.Started)
	text := fmt.Sprintf("ran cron job %s: %s in %s", j.Name, r.Outcome, r.Duration.Round(time.Millisecond))
	if r.ReceiptID != "" {
		text += ", receipt " + r.ReceiptID
	}
	if r.Outcome != OutcomeSuccess {
		text += "\n" + clip(r.Error)
		return tool.Result{Error: text, Output: tool.Output{Text: text, Data: r}}, nil
	}
	return tool.Result{Success: true, Output: tool.Output{Text: text, Data: r}}, nil
}

func clip(s string) string {
	if len(s) <= maxOutputShown {
		return s
	}
	return s[:maxOutputShown] + "\n[cut]"
}

type runsArgs struct {
	Name  string `json:"name"`
	Limit int    `json:"limit"`
}

func (t *Tool) runs(ctx context.Context, raw json.RawMessage) (tool.Result, error) {
	var a runsArgs
	if err := decode(raw, &a); err != nil {
		return tool.Failure("%s: %v", t.name, err), nil
	}
	if a.Limit <= 0 {
		a.Limit = DefaultRunsLimit
	}
	a.Limit = min(a.Limit, MaxRunsLimit)
	if !t.opts.Store.exists() {
		return tool.Text("no runs yet"), nil
	}
	var names []string
	who := callerOf(ctx)
	switch {
	case a.Name != "":
		if _, err := t.visibleJob(ctx, a.Name); err != nil {
			return t.failure(err)
		}
		names = []string{a.Name}
	case who.channel != tool.ChannelCLI:
		jobs, err := t.opts.Store.List(ctx)
		if err != nil {
			return t.failure(err)
		}
		names = []string{}
		for _, j := range jobs {
			if who.sees(j) {
				names = append(names, j.Name)
			}
		}
	}
	runs, err := t.opts.Store.Runs(ctx, names, a.Limit)
	if err != nil {
		return t.failure(err)
	}
	if len(runs) == 0 {
		return tool.Text("no runs yet"), nil
	}
	var b strings.Builder
	for _, r := range runs {
		fmt.Fprintf(&b, "%s %s %s %s %s", r.Started.Format(time.RFC3339), r.Job, r.Trigger, r.Outcome, r.Duration.Round(time.Millisecond))
		if r.ReceiptID != "" {
			fmt.Fprintf(&b, " receipt %s", r.ReceiptID)
		}
		if r.Error != "" {
			fmt.Fprintf(&b, ": %s", firstLine(r.Error))
		}
		b.WriteByte('\n')
	}
	return tool.Result{Success: true, Output: tool.Output{Text: b.String(), Data: runs}}, nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}
