package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/talonhq/talon/receipts"
)

// Kind names the source of a tool in its [Attribution].
type Kind string

// The sources of tools.
const (
	KindBuiltin Kind = "builtin"
	KindWASM    Kind = "wasm"
	KindProcess Kind = "process"
	KindCommand Kind = "command"
	KindMCP     Kind = "mcp"
	// KindAgent is a subagent: a model running its own tool loop, whose
	// calls go through the runtime again (agent.<name>).
	KindAgent Kind = "agent"
)

// Attribution says where a tool comes from. It renders as "<kind>.<alias>",
// e.g. "builtin.shell" or "wasm.weather", and appears in every log line,
// event and receipt about a call.
type Attribution struct {
	Kind  Kind   `json:"kind"`
	Alias string `json:"alias"`
}

// String renders the attribution as "<kind>.<alias>".
func (a Attribution) String() string { return string(a.Kind) + "." + a.Alias }

// Spec describes a tool to the runtime and, through it, to the model.
type Spec struct {
	// Name is the model-visible name; see [ValidateName].
	Name string `json:"name"`
	// Description is the model-visible text. Compiled-in tools leave it empty
	// and the runtime fills it from the message catalog (id tool-<name>).
	Description string `json:"description"`
	// Input is the JSON Schema of the arguments; it must describe an object.
	Input json.RawMessage `json:"input_schema"`
	// Output is the optional JSON Schema of Result.Output.Data.
	Output json.RawMessage `json:"output_schema,omitempty"`
	// Tier is the floor: an [Assessor] may raise it per call, never lower it.
	Tier Tier `json:"tier"`
	// Attribution says which source provides the tool.
	Attribution Attribution `json:"attribution"`
}

// Tool is one callable tool.
type Tool interface {
	Spec() Spec
	// Execute runs the call with arguments that already passed the schema.
	// A returned error becomes a failed Result naming the tool; it never
	// aborts the caller's loop.
	Execute(ctx context.Context, args json.RawMessage) (Result, error)
}

// Assessor is implemented by tools whose risk depends on their arguments,
// such as a shell line or an HTTP method. The assessment's tier is raised to
// at least the spec's floor by the runtime.
type Assessor interface {
	Assess(args json.RawMessage) (Assessment, error)
}

// Assessment is the risk picture of one call, shown to approvers verbatim.
type Assessment struct {
	Tier    Tier     `json:"tier"`
	Reasons []string `json:"reasons,omitempty"`
	// Plan is what will actually run, when the tool can say so ahead of time.
	Plan *Plan `json:"plan,omitempty"`
	// Paths lists the absolute filesystem paths the call reads or writes, so
	// policy can apply forbidden_paths to every tool the same way.
	Paths []string `json:"paths,omitempty"`
	// Allowlisted is set when the call passed a command allowlist gate in
	// full, every command of it named by the operator's allowed_commands.
	// Under supervised, a high-tier call that is allowlisted asks instead of
	// being blocked.
	Allowlisted bool `json:"allowlisted,omitempty"`
	// Denied is set when analysis alone rules the call out (for example a
	// shell segment outside the allowlist); Reasons say why.
	Denied bool `json:"denied,omitempty"`
	// Rule is set when an operator's rule decides the call ahead of the
	// tier table (a shell profile's allow or ask pattern).
	Rule *Rule `json:"rule,omitempty"`
}

// Plan is an explicit execution plan. An approval binds to it: a tool must
// refuse to run anything that differs from the plan it was approved with.
type Plan struct {
	// Summary is a one-line rendering for prompts and logs.
	Summary string `json:"summary,omitempty"`
	// Commands lists each process the call runs, in order.
	Commands []PlannedCommand `json:"commands,omitempty"`
}

// PlannedCommand is one process of a [Plan].
type PlannedCommand struct {
	Argv   []string `json:"argv"`
	Binary string   `json:"binary,omitempty"` // resolved absolute path
	Dir    string   `json:"dir,omitempty"`
	Env    []string `json:"env,omitempty"` // names only; values are never shown
}

// Result is the outcome of a call as the model sees it.
type Result struct {
	Success bool   `json:"success"`
	Output  Output `json:"output"`
	// Error is the failure text for a failed result.
	Error string `json:"error,omitempty"`
	// Denied is set on a failed result that policy or a person refused;
	// nothing ran.
	Denied bool `json:"denied,omitempty"`
	// Pending is the id of the approval the call waits for, on a failed
	// result returned without waiting for it ([approvals] wait = false):
	// nothing ran yet.
	Pending string `json:"pending,omitempty"`
	// Receipt is the signed record of a successful execution; nil for every
	// other outcome, and when receipts are disabled.
	Receipt *receipts.Receipt `json:"receipt,omitempty"`
}

