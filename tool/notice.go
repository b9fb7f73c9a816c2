package tool

import (
	"context"
	"fmt"
)

// Notice levels, the MCP logging levels talon uses.
const (
	NoticeInfo    = "info"
	NoticeWarning = "warning"
	NoticeError   = "error"
)

// Notice is a message for a caller outside a call's result: a background
// process that ended, an approval still waiting, the outcome of a call
// that ran after its approval. Over MCP it becomes a log notification of
// the session that made the call.
type Notice struct {
	// Level is [NoticeInfo], [NoticeWarning] or [NoticeError].
	Level string `json:"level"`
	// Logger names the part of talon that speaks ("talon.process").
	Logger string `json:"logger,omitempty"`
	// Text is one sentence for people.
	Text string `json:"text"`
	// Data is what a program reads, such as the process id and status.
	Data map[string]any `json:"data,omitempty"`
}

// Notifier delivers notices to the caller of a call. It must not block,
// and may be called after the call returned, from another goroutine.
type Notifier func(Notice)

type notifierKey struct{}

// WithNotifier records how to reach the caller of the calls made with
// ctx, for what they report later.
func WithNotifier(ctx context.Context, n Notifier) context.Context {
	return context.WithValue(ctx, notifierKey{}, n)
}

// NotifierFrom returns the notifier recorded by [WithNotifier], or nil
// when the caller cannot be reached outside the call's result.
func NotifierFrom(ctx context.Context) Notifier {
	n, _ := ctx.Value(notifierKey{}).(Notifier)
	return n
}

// Rule is an operator's rule that decides a call ahead of the tier
// table, such as a shell profile's allow or ask pattern.
type Rule struct {
	// Action is "allow" (the call runs without a person under the
	// supervised and full levels) or "ask" (a person decides it
	// whatever its tier). A deny rule denies through
	// [Assessment.Denied].
	Action string `json:"action"`
	// Pattern is the rule as the operator wrote it.
	Pattern string `json:"pattern"`
}

// String renders the rule as `allow "make test"`.
func (r Rule) String() string { return fmt.Sprintf("%s %q", r.Action, r.Pattern) }
