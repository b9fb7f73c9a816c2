package approval

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"
)

// DefaultQueueTimeout bounds a wait in a [Queue] whose options set none.
const DefaultQueueTimeout = 120 * time.Second

var (
	// ErrNotPending reports a decision for an id that is not waiting: it
	// never existed, was already decided, or its caller stopped waiting.
	ErrNotPending = errors.New("no pending approval with that id")
)

// QueueOptions configure a [Queue]. The zero value of each field is its
// documented default.
type QueueOptions struct {
	// Timeout bounds each wait; zero means [DefaultQueueTimeout]. The
	// caller's context may end the wait sooner.
	Timeout time.Duration
	// OnPending, when set, is called once for each request as it starts
	// waiting, for example to tell an operator how to answer it. It must
	// not block.
	OnPending func(Pending)
	// Now returns the current time; nil means time.Now.
	Now func() time.Time
}

// Pending is one request waiting in a [Queue].
type Pending struct {
	// ID is short, random and unguessable; it names the request in
	// `talon approvals approve ID`.
	ID      string
	Request Request
	// Since is when the request started waiting.
	Since time.Time
}

// Queue is an [Approver] that parks each request until someone decides it
// through [Queue.Decide] — for `talon serve`, the `talon approvals`
// command. It is safe for concurrent use.
type Queue struct {
	opts QueueOptions

	mu      sync.Mutex
	pending map[string]*waiter
	subs    map[int]func(Event)
	nextSub int
}

// EventKind says how a [Queue]'s pending set changed.
type EventKind int

// The changes a subscriber sees.
const (
	// Added: a request started waiting.
	Added EventKind = iota + 1
	// Decided: someone answered it through [Queue.Decide].
	Decided
	// Withdrawn: it left unanswered, because its timeout passed or its
	// caller stopped waiting.
	Withdrawn
)

// Event is one change of a [Queue]'s pending set.
type Event struct {
	Kind    EventKind
	Pending Pending
	// Answer is the decision of a Decided event.
	Answer Answer
}

// Subscribe calls fn with every later change of the queue, in the order
// the changes happen, until cancel is called. fn runs while the queue is
// locked: it must return at once and must not call the queue.
func (q *Queue) Subscribe(fn func(Event)) (cancel func()) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.subs == nil {
		q.subs = map[int]func(Event){}
	}
	id := q.nextSub
	q.nextSub++
	q.subs[id] = fn
	return func() {
		q.mu.Lock()
		delete(q.subs, id)
		q.mu.Unlock()
	}
}

// emit tells the subscribers about ev; q.mu is held.
func (q *Queue) emit(ev Event) {
	for _, fn := range q.subs {
		fn(ev)
	}
}

type waiter struct {
	p      Pending
	answer chan Answer // buffered, receives exactly one decision
}

var _ Approver = (*Queue)(nil)

// NewQueue returns an empty queue.
func NewQueue(opts QueueOptions) *Queue {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultQueueTimeout
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Queue{opts: opts, pending: map[string]*waiter{}}
}

// Approve parks req until it is decided, ctx ends, or the queue's timeout
// passes, whichever comes first.
//
// # Errors
//
// When nobody decides in time, Approve returns [No] and an error wrapping
// [ErrNoApprover]: the call fails closed.
func (q *Queue) Approve(ctx context.Context, req Request) (Answer, error) {
	w, err := q.add(req)
	if err != nil {
		return No, fmt.Errorf("%w: %v", ErrNoApprover, err)
	}
	if q.opts.OnPending != nil {
		q.opts.OnPending(w.p)
	}
	timer := time.NewTimer(q.opts.Timeout)
	defer timer.Stop()
	select {
	case ans := <-w.answer:
		return ans, nil
	case <-ctx.Done():
		if ans, ok := q.withdraw(w); ok {
			return ans, nil
		}
		return No, fmt.Errorf("%w: %v", ErrNoApprover, ctx.Err())
	case <-timer.C:
		if ans, ok := q.withdraw(w); ok {
			return ans, nil
		}
		return No, fmt.Errorf("%w: nobody answered within %s", ErrNoApprover, q.opts.Timeout)
	}
}

var _ Deferrer = (*Queue)(nil)

// Defer parks req like [Queue.Approve] without blocking: it returns the
// request's id at once and calls decided, from a goroutine of its own,
// when someone decides it or the queue's timeout passes (then with an
// error wrapping [ErrNoApprover]).
func (q *Queue) Defer(req Request, decided func(Answer, error)) (string, error) {
	w, err := q.add(req)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrNoApprover, err)
	}
	if q.opts.OnPending != nil {
		q.opts.OnPending(w.p)
	}
	go func() {
		timer := time.NewTimer(q.opts.Timeout)
		defer timer.Stop()
		select {
		case ans := <-w.answer:
			decided(ans, nil)
		case <-timer.C:
			if ans, ok := q.withdraw(w); ok {
				decided(ans, nil)
				return
			}
			decided(No, fmt.Errorf("%w: nobody answered within %s", ErrNoApprover, q.opts.Timeout))
		}
	}()
	return w.p.ID, nil
}

// add registers a new waiter under a fresh id.
func (q *Queue) add(req Request) (*waiter, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for range 4 {
		id, err := newID()
		if err != nil {
			return nil, err
		}
		if _, taken := q.pending[id]; taken {
			continue
		}
		w := &waiter{p: Pending{ID: id, Request: req, Since: q.opts.Now()}, answer: make(chan Answer, 1)}
		q.pending[id] = w
		q.emit(Event{Kind: Added, Pending: w.p})
		return w, nil
	}
	return nil, errors.New("could not draw an unused approval id")
}

// withdraw removes w. A decision that raced with the withdrawal wins: it is
// returned with ok set.
func (q *Queue) withdraw(w *waiter) (Answer, bool) {
	q.mu.Lock()
	if q.pending[w.p.ID] == w {
		delete(q.pending, w.p.ID)
		q.emit(Event{Kind: Withdrawn, Pending: w.p})
	}
	q.mu.Unlock()
	select {
	case ans := <-w.answer:
		return ans, true
	default:
		return No, false
	}
}

// List returns the waiting requests, oldest first.
func (q *Queue) List() []Pending {
	q.mu.Lock()
	out := make([]Pending, 0, len(q.pending))
	for _, w := range q.pending {
		out = append(out, w.p)
	}
	q.mu.Unlock()
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Since.Equal(out[j].Since) {
			return out[i].Since.Before(out[j].Since)
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// Decide answers the request with the given id and releases its caller.
// IDs are matched case-insensitively.
//
// # Errors
//
// An id that is not waiting wraps [ErrNotPending].
func (q *Queue) Decide(id string, ans Answer) error {
	key := strings.ToLower(strings.TrimSpace(id))
	q.mu.Lock()
	w, ok := q.pending[key]
	if ok {
		delete(q.pending, key)
		q.emit(Event{Kind: Decided, Pending: w.p, Answer: ans})
	}
	q.mu.Unlock()
	if !ok {
		return fmt.Errorf("%w: %q; run `talon approvals list` to see what is waiting", ErrNotPending, id)
	}
	w.answer <- ans
	return nil
}

// idEncoding renders ids in lowercase letters and digits only, so they are
// easy to read aloud and type.
var idEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// newID draws 60 random bits and renders them as 12 characters.
func newID() (string, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("read random bytes: %w", err)
	}
	return idEncoding.EncodeToString(b[:])[:12], nil
}
