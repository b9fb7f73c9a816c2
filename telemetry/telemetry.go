package telemetry

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/exemplar"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/talonhq/talon/approval"
	"github.com/talonhq/talon/history"
	"github.com/talonhq/talon/runtime"
)

// ScopeName is the instrumentation scope of talon's spans and metrics.
const ScopeName = "github.com/talonhq/talon"

// Options configure [New]. Every field may be left zero.
type Options struct {
	// Getenv reads the OTEL_* variables; nil means os.Getenv. The OTLP
	// exporters read the variables that configure them (headers, TLS,
	// timeouts, compression) from the process environment themselves.
	Getenv func(string) string
	// Version is talon's version, the service.version of the resource.
	Version string
	// Attributes are added to the resource (a fleet's host id).
	Attributes map[string]string
	// Logger receives export failures. Default: the disabled logger.
	Logger zerolog.Logger
}

// Telemetry is talon's spans and metrics: an [runtime.Observer] that
// makes them of every call, the instruments behind /metrics, and, when
// the OTEL_* variables ask for it, OTLP exporters for both.
type Telemetry struct {
	log     zerolog.Logger
	tp      *sdktrace.TracerProvider // nil: no spans
	mp      *sdkmetric.MeterProvider
	reader  *sdkmetric.ManualReader
	tracer  trace.Tracer
	meter   metric.Meter
	calls   metric.Int64Counter
	latency metric.Float64Histogram
	waits   metric.Float64Histogram

	// sets caches the attribute sets of the call metrics by their
	// values, so a call builds none.
	sets sync.Map
	// Exporting says what goes out over OTLP.
	Exporting struct{ Traces, Metrics bool }
}

// Duration buckets, in seconds: calls take microseconds to minutes,
// approvals seconds to minutes.
var (
	callBuckets     = []float64{0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300}
	approvalBuckets = []float64{0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600}
)

// New sets up telemetry from the standard OTEL_* variables: spans are
// exported over OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set, or OTEL_TRACES_EXPORTER is
// otlp; metrics likewise with the METRICS variables; OTEL_SDK_DISABLED
// turns both off, and OTEL_*_EXPORTER=none one of them. Metrics are always
// kept for /metrics ([Telemetry.Handler]). It sets the global tracer
// provider when spans are exported, so that plugins' spans join the
// calls'.
//
// # Errors
//
// An exporter that cannot be made (a malformed endpoint) is an error;
// an unsupported protocol is logged and leaves that signal off.
func New(ctx context.Context, o Options) (*Telemetry, error) {
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	t := &Telemetry{log: o.Logger}
	attrs := []attribute.KeyValue{attribute.String("service.name", "talon")}
	if o.Version != "" {
		attrs = append(attrs, attribute.String("service.version", o.Version))
	}
	for k, v := range o.Attributes {
		attrs = append(attrs, attribute.String(k, v))
	}
	res, err := resource.New(ctx, resource.WithAttributes(attrs...), resource.WithFromEnv())
	if err != nil && !errors.Is(err, resource.ErrPartialResource) {
		return nil, fmt.Errorf("telemetry: resource: %w", err)
	}
	if exporting(getenv, "TRACES", t.log) {
		exp, err := otlptracehttp.New(ctx)
		if err != nil {
			return nil, fmt.Errorf("telemetry: OTLP trace exporter: %w; check OTEL_EXPORTER_OTLP_ENDPOINT", err)
		}
		t.tp = sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(newBatcher(exp, getenv)), sdktrace.WithResource(res))
		t.Exporting.Traces = true
		otel.SetTracerProvider(t.tp)
	}
	t.reader = sdkmetric.NewManualReader()
	mopts := []sdkmetric.Option{sdkmetric.WithResource(res), sdkmetric.WithReader(t.reader)}
	if getenv("OTEL_METRICS_EXEMPLAR_FILTER") == "" {
		// Exemplars (a sampled span's id kept with a measurement) cost
		// every call a reservoir update; off unless asked for.
		mopts = append(mopts, sdkmetric.WithExemplarFilter(exemplar.AlwaysOffFilter))
	}
	if exporting(getenv, "METRICS", t.log) {
		exp, err := otlpmetrichttp.New(ctx)
		if err != nil {
			if t.tp != nil {
				_ = t.tp.Shutdown(ctx)
			}
			return nil, fmt.Errorf("telemetry: OTLP metric exporter: %w; check OTEL_EXPORTER_OTLP_ENDPOINT", err)
		}
		mopts = append(mopts, sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exp)))
		t.Exporting.Metrics = true
	}
	if t.Exporting.Traces || t.Exporting.Metrics {
		otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
			t.log.Warn().Err(err).Msg("telemetry: export failed; calls are not affected")
		}))
	}
	t.mp = sdkmetric.NewMeterProvider(mopts...)
	t.meter = t.mp.Meter(ScopeName)
	if t.tp != nil {
		t.tracer = t.tp.Tracer(ScopeName)
	}
	if t.calls, err = t.meter.Int64Counter("talon.calls", metric.WithDescription("Tool calls by tool, attribution, decision and outcome.")); err != nil {
		return nil, err
	}
	if t.latency, err = t.meter.Float64Histogram("talon.call.duration", metric.WithUnit("s"),
		metric.WithDescription("Time of a tool call through the whole pipeline, approval wait included."),
		metric.WithExplicitBucketBoundaries(callBuckets...)); err != nil {
		return nil, err
	}
	if t.waits, err = t.meter.Float64Histogram("talon.approval.wait", metric.WithUnit("s"),
		metric.WithDescription("Time a call waited for a person's answer, by tool and answer."),
		metric.WithExplicitBucketBoundaries(approvalBuckets...)); err != nil {
		return nil, err
	}
	return t, nil
}

