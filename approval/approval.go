package approval

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/talonhq/talon/tool"
)

// Answer is a person's answer.
type Answer int

// Answers. The zero value is No, so an unset answer fails closed.
const (
	No Answer = iota
	Yes
	// Always approves this call now and the same call again for the rest of
	// the session. It never overrides always_ask.
	Always
	// Permanent approves this call now and saves its exact plan as a rule
	// ([SavedRule]), so the same call runs without asking in every later
	// session. It is offered only where the request is [Request.Saveable];
	// elsewhere it counts as [Always].
	Permanent
)

func (a Answer) String() string {
	switch a {
	case Yes:
		return "yes"
	case Always:
		return "always"
	case Permanent:
		return "permanent"
	default:
		return "no"
	}
}

// Messages returned to the model when a call is not approved. Neither names
// the setting that would allow the call.
const (
	DeniedByUser     = "Denied by user."
	DeniedNoApprover = "Denied by policy: this call needs approval and no person was available to give it, so the runtime refused it; no person decided."
)

var (
	// ErrNoApprover means no person could be asked: no terminal, a channel
	// without approvals, or the wait timed out.
	ErrNoApprover = errors.New("no approver available")
)

// Request is what an approver shows.
type Request struct {
	Tool        string
	Attribution string
	Tier        tool.Tier
	Reasons     []string
	Plan        *tool.Plan
	// Args is the redacted argument summary (see [Redact]).
	Args      string
	Channel   string
	Profile   string
	SessionID string
	// AlwaysAsk is set when the tool is in always_ask: only a person's
	// answer counts, never a standing one.
	AlwaysAsk bool
	// Sandbox says how the plan's processes are confined.
	Sandbox string
	// Delegation names the agents the call runs inside, outermost first
	// (["researcher"] for a shell call a subagent made); nil for a call
	// the caller made itself.
	Delegation []string
	// Saveable is set when the answer may be [Permanent]: the call has a
	// plan that can be kept as a rule (no inline code), its tool does not
	// always ask, and there is a file to keep it in.
	Saveable bool
}

// Approver asks for a decision on one call.
type Approver interface {
	Approve(ctx context.Context, req Request) (Answer, error)
}

// Deferrer is an approver that can park a request without its caller
// waiting: the caller gets an id at once and hears the decision later.
// [Queue] is one.
type Deferrer interface {
	// Defer parks req and returns its id. decided is called once, from
	// another goroutine, with the answer, or with an error wrapping
	// [ErrNoApprover] when nobody decided in time.
	Defer(req Request, decided func(Answer, error)) (id string, err error)
}

// NonInteractive is the approver for callers with no person behind them:
// it always returns ErrNoApprover.
type NonInteractive struct{}

var _ Approver = NonInteractive{}

// Approve fails closed.
func (NonInteractive) Approve(context.Context, Request) (Answer, error) { return No, ErrNoApprover }

// Terminal prompts on a terminal: `[y]es / [n]o / [a]lways for this
// session`, and `[p]ermanently` when the request is [Request.Saveable].
// End of input, a blank line or anything after three unclear answers is
// no.
type Terminal struct {
	In  io.Reader
	Out io.Writer
}

var _ Approver = (*Terminal)(nil)

// Approve shows the request and reads one answer.
func (t *Terminal) Approve(ctx context.Context, req Request) (Answer, error) {
	fmt.Fprint(t.Out, Render(req))
	lines := make(chan string)
	eof := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(t.In)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			case <-ctx.Done():
				return
			}
		}
		close(eof)
	}()
	question, hint := "Allow? [y]es / [n]o / [a]lways for this session: ", "Please answer y, n or a."
	if req.Saveable {
		question, hint = "Allow? [y]es / [n]o / [a]lways for this session / [p]ermanently: ", "Please answer y, n, a or p."
	}
	for try := 0; try < 3; try++ {
		fmt.Fprint(t.Out, question)
		select {
		case <-ctx.Done():
			fmt.Fprintln(t.Out)
			return No, fmt.Errorf("%w: %v", ErrNoApprover, ctx.Err())
		case <-eof:
			fmt.Fprintln(t.Out)
			return No, nil
		case line := <-lines:
			switch strings.ToLower(strings.TrimSpace(line)) {
			case "y", "yes":
				return Yes, nil
			case "a", "always":
				return Always, nil
			case "p", "permanently", "permanent":
				if req.Saveable {
					return Permanent, nil
				}
			case "", "n", "no":
				return No, nil
			}
			fmt.Fprintln(t.Out, hint)
		}
	}
	return No, nil
}

// Render formats a request the way every approver shows it.
func Render(req Request) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\ntalon: approval needed\n")
	fmt.Fprintf(&b, "  tool:   %s (%s)\n", req.Tool, req.Attribution)
	if len(req.Delegation) > 0 {
		fmt.Fprintf(&b, "  via:    %s\n", strings.Join(append(slices.Clone(req.Delegation), req.Tool), " → "))
	}
	fmt.Fprintf(&b, "  tier:   %s\n", req.Tier)
	for _, r := range req.Reasons {
		fmt.Fprintf(&b, "  reason: %s\n", r)
	}
	if req.Plan != nil {
		if req.Plan.Summary != "" {
			fmt.Fprintf(&b, "  plan:   %s\n", req.Plan.Summary)
		}
		for _, c := range req.Plan.Commands {
			fmt.Fprintf(&b, "  argv:   %s\n", quoteArgv(c.Argv))
			if c.Binary != "" {
				fmt.Fprintf(&b, "  binary: %s\n", c.Binary)
			}
			if c.Dir != "" {
				fmt.Fprintf(&b, "  dir:    %s\n", c.Dir)
			}
			if len(c.Env) > 0 {
				fmt.Fprintf(&b, "  env:    %s\n", strings.Join(c.Env, " "))
			}
		}
	}
	if req.Sandbox != "" {
		fmt.Fprintf(&b, "  sandbox: %s\n", req.Sandbox)
	}
	if req.Args != "" {
		fmt.Fprintf(&b, "  args:   %s\n", req.Args)
	}
	return b.String()
}

func quoteArgv(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = fmt.Sprintf("%q", a)
	}
	return "[" + strings.Join(q, " ") + "]"
}

// secretWords mark argument keys whose values are never shown or logged.
var secretWords = []string{"token", "secret", "password", "key"}

// IsSecretKey reports whether an argument key looks like it holds a secret
// (case-insensitive: *token*, *secret*, *password*, *key*).
func IsSecretKey(k string) bool {
	k = strings.ToLower(k)
	for _, w := range secretWords {
		if strings.Contains(k, w) {
			return true
		}
	}
	return false
}

// Redact renders arguments as compact JSON with the values of secret-looking
// keys replaced by "[redacted]", at any depth. Long strings are shortened.
func Redact(args json.RawMessage) string {
	var v any
	if err := json.Unmarshal(args, &v); err != nil {
		return "(unreadable arguments)"
	}
	out, err := json.Marshal(redactValue(v))
	if err != nil {
		return "(unreadable arguments)"
	}
	return string(out)
}

func redactValue(v any) any {
	switch t := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if IsSecretKey(k) {
				t[k] = "[redacted]"
			} else {
				t[k] = redactValue(t[k])
			}
		}
		return t
	case []any:
		for i := range t {
			t[i] = redactValue(t[i])
		}
		return t
	case string:
		if r := []rune(t); len(r) > 200 {
			return string(r[:200]) + "…"
		}
		return t
	default:
		return v
	}
}
