package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/talonhq/talon/approval"
)

// caller is the MCP session a call came from, carried in the call's
// context so the approver can reach the person behind it.
type caller struct {
	session *session
	out     sender // where a question about this call goes
	elicit  bool
	// progressToken is the request's _meta.progressToken, if any, and
	// noticeAfter how long an approval waits before the client hears of
	// it once (approval_running_notice_ms; zero means never).
	progressToken json.RawMessage
	noticeAfter   time.Duration
}

type callerKey struct{}

func withCaller(ctx context.Context, c *caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

func callerFrom(ctx context.Context) *caller {
	c, _ := ctx.Value(callerKey{}).(*caller)
	return c
}

// Approver is the approver of a runtime served over MCP. It asks the
// person behind the session that made the call: through MCP elicitation
// when that client supports it, otherwise by parking the request in Queue
// for `talon approvals`. With neither, it fails closed.
//
// The zero value has no queue: calls from clients without elicitation are
// denied with [approval.DeniedNoApprover].
type Approver struct {
	// Queue holds requests no client can be asked about; nil means none.
	Queue *approval.Queue
	// Logger notes elicitations that failed and fell back to the queue.
	Logger zerolog.Logger
}

var _ approval.Approver = (*Approver)(nil)

var _ approval.Deferrer = (*Approver)(nil)

// Defer parks req in Queue without the call waiting, for [approvals]
// wait = false: the client is not asked in band, since the call returns
// before it could answer. Without a queue it fails closed.
func (a *Approver) Defer(req approval.Request, decided func(approval.Answer, error)) (string, error) {
	if a.Queue == nil {
		return "", fmt.Errorf("%w: no approval queue is running", approval.ErrNoApprover)
	}
	return a.Queue.Defer(req, decided)
}

// errDismissed is a client's "cancel": a person closed the question
// without answering it.
var errDismissed = errors.New("the question was dismissed without an answer")

// Approve routes req; see [Approver]. A wait longer than the session's
// approval_running_notice_ms is notified to the client once.
func (a *Approver) Approve(ctx context.Context, req approval.Request) (approval.Answer, error) {
	defer callerFrom(ctx).waiting(req)()
	if c := callerFrom(ctx); c != nil && c.elicit && c.session != nil && c.out != nil {
		ans, err := elicit(ctx, c, req)
		switch {
		case err == nil:
			return ans, nil
		case ctx.Err() != nil:
			return approval.No, fmt.Errorf("%w: %v", approval.ErrNoApprover, ctx.Err())
		case errors.Is(err, errDismissed):
			return approval.No, fmt.Errorf("%w: %v", approval.ErrNoApprover, err)
		}
		a.Logger.Warn().Str("tool", req.Tool).Str("attribution", req.Attribution).Str("session", req.SessionID).
			Err(err).Msg("elicitation failed; the request waits for talon approvals instead")
	}
	if a.Queue != nil {
		return a.Queue.Approve(ctx, req)
	}
	return approval.No, fmt.Errorf("%w: the client cannot be asked and no approval queue is running", approval.ErrNoApprover)
}

// Answers offered in an elicitation.
const (
	answerYes    = "yes"
	answerNo     = "no"
	answerAlways = "always"
	answerField  = "decision"
	// answerPermanent saves the call's plan as a rule; offered only when
	// the request is saveable.
	answerPermanent = "permanent"
)

// elicit asks the client's user and reads one answer.
func elicit(ctx context.Context, c *caller, req approval.Request) (approval.Answer, error) {
	choices := []any{answerYes, answerNo, answerAlways}
	names := []any{"Yes, run it once", "No, refuse it", "Always allow this exact call in this session"}
	if req.AlwaysAsk {
		choices, names = choices[:2], names[:2]
	}
	if req.Saveable {
		choices = append(choices, answerPermanent)
		names = append(names, "Allow this exact call from now on, in every session (saved as a rule)")
	}
	params, err := json.Marshal(map[string]any{
		"message": elicitMessage(req),
		"requestedSchema": map[string]any{
			"type": "object",
			"properties": map[string]any{
				answerField: map[string]any{
					"type":        "string",
					"title":       "Allow this call?",
					"enum":        choices,
					"enumNames":   names,
					"description": "yes runs it once; no refuses it" + alwaysHint(req),
				},
			},
			"required": []any{answerField},
		},
	})
	if err != nil {
		return approval.No, err
	}
	raw, err := c.session.ask(ctx, c.out, methodElicit, params)
	if err != nil {
		return approval.No, err
	}
	var res struct {
		Action  string         `json:"action"`
		Content map[string]any `json:"content"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return approval.No, fmt.Errorf("the client's answer to the question is not an elicitation result: %w", err)
	}
	switch res.Action {
	case "accept":
		v, _ := res.Content[answerField].(string)
		switch strings.ToLower(strings.TrimSpace(v)) {
		case answerYes:
			return approval.Yes, nil
		case answerAlways:
			if req.AlwaysAsk {
				return approval.Yes, nil
			}
			return approval.Always, nil
		case answerPermanent:
			if req.Saveable {
				return approval.Permanent, nil
			}
			return approval.Yes, nil
		}
		return approval.No, nil
	case "decline":
		return approval.No, nil
	default:
		return approval.No, errDismissed
	}
}

func alwaysHint(req approval.Request) string {
	if req.AlwaysAsk {
		return ""
	}
	return "; always also allows this exact call again for the rest of the session"
}

// elicitMessage is the question shown to the person: everything
// [approval.Render] shows an approver on a terminal.
func elicitMessage(req approval.Request) string {
	return strings.TrimSpace(approval.Render(req)) + "\n\nAllow this call?"
}
