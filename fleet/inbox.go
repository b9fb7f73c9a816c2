package fleet

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/rs/zerolog"

	"github.com/talonhq/talon/approval"
	"github.com/talonhq/talon/receipts"
)

// notifyChannel is the LISTEN/NOTIFY channel of the approval inbox. Its
// payloads are tab-separated: "answered HOST SERVER ID" when someone
// answered an approval from the fleet, "applied ID" once the waiting
// process has taken (or refused) the answer. A payload only says where to
// look: the rows are the truth, so a forged notification changes nothing.
const notifyChannel = "talon_approvals"

// pollAnswers is how often the inbox also looks for answers in the
// table, in case a notification was missed (a connection that dropped).
const pollAnswers = 2 * time.Second

// inbox publishes the approvals one queue waits for and applies the
// answers people give to them from other machines. The queue stays the
// one arbiter: the first answer it takes wins, whichever channel it came
// through, and the row says which won.
type inbox struct {
	host, server, hostname string
	q                      *approval.Queue
	timeout                time.Duration
	log                    zerolog.Logger
	unsubscribe            func()

	mu      sync.Mutex
	entries map[string]*inboxEntry
	changed chan struct{}
	// answers carries the ids of notified answers to the inbox loop.
	answers chan string
}

// inboxEntry is one approval of the queue as the inbox knows it.
type inboxEntry struct {
	p         approval.Pending
	published bool
	// done is set when the request left the queue: decided (answer)
	// or withdrawn.
	done, decided bool
	answer        approval.Answer
	// viaFleet is set while, and after, the inbox hands the queue an
	// answer from the fleet.
	viaFleet bool
}

func newInbox(host, server, hostname string, q *approval.Queue, timeout time.Duration, log zerolog.Logger) *inbox {
	if timeout <= 0 {
		timeout = approval.DefaultQueueTimeout
	}
	ib := &inbox{host: host, server: server, hostname: hostname, q: q, timeout: timeout, log: log,
		entries: map[string]*inboxEntry{}, changed: make(chan struct{}, 1), answers: make(chan string, 64)}
	ib.mu.Lock()
	for _, p := range q.List() {
		ib.entries[p.ID] = &inboxEntry{p: p}
	}
	ib.mu.Unlock()
	ib.unsubscribe = q.Subscribe(ib.event)
	return ib
}

// event runs under the queue's lock: it records the change and returns.
func (ib *inbox) event(ev approval.Event) {
	ib.mu.Lock()
	switch ev.Kind {
	case approval.Added:
		ib.entries[ev.Pending.ID] = &inboxEntry{p: ev.Pending}
	case approval.Decided, approval.Withdrawn:
		if e := ib.entries[ev.Pending.ID]; e != nil {
			e.done, e.decided, e.answer = true, ev.Kind == approval.Decided, ev.Answer
		}
	}
	ib.mu.Unlock()
	select {
	case ib.changed <- struct{}{}:
	default:
	}
}

func (ib *inbox) close() { ib.unsubscribe() }

// pendingCount is how many approvals the queue waits for.
func (ib *inbox) pendingCount() int {
	ib.mu.Lock()
	defer ib.mu.Unlock()
	n := 0
	for _, e := range ib.entries {
		if !e.done {
			n++
		}
	}
	return n
}

// run syncs the queue with the database and applies answers until ctx
// ends or the database fails.
func (ib *inbox) run(ctx context.Context, db *DB) error {
	lctx, stop := context.WithCancel(ctx)
	defer stop()
	listenErr := make(chan error, 1)
	ready := make(chan struct{})
	go func() { listenErr <- ib.listen(lctx, db, ready) }()
	select {
	case <-ready:
	case err := <-listenErr:
		return err
	}
	// Answers given while this process was away from the database.
	if err := ib.poll(ctx, db); err != nil {
		return err
	}
	tick := time.NewTicker(pollAnswers)
	defer tick.Stop()
	for {
		if err := ib.sync(ctx, db); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err := <-listenErr:
			return err
		case <-ib.changed:
		case id := <-ib.answers:
			if err := ib.apply(ctx, db, id); err != nil {
				return err
			}
		case <-tick.C:
			if err := ib.poll(ctx, db); err != nil {
				return err
			}
		}
	}
}

// listen holds a connection that LISTENs for answers, and passes the
// ids of this process's approvals to the inbox loop.
func (ib *inbox) listen(ctx context.Context, db *DB, ready chan<- struct{}) error {
	conn, err := db.pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("listen for approval answers: %w", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "LISTEN "+notifyChannel); err != nil {
		return fmt.Errorf("listen for approval answers: %w", err)
	}
	defer func() {
		// A connection that goes back to the pool stops listening.
		uctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		if _, err := conn.Exec(uctx, "UNLISTEN *"); err != nil {
			conn.Conn().PgConn().Close(uctx) //nolint:errcheck // the pool drops a closed connection
		}
	}()
	close(ready)
	for {
		n, err := conn.Conn().WaitForNotification(ctx)
		if err != nil {
			return fmt.Errorf("listen for approval answers: %w", err)
		}
		f := strings.Split(n.Payload, "\t")
		if len(f) == 4 && f[0] == "answered" && f[1] == ib.host && f[2] == ib.server {
			select {
			case ib.answers <- f[3]:
			default: // the poll finds it
			}
		}
	}
}

