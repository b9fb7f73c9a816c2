package plugins

import (
	"context"
	"sort"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/talonhq/talon/tool"
)

// Pooled is a [Loaded] plugin that keeps instances warm (a WASM
// plugin's pool), for the plugin pool size metrics.
type Pooled interface {
	// PoolSize is how many instances are idle and how many run a call.
	PoolSize() (idle, inUse int)
}

// Pool is one plugin's pool, as [Set.Pools] reports it.
type Pool struct {
	Attribution string // "<kind>.<plugin>"
	Idle, InUse int
}

// Pools returns the pool sizes of the loaded plugins that keep one,
// by attribution.
func (s *Set) Pools() []Pool {
	var out []Pool
	for i, l := range s.loaded {
		p, ok := l.(Pooled)
		if !ok || i >= len(s.Plugins) {
			continue
		}
		idle, inUse := p.PoolSize()
		r := s.Plugins[i]
		out = append(out, Pool{Attribution: string(r.Manifest.Kind) + "." + r.Name, Idle: idle, InUse: inUse})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Attribution < out[j].Attribution })
	return out
}

// startSpan starts a span for a plugin call when the call it serves is
// traced (its context carries a recording span); otherwise it costs one
// context lookup. The span is ended with the call's outcome.
func startSpan(ctx context.Context, spec tool.Spec) (context.Context, func(tool.Result, error)) {
	if !trace.SpanFromContext(ctx).IsRecording() {
		return ctx, func(tool.Result, error) {}
	}
	ctx, span := otel.Tracer("github.com/talonhq/talon/plugins").Start(ctx, "plugin_call "+spec.Name,
		trace.WithAttributes(attribute.String("talon.tool", spec.Name), attribute.String("talon.attribution", spec.Attribution.String()),
			attribute.String("talon.plugin.kind", string(spec.Attribution.Kind))))
	return ctx, func(res tool.Result, err error) {
		if err != nil || !res.Success {
			span.SetStatus(codes.Error, "the plugin call failed")
		}
		span.End()
	}
}
