package wasm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/rs/zerolog"
	"github.com/tetratelabs/wazero"

	"github.com/talonhq/talon/netguard"
	"github.com/talonhq/talon/plugins"
	"github.com/talonhq/talon/plugins/internal/instpool"
	"github.com/talonhq/talon/plugins/manifest"
	"github.com/talonhq/talon/tool"
	"github.com/talonhq/talon/workspace"
)

// plugin is one loaded WASM plugin: its module, grants and pool of
// instances, and once its module is compiled (see prepare) its runtime.
type plugin struct {
	reclaim   *reclaimer
	attr      tool.Attribution
	name      string
	log       zerolog.Logger
	module    module
	limits    manifest.Limits
	enforce   bool
	maxOutput int
	grants    manifest.Grants
	workspace string
	protected workspace.Protected // what the file host functions refuse
	guard     *netguard.Guard
	secret    func(string) (string, bool)
	maxCalls  int
	pool      *instpool.Pool[*instance]
	tools     []tool.Tool

	// Set once by prepare, under prepMu; read by instances after it.
	prepMu   sync.Mutex
	prepErr  error
	rt       wazero.Runtime
	compiled wazero.CompiledModule
	needs    moduleNeeds

	closeOnce sync.Once

	// configRead is the manifest's permissions.config_read: a key there
	// that the operator did not set is "not set", any other "not granted".
	configRead []string
}

var _ plugins.Loaded = (*plugin)(nil)

// Tools implements plugins.Loaded.
func (p *plugin) Tools() []tool.Tool { return append([]tool.Tool(nil), p.tools...) }

// Close implements plugins.Loaded: idle instances are closed now, the
// runtime once the last call in flight returns.
func (p *plugin) Close(ctx context.Context) error {
	p.close(ctx)
	return nil
}

func (p *plugin) close(ctx context.Context) {
	p.closeOnce.Do(func() {
		p.pool.Shutdown(ctx, func() {
			p.prepMu.Lock()
			rt := p.rt
			p.prepMu.Unlock()
			if rt == nil {
				p.guard.CloseIdleConnections()
				return
			}
			if err := rt.Close(context.WithoutCancel(ctx)); err != nil {
				p.log.Warn().Str("attribution", p.attr.String()).Err(err).Msg("close the wasm runtime")
			}
			p.guard.CloseIdleConnections()
		})
	})
}

// wasmTool is one tool of a plugin.
type wasmTool struct {
	p *plugin
	d describedTool
}

var _ tool.Tool = (*wasmTool)(nil)

// Spec implements tool.Tool.
func (t *wasmTool) Spec() tool.Spec {
	return tool.Spec{
		Name:        t.d.Name,
		Description: t.d.Description,
		Input:       t.d.Input,
		Tier:        t.d.Tier,
		Attribution: t.p.attr,
	}
}

// Execute implements tool.Tool. Everything the guest does wrong (a trap,
// a timeout, a bad pointer, oversized or malformed output) is a failed
// result naming the plugin; only the caller's own cancellation or
// deadline is an error.
func (t *wasmTool) Execute(ctx context.Context, args json.RawMessage) (tool.Result, error) {
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage(`{}`)
	}
	doc, err := json.Marshal(callDoc{Name: t.d.Name, Arguments: args})
	if err != nil {
		return tool.Result{}, fmt.Errorf("%s: encode the arguments: %w", t.p.attr, err)
	}
	start := time.Now()
	res, err := t.p.run(ctx, t.d.Name, doc)
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			// The caller's own cancellation or deadline, not the plugin's.
			return tool.Result{}, fmt.Errorf("%s: %s: %w", t.p.attr, t.d.Name, cerr)
		}
		t.p.log.Warn().Str("attribution", t.p.attr.String()).Str("tool", t.d.Name).Dur("took", time.Since(start)).Err(err).Msg("wasm call failed")
		return tool.Result{Error: fmt.Sprintf("%s: %s: %v", t.p.attr, t.d.Name, err)}, nil
	}
	if !res.Success {
		if res.Error == "" {
			res.Error = "failed without saying why"
		}
		res.Error = fmt.Sprintf("%s: %s: %s", t.p.attr, t.d.Name, res.Error)
	}
	return res, nil
}

// run sends one call document to a pooled instance under the plugin's
// deadline and returns the decoded response.
func (p *plugin) run(ctx context.Context, name string, doc []byte) (tool.Result, error) {
	ctx, cancel := context.WithTimeout(ctx, p.limits.Timeout())
	defer cancel()
	inst, err := p.pool.Acquire(ctx)
	if err != nil {
		if ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return tool.Result{}, fmt.Errorf("%w waiting for an instance: %w", ErrTimeout, err)
		}
		return tool.Result{}, err
	}
	st := &callState{p: p, inst: inst, tool: name, inCall: true}
	if p.enforce {
		out, err := p.invoke(ctx, st, doc)
		p.finish(ctx, inst, err)
		return out, err
	}
	// Without enforcement nothing stops the guest between two instructions,
	// so the call runs to its end on the caller's goroutine: handing it to
	// another goroutine, so the caller could leave at the deadline, cost
	// 40-60% of a small call. Once the deadline passes, host functions
	// refuse (a guest that calls the host stops there), and a call that ran
	// past it is a timeout whose instance is quarantined: closed, never
	// reused.
	stop := context.AfterFunc(ctx, st.abandon)
	out, err := p.invoke(ctx, st, doc)
	stop()
	if cerr := ctx.Err(); cerr != nil {
		p.log.Warn().Str("attribution", p.attr.String()).Str("tool", name).Msg("a call overran its deadline; its instance was quarantined")
		p.pool.Release(context.WithoutCancel(ctx), inst, false)
		if errors.Is(cerr, context.DeadlineExceeded) {
			return tool.Result{}, fmt.Errorf("%w after %s (limits.timeout_ms); the instance was quarantined", ErrTimeout, p.limits.Timeout())
		}
		return tool.Result{}, cerr
	}
	p.finish(ctx, inst, err)
	return out, err
}

// invoke runs one call on st's instance and decodes the response; a
// response that does not decode is an error, so the instance is dropped.
func (p *plugin) invoke(ctx context.Context, st *callState, doc []byte) (tool.Result, error) {
	ctx = withState(ctx, st)
	out, err := st.inst.invoke(ctx, doc, p.maxOutput)
	st.end()
	if err != nil {
		return tool.Result{}, p.guestError(ctx, exportCall, err)
	}
	return decodeResult(out)
}

// finish returns inst to the pool after a call, or discards it after any
// error (trap, timeout, cancellation, bad response), after N calls or
// after its memory grew.
func (p *plugin) finish(ctx context.Context, inst *instance, err error) {
	inst.out.Flush()
	inst.calls++
	keep := err == nil && inst.calls < p.maxCalls && !inst.grown()
	if err != nil {
		p.log.Debug().Str("attribution", p.attr.String()).Err(err).Msg("instance discarded")
	}
	p.pool.Release(ctx, inst, keep)
}
