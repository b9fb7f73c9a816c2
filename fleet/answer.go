package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/user"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/talonhq/talon/approval"
	"github.com/talonhq/talon/tool"
)

// Approval is one row of the approval inbox.
type Approval struct {
	ID          string     `json:"id"`
	Host        string     `json:"host"`
	Tool        string     `json:"tool"`
	Attribution string     `json:"attribution"`
	Tier        string     `json:"tier"`
	Reasons     []string   `json:"reasons"`
	Plan        *tool.Plan `json:"plan,omitempty"`
	// Args is the redacted argument summary.
	Args        string    `json:"args"`
	Channel     string    `json:"channel"`
	Profile     string    `json:"profile"`
	Session     string    `json:"session"`
	Delegation  []string  `json:"delegation,omitempty"`
	AlwaysAsk   bool      `json:"always_ask,omitempty"`
	RequestedAt time.Time `json:"requested_at"`
	Deadline    time.Time `json:"deadline"`
	// State is pending, answered or withdrawn.
	State string `json:"state"`
	// Answer, AnsweredBy (the OS user), AnsweredHost and AnsweredVia
	// (fleet or local) say who answered, once someone did.
	Answer       string     `json:"answer,omitempty"`
	AnsweredBy   string     `json:"answered_by,omitempty"`
	AnsweredHost string     `json:"answered_host,omitempty"`
	AnsweredVia  string     `json:"answered_via,omitempty"`
	AnsweredAt   *time.Time `json:"answered_at,omitempty"`
	// Applied says whether a fleet answer reached the waiting call; nil
	// until the waiting process has looked at it.
	Applied *bool  `json:"applied,omitempty"`
	Note    string `json:"note,omitempty"`

	server string
	digest string
}

// Summary is a one-line account of what the call would do.
func (a Approval) Summary() string {
	if a.Plan != nil {
		if a.Plan.Summary != "" {
			return a.Plan.Summary
		}
		var cmds []string
		for _, c := range a.Plan.Commands {
			cmds = append(cmds, strings.Join(c.Argv, " "))
		}
		if len(cmds) > 0 {
			return strings.Join(cmds, " && ")
		}
	}
	return a.Args
}

const approvalColumns = `id, host_id, server, tool, attribution, tier, reasons::text, plan::text, args, channel, profile, session,
	delegation::text, always_ask, requested_at, deadline, state, coalesce(answer, ''), coalesce(answered_by, ''),
	coalesce(answered_host, ''), coalesce(answered_via, ''), answered_at, applied, note`

func scanApproval(row pgx.Row) (Approval, error) {
	var a Approval
	var reasons, deleg string
	var plan *string
	err := row.Scan(&a.ID, &a.Host, &a.server, &a.Tool, &a.Attribution, &a.Tier, &reasons, &plan, &a.Args, &a.Channel,
		&a.Profile, &a.Session, &deleg, &a.AlwaysAsk, &a.RequestedAt, &a.Deadline, &a.State, &a.Answer, &a.AnsweredBy,
		&a.AnsweredHost, &a.AnsweredVia, &a.AnsweredAt, &a.Applied, &a.Note)
	if err != nil {
		return a, err
	}
	_ = json.Unmarshal([]byte(reasons), &a.Reasons)
	_ = json.Unmarshal([]byte(deleg), &a.Delegation)
	if plan != nil {
		var p tool.Plan
		if json.Unmarshal([]byte(*plan), &p) == nil {
			a.Plan = &p
		}
	}
	a.digest = digestOf(a.Tool, a.Attribution, a.Tier, nonNil(a.Reasons), plan, a.Args, a.Channel, a.Profile, a.Session,
		nonNil(a.Delegation), a.AlwaysAsk)
	return a, nil
}

// approval reads the one row matching where.
func (db *DB) approval(ctx context.Context, where string, args ...any) (Approval, error) {
	a, err := scanApproval(db.pool.QueryRow(ctx, `SELECT `+approvalColumns+` FROM talon.approvals `+where, args...))
	if errors.Is(err, pgx.ErrNoRows) {
		return a, ErrNoApproval
	}
	if err != nil {
		return a, fmt.Errorf("read approval: %w", err)
	}
	return a, nil
}

// Approval returns the row of one approval.
//
// # Errors
//
// [ErrNoApproval] when no row has the id.
func (db *DB) Approval(ctx context.Context, id string) (Approval, error) {
	a, err := db.approval(ctx, `WHERE id = $1`, normalizeID(id))
	if errors.Is(err, ErrNoApproval) {
		return a, fmt.Errorf("%w: %q; run talon approvals list --fleet to see what waits", ErrNoApproval, id)
	}
	return a, err
}

// Pending returns the approvals that wait for an answer, on every host,
// oldest first.
func (db *DB) Pending(ctx context.Context) ([]Approval, error) {
	rows, err := db.pool.Query(ctx, `SELECT `+approvalColumns+` FROM talon.approvals
WHERE state = 'pending' AND deadline > now() ORDER BY requested_at, id`)
	if err != nil {
		return nil, fmt.Errorf("list fleet approvals: %w", err)
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (Approval, error) { return scanApproval(r) })
}

