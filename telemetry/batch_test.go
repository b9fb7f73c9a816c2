package telemetry

import (
	"context"
	"sync"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// gated is an exporter that counts what it exports and, while its gate
// is shut, holds every export.
type gated struct {
	mu       sync.Mutex
	n        int
	gate     chan struct{}
	entered  chan struct{}
	shutdown bool
}

func (g *gated) ExportSpans(_ context.Context, s []sdktrace.ReadOnlySpan) error {
	select {
	case g.entered <- struct{}{}:
	default:
	}
	<-g.gate
	g.mu.Lock()
	g.n += len(s)
	g.mu.Unlock()
	return nil
}

func (g *gated) Shutdown(context.Context) error {
	g.mu.Lock()
	g.shutdown = true
	g.mu.Unlock()
	return nil
}

func (g *gated) count() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.n
}

func TestBatcher(t *testing.T) {
	env := map[string]string{"OTEL_BSP_SCHEDULE_DELAY": "3600000", "OTEL_BSP_MAX_QUEUE_SIZE": "8", "OTEL_BSP_MAX_EXPORT_BATCH_SIZE": "4"}
	exp := &gated{gate: make(chan struct{}), entered: make(chan struct{}, 1)}
	b := newBatcher(exp, func(k string) string { return env[k] })
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(b))
	tr := tp.Tracer("test")
	end := func(n int) {
		for range n {
			_, s := tr.Start(context.Background(), "s")
			s.End()
		}
	}
	end(3)
	select {
	case <-exp.entered:
		t.Fatal("an export began before a batch was full or its time came")
	default:
	}
	end(1) // a full batch goes without waiting for the hour
	select {
	case <-exp.entered:
	case <-time.After(30 * time.Second):
		t.Fatal("a full batch was not exported")
	}
	end(20) // while that export hangs, the queue keeps 8 and drops the rest
	close(exp.gate)
	if err := tp.ForceFlush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := exp.count(); got != 4+8 {
		t.Fatalf("%d spans exported, want the first batch's 4 and the queue's 8", got)
	}
	end(2)
	if err := tp.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := exp.count(); got != 14 || !exp.shutdown {
		t.Fatalf("after shutdown %d spans exported (want 14), exporter shut down: %v", got, exp.shutdown)
	}
	end(1)
	if err := b.ForceFlush(context.Background()); err != nil || exp.count() != 14 {
		t.Fatalf("after shutdown: %v, %d spans", err, exp.count())
	}
}
