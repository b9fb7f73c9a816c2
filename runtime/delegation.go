package runtime

import (
	"context"
	"slices"
	"sync"

	"github.com/talonhq/talon/receipts"
	"github.com/talonhq/talon/tool"
)

// frame is one execution in progress. A tool that calls other tools
// through the runtime (a subagent, a scheduler) passes on the context it
// was given, so the calls it makes find its frame: the receipts they earn
// are listed in its receipt, and an approval they need shows the agents
// they run inside.
type frame struct {
	rt     *Runtime
	parent *frame
	// agent is the alias of an agent tool ("researcher"), "" for others.
	agent string

	mu         sync.Mutex
	inner      []string // ids of the receipts issued inside, in order
	delegation *Delegation
}

type frameKey struct{}

// enter starts the frame of an authorized call.
func (r *Runtime) enter(ctx context.Context, p *prepared) (context.Context, *frame) {
	f := &frame{rt: r, parent: frameFrom(ctx)}
	if a := p.entry.Spec.Attribution; a.Kind == tool.KindAgent {
		f.agent = a.Alias
	}
	return context.WithValue(ctx, frameKey{}, f), f
}

func frameFrom(ctx context.Context) *frame {
	f, _ := ctx.Value(frameKey{}).(*frame)
	return f
}

// addInner records the receipt of a call made inside f.
func (f *frame) addInner(id string) {
	if f == nil {
		return
	}
	f.mu.Lock()
	f.inner = append(f.inner, id)
	f.mu.Unlock()
}

// FromContext returns the runtime executing the tool whose context ctx is
// (or derives from), or nil outside an execution. A tool that runs other
// tools uses it to send them through the same pipeline, catalog and
// approver as its own call.
func FromContext(ctx context.Context) *Runtime {
	if f := frameFrom(ctx); f != nil {
		return f.rt
	}
	return nil
}

// DelegationPath returns the agents a call with context ctx runs inside,
// outermost first: inside agent__researcher, which agent__orchestrator
// called, it is ["orchestrator", "researcher"]. It is empty for a call
// the caller made itself. Approvers show it, and an agent counts it to
// refuse nesting beyond its limit.
func DelegationPath(ctx context.Context) []string {
	var path []string
	for f := frameFrom(ctx); f != nil; f = f.parent {
		if f.agent != "" {
			path = append(path, f.agent)
		}
	}
	slices.Reverse(path)
	return path
}

// Delegation is what a tool that ran a model loop reports about it, for
// the receipt of its call.
type Delegation struct {
	// Model names the model: "<[models] name>/<model id>".
	Model        string
	Rounds       int
	InputTokens  int64
	OutputTokens int64
}

// RecordDelegation attaches d to the call with context ctx, whose receipt
// (if the call succeeds) records it next to the receipts of the calls made
// inside. It does nothing outside an execution.
func RecordDelegation(ctx context.Context, d Delegation) {
	f := frameFrom(ctx)
	if f == nil {
		return
	}
	f.mu.Lock()
	f.delegation = &d
	f.mu.Unlock()
}

// receiptDelegation is what the receipt of f's call records about the
// calls made inside it; nil when there were none and nothing was
// reported.
func (f *frame) receiptDelegation() *receipts.Delegation {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.delegation == nil && len(f.inner) == 0 {
		return nil
	}
	d := &receipts.Delegation{Inner: slices.Clone(f.inner)}
	if r := f.delegation; r != nil {
		d.Model, d.Rounds, d.InputTokens, d.OutputTokens = r.Model, r.Rounds, r.InputTokens, r.OutputTokens
	}
	if d.Model == "" && d.Rounds == 0 && d.InputTokens == 0 && d.OutputTokens == 0 && len(d.Inner) == 0 {
		return nil
	}
	return d
}