// exporting reads whether one signal goes out over OTLP.
func exporting(getenv func(string) string, signal string, log zerolog.Logger) bool {
	if strings.EqualFold(strings.TrimSpace(getenv("OTEL_SDK_DISABLED")), "true") {
		return false
	}
	switch exp := strings.TrimSpace(getenv("OTEL_" + signal + "_EXPORTER")); exp {
	case "none":
		return false
	case "", "otlp":
		if exp == "" && getenv("OTEL_EXPORTER_OTLP_ENDPOINT") == "" && getenv("OTEL_EXPORTER_OTLP_"+signal+"_ENDPOINT") == "" {
			return false
		}
	default:
		log.Warn().Str("exporter", exp).Msgf("telemetry: OTEL_%s_EXPORTER=%s is not supported; talon exports otlp only, so %s are not exported", signal, exp, strings.ToLower(signal))
		return false
	}
	proto := getenv("OTEL_EXPORTER_OTLP_" + signal + "_PROTOCOL")
	if proto == "" {
		proto = getenv("OTEL_EXPORTER_OTLP_PROTOCOL")
	}
	if proto != "" && proto != "http/protobuf" {
		log.Warn().Str("protocol", proto).Msgf("telemetry: talon exports OTLP over HTTP (http/protobuf), not %s; %s are not exported: set OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf and the collector's HTTP endpoint (port 4318)", proto, strings.ToLower(signal))
		return false
	}
	return true
}

// Flush exports the spans that wait for their batch now.
func (t *Telemetry) Flush(ctx context.Context) error {
	if t.tp == nil {
		return nil
	}
	return t.tp.ForceFlush(ctx)
}

// Shutdown flushes what waits for export and stops the exporters.
func (t *Telemetry) Shutdown(ctx context.Context) error {
	var errs []error
	if t.tp != nil {
		errs = append(errs, t.tp.Shutdown(ctx))
	}
	errs = append(errs, t.mp.Shutdown(ctx))
	return errors.Join(errs...)
}

// Gauge registers a value read at each collection (a scrape of /metrics,
// an OTLP export): fn reports one value per set of labels, given as
// key, value pairs.
func (t *Telemetry) Gauge(name, unit, description string, fn func(report func(v float64, labels ...string))) error {
	_, err := t.meter.Float64ObservableGauge(name, metric.WithUnit(unit), metric.WithDescription(description),
		metric.WithFloat64Callback(func(_ context.Context, o metric.Float64Observer) error {
			fn(func(v float64, labels ...string) { o.Observe(v, metric.WithAttributes(pairs(labels)...)) })
			return nil
		}))
	return err
}

