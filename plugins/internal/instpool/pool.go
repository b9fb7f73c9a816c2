// Package instpool keeps the warm instances of one WASM or Extism plugin:
// at most a fixed number alive, idle ones reused newest first and closed
// after a while without a call.
package instpool

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// Pool keeps at most max instances of one plugin: idle ones warm, the
// rest in use. A slot is held from acquire until the instance is released
// or, for an instance still running after its caller gave up, until the
// guest returns; so a plugin never has more than max instances alive. An
// instance left idle for idleTimeout is closed, so a plugin nobody calls
// holds no instance at all.
type Pool[T any] struct {
	slots       chan struct{}
	make        func(context.Context) (T, error)
	close       func(T, context.Context)
	idleTimeout time.Duration
	errBusy     error
	errClosed   error
	// AfterReap, when set, runs after each pass of the idle reaper that
	// closed instances, with how many stay idle.
	AfterReap func(left int)

	mu      sync.Mutex
	idle    []idleInstance[T] // oldest first; Acquire takes the newest
	reaper  *time.Timer       // the next pass, when instances are idle
	closed  bool
	inUse   int
	onDrain func() // run once, when closed and no instance is in use

	created atomic.Int64 // instances made so far
}

// idleInstance is an instance in the pool and when it was returned.
type idleInstance[T any] struct {
	inst  T
	since time.Time
}

// Options configure a [Pool].
type Options[T any] struct {
	// Max is how many instances may be alive at once.
	Max int
	// IdleTimeout closes an instance returned this long ago; 0 never does.
	IdleTimeout time.Duration
	// New makes an instance; Close closes one.
	New   func(context.Context) (T, error)
	Close func(T, context.Context)
	// ErrBusy is wrapped when no slot frees before the caller gives up;
	// ErrClosed is returned after Shutdown.
	ErrBusy, ErrClosed error
}

// New returns an empty pool.
func New[T any](o Options[T]) *Pool[T] {
	return &Pool[T]{slots: make(chan struct{}, o.Max), make: o.New, close: o.Close, idleTimeout: o.IdleTimeout,
		errBusy: o.ErrBusy, errClosed: o.ErrClosed}
}

// Acquire returns a warm instance, or a new one when none is idle and a
// slot is free, waiting for a slot until ctx is done.
func (p *Pool[T]) Acquire(ctx context.Context) (T, error) {
	var zero T
	select {
	case p.slots <- struct{}{}:
	case <-ctx.Done():
		return zero, fmt.Errorf("%w (limits.max_instances is %d): %w", p.errBusy, cap(p.slots), ctx.Err())
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		<-p.slots
		return zero, p.errClosed
	}
	p.inUse++
	if n := len(p.idle); n > 0 {
		inst := p.idle[n-1].inst
		p.idle[n-1] = idleInstance[T]{}
		p.idle = p.idle[:n-1]
		p.mu.Unlock()
		return inst, nil
	}
	p.mu.Unlock()
	p.created.Add(1)
	inst, err := p.make(ctx)
	if err != nil {
		p.done(ctx, inst, false)
		return zero, err
	}
	return inst, nil
}

// Release returns inst to the pool when keep is true, or closes it.
func (p *Pool[T]) Release(ctx context.Context, inst T, keep bool) {
	p.mu.Lock()
	if keep && !p.closed {
		p.idle = append(p.idle, idleInstance[T]{inst: inst, since: time.Now()})
		p.inUse--
		if p.reaper == nil && p.idleTimeout > 0 {
			p.reaper = time.AfterFunc(p.idleTimeout, p.reap)
		}
		p.mu.Unlock()
		<-p.slots
		return
	}
	p.mu.Unlock()
	p.done(ctx, inst, true)
}

// reap closes the instances idle for idleTimeout (or within a tenth of
// it, so that instances returned together go together), then schedules
// the next pass for the oldest one left. Instances being closed count as
// in use, so a shutdown waits for them before closing the runtime.
func (p *Pool[T]) reap() {
	p.mu.Lock()
	if p.closed {
		p.reaper = nil
		p.mu.Unlock()
		return
	}
	cutoff := time.Now().Add(-(p.idleTimeout - p.idleTimeout/10))
	var expired []T
	kept := p.idle[:0:0]
	for _, e := range p.idle {
		if e.since.After(cutoff) {
			kept = append(kept, e)
			continue
		}
		expired = append(expired, e.inst)
	}
	p.idle = kept
	p.inUse += len(expired)
	left := len(kept)
	p.mu.Unlock()

	for _, inst := range expired {
		p.close(inst, context.Background())
	}

	p.mu.Lock()
	p.inUse -= len(expired)
	p.reaper = nil
	if !p.closed && len(p.idle) > 0 {
		p.reaper = time.AfterFunc(time.Until(p.idle[0].since.Add(p.idleTimeout)), p.reap)
	}
	var drain func()
	if p.closed && p.inUse == 0 {
		drain, p.onDrain = p.onDrain, nil
	}
	p.mu.Unlock()
	// The report comes once the pass is over: the closed instances no
	// longer count as in use.
	if len(expired) > 0 && p.AfterReap != nil {
		p.AfterReap(left)
	}
	if drain != nil {
		drain()
	}
}

// done closes inst (when made is set), frees its slot, and finishes a
// pending shutdown when it was the last instance in use.
func (p *Pool[T]) done(ctx context.Context, inst T, made bool) {
	if made {
		p.close(inst, ctx)
	}
	p.mu.Lock()
	p.inUse--
	var drain func()
	if p.closed && p.inUse == 0 {
		drain, p.onDrain = p.onDrain, nil
	}
	p.mu.Unlock()
	<-p.slots
	if drain != nil {
		drain()
	}
}

// Stats reports idle and in-use instances.
func (p *Pool[T]) Stats() (idle, inUse int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.idle), p.inUse
}

// Shutdown closes idle instances and refuses new acquisitions. drain runs
// once no instance is in use: now, or when the last one is released.
func (p *Pool[T]) Shutdown(ctx context.Context, drain func()) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.closed = true
	if p.reaper != nil {
		p.reaper.Stop()
	}
	idle := p.idle
	p.idle = nil
	now := p.inUse == 0
	if !now {
		p.onDrain = drain
	}
	p.mu.Unlock()
	for _, e := range idle {
		p.close(e.inst, ctx)
	}
	if now && drain != nil {
		drain()
	}
}

// Created is how many instances the pool has made (or tried to make).
func (p *Pool[T]) Created() int64 { return p.created.Load() }
