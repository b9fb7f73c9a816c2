package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/runtime"
	"github.com/talonhq/talon/tool"
)

// queuedGate returns a gate whose queuedHook reports each call that got in
// line.
func queuedGate(max, queued int, wait time.Duration) (*gate, <-chan struct{}) {
	g := newGate(max, queued, wait)
	ch := make(chan struct{}, 1024)
	g.queuedHook = func() { ch <- struct{}{} }
	return g, ch
}

func checkIdle(t *testing.T, g *gate) {
	t.Helper()
	if running, waiting := g.stats(); running != 0 || waiting != 0 {
		t.Fatalf("after every call: %d running, %d waiting; want none", running, waiting)
	}
}

// Calls beyond the limit get their slots in the order they arrived.
func TestGateOrder(t *testing.T) {
	g, inLine := queuedGate(1, 100, 0)
	if err := g.acquire(context.Background()); err != nil {
		t.Fatal(err)
	}
	const n = 20
	got := make(chan int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := g.acquire(context.Background()); err != nil {
				t.Error(err)
				return
			}
			got <- i
		}()
		<-inLine // the next caller arrives after this one is in line
	}
	for want := range n {
		g.release()
		if i := <-got; i != want {
			t.Fatalf("slot %d went to caller %d", want, i)
		}
	}
	g.release()
	wg.Wait()
	checkIdle(t, g)
}

// The line is bounded: beyond it a call is refused at once, and a place
// that frees up can be taken again.
func TestGateBounds(t *testing.T) {
	tests := []struct {
		name        string
		max, queued int
		wantRunning int
		wantQueued  int
	}{
		{name: "no line", max: 2, queued: 0, wantRunning: 2},
		{name: "short line", max: 2, queued: 3, wantRunning: 2, wantQueued: 3},
		{name: "one slot", max: 1, queued: 1, wantRunning: 1, wantQueued: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, inLine := queuedGate(tt.max, tt.queued, 0)
			for range tt.wantRunning {
				if err := g.acquire(context.Background()); err != nil {
					t.Fatal(err)
				}
			}
			ctx, cancel := context.WithCancel(context.Background())
			errs := make(chan error, tt.wantQueued)
			for range tt.wantQueued {
				go func() { errs <- g.acquire(ctx) }()
				<-inLine
			}
			if running, waiting := g.stats(); running != tt.wantRunning || waiting != tt.wantQueued {
				t.Fatalf("%d running, %d waiting", running, waiting)
			}
			if err := g.acquire(context.Background()); !errors.Is(err, errQueueFull) {
				t.Fatalf("a call beyond the line: %v, want %v", err, errQueueFull)
			}
			cancel()
			for range tt.wantQueued {
				if err := <-errs; !errors.Is(err, context.Canceled) {
					t.Fatalf("a cancelled waiter: %v", err)
				}
			}
			if tt.queued > 0 {
				// The places are free again: a new caller gets in line,
				// and takes the slot released first.
				go func() { errs <- g.acquire(context.Background()) }()
				<-inLine
				g.release()
				if err := <-errs; err != nil {
					t.Fatal(err)
				}
			}
			for range tt.wantRunning {
				g.release()
			}
			checkIdle(t, g)
		})
	}
}

// A call that waits longer than the gate's wait is refused as busy.
func TestGateWait(t *testing.T) {
	g := newGate(1, 10, 20*time.Millisecond)
	if err := g.acquire(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := g.acquire(context.Background()); !errors.Is(err, errQueueWait) {
		t.Fatalf("got %v, want %v", err, errQueueWait)
	}
	g.release()
	checkIdle(t, g)
}

// A call cancelled while it waits leaves the line without taking a slot:
// the callers behind it move up, and the slots all come back.
func TestGateCancelWhileQueued(t *testing.T) {
	g, inLine := queuedGate(1, 10, 0)
	if err := g.acquire(context.Background()); err != nil {
		t.Fatal(err)
	}
	type result struct {
		i   int
		err error
	}
	results := make(chan result, 3)
	ctxs := make([]context.CancelFunc, 3)
	for i := range 3 {
		ctx, cancel := context.WithCancel(context.Background())
		ctxs[i] = cancel
		go func() { results <- result{i, g.acquire(ctx)} }()
		<-inLine
	}
	ctxs[1]() // the middle one gives up
	if r := <-results; r.i != 1 || !errors.Is(r.err, context.Canceled) {
		t.Fatalf("got %+v, want caller 1 cancelled", r)
	}
	if _, waiting := g.stats(); waiting != 2 {
		t.Fatalf("%d waiting after a cancellation, want 2", waiting)
	}
	for _, want := range []int{0, 2} {
		g.release()
		if r := <-results; r.i != want || r.err != nil {
			t.Fatalf("got %+v, want caller %d with a slot", r, want)
		}
	}
	g.release()
	for _, c := range ctxs {
		c()
	}
	checkIdle(t, g)
}

// Cancellations racing with releases never lose or duplicate a slot.
func TestGateCancelRacesRelease(t *testing.T) {
	g := newGate(3, 1000, 0)
	var wg sync.WaitGroup
	for i := range 400 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if i%3 == 0 {
				go cancel()
			}
			if err := g.acquire(ctx); err == nil {
				g.release()
			}
		}()
	}
	wg.Wait()
	checkIdle(t, g)
}

