// Package sessions provides sessions_list and sessions_history: the
// runtime's own record of calls per session (tool, tier, decision,
// duration, outcome, receipt id), read back by the agent or operator.
//
// On the local CLI and the Go API every session is visible. On other
// channels (MCP, cron) a caller sees only its own session, so one agent
// cannot read what another did.
package sessions

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/talonhq/talon/history"
	"github.com/talonhq/talon/tool"
	"github.com/talonhq/talon/toolfactory"
)

// Names of the tools.
const (
	ListName    = "sessions_list"
	HistoryName = "sessions_history"
)

func init() {
	toolfactory.Register(toolfactory.Factory{Name: ListName, Tier: tool.Low, New: func(env toolfactory.Env) (tool.Tool, error) {
		return &List{log: env.History}, nil
	}})
	toolfactory.Register(toolfactory.Factory{Name: HistoryName, Tier: tool.Low, New: func(env toolfactory.Env) (tool.Tool, error) {
		return &History{log: env.History}, nil
	}})
}

var (
	_ tool.Tool = (*List)(nil)
	_ tool.Tool = (*History)(nil)
)

// seesAll reports whether the caller may see every session.
func seesAll(ctx context.Context) (tool.Call, bool) {
	c, _ := tool.CallFrom(ctx)
	return c, c.Channel == tool.ChannelCLI || c.Channel == tool.ChannelAPI || c.Channel == ""
}

// List is sessions_list.
type List struct{ log *history.Log }

// Spec describes sessions_list.
func (l *List) Spec() tool.Spec {
	return tool.Spec{
		Name:        ListName,
		Input:       json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`),
		Tier:        tool.Low,
		Attribution: tool.Attribution{Kind: tool.KindBuiltin, Alias: ListName},
	}
}

// Execute lists the sessions the caller may see, most recent first.
func (l *List) Execute(ctx context.Context, _ json.RawMessage) (tool.Result, error) {
	call, all := seesAll(ctx)
	var out []history.Summary
	for _, s := range l.log.Sessions() {
		if all || s.Session == call.SessionID {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		return tool.Result{Success: true, Output: tool.Output{Text: "no sessions recorded yet", Data: []history.Summary{}}}, nil
	}
	var b strings.Builder
	for _, s := range out {
		fmt.Fprintf(&b, "%s  %s  %d calls (%d not successful)  last %s\n", s.Session, s.Channel, s.Calls, s.Failures, s.Last.UTC().Format(time.RFC3339))
	}
	return tool.Result{Success: true, Output: tool.Output{Text: b.String(), Data: out}}, nil
}

// History is sessions_history.
type History struct{ log *history.Log }

// Spec describes sessions_history.
func (h *History) Spec() tool.Spec {
	return tool.Spec{
		Name: HistoryName,
		Input: json.RawMessage(`{"type":"object","properties":{` +
			`"session":{"type":"string","maxLength":200},` +
			`"limit":{"type":"integer","minimum":1,"maximum":500,"default":50}},"additionalProperties":false}`),
		Tier:        tool.Low,
		Attribution: tool.Attribution{Kind: tool.KindBuiltin, Alias: HistoryName},
	}
}

// Execute lists a session's calls, oldest first.
func (h *History) Execute(ctx context.Context, raw json.RawMessage) (tool.Result, error) {
	var a struct {
		Session string `json:"session"`
		Limit   int    `json:"limit"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return tool.Failure("sessions_history: %v", err), nil
	}
	call, all := seesAll(ctx)
	if a.Session == "" {
		a.Session = call.SessionID
	}
	if a.Session == "" {
		return tool.Failure("sessions_history: name a session; sessions_list shows them"), nil
	}
	if !all && a.Session != call.SessionID {
		return tool.Failure("sessions_history: only this session's own calls can be read on the %s channel", call.Channel), nil
	}
	if a.Limit == 0 {
		a.Limit = 50
	}
	recs := h.log.History(a.Session, a.Limit)
	if len(recs) == 0 {
		return tool.Result{Success: true, Output: tool.Output{Text: fmt.Sprintf("no calls recorded for session %s", a.Session), Data: []history.Record{}}}, nil
	}
	var b strings.Builder
	for _, r := range recs {
		fmt.Fprintf(&b, "%s  %s  tier=%s decision=%s outcome=%s %s", r.Time.UTC().Format(time.RFC3339), r.Tool, r.Tier, r.Decision, r.Outcome, r.Duration.Round(time.Millisecond))
		if r.ReceiptID != "" {
			fmt.Fprintf(&b, " receipt=%s", r.ReceiptID)
		}
		b.WriteByte('\n')
	}
	return tool.Result{Success: true, Output: tool.Output{Text: b.String(), Data: recs}}, nil
}