// Approver says who answers: the person's OS user and their machine.
type Approver struct {
	User string
	Host string
}

// CurrentApprover is the user running this process on this machine;
// hostID, when not empty, is added to the host name.
func CurrentApprover(hostID string) Approver {
	a := Approver{User: os.Getenv("USER")}
	if u, err := user.Current(); err == nil && u.Username != "" {
		a.User = u.Username
	}
	if a.User == "" {
		a.User = fmt.Sprintf("uid %d", os.Getuid())
	}
	a.Host, _ = os.Hostname()
	if hostID != "" {
		a.Host += " (" + hostID + ")"
	}
	return a
}

// Outcome is what became of an answer given through the fleet.
type Outcome struct {
	Approval Approval
	// Applied is set when the waiting process took the answer; Settled
	// is set once it looked at it at all (else it did not within the
	// wait: it may be down or away from the database).
	Applied, Settled bool
}

// Answer answers a pending approval from this machine: it records the
// answer and who gave it, wakes the waiting process through NOTIFY and
// waits up to wait for it to take the answer.
//
// # Errors
//
// [ErrNoApproval] for an unknown id, [ErrAnswered] when someone answered
// first, [ErrExpired] when the approval timed out or its call stopped
// waiting, [ErrNotApplied] when the waiting process refused the answer
// or another answer reached the call first (the message says which).
func (db *DB) Answer(ctx context.Context, id string, ans approval.Answer, by Approver, wait time.Duration) (Outcome, error) {
	id = normalizeID(id)
	conn, err := db.pool.Acquire(ctx)
	if err != nil {
		return Outcome{}, fmt.Errorf("answer approval %s: %w", id, err)
	}
	defer conn.Release()
	// Listen first, so that the waiting process's reply cannot come
	// before anyone listens for it.
	if _, err := conn.Exec(ctx, "LISTEN "+notifyChannel); err != nil {
		return Outcome{}, fmt.Errorf("answer approval %s: %w", id, err)
	}
	defer func() {
		uctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		if _, err := conn.Exec(uctx, "UNLISTEN *"); err != nil {
			conn.Conn().PgConn().Close(uctx) //nolint:errcheck // the pool drops a closed connection
		}
	}()
	var host, server string
	err = pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		err := tx.QueryRow(ctx, `UPDATE talon.approvals SET state = 'answered', answer = $2, answered_by = $3,
	answered_host = $4, answered_via = 'fleet', answered_at = now()
WHERE id = $1 AND state = 'pending' AND deadline > now() RETURNING host_id, server`, id, ans.String(), by.User, by.Host).Scan(&host, &server)
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `SELECT pg_notify($1, $2)`, notifyChannel, "answered\t"+host+"\t"+server+"\t"+id)
		return err
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return Outcome{}, db.whyNotPending(ctx, id)
	}
	if err != nil {
		return Outcome{}, fmt.Errorf("answer approval %s: %w", id, err)
	}
	deadline := time.Now().Add(wait)
	for {
		a, err := db.approval(ctx, `WHERE id = $1`, id)
		if err != nil {
			return Outcome{}, err
		}
		if a.Applied != nil {
			out := Outcome{Approval: a, Applied: *a.Applied, Settled: true}
			if !out.Applied {
				return out, fmt.Errorf("%w: approval %s on host %s: %s", ErrNotApplied, id, a.Host, a.Note)
			}
			return out, nil
		}
		left := time.Until(deadline)
		if left <= 0 {
			return Outcome{Approval: a}, nil
		}
		wctx, cancel := context.WithTimeout(ctx, left)
		_, err = conn.Conn().WaitForNotification(wctx)
		cancel()
		if err != nil && ctx.Err() != nil {
			return Outcome{}, ctx.Err()
		}
	}
}

// whyNotPending explains why an answer found nothing to answer.
func (db *DB) whyNotPending(ctx context.Context, id string) error {
	a, err := db.approval(ctx, `WHERE id = $1`, id)
	if errors.Is(err, ErrNoApproval) {
		return fmt.Errorf("%w: %q; run talon approvals list --fleet to see what waits", ErrNoApproval, id)
	}
	if err != nil {
		return err
	}
	switch a.State {
	case "answered":
		who := a.AnsweredBy
		if who == "" {
			who = "someone"
		}
		at := ""
		if a.AnsweredAt != nil {
			at = " at " + a.AnsweredAt.UTC().Format(time.RFC3339)
		}
		via := "on " + a.AnsweredHost
		return fmt.Errorf("%w: approval %s (%s on host %s) was answered %s by %s %s%s; an approval takes one answer", ErrAnswered,
			id, a.Tool, a.Host, a.Answer, who, via, at)
	case "withdrawn":
		return fmt.Errorf("%w: approval %s (%s on host %s) no longer waits: %s", ErrExpired, id, a.Tool, a.Host, a.Note)
	default:
		return fmt.Errorf("%w: approval %s (%s on host %s) timed out at %s; the call was denied", ErrExpired, id, a.Tool, a.Host,
			a.Deadline.UTC().Format(time.RFC3339))
	}
}

func normalizeID(id string) string { return strings.ToLower(strings.TrimSpace(id)) }