// Closing refuses the waiting calls and later ones, not the running ones.
func TestGateClose(t *testing.T) {
	g, inLine := queuedGate(1, 10, 0)
	if err := g.acquire(context.Background()); err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 2)
	for range 2 {
		go func() { errs <- g.acquire(context.Background()) }()
		<-inLine
	}
	g.close(errDraining)
	for range 2 {
		if err := <-errs; !errors.Is(err, ErrShuttingDown) {
			t.Fatalf("a waiting call at close: %v", err)
		}
	}
	if err := g.acquire(context.Background()); !errors.Is(err, ErrShuttingDown) {
		t.Fatalf("a call after close: %v", err)
	}
	g.release()
	checkIdle(t, g)
}

// blockTool runs until release is closed, telling entered each time a
// call starts.
type blockTool struct {
	entered chan struct{}
	release chan struct{}
}

func (blockTool) Spec() tool.Spec {
	return tool.Spec{
		Name: "block", Description: "Wait.", Tier: tool.Low, Input: json.RawMessage(`{"type":"object"}`),
		Attribution: tool.Attribution{Kind: tool.KindCommand, Alias: "block"},
	}
}

func (b blockTool) Execute(ctx context.Context, _ json.RawMessage) (tool.Result, error) {
	b.entered <- struct{}{}
	select {
	case <-b.release:
		return tool.Text("done"), nil
	case <-ctx.Done():
		return tool.Result{}, ctx.Err()
	}
}

func blockFixture(t *testing.T, o Options) (*fixture, blockTool) {
	t.Helper()
	bt := blockTool{entered: make(chan struct{}, 1024), release: make(chan struct{})}
	ws := t.TempDir()
	rt, err := runtime.New(runtime.Options{Config: config.Default(), Workspace: ws, DataDir: t.TempDir(), Tools: []tool.Tool{bt}})
	if err != nil {
		t.Fatal(err)
	}
	o.Runtime = rt
	srv, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	return &fixture{ws: ws, rt: rt, srv: srv}, bt
}

// With the default settings, 64 concurrent calls are all served: 32 run
// and 32 wait for a slot, and none is refused.
func TestSixtyFourCallsWaitNotRefused(t *testing.T) {
	f, bt := blockFixture(t, Options{})
	inLine := make(chan struct{}, 1024)
	f.srv.gate.queuedHook = func() { inLine <- struct{}{} }
	cs := f.connect(t, nil)
	const n = 64
	errs := make(chan error, n)
	for range n {
		go func() {
			res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "block", Arguments: map[string]any{}})
			if err == nil && (res.IsError || text(t, res) != "done") {
				err = fmt.Errorf("result %+v", res)
			}
			errs <- err
		}()
	}
	for range DefaultMaxInFlight {
		<-bt.entered
	}
	for range n - DefaultMaxInFlight {
		<-inLine
	}
	if running, waiting := f.srv.gate.stats(); running != DefaultMaxInFlight || waiting != n-DefaultMaxInFlight {
		t.Fatalf("%d running and %d waiting, want %d and %d", running, waiting, DefaultMaxInFlight, n-DefaultMaxInFlight)
	}
	close(bt.release)
	for range n {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	checkIdle(t, f.srv.gate)
}

// A call that waited for a slot longer than QueueWait is refused as busy,
// with a retry hint; nothing ran.
func TestQueueWaitRefusesWithAHint(t *testing.T) {
	f, bt := blockFixture(t, Options{MaxInFlight: 1, QueueWait: 20 * time.Millisecond})
	cs := f.connect(t, nil)
	first := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "block", Arguments: map[string]any{}})
		first <- err
	}()
	<-bt.entered
	_, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "block", Arguments: map[string]any{}})
	var werr *jsonrpc.Error
	if !errors.As(err, &werr) || werr.Code != CodeBusy || !strings.Contains(werr.Message, "retry") || !strings.Contains(string(werr.Data), "retryAfterMs") {
		t.Fatalf("second call = %v, want busy with a retry hint", err)
	}
	select {
	case <-bt.entered:
		t.Fatal("the refused call ran")
	default:
	}
	close(bt.release)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
}
