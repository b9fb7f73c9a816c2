// Package history is the runtime's own record of calls, per session: what
// was called, how policy decided, how long it took, how it ended and which
// receipt it got. It is kept in memory, bounded, for the life of the
// process; receipts are the durable record.
//
//	log := history.New(history.Options{})
//	log.Add(history.Record{Session: "s1", Tool: "file_read", Outcome: history.OutcomeSuccess})
//	recent := log.History("s1", 20)
package history

import (
	"sort"
	"sync"
	"time"
)

// Outcomes of a call.
const (
	OutcomeSuccess   = "success"
	OutcomeFailed    = "failed"
	OutcomeDenied    = "denied"
	OutcomeCancelled = "cancelled"
	OutcomeRejected  = "rejected" // arguments or schema refused before anything ran
)

// Record is one call.
type Record struct {
	Time        time.Time     `json:"time"`
	Session     string        `json:"session"`
	Tool        string        `json:"tool"`
	Attribution string        `json:"attribution"`
	Channel     string        `json:"channel"`
	Profile     string        `json:"profile"`
	Tier        string        `json:"tier,omitempty"`
	Decision    string        `json:"decision,omitempty"`
	Duration    time.Duration `json:"duration"`
	Outcome     string        `json:"outcome"`
	ReceiptID   string        `json:"receipt_id,omitempty"`
}

// Summary describes one session.
type Summary struct {
	Session  string    `json:"session"`
	Calls    int       `json:"calls"`
	First    time.Time `json:"first"`
	Last     time.Time `json:"last"`
	Channel  string    `json:"channel"`
	Failures int       `json:"failures"`
}

// Options bound the log. Zero values mean the defaults.
type Options struct {
	// PerSession is how many records each session keeps (default 500).
	PerSession int
	// Sessions is how many sessions are kept; the least recently active is
	// dropped first (default 200).
	Sessions int
}

// Log is a bounded, concurrent-safe record of calls.
type Log struct {
	mu       sync.Mutex
	opts     Options
	sessions map[string]*session
	subs     map[int]func(Record)
	nextSub  int
}

// Subscribe calls fn with every record added from now on, in the order they
// are added, until cancel is called. fn runs while the log is locked: it
// must return at once and must not call the log.
func (l *Log) Subscribe(fn func(Record)) (cancel func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.subs == nil {
		l.subs = map[int]func(Record){}
	}
	id := l.nextSub
	l.nextSub++
	l.subs[id] = fn
	return func() {
		l.mu.Lock()
		delete(l.subs, id)
		l.mu.Unlock()
	}
}

type session struct {
	records []Record // ring, oldest first after trimming
	calls   int
	fails   int
	first   time.Time
	last    time.Time
	channel string
}

// New returns an empty log.
func New(opts Options) *Log {
	if opts.PerSession <= 0 {
		opts.PerSession = 500
	}
	if opts.Sessions <= 0 {
		opts.Sessions = 200
	}
	return &Log{opts: opts, sessions: map[string]*session{}}
}

// Add records a call. Calls without a session are not recorded.
func (l *Log) Add(r Record) {
	if l == nil || r.Session == "" {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.sessions[r.Session]
	if s == nil {
		if len(l.sessions) >= l.opts.Sessions {
			l.evictOldest()
		}
		s = &session{first: r.Time, channel: r.Channel}
		l.sessions[r.Session] = s
	}
	s.records = append(s.records, r)
	// Trimmed by an eighth at a time, not a record per call: shifting the
	// whole session on every call of a long one cost more than the call.
	// History shows only the last PerSession.
	if len(s.records) > l.opts.PerSession+l.opts.PerSession/8 {
		s.records = append(s.records[:0], s.records[len(s.records)-l.opts.PerSession:]...)
	}
	s.calls++
	if r.Outcome != OutcomeSuccess {
		s.fails++
	}
	s.last = r.Time
	for _, fn := range l.subs {
		fn(r)
	}
}

func (l *Log) evictOldest() {
	var oldest string
	var at time.Time
	for id, s := range l.sessions {
		if oldest == "" || s.last.Before(at) {
			oldest, at = id, s.last
		}
	}
	delete(l.sessions, oldest)
}

// History returns up to limit of a session's most recent records, oldest
// first. limit <= 0 means all that are kept.
func (l *Log) History(sessionID string, limit int) []Record {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.sessions[sessionID]
	if s == nil {
		return nil
	}
	recs := s.records
	if len(recs) > l.opts.PerSession {
		recs = recs[len(recs)-l.opts.PerSession:]
	}
	if limit > 0 && len(recs) > limit {
		recs = recs[len(recs)-limit:]
	}
	return append([]Record(nil), recs...)
}

// Sessions summarizes every kept session, most recently active first.
func (l *Log) Sessions() []Summary {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]Summary, 0, len(l.sessions))
	for id, s := range l.sessions {
		out = append(out, Summary{Session: id, Calls: s.calls, First: s.first, Last: s.last, Channel: s.channel, Failures: s.fails})
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Last.Equal(out[j].Last) {
			return out[i].Last.After(out[j].Last)
		}
		return out[i].Session < out[j].Session
	})
	return out
}
