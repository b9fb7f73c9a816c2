package server

import (
	"context"
	"errors"
	"sync"
	"time"
)

// gate admits tools/call requests: up to max run at once, and up to
// queued more wait for a slot in arrival order, each for at most wait.
// Beyond that a call is refused as busy. It is safe for concurrent use.
type gate struct {
	mu      sync.Mutex
	running int
	max     int
	queued  int           // bound of waiting
	wait    time.Duration // zero: no bound
	waiting []*waiter     // FIFO from head; nil where a waiter left
	head    int
	nwait   int   // waiters still in line
	closed  error // set once draining: every call is refused with it

	// queuedHook, when set (by tests), is called once a call is in line.
	queuedHook func()
}

// waiter is one call waiting for a slot. done is closed when it is given
// a slot (err nil) or refused (err set).
type waiter struct {
	done chan struct{}
	err  error
}

// errQueueFull and errQueueWait are why a call was refused as busy.
var (
	errQueueFull = errors.New("the queue is full")
	errQueueWait = errors.New("no slot came free in time")
)

func newGate(max, queued int, wait time.Duration) *gate {
	return &gate{max: max, queued: queued, wait: wait}
}

// acquire takes a slot, waiting in line for one. It returns ctx's error
// when ctx ends first, errQueueFull or errQueueWait when the call is
// refused as busy, or the error of close.
func (g *gate) acquire(ctx context.Context) error {
	g.mu.Lock()
	if g.closed != nil {
		g.mu.Unlock()
		return g.closed
	}
	if g.running < g.max && g.nwait == 0 {
		g.running++
		g.mu.Unlock()
		return nil
	}
	if g.nwait >= g.queued {
		g.mu.Unlock()
		return errQueueFull
	}
	w := &waiter{done: make(chan struct{})}
	g.waiting = append(g.waiting, w)
	g.nwait++
	hook := g.queuedHook
	g.mu.Unlock()
	if hook != nil {
		hook()
	}

	var expired <-chan time.Time
	if g.wait > 0 {
		t := time.NewTimer(g.wait)
		defer t.Stop()
		expired = t.C
	}
	var why error
	select {
	case <-w.done:
		return w.err
	case <-ctx.Done():
		why = ctx.Err()
	case <-expired:
		why = errQueueWait
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	select {
	case <-w.done:
		// Given a slot (or refused) while leaving: a slot is handed on.
		if w.err == nil {
			g.handOnLocked()
		}
		return why
	default:
	}
	g.removeLocked(w)
	return why
}

// release frees a slot taken by acquire: the first waiter, if any, gets
// it.
func (g *gate) release() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.handOnLocked()
}

func (g *gate) handOnLocked() {
	for g.head < len(g.waiting) {
		w := g.waiting[g.head]
		g.waiting[g.head] = nil
		g.head++
		if w != nil {
			g.nwait--
			g.compactLocked()
			close(w.done)
			return
		}
	}
	g.compactLocked()
	g.running--
}

// removeLocked takes w out of the line without giving it a slot.
func (g *gate) removeLocked(w *waiter) {
	for i := g.head; i < len(g.waiting); i++ {
		if g.waiting[i] == w {
			g.waiting[i] = nil
			g.nwait--
			break
		}
	}
	for g.head < len(g.waiting) && g.waiting[g.head] == nil {
		g.head++
	}
	g.compactLocked()
}

// compactLocked drops the consumed front of the line.
func (g *gate) compactLocked() {
	if g.head == len(g.waiting) {
		g.waiting, g.head = g.waiting[:0], 0
	} else if g.head > 64 && g.head*2 > len(g.waiting) {
		n := copy(g.waiting, g.waiting[g.head:])
		clear(g.waiting[n:])
		g.waiting, g.head = g.waiting[:n], 0
	}
}

// close refuses every waiting call and every later one with err; calls
// already running keep their slots.
func (g *gate) close(err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed != nil {
		return
	}
	g.closed = err
	for _, w := range g.waiting[g.head:] {
		if w != nil {
			w.err = err
			close(w.done)
		}
	}
	g.waiting, g.head, g.nwait = nil, 0, 0
}

// stats reports the slots taken and the calls waiting.
func (g *gate) stats() (running, waiting int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.running, g.nwait
}
