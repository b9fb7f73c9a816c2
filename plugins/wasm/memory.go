package wasm

import (
	"runtime"
	"runtime/debug"
	"sync"
	"time"
)

// Defaults of the reclaimer.
const (
	// reclaimThreshold is how much linear memory closed instances must
	// have held before their closing schedules a reclaim; a module's
	// smallest memory is a 64 KiB page, a Go guest's a few MiB.
	reclaimThreshold = 1 << 20
	// defaultReclaimDelay gathers the discards of a burst of calls into
	// one reclaim.
	defaultReclaimDelay = time.Second
	// reclaimRetries bounds the reclaims that follow one another while
	// closed memory is still not collected.
	reclaimRetries = 5
)

// reclaimer hands the memory of closed instances back to the operating
// system. An instance's linear memory is an ordinary Go allocation that
// becomes garbage when the instance is closed; left to itself, the Go
// runtime collects it only once the heap has grown past a goal set while
// that memory was live, and an idle talon allocates nothing, so hundreds
// of MiB would stay resident for minutes. So after closing instances the
// host calls debug.FreeOSMemory, which collects and releases at once:
// synchronously after the pool's idle reaper closed instances (off any
// call path), and, for instances discarded after a call (a failure, a
// timeout, too much growth, the end of their calls), at most once per
// delay.
//
// A closed instance's memory may stay reachable for a moment after Close
// (wazero's watcher of the call's context lets go of the module when it
// next runs), and a collection then misses it. Each closed memory carries
// a runtime cleanup that counts it as collected; while at least
// reclaimThreshold of closed memory is not, the reclaim is repeated after
// the delay, a few times at most.
type reclaimer struct {
	delay time.Duration
	// notify, when set (tests), runs after each reclaim.
	notify func()

	mu          sync.Mutex
	pending     int64 // bytes of linear memory closed since the last reclaim
	outstanding int64 // bytes closed and not yet collected
	armed       bool  // a delayed reclaim is scheduled
	running     int   // reclaims under way
	retries     int   // delayed reclaims in a row that found memory uncollected
}

func newReclaimer() *reclaimer { return &reclaimer{delay: defaultReclaimDelay} }

// closed records the memory of a closed instance: buf is its linear
// memory (nil when it has none). A reclaim follows after the delay once
// enough memory is pending.
func (r *reclaimer) closed(buf []byte) {
	n := int64(len(buf))
	if n == 0 {
		return
	}
	runtime.AddCleanup(&buf[0], r.collected, n)
	r.mu.Lock()
	r.pending += n
	r.outstanding += n
	r.retries = 0
	arm := r.pending >= reclaimThreshold && r.arm()
	r.mu.Unlock()
	if arm {
		r.schedule()
	}
}

// collected is the cleanup of a closed memory.
func (r *reclaimer) collected(n int64) {
	r.mu.Lock()
	r.outstanding -= n
	r.mu.Unlock()
}

// arm reports whether a delayed reclaim should be scheduled now, marking
// it scheduled. r.mu is held.
func (r *reclaimer) arm() bool {
	if r.armed {
		return false
	}
	r.armed = true
	return true
}

func (r *reclaimer) schedule() {
	r.mu.Lock()
	delay := r.delay
	r.mu.Unlock()
	time.AfterFunc(delay, func() {
		r.mu.Lock()
		r.armed = false
		r.mu.Unlock()
		r.reclaim()
	})
}

// reclaim collects and returns memory to the operating system now, if
// closed memory is pending or still uncollected, and schedules another
// reclaim while enough of it stays uncollected.
func (r *reclaimer) reclaim() {
	r.mu.Lock()
	work := r.pending > 0 || r.outstanding >= reclaimThreshold
	r.pending = 0
	r.running++
	r.mu.Unlock()
	if work {
		debug.FreeOSMemory()
	}
	r.mu.Lock()
	r.running--
	again := r.outstanding >= reclaimThreshold && r.retries < reclaimRetries && r.arm()
	if again {
		r.retries++
	}
	r.mu.Unlock()
	if again {
		r.schedule()
	}
	if r.notify != nil {
		r.notify()
	}
}

// settled reports whether no reclaim is scheduled or under way and no
// memory worth one is pending.
func (r *reclaimer) settled() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return !r.armed && r.running == 0 && r.pending < reclaimThreshold
}