// Output is a successful call's payload.
type Output struct {
	Text string `json:"text"`
	Data any    `json:"data,omitempty"`
}

// NoOutput is the text of a successful call that printed nothing.
const NoOutput = "(no output)"

// Text is a successful result carrying text.
func Text(s string) Result { return Result{Success: true, Output: Output{Text: s}} }

// Failure is a failed result with the given message.
func Failure(format string, a ...any) Result {
	return Result{Error: fmt.Sprintf(format, a...)}
}

// Normalize applies the rules every result follows, whatever its source:
// a Go error becomes a failed result that names the tool, a failed result
// always has error text, and empty successful text becomes [NoOutput].
func Normalize(name string, r Result, err error) Result {
	if err != nil {
		return Result{Error: fmt.Sprintf("tool %s failed: %v", name, err)}
	}
	if !r.Success {
		if strings.TrimSpace(r.Error) == "" {
			r.Error = fmt.Sprintf("tool %s failed without saying why", name)
		}
		return r
	}
	r.Error = ""
	if strings.TrimSpace(r.Output.Text) == "" && r.Output.Data == nil {
		r.Output.Text = NoOutput
	}
	return r
}

// Channels a call can arrive on.
const (
	ChannelCLI  = "cli"
	ChannelMCP  = "mcp"
	ChannelCron = "cron"
	ChannelAPI  = "api"
)

// Call is one request to run a tool.
type Call struct {
	Name string
	// Args is the JSON arguments; "" and null mean {}.
	Args json.RawMessage
	// Channel is where the call came from (ChannelCLI, ChannelMCP, ...);
	// empty means ChannelAPI.
	Channel string
	// Profile names the risk profile; empty means "default".
	Profile string
	// CallerAllowlist, when non-nil, narrows the tools this caller may use
	// to exactly these names (a cron job, a delegated agent).
	CallerAllowlist []string
	// SessionID groups calls of one conversation or connection.
	SessionID string
}

var nameRE = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// ValidateName reports whether name may be shown to a model.
func ValidateName(name string) error {
	if nameRE.MatchString(name) {
		return nil
	}
	if len(name) > 64 {
		return fmt.Errorf("tool name %q is %d characters long; the limit is 64: choose a shorter name", name, len(name))
	}
	return fmt.Errorf("tool name %q must match ^[a-zA-Z0-9_-]{1,64}$: use letters, digits, '_' and '-' only", name)
}

// SanitizeName maps every character outside [a-zA-Z0-9_-] to '_', for names
// derived from operator or server input ("tool__my.tool" -> "tool__my_tool").
// It never truncates: the result may still fail [ValidateName] on length.
func SanitizeName(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}

type approvedPlanKey struct{}

// WithApprovedPlan records the plan a person approved, so the tool can refuse
// to run anything else.
func WithApprovedPlan(ctx context.Context, p *Plan) context.Context {
	return context.WithValue(ctx, approvedPlanKey{}, p)
}

// ApprovedPlan returns the plan recorded by [WithApprovedPlan], or nil when
// the call was not approved by a person (it was allowed outright).
func ApprovedPlan(ctx context.Context) *Plan {
	p, _ := ctx.Value(approvedPlanKey{}).(*Plan)
	return p
}

// Profiled is implemented by tools whose analysis depends on the caller's
// risk profile, such as the shell's command allowlist. The runtime calls
// ForProfile once per profile and catalog snapshot, and sends that
// profile's calls to the returned tool.
type Profiled interface {
	ForProfile(p ProfileSettings) (Tool, error)
}

// ProfileSettings are the parts of a risk profile a [Profiled] tool needs.
type ProfileSettings struct {
	Name                string
	AllowedCommands     []string
	ShellEnvPassthrough []string
	ForbiddenPaths      []string
}

type callKey struct{}

// WithCall records the call being executed in its context, so a tool can
// see which session, profile and channel it serves.
func WithCall(ctx context.Context, c Call) context.Context {
	return context.WithValue(ctx, callKey{}, c)
}

// CallFrom returns the call recorded by [WithCall].
func CallFrom(ctx context.Context) (Call, bool) {
	c, ok := ctx.Value(callKey{}).(Call)
	return c, ok
}
