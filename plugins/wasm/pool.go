package wasm

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// pool keeps at most max instances of one plugin: idle ones warm, the
// rest in use. A slot is held from acquire until the instance is released
// or, for an instance still running after its caller gave up, until the
// guest returns; so a plugin never has more than max instances alive. An
// instance left idle for idleTimeout is closed, so a plugin nobody calls
// holds no instance at all.
type pool struct {
	slots       chan struct{}
	make        func(context.Context) (*instance, error)
	idleTimeout time.Duration
	// afterReap runs after each pass of the idle reaper that closed
	// instances, with how many stay idle.
	afterReap func(left int)

	mu      sync.Mutex
	idle    []idleInstance // oldest first; acquire takes the newest
	reaper  *time.Timer    // the next pass, when instances are idle
	closed  bool
	inUse   int
	onDrain func() // run once, when closed and no instance is in use

	created atomic.Int64 // instances made so far
}

// idleInstance is an instance in the pool and when it was returned.
type idleInstance struct {
	inst  *instance
	since time.Time
}

func newPool(max int, idleTimeout time.Duration, newInst func(context.Context) (*instance, error)) *pool {
	return &pool{slots: make(chan struct{}, max), make: newInst, idleTimeout: idleTimeout}
}

// acquire returns a warm instance, or a new one when none is idle and a
// slot is free, waiting for a slot until ctx is done.
func (p *pool) acquire(ctx context.Context) (*instance, error) {
	select {
	case p.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("%w (limits.max_instances is %d): %w", ErrBusy, cap(p.slots), ctx.Err())
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		<-p.slots
		return nil, ErrClosed
	}
	p.inUse++
	if n := len(p.idle); n > 0 {
		inst := p.idle[n-1].inst
		p.idle[n-1] = idleInstance{}
		p.idle = p.idle[:n-1]
		p.mu.Unlock()
		return inst, nil
	}
	p.mu.Unlock()
	p.created.Add(1)
	inst, err := p.make(ctx)
	if err != nil {
		p.done(nil, ctx)
		return nil, err
	}
	return inst, nil
}

// release returns inst to the pool when keep is true, or closes it.
func (p *pool) release(ctx context.Context, inst *instance, keep bool) {
	p.mu.Lock()
	if keep && !p.closed {
		p.idle = append(p.idle, idleInstance{inst: inst, since: time.Now()})
		p.inUse--
		if p.reaper == nil && p.idleTimeout > 0 {
			p.reaper = time.AfterFunc(p.idleTimeout, p.reap)
		}
		p.mu.Unlock()
		<-p.slots
		return
	}
	p.mu.Unlock()
	p.done(inst, ctx)
}

// reap closes the instances idle for idleTimeout (or within a tenth of
// it, so that instances returned together go together), then schedules
// the next pass for the oldest one left. Instances being closed count as
// in use, so a shutdown waits for them before closing the runtime.
func (p *pool) reap() {
	p.mu.Lock()
	if p.closed {
		p.reaper = nil
		p.mu.Unlock()
		return
	}
	cutoff := time.Now().Add(-(p.idleTimeout - p.idleTimeout/10))
	var expired []*instance
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
		inst.close(context.Background())
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
	if len(expired) > 0 && p.afterReap != nil {
		p.afterReap(left)
	}
	if drain != nil {
		drain()
	}
}

// done closes inst (if any), frees its slot, and finishes a pending close
// when it was the last instance in use.
func (p *pool) done(inst *instance, ctx context.Context) {
	if inst != nil {
		inst.close(ctx)
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

// stats reports idle and in-use instances.
func (p *pool) stats() (idle, inUse int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.idle), p.inUse
}

// shutdown closes idle instances and refuses new acquisitions. drain runs
// once no instance is in use: now, or when the last one is released.
func (p *pool) shutdown(ctx context.Context, drain func()) {
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
		e.inst.close(ctx)
	}
	if now && drain != nil {
		drain()
	}
}

// close is shutdown with nothing to run afterwards.
func (p *pool) close() { p.shutdown(context.Background(), nil) }
