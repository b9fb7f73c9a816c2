package agents

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/talonhq/talon/models"
	"github.com/talonhq/talon/runtime"
	"github.com/talonhq/talon/tool"
)

// run is one execution of an agent.
type run struct {
	t       *agentTool
	rt      *runtime.Runtime
	caller  tool.Call
	path    []string
	model   models.Model
	observe Observer
	allow   []string

	usage models.Usage
	calls int
}

// loop renders nothing itself: it asks the model for turns, runs the tool
// calls of each through the runtime and feeds the results back, until the
// model answers, max_rounds is reached, the timeout fires or ctx ends.
func (r *run) loop(ctx context.Context, prompt string) (tool.Result, error) {
	a := r.t.agent
	start := time.Now()
	lctx, cancel := context.WithTimeout(ctx, a.Timeout)
	defer cancel()

	offered, err := r.offered()
	if err != nil {
		return tool.Failure("agent %s: %v", a.Name, err), nil
	}
	msgs := []models.Message{{Role: models.RoleUser, Text: prompt}}
	for round := 1; ; round++ {
		resp, err := r.model.Complete(lctx, models.Request{Messages: msgs, Tools: offered})
		if err != nil {
			return r.stopped(ctx, lctx, round, start, err)
		}
		r.usage = r.usage.Add(resp.Usage)
		r.t.log.Debug().Strs("via", r.path).Int("round", round).Int("tool_calls", len(resp.ToolCalls)).
			Int64("input_tokens", resp.Usage.InputTokens).Int64("output_tokens", resp.Usage.OutputTokens).Msg("agent round")
		if len(resp.ToolCalls) == 0 {
			return r.answer(ctx, round, resp.Text)
		}
		if round >= a.MaxRounds {
			return tool.Failure("agent %s did not finish within max_rounds = %d: the model still called %s; raise max_rounds in %s or give it a smaller task",
				a.Name, a.MaxRounds, callNames(resp.ToolCalls), a.Path), nil
		}
		msgs = append(msgs, models.Message{Role: models.RoleAssistant, Text: resp.Text, ToolCalls: resp.ToolCalls})
		results, err := r.runCalls(lctx, round, resp.ToolCalls)
		if err != nil {
			return r.stopped(ctx, lctx, round, start, err)
		}
		msgs = append(msgs, results...)
	}
}

// offered returns the tools shown to the model: those of the catalog, in
// its locale, that the agent may use and the caller's profile can ever run
// on its channel. Not the caller's view: deferred discovery shortens what a
// client is shown, and an agent's list is short already.
func (r *run) offered() ([]models.Tool, error) {
	prof, err := r.rt.Policy().Profile(r.caller.Profile)
	if err != nil {
		return nil, err
	}
	var out []models.Tool
	for _, s := range r.rt.Catalog().Specs(r.t.locale) {
		if slices.Contains(r.allow, s.Name) && prof.CanEverRun(s, r.caller.Channel) {
			out = append(out, models.Tool{Name: s.Name, Description: s.Description, Schema: s.Input})
		}
	}
	return out, nil
}

// runCalls runs one round's tool calls through the runtime, several at
// once as a batch, and returns the messages that carry their results.
func (r *run) runCalls(ctx context.Context, round int, tcs []models.ToolCall) ([]models.Message, error) {
	calls := make([]tool.Call, len(tcs))
	for i, tc := range tcs {
		calls[i] = tool.Call{
			Name: tc.Name, Args: tc.Args, Channel: r.caller.Channel, Profile: r.caller.Profile,
			CallerAllowlist: r.allow, SessionID: r.caller.SessionID,
		}
		r.emit(Event{Round: round, Tool: tc.Name, Args: tc.Args})
	}
	r.calls += len(tcs)
	results := make([]runtime.BatchResult, len(calls))
	if len(calls) == 1 {
		res, err := r.rt.Call(ctx, calls[0])
		results[0] = runtime.BatchResult{Result: res, Err: err}
	} else {
		results = r.rt.CallBatch(ctx, calls)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make([]models.Message, len(tcs))
	for i, br := range results {
		msg := models.Message{Role: models.RoleTool, ToolCallID: tcs[i].ID}
		ev := Event{Round: round, Tool: tcs[i].Name, Args: tcs[i].Args}
		switch {
		case br.Err != nil:
			if errors.Is(br.Err, context.Canceled) || errors.Is(br.Err, context.DeadlineExceeded) {
				return nil, br.Err
			}
			msg.Text, msg.IsError = r.hardError(tcs[i].Name, br.Err), true
			ev.Outcome, ev.Detail = "error", msg.Text
		case br.Result.Success:
			msg.Text = br.Result.Output.Text
			ev.Outcome = "ok"
		default:
			msg.Text, msg.IsError = br.Result.Error, true
			ev.Outcome, ev.Detail = "failed", br.Result.Error
			if br.Result.Denied {
				ev.Outcome = "denied"
			}
		}
		r.emit(ev)
		out[i] = msg
	}
	return out, nil
}

// hardError is the text the model reads when the runtime refused a call
// outright (an unknown tool, arguments that are not an object).
func (r *run) hardError(name string, err error) string {
	if errors.Is(err, runtime.ErrUnknownTool) {
		allowed := "none"
		if len(r.allow) > 0 {
			allowed = strings.Join(r.allow, ", ")
		}
		return fmt.Sprintf("unknown tool %s; the tools you may call are: %s", name, allowed)
	}
	return err.Error()
}

// answer finishes a run with the model's final text.
func (r *run) answer(ctx context.Context, rounds int, text string) (tool.Result, error) {
	a := r.t.agent
	if len(text) > a.MaxOutputBytes {
		return tool.Failure("agent %s answered %d bytes, more than max_output_bytes = %d; raise it in %s or ask for a shorter answer",
			a.Name, len(text), a.MaxOutputBytes, a.Path), nil
	}
	if err := ctx.Err(); err != nil {
		return tool.Result{}, err
	}
	model := r.model.Name() + "/" + r.model.ID()
	runtime.RecordDelegation(ctx, runtime.Delegation{Model: model, Rounds: rounds, InputTokens: r.usage.InputTokens, OutputTokens: r.usage.OutputTokens})
	r.emit(Event{Round: rounds, Outcome: "answer", Usage: r.usage})
	return tool.Result{Success: true, Output: tool.Output{Text: text, Data: Report{
		Agent: a.Name, Model: model, Rounds: rounds, Usage: r.usage, Calls: r.calls,
	}}}, nil
}

// stopped turns the end of a run by an error into a result: the caller's
// cancellation stays an error; the agent's own timeout and a failing model
// are failed results naming the agent.
func (r *run) stopped(ctx, lctx context.Context, round int, start time.Time, err error) (tool.Result, error) {
	a := r.t.agent
	if cerr := ctx.Err(); cerr != nil {
		return tool.Result{}, cerr
	}
	if lctx.Err() != nil {
		return tool.Failure("agent %s timed out after %s in round %d (timeout_seconds = %d); raise it in %s or give it a smaller task",
			a.Name, time.Since(start).Round(time.Second), round, int(a.Timeout.Seconds()), a.Path), nil
	}
	return tool.Failure("agent %s stopped in round %d: %v", a.Name, round, err), nil
}

func (r *run) emit(ev Event) {
	if r.observe == nil {
		return
	}
	ev.Path = r.path
	r.observe(ev)
}

func callNames(tcs []models.ToolCall) string {
	names := make([]string, len(tcs))
	for i, tc := range tcs {
		names[i] = tc.Name
	}
	return strings.Join(names, ", ")
}