// poll applies answers the notifications did not bring.
func (ib *inbox) poll(ctx context.Context, db *DB) error {
	rows, err := db.pool.Query(ctx, `SELECT id FROM talon.approvals
WHERE host_id = $1 AND server = $2 AND state = 'answered' AND answered_via = 'fleet' AND applied IS NULL`, ib.host, ib.server)
	if err != nil {
		return fmt.Errorf("look for approval answers: %w", err)
	}
	ids, err := collectStrings(rows)
	if err != nil {
		return fmt.Errorf("look for approval answers: %w", err)
	}
	for _, id := range ids {
		if err := ib.apply(ctx, db, id); err != nil {
			return err
		}
	}
	return nil
}

// sync writes what changed in the queue: new requests, and the outcome
// of those that left it.
func (ib *inbox) sync(ctx context.Context, db *DB) error {
	ib.mu.Lock()
	var todo []*inboxEntry
	for _, e := range ib.entries {
		if !e.published || e.done {
			c := *e
			todo = append(todo, &c)
		}
	}
	ib.mu.Unlock()
	for _, e := range todo {
		var err error
		switch {
		case !e.published && e.done:
			// Decided before anyone elsewhere could see it.
		case !e.published:
			err = ib.publish(ctx, db, e.p)
		case e.viaFleet:
			// apply recorded it.
		case e.decided:
			err = ib.decidedHere(ctx, db, e)
		default:
			err = ib.withdrawn(ctx, db, e)
		}
		if err != nil {
			return err
		}
		ib.mu.Lock()
		if cur := ib.entries[e.p.ID]; cur != nil {
			if e.done {
				delete(ib.entries, e.p.ID)
			} else {
				cur.published = true
			}
		}
		ib.mu.Unlock()
	}
	return nil
}

// publish writes one waiting request.
func (ib *inbox) publish(ctx context.Context, db *DB, p approval.Pending) error {
	r := p.Request
	plan, err := planJSON(r)
	if err != nil {
		return err
	}
	reasons, _ := json.Marshal(nonNil(r.Reasons))
	deleg, _ := json.Marshal(nonNil(r.Delegation))
	_, err = db.pool.Exec(ctx, `INSERT INTO talon.approvals (id, host_id, server, tool, attribution, tier, reasons, plan, args,
	channel, profile, session, delegation, always_ask, saveable, request_sha256, requested_at, deadline)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18) ON CONFLICT (id) DO NOTHING`,
		p.ID, ib.host, ib.server, r.Tool, r.Attribution, r.Tier.String(), string(reasons), plan, r.Args,
		r.Channel, r.Profile, r.SessionID, string(deleg), r.AlwaysAsk, r.Saveable, requestDigest(r), p.Since, p.Since.Add(ib.timeout))
	if err != nil {
		return fmt.Errorf("publish approval %s: %w", p.ID, err)
	}
	return nil
}

// decidedHere records an answer given on this host (its terminal, an MCP
// client, the console or talon approvals over the local socket).
func (ib *inbox) decidedHere(ctx context.Context, db *DB, e *inboxEntry) error {
	tag, err := db.pool.Exec(ctx, `UPDATE talon.approvals SET state = 'answered', answer = $2, answered_via = 'local',
	answered_host = $3, answered_at = now(), applied = true
WHERE id = $1 AND state = 'pending'`, e.p.ID, e.answer.String(), ib.hostname)
	if err != nil {
		return fmt.Errorf("record the answer to approval %s: %w", e.p.ID, err)
	}
	if tag.RowsAffected() == 1 {
		return nil
	}
	// Someone answered from the fleet while the answer here was taken.
	return ib.notApplied(ctx, db, e.p.ID, fmt.Sprintf("answered on %s first (%s); this answer did not count", ib.hostname, e.answer))
}

// withdrawn records that a request left the queue unanswered.
func (ib *inbox) withdrawn(ctx context.Context, db *DB, e *inboxEntry) error {
	tag, err := db.pool.Exec(ctx, `UPDATE talon.approvals SET state = 'withdrawn', note = 'nobody answered in time, or the call stopped waiting'
WHERE id = $1 AND state = 'pending'`, e.p.ID)
	if err != nil {
		return fmt.Errorf("withdraw approval %s: %w", e.p.ID, err)
	}
	if tag.RowsAffected() == 1 {
		return nil
	}
	return ib.notApplied(ctx, db, e.p.ID, "the call had stopped waiting; this answer did not count")
}

// notApplied marks a fleet answer that did not reach the call.
func (ib *inbox) notApplied(ctx context.Context, db *DB, id, note string) error {
	return ib.settle(ctx, db, id, false, note)
}

