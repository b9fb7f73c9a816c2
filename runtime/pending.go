package runtime

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/talonhq/talon/approval"
	"github.com/talonhq/talon/receipts"
	"github.com/talonhq/talon/tool"
)

// outcomePending is the history outcome of a call that returned without
// waiting for its approval; its real outcome is recorded when it is
// decided.
const outcomePending = "pending"

// maxNoticeResult bounds the result text an outcome notice carries.
const maxNoticeResult = 4 << 10

// deferCall parks a call's approval without waiting ([approvals] wait =
// false) and returns the pending result at once. When a person approves
// it the call runs, outside any request, bound to the plan that was
// shown; its outcome (or the refusal) is recorded in the session's
// history and sent to the caller as a notice.
func (r *Runtime) deferCall(ctx context.Context, p *prepared, d approval.Deferrer, req approval.Request, key string, saved approval.SavedRule, saveErr error) tool.Result {
	bg := context.WithoutCancel(ctx)
	notify := tool.NotifierFrom(ctx)
	var id string
	ready := make(chan struct{})
	got, err := d.Defer(req, func(ans approval.Answer, err error) {
		<-ready
		r.decided(bg, p, id, ans, err, key, saved, saveErr, notify)
	})
	if err != nil {
		close(ready)
		decisionEvent(p, "ask").Str("answer", "none").Err(err).Msg("the approval could not be parked; denied")
		return denied(approval.DeniedNoApprover)
	}
	id = got
	close(ready)
	decisionEvent(p, "ask").Str("approval", id).Msg("approval pending; the call returned without waiting")
	text := fmt.Sprintf("approval pending (id %s): nothing ran yet. The call runs once a person approves it (talon approvals approve %s), and its outcome is reported then: as a notification to this session and in sessions_history.", id, id)
	return tool.Result{Error: text, Pending: id, Output: tool.Output{Text: text, Data: map[string]any{"status": "approval-pending", "approval_id": id}}}
}

// decided finishes a call parked by deferCall.
func (r *Runtime) decided(ctx context.Context, p *prepared, id string, ans approval.Answer, err error, key string, saved approval.SavedRule, saveErr error, notify tool.Notifier) {
	start := time.Now()
	ctx = r.observe(ctx, p.call.Name)
	ex := p.ex
	ev := decisionEvent(p, "ask").Str("approval", id)
	var res tool.Result
	var runErr error
	switch {
	case err != nil:
		ev.Str("answer", "none").Msg("no approver decided the pending call; denied")
		res = denied(approval.DeniedNoApprover)
	case ans == approval.No:
		ev.Str("answer", "no").Msg("the pending call was denied by user")
		res = denied(approval.DeniedByUser)
	default:
		r.accepted(p, ans, key, saved, saveErr, ev)
		res, runErr = r.execute(tool.WithApprovedPlan(ctx, ex.Plan), p)
	}
	r.record(ctx, p.call, p, res, runErr, start)
	if notify == nil {
		return
	}
	outcome, level := "success", tool.NoticeInfo
	switch {
	case res.Denied:
		outcome, level = "denied", tool.NoticeWarning
	case !res.Success:
		outcome, level = "failed", tool.NoticeWarning
	}
	text := res.Output.Text
	if !res.Success {
		text = res.Error
	}
	if len(text) > maxNoticeResult {
		text = text[:maxNoticeResult] + "…"
	}
	notify(tool.Notice{
		Level: level, Logger: "talon.approvals",
		Text: fmt.Sprintf("the call of %s pending as approval %s: %s", ex.Tool, id, strings.TrimSpace(firstLine(outcome, res))),
		Data: map[string]any{"approval_id": id, "tool": ex.Tool, "outcome": outcome, "result": text},
	})
}

func firstLine(outcome string, res tool.Result) string {
	switch outcome {
	case "denied":
		return "not run: " + res.Error
	case "failed":
		return "ran and failed"
	}
	return "ran"
}

// accepted is the bookkeeping of a yes: an "always" is remembered for the
// session, a "permanent" saved as a rule where it can be.
func (r *Runtime) accepted(p *prepared, ans approval.Answer, key string, saved approval.SavedRule, saveErr error, ev *zerolog.Event) {
	ex := p.ex
	p.allowedBy = receipts.AllowedByUser
	switch {
	case ans == approval.Permanent && saveErr == nil && !ex.AlwaysAsk:
		r.rememberAlways(p.call.SessionID, key)
		saved.By = "approved on channel " + p.call.Channel
		if rule, err := r.rules.Add(saved); err != nil {
			ev.Str("answer", "permanent").Err(err).Msg("the pending call was approved; the rule could not be saved")
		} else {
			ev.Str("answer", "permanent").Str("rule", rule.ID).Msg("the pending call was approved and saved as a rule")
		}
	case ans == approval.Always || ans == approval.Permanent:
		if !ex.AlwaysAsk {
			r.rememberAlways(p.call.SessionID, key)
		}
		ev.Str("answer", "always").Msg("the pending call was approved for this session")
	default:
		ev.Str("answer", "yes").Msg("the pending call was approved")
	}
}
