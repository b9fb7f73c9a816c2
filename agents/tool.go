package agents

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/rs/zerolog"

	"github.com/talonhq/talon/models"
	"github.com/talonhq/talon/runtime"
	"github.com/talonhq/talon/tool"
)

// genericInput is the schema of an agent without input_schema: one field,
// input, of any type.
var genericInput = json.RawMessage(`{"type":"object","properties":{"input":{"description":"The task for the subagent: text, or any JSON value, which it reads as JSON text."}},"required":["input"],"additionalProperties":false}`)

// agentTool is one agent as a tool: agent__<name>.
type agentTool struct {
	agent  *Agent
	model  models.Model
	spec   tool.Spec
	allow  []string // what its inner calls may use: tools, then agent__<subagent>
	locale string
	log    zerolog.Logger
}

var _ tool.Tool = (*agentTool)(nil)

func newTool(a *Agent, m models.Model, opts Options) *agentTool {
	input := genericInput
	if a.File.InputSchema != nil {
		input = a.File.InputSchema
	}
	allow := slices.Clone(a.File.Tools)
	for _, s := range a.File.Subagents {
		q, _ := Tool(s) // registered, so valid
		allow = append(allow, q)
	}
	slices.Sort(allow)
	allow = slices.Compact(allow)
	if allow == nil {
		allow = []string{}
	}
	return &agentTool{
		agent: a, model: m, allow: allow, locale: opts.Locale,
		log: opts.Logger.With().Str("attribution", string(tool.KindAgent)+"."+a.Name).Logger(),
		spec: tool.Spec{
			Name: a.ToolName, Description: a.Description(), Input: input,
			// The delegation itself reads and changes nothing: every call
			// the agent makes is decided by policy on its own.
			Tier:        tool.Low,
			Attribution: tool.Attribution{Kind: tool.KindAgent, Alias: a.Name},
		},
	}
}

func (t *agentTool) Spec() tool.Spec { return t.spec }

// Execute runs the agent's loop; see the package documentation.
func (t *agentTool) Execute(ctx context.Context, args json.RawMessage) (tool.Result, error) {
	name := t.agent.Name
	rt := runtime.FromContext(ctx)
	if rt == nil {
		return tool.Failure("agent %s runs only inside a talon runtime, whose pipeline decides its calls", name), nil
	}
	path := runtime.DelegationPath(ctx)
	if len(path) > MaxDepth {
		return tool.Failure("agent %s was not started: the delegation %s is %d agents deep, and talon allows %d; answer without delegating further",
			name, strings.Join(path, " → "), len(path), MaxDepth), nil
	}
	input, err := t.input(args)
	if err != nil {
		return tool.Failure("agent %s: %v", name, err), nil
	}
	caller, _ := tool.CallFrom(ctx)
	// The allowlist that bounds the whole delegation is the one of the
	// caller outside it (a cron job's allowed_tools), not the one an
	// enclosing agent gave this call, which names this agent only.
	outer, nested := outerFrom(ctx)
	if !nested {
		outer = caller.CallerAllowlist
		ctx = context.WithValue(ctx, outerKey{}, outer)
	}
	r := &run{
		t: t, rt: rt, caller: caller, path: path, model: t.model,
		observe: observerFrom(ctx), allow: narrow(t.allow, outer),
	}
	if o := overrideFrom(ctx); o != nil && len(path) == 1 && o.agent == name {
		r.model = o.model
	}
	return r.loop(ctx, t.agent.File.Prompt.Render(input))
}

// input is what {{ input }} renders: the whole arguments with an
// input_schema, else the value of the input field.
func (t *agentTool) input(args json.RawMessage) (any, error) {
	var v map[string]any
	if err := json.Unmarshal(args, &v); err != nil {
		return nil, fmt.Errorf("arguments are not a JSON object: %v", err)
	}
	if t.agent.File.InputSchema != nil {
		return v, nil
	}
	return v["input"], nil
}

type outerKey struct{}

// outerFrom returns the allowlist of the caller outside the delegation
// ctx runs in, and whether ctx is inside one.
func outerFrom(ctx context.Context) ([]string, bool) {
	v := ctx.Value(outerKey{})
	if v == nil {
		return nil, false
	}
	return v.([]string), true
}

// narrow intersects the agent's allowlist with its caller's, when the
// caller has one: a delegate never gets more than its caller.
func narrow(allow, caller []string) []string {
	if caller == nil {
		return allow
	}
	out := []string{}
	for _, n := range allow {
		if slices.Contains(caller, n) {
			out = append(out, n)
		}
	}
	return out
}

// Report is the structured data of an agent's successful result.
type Report struct {
	Agent  string       `json:"agent"`
	Model  string       `json:"model"`
	Rounds int          `json:"rounds"`
	Usage  models.Usage `json:"usage"`
	// Calls counts the tool calls the agent made.
	Calls int `json:"calls"`
}

type overrideKey struct{}

type override struct {
	agent string
	model models.Model
}

// WithModel runs the agent called agent on m instead of its own model,
// when it is the outermost agent of a call with context ctx (talon agents
// run --model). Subagents always run on their own models.
func WithModel(ctx context.Context, agent string, m models.Model) context.Context {
	return context.WithValue(ctx, overrideKey{}, &override{agent: agent, model: m})
}

func overrideFrom(ctx context.Context) *override {
	o, _ := ctx.Value(overrideKey{}).(*override)
	return o
}

// Event is one step of an agent's loop, for an [Observer].
type Event struct {
	// Path names the agents, outermost first, ending with the one the
	// event is about.
	Path  []string
	Round int
	// Tool and Args describe a tool call; Tool is "" for the final answer.
	Tool string
	Args json.RawMessage
	// Outcome is "" when the call is about to run, then "ok", "denied",
	// "failed" or "error"; "answer" for the final answer.
	Outcome string
	// Detail is the error of a call that did not succeed.
	Detail string
	// Usage is the tokens used so far, on the final answer.
	Usage models.Usage
}

// Observer receives the events of every agent loop started under a
// context.
type Observer func(Event)

type observerKey struct{}

// WithObserver makes every agent loop under ctx, nested ones included,
// report its steps to o (talon agents run streams them to stderr). o may
// be called from several goroutines at once.
func WithObserver(ctx context.Context, o Observer) context.Context {
	return context.WithValue(ctx, observerKey{}, o)
}

func observerFrom(ctx context.Context) Observer {
	o, _ := ctx.Value(observerKey{}).(Observer)
	return o
}