// settle records whether a fleet answer reached the call and tells the
// person who gave it.
func (ib *inbox) settle(ctx context.Context, db *DB, id string, applied bool, note string) error {
	err := pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE talon.approvals SET applied = $2, note = $3
WHERE id = $1 AND state = 'answered' AND answered_via = 'fleet' AND applied IS NULL`, id, applied, note)
		if err != nil || tag.RowsAffected() == 0 {
			return err
		}
		_, err = tx.Exec(ctx, `SELECT pg_notify($1, $2)`, notifyChannel, "applied\t"+id)
		return err
	})
	if err != nil {
		return fmt.Errorf("record the outcome of approval %s: %w", id, err)
	}
	return nil
}

// apply hands the queue an answer given from the fleet, after checking
// that the row still describes the call that waits.
func (ib *inbox) apply(ctx context.Context, db *DB, id string) error {
	a, err := db.approval(ctx, `WHERE id = $1 AND host_id = $2 AND server = $3 AND state = 'answered' AND answered_via = 'fleet' AND applied IS NULL`,
		id, ib.host, ib.server)
	if errors.Is(err, ErrNoApproval) {
		return nil // settled already, or not ours
	}
	if err != nil {
		return err
	}
	ans, ok := parseAnswer(a.Answer)
	ib.mu.Lock()
	e := ib.entries[id]
	var local approval.Request
	waiting := e != nil && !e.done
	decided, first := false, approval.No
	if e != nil {
		local, decided, first = e.p.Request, e.decided, e.answer
	}
	ib.mu.Unlock()
	switch {
	case !ok:
		return ib.notApplied(ctx, db, id, fmt.Sprintf("refused: %q is not an answer", a.Answer))
	case !waiting:
		note := "the call had stopped waiting; this answer did not count"
		if decided {
			note = fmt.Sprintf("answered on %s first (%s); this answer did not count", ib.hostname, first)
		}
		return ib.notApplied(ctx, db, id, note)
	case a.digest != requestDigest(local):
		ib.log.Error().Str("approval", id).Str("tool", local.Tool).Str("answered_by", a.AnsweredBy).Str("answered_host", a.AnsweredHost).
			Msg("fleet: refused an answer: the approval's row in the database no longer describes the call that waits (it was changed after it was written); the call keeps waiting")
		return ib.notApplied(ctx, db, id, "refused: the request in the database differs from the call that waits; the row was changed after it was written")
	}
	ib.mu.Lock()
	e.viaFleet = true
	ib.mu.Unlock()
	if err := ib.q.Decide(id, ans); err != nil {
		ib.mu.Lock()
		e.viaFleet = false
		decided, first := e.decided, e.answer
		ib.mu.Unlock()
		note := "the call had stopped waiting; this answer did not count"
		if decided {
			note = fmt.Sprintf("answered on %s first (%s); this answer did not count", ib.hostname, first)
		}
		return ib.notApplied(ctx, db, id, note)
	}
	ib.log.Info().Str("approval", id).Str("tool", local.Tool).Str("answer", a.Answer).Str("answered_by", a.AnsweredBy).
		Str("answered_host", a.AnsweredHost).Msg("fleet: approval answered from another machine")
	return ib.settle(ctx, db, id, true, "")
}

// requestDigest is the SHA-256 of the canonical JSON of what an approver
// is shown, so that a row changed in the database is told apart from the
// request that waits.
func requestDigest(r approval.Request) string {
	plan, _ := planJSON(r)
	return digestOf(r.Tool, r.Attribution, r.Tier.String(), nonNil(r.Reasons), plan, r.Args, r.Channel, r.Profile,
		r.SessionID, nonNil(r.Delegation), r.AlwaysAsk)
}

func digestOf(tool, attribution, tier string, reasons []string, plan *string, args, channel, profile, session string, delegation []string, alwaysAsk bool) string {
	var p json.RawMessage
	if plan != nil {
		p = json.RawMessage(*plan)
	}
	b, err := json.Marshal(map[string]any{
		"tool": tool, "attribution": attribution, "tier": tier, "reasons": reasons, "plan": p, "args": args,
		"channel": channel, "profile": profile, "session": session, "delegation": delegation, "always_ask": alwaysAsk,
	})
	if err != nil {
		return "unreadable: " + err.Error()
	}
	c, err := receipts.CanonicalArgs(b)
	if err != nil {
		return "unreadable: " + err.Error()
	}
	sum := sha256.Sum256(c)
	return hex.EncodeToString(sum[:])
}

func planJSON(r approval.Request) (*string, error) {
	if r.Plan == nil {
		return nil, nil
	}
	b, err := json.Marshal(r.Plan)
	if err != nil {
		return nil, fmt.Errorf("encode the plan of %s: %w", r.Tool, err)
	}
	s := string(b)
	return &s, nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func parseAnswer(s string) (approval.Answer, bool) {
	switch s {
	case "yes":
		return approval.Yes, true
	case "no":
		return approval.No, true
	case "always":
		return approval.Always, true
	case "permanent":
		return approval.Permanent, true
	}
	return approval.No, false
}
