package instpool

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

var (
	errBusy   = errors.New("busy")
	errClosed = errors.New("closed")
)

// counter makes numbered instances and records which were closed.
type counter struct {
	mu     sync.Mutex
	next   int
	closed []int
	fail   bool
}

func (c *counter) pool(max int, idle time.Duration) *Pool[int] {
	return New(Options[int]{Max: max, IdleTimeout: idle, ErrBusy: errBusy, ErrClosed: errClosed,
		New: func(context.Context) (int, error) {
			c.mu.Lock()
			defer c.mu.Unlock()
			if c.fail {
				return 0, errors.New("cannot make")
			}
			c.next++
			return c.next, nil
		},
		Close: func(i int, _ context.Context) {
			c.mu.Lock()
			defer c.mu.Unlock()
			c.closed = append(c.closed, i)
		},
	})
}

func (c *counter) closedCount() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.closed)
}

func TestAcquireReuseAndBound(t *testing.T) {
	var c counter
	p := c.pool(2, 0)
	ctx := context.Background()
	a, _ := p.Acquire(ctx)
	b, _ := p.Acquire(ctx)
	short, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
	defer cancel()
	if _, err := p.Acquire(short); !errors.Is(err, errBusy) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("third acquire of two slots: %v, want busy and the context's error", err)
	}
	p.Release(ctx, a, true)
	p.Release(ctx, b, false)
	if idle, inUse := p.Stats(); idle != 1 || inUse != 0 {
		t.Fatalf("after releasing one kept and one not: idle %d, in use %d", idle, inUse)
	}
	if got, _ := p.Acquire(ctx); got != a {
		t.Fatalf("acquire returned %d, want the idle instance %d", got, a)
	}
	if p.Created() != 2 || c.closedCount() != 1 {
		t.Fatalf("created %d, closed %d; want 2 and 1", p.Created(), c.closedCount())
	}
}

func TestMakeFailureFreesTheSlot(t *testing.T) {
	c := counter{fail: true}
	p := c.pool(1, 0)
	for range 3 {
		if _, err := p.Acquire(context.Background()); err == nil || errors.Is(err, errBusy) {
			t.Fatalf("acquire with a failing New: %v, want its error", err)
		}
	}
	if _, inUse := p.Stats(); inUse != 0 || c.closedCount() != 0 {
		t.Fatalf("in use %d, closed %d after failures; want 0 and 0", inUse, c.closedCount())
	}
}

func TestIdleInstancesAreClosed(t *testing.T) {
	var c counter
	reaped := make(chan int, 1)
	p := c.pool(2, 20*time.Millisecond)
	p.AfterReap = func(left int) { reaped <- left }
	ctx := context.Background()
	a, _ := p.Acquire(ctx)
	p.Release(ctx, a, true)
	if left := <-reaped; left != 0 {
		t.Fatalf("after the reaper: %d idle left, want 0", left)
	}
	if idle, inUse := p.Stats(); idle != 0 || inUse != 0 || c.closedCount() != 1 {
		t.Fatalf("idle %d, in use %d, closed %d; want 0, 0, 1", idle, inUse, c.closedCount())
	}
}

func TestShutdownWaitsForInstancesInUse(t *testing.T) {
	var c counter
	p := c.pool(2, 0)
	ctx := context.Background()
	a, _ := p.Acquire(ctx)
	b, _ := p.Acquire(ctx)
	p.Release(ctx, a, true)
	drained := make(chan struct{})
	p.Shutdown(ctx, func() { close(drained) })
	select {
	case <-drained:
		t.Fatal("drained with an instance still in use")
	default:
	}
	if _, err := p.Acquire(ctx); !errors.Is(err, errClosed) {
		t.Fatalf("acquire after shutdown: %v, want closed", err)
	}
	p.Release(ctx, b, true) // a closed pool closes what comes back
	<-drained
	if c.closedCount() != 2 {
		t.Fatalf("closed %d instances, want 2", c.closedCount())
	}
}
