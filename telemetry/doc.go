// Package telemetry makes OpenTelemetry spans and metrics of talon's
// calls: a span per tool call (tool, attribution, tier, decision,
// outcome, duration, profile, channel, session, receipt id; never
// arguments or results) with a child span for an approval wait, and
// metrics of calls by tool, decision and outcome, their latency, approval
// waits and whatever talon serve registers (pending approvals, receipt
// shipping lag, plugin pool sizes). Spans and metrics go out through the
// OTLP/HTTP exporters of go.opentelemetry.io/otel when the standard
// OTEL_* variables ask for it, and metrics are always served in the
// Prometheus text format by [Telemetry.Handler] (talon serve's /metrics).
//
//	t, err := telemetry.New(ctx, telemetry.Options{Version: version})
//	if err != nil {
//		return err
//	}
//	defer t.Shutdown(context.Background())
//	rt, err := runtime.New(runtime.Options{Observer: t.Observer(), ...})
//	mux.Handle("/metrics", access(t.Handler()))
//
// # Notes
//
// Nothing here is set up unless talon serve calls New: other commands pay
// nothing for it. A span or a metric never waits for the network: spans
// are exported in batches from a goroutine of their own, metrics are read
// when collected.
package telemetry