// Counter registers a count that only grows, read at each collection.
func (t *Telemetry) Counter(name, unit, description string, fn func() int64) error {
	_, err := t.meter.Int64ObservableCounter(name, metric.WithUnit(unit), metric.WithDescription(description),
		metric.WithInt64Callback(func(_ context.Context, o metric.Int64Observer) error {
			o.Observe(fn())
			return nil
		}))
	return err
}

func pairs(labels []string) []attribute.KeyValue {
	out := make([]attribute.KeyValue, 0, len(labels)/2)
	for i := 0; i+1 < len(labels); i += 2 {
		out = append(out, attribute.String(labels[i], labels[i+1]))
	}
	return out
}

// Observer returns the runtime observer that makes spans and metrics of
// every call.
func (t *Telemetry) Observer() runtime.Observer { return observer{t} }

type observer struct{ t *Telemetry }

var _ runtime.Observer = observer{}

// CallStarted starts the call's span when spans are exported.
func (o observer) CallStarted(ctx context.Context, name string) context.Context {
	if o.t.tracer == nil {
		return ctx
	}
	ctx, _ = o.t.tracer.Start(ctx, "execute_tool "+name, trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithAttributes(attribute.String("gen_ai.operation.name", "execute_tool"), attribute.String("gen_ai.tool.name", name)))
	return ctx
}

// callKey is what the call metrics are broken down by.
type callKey struct{ tool, attribution, decision, outcome string }

type callSets struct{ count, duration metric.MeasurementOption }

// CallEnded counts the call, records its duration and ends its span with
// what the call came to; never its arguments or result.
func (o observer) CallEnded(ctx context.Context, rec history.Record) {
	t := o.t
	k := callKey{rec.Tool, rec.Attribution, rec.Decision, rec.Outcome}
	v, ok := t.sets.Load(k)
	if !ok {
		v, _ = t.sets.LoadOrStore(k, callSets{
			count: metric.WithAttributeSet(attribute.NewSet(attribute.String("tool", k.tool), attribute.String("attribution", k.attribution),
				attribute.String("decision", k.decision), attribute.String("outcome", k.outcome))),
			duration: metric.WithAttributeSet(attribute.NewSet(attribute.String("tool", k.tool), attribute.String("outcome", k.outcome))),
		})
	}
	sets := v.(callSets)
	t.calls.Add(ctx, 1, sets.count)
	t.latency.Record(ctx, rec.Duration.Seconds(), sets.duration)
	span := trace.SpanFromContext(ctx)
	if !span.IsRecording() {
		return
	}
	span.SetAttributes(
		attribute.String("talon.tool", rec.Tool),
		attribute.String("talon.attribution", rec.Attribution),
		attribute.String("talon.tier", rec.Tier),
		attribute.String("talon.decision", rec.Decision),
		attribute.String("talon.outcome", rec.Outcome),
		attribute.Int64("talon.duration_ms", rec.Duration.Milliseconds()),
		attribute.String("talon.profile", rec.Profile),
		attribute.String("talon.channel", rec.Channel),
		attribute.String("talon.session", rec.Session),
	)
	if rec.ReceiptID != "" {
		span.SetAttributes(attribute.String("talon.receipt_id", rec.ReceiptID))
	}
	switch rec.Outcome {
	case history.OutcomeSuccess:
		span.SetStatus(codes.Ok, "")
	case history.OutcomeFailed, runtime.OutcomeError:
		span.SetStatus(codes.Error, rec.Outcome)
	}
	span.End()
}

// ApprovalStarted starts a span for the wait and records how long it
// lasted, by answer.
func (o observer) ApprovalStarted(ctx context.Context, req approval.Request) (context.Context, func(string)) {
	start := time.Now()
	var span trace.Span
	if o.t.tracer != nil {
		ctx, span = o.t.tracer.Start(ctx, "approval_wait "+req.Tool, trace.WithAttributes(
			attribute.String("talon.tool", req.Tool), attribute.String("talon.tier", req.Tier.String()),
			attribute.String("talon.channel", req.Channel), attribute.String("talon.session", req.SessionID)))
	}
	return ctx, func(answer string) {
		o.t.waits.Record(context.Background(), time.Since(start).Seconds(),
			metric.WithAttributes(attribute.String("tool", req.Tool), attribute.String("answer", answer)))
		if span != nil {
			span.SetAttributes(attribute.String("talon.answer", answer))
			span.End()
		}
	}
}
