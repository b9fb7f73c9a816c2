package telemetry

import (
	"context"
	"strconv"
	"sync"
	"time"

	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// The OTEL_BSP_* defaults of the OpenTelemetry specification.
const (
	defaultScheduleDelay = 5 * time.Second
	defaultExportTimeout = 30 * time.Second
	defaultMaxQueue      = 2048
	defaultMaxBatch      = 512
)

// batcher is a span processor that exports ended spans in batches, as
// the SDK's batch span processor does and configured by the same OTEL_BSP_*
// variables, but that does not wake a goroutine per span: an ended span is
// appended to a slice under a lock, and the exporting goroutine wakes on
// its schedule or when a batch is full. The SDK's processor hands every
// span over a channel, which on an idle machine costs each call a thread
// wake-up, several microseconds of CPU. Spans beyond a full queue are
// dropped, as the SDK drops them.
type batcher struct {
	exp                sdktrace.SpanExporter
	delay, timeout     time.Duration
	maxQueue, maxBatch int
	mu                 sync.Mutex
	queue              []sdktrace.ReadOnlySpan
	dropped            int
	closed             bool
	full               chan struct{}
	flush              chan chan error
	stop, done         chan struct{}
	stopOnce           sync.Once
}

var _ sdktrace.SpanProcessor = (*batcher)(nil)

func newBatcher(exp sdktrace.SpanExporter, getenv func(string) string) *batcher {
	b := &batcher{
		exp:      exp,
		delay:    envMillis(getenv, "OTEL_BSP_SCHEDULE_DELAY", defaultScheduleDelay),
		timeout:  envMillis(getenv, "OTEL_BSP_EXPORT_TIMEOUT", defaultExportTimeout),
		maxQueue: envInt(getenv, "OTEL_BSP_MAX_QUEUE_SIZE", defaultMaxQueue),
		maxBatch: envInt(getenv, "OTEL_BSP_MAX_EXPORT_BATCH_SIZE", defaultMaxBatch),
		full:     make(chan struct{}, 1),
		flush:    make(chan chan error),
		stop:     make(chan struct{}),
		done:     make(chan struct{}),
	}
	b.maxBatch = min(b.maxBatch, b.maxQueue)
	go b.loop()
	return b
}

func envMillis(getenv func(string) string, k string, def time.Duration) time.Duration {
	if n, err := strconv.Atoi(getenv(k)); err == nil && n > 0 {
		return time.Duration(n) * time.Millisecond
	}
	return def
}

func envInt(getenv func(string) string, k string, def int) int {
	if n, err := strconv.Atoi(getenv(k)); err == nil && n > 0 {
		return n
	}
	return def
}

// OnStart does nothing.
func (b *batcher) OnStart(context.Context, sdktrace.ReadWriteSpan) {}

// OnEnd queues a sampled span.
func (b *batcher) OnEnd(s sdktrace.ReadOnlySpan) {
	if !s.SpanContext().IsSampled() {
		return
	}
	b.mu.Lock()
	switch {
	case b.closed:
	case len(b.queue) >= b.maxQueue:
		b.dropped++
	default:
		b.queue = append(b.queue, s)
		if len(b.queue) == b.maxBatch {
			select {
			case b.full <- struct{}{}:
			default:
			}
		}
	}
	b.mu.Unlock()
}

func (b *batcher) loop() {
	defer close(b.done)
	t := time.NewTimer(b.delay)
	defer t.Stop()
	for {
		select {
		case <-t.C:
		case <-b.full:
		case reply := <-b.flush:
			reply <- b.export()
			continue
		case <-b.stop:
			if err := b.export(); err != nil {
				otel.Handle(err)
			}
			return
		}
		if err := b.export(); err != nil {
			otel.Handle(err)
		}
		t.Reset(b.delay)
	}
}

// export sends everything queued, a batch at a time.
func (b *batcher) export() error {
	for {
		b.mu.Lock()
		n := min(len(b.queue), b.maxBatch)
		batch := make([]sdktrace.ReadOnlySpan, n)
		copy(batch, b.queue[:n])
		b.queue = append(b.queue[:0], b.queue[n:]...)
		b.mu.Unlock()
		if n == 0 {
			return nil
		}
		ctx, cancel := context.WithTimeout(context.Background(), b.timeout)
		err := b.exp.ExportSpans(ctx, batch)
		cancel()
		if err != nil {
			return err
		}
	}
}

// ForceFlush exports what is queued.
func (b *batcher) ForceFlush(ctx context.Context) error {
	reply := make(chan error, 1)
	select {
	case b.flush <- reply:
	case <-b.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case err := <-reply:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Shutdown exports what is queued and stops the exporter.
func (b *batcher) Shutdown(ctx context.Context) error {
	var err error
	b.stopOnce.Do(func() {
		b.mu.Lock()
		b.closed = true
		b.mu.Unlock()
		close(b.stop)
		select {
		case <-b.done:
		case <-ctx.Done():
			err = ctx.Err()
			return
		}
		err = b.exp.Shutdown(ctx)
	})
	return err
}
