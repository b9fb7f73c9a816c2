package cron

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/talonhq/talon/internal/sqlitefile"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Limits and defaults of the store.
const (
	// FileName is the database's name in talon's data directory.
	FileName = "cron.db"
	// MaxJobs is the most jobs one database holds.
	MaxJobs = 100
	// MaxRunsPerJob is how many runs are kept per job; older ones are
	// deleted as new ones are recorded.
	MaxRunsPerJob = 200
	// DefaultBusyTimeout is how long a call waits for another process's
	// write.
	DefaultBusyTimeout = 5 * time.Second
)

var (
	// ErrNoDataDir reports a store without a data directory.
	ErrNoDataDir = errors.New("no data directory for the cron database")
	// ErrClosed reports a call after Close.
	ErrClosed = errors.New("cron database closed")
	// ErrJobExists reports a job name already in use.
	ErrJobExists = errors.New("a cron job with this name exists")
	// ErrNoJob reports a job name that is not in the database.
	ErrNoJob = errors.New("no such cron job")
	// ErrTooManyJobs reports an add beyond [MaxJobs].
	ErrTooManyJobs = errors.New("too many cron jobs")
	// ErrBusy reports a database another process kept locked.
	ErrBusy = errors.New("cron database busy")
)

// Job is one scheduled call.
type Job struct {
	Name         string          `json:"name"`
	Schedule     string          `json:"schedule"`
	Tool         string          `json:"tool"`
	Args         json.RawMessage `json:"args"`
	AllowedTools []string        `json:"allowed_tools"`
	Profile      string          `json:"profile"`
	// CreatedBy is the session that added the job.
	CreatedBy string    `json:"created_by,omitempty"`
	Created   time.Time `json:"created"`
	// Next is the next scheduled time; zero when the job will not run
	// again (a one-shot that ran or was skipped).
	Next time.Time `json:"next,omitzero"`
	// Last is when the job last ran or was skipped; zero before.
	Last time.Time `json:"last,omitzero"`
}

// Outcomes of a run.
const (
	OutcomeSuccess = "success"
	OutcomeFailed  = "failed"
	OutcomeDenied  = "denied"
	OutcomeSkipped = "skipped"
	OutcomeError   = "error"
)

// Triggers of a run.
const (
	TriggerSchedule = "schedule"
	TriggerManual   = "manual"
)

// Run is one run of a job, or one skipped schedule.
type Run struct {
	ID        int64         `json:"id"`
	Job       string        `json:"job"`
	Trigger   string        `json:"trigger"`
	Scheduled time.Time     `json:"scheduled,omitzero"`
	Started   time.Time     `json:"started"`
	Duration  time.Duration `json:"duration_ns"`
	Outcome   string        `json:"outcome"`
	Error     string        `json:"error,omitempty"`
	ReceiptID string        `json:"receipt_id,omitempty"`
}

// StoreOptions configures a [Store]. The zero value is the default.
type StoreOptions struct {
	// BusyTimeout is how long a call waits for another process's write;
	// zero means [DefaultBusyTimeout].
	BusyTimeout time.Duration
}

// Store is the cron database: an SQLite file in WAL mode, opened on first
// use (never by [NewStore]) and safe for concurrent use. A failed open is
// not remembered: the next call tries again.
type Store struct {
	path string
	opts StoreOptions

	mu     sync.Mutex
	db     *sql.DB
	closed bool
	wmu    sync.Mutex // this process's writers take turns
}

// NewStore returns a store for the database at path; it touches nothing
// on disk. An empty path makes every call fail with [ErrNoDataDir].
func NewStore(path string, opts StoreOptions) *Store {
	if opts.BusyTimeout <= 0 {
		opts.BusyTimeout = DefaultBusyTimeout
	}
	return &Store{path: path, opts: opts}
}

// Path returns the database file's path.
func (s *Store) Path() string { return s.path }

// Close closes the database if it was opened.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	if s.db == nil {
		return nil
	}
	err := s.db.Close()
	s.db = nil
	return err
}

// exists reports whether the database is open or its file exists, so the
// scheduler never creates a database nobody asked for.
func (s *Store) exists() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.db != nil {
		return true
	}
	if s.path == "" {
		return false
	}
	_, err := os.Stat(s.path)
	return err == nil
}

func (s *Store) handle(ctx context.Context) (*sql.DB, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrClosed
	}
	if s.db != nil {
		return s.db, nil
	}
	if s.path == "" {
		return nil, fmt.Errorf("%w: set data_dir in talon.toml or pass --data-dir", ErrNoDataDir)
	}
	db, err := openDB(ctx, s.path, s.opts.BusyTimeout)
	if err != nil {
		return nil, err
	}
	s.db = db
	return db, nil
}

const schema = `
CREATE TABLE IF NOT EXISTS jobs (
	name          TEXT PRIMARY KEY,
	schedule      TEXT NOT NULL,
	tool          TEXT NOT NULL,
	args          TEXT NOT NULL,
	allowed_tools TEXT NOT NULL,
	profile       TEXT NOT NULL,
	created_by    TEXT NOT NULL DEFAULT '',
	created       INTEGER NOT NULL,
	next_run      INTEGER NOT NULL DEFAULT 0,
	last_run      INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS runs (
	id          INTEGER PRIMARY KEY AUTOINCREMENT,
	job         TEXT NOT NULL,
	trigger     TEXT NOT NULL,
	scheduled   INTEGER NOT NULL DEFAULT 0,
	started     INTEGER NOT NULL,
	duration_ns INTEGER NOT NULL DEFAULT 0,
	outcome     TEXT NOT NULL,
	error       TEXT NOT NULL DEFAULT '',
	receipt_id  TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS runs_job ON runs(job, id);
CREATE TABLE IF NOT EXISTS leases (
	job      TEXT PRIMARY KEY,
	holder   TEXT NOT NULL,
	acquired INTEGER NOT NULL,
	expires  INTEGER NOT NULL
);
`

// openDB opens the database, creating it (mode 0600, in a directory of
// mode 0700) when it is missing.
func openDB(ctx context.Context, path string, busy time.Duration) (*sql.DB, error) {
	db, abs, err := sqlitefile.Open(path, "cron", busy)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(2)
	if _, err := db.ExecContext(ctx, schema); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("open cron database %s: %w", abs, dbError(err))
	}
	return db, nil
}

func dbError(err error) error {
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
			return fmt.Errorf("%w: another process held it for longer than the busy timeout; try again", ErrBusy)
		}
	}
	return err
}

func ms(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

func fromMS(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.UnixMilli(n).UTC()
}

// Add stores a new job.
//
// # Errors
//
// [ErrJobExists], [ErrTooManyJobs], [ErrBusy], [ErrNoDataDir], [ErrClosed].
func (s *Store) Add(ctx context.Context, j Job) error {
	db, err := s.handle(ctx)
	if err != nil {
		return err
	}
	allowed, _ := json.Marshal(j.AllowedTools)
	s.wmu.Lock()
	defer s.wmu.Unlock()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return dbError(err)
	}
	defer func() { _ = tx.Rollback() }()
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM jobs`).Scan(&n); err != nil {
		return dbError(err)
	}
	var dup int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM jobs WHERE name = ?`, j.Name).Scan(&dup); err != nil {
		return dbError(err)
	}
	if dup > 0 {
		return fmt.Errorf("%w: %q; remove it first or choose another name", ErrJobExists, j.Name)
	}
	if n >= MaxJobs {
		return fmt.Errorf("%w: the limit is %d; remove jobs you no longer need", ErrTooManyJobs, MaxJobs)
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO jobs(name, schedule, tool, args, allowed_tools, profile, created_by, created, next_run, last_run)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		j.Name, j.Schedule, j.Tool, string(j.Args), string(allowed), j.Profile, j.CreatedBy, ms(j.Created), ms(j.Next), ms(j.Last))
	if err != nil {
		return dbError(err)
	}
	return dbError(tx.Commit())
}

// Remove deletes a job and its runs; it reports [ErrNoJob] for a name
// that is not there.
func (s *Store) Remove(ctx context.Context, name string) error {
	db, err := s.handle(ctx)
	if err != nil {
		return err
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	res, err := db.ExecContext(ctx, `DELETE FROM jobs WHERE name = ?`, name)
	if err != nil {
		return dbError(err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("%w: %q; cron_list shows the jobs", ErrNoJob, name)
	}
	if _, err = db.ExecContext(ctx, `DELETE FROM runs WHERE job = ?`, name); err != nil {
		return dbError(err)
	}
	_, err = db.ExecContext(ctx, `DELETE FROM leases WHERE job = ?`, name)
	return dbError(err)
}

const jobColumns = `name, schedule, tool, args, allowed_tools, profile, created_by, created, next_run, last_run`

func scanJob(sc interface{ Scan(...any) error }) (Job, error) {
	var j Job
	var args, allowed string
	var created, next, last int64
	if err := sc.Scan(&j.Name, &j.Schedule, &j.Tool, &args, &allowed, &j.Profile, &j.CreatedBy, &created, &next, &last); err != nil {
		return Job{}, err
	}
	j.Args = json.RawMessage(args)
	if err := json.Unmarshal([]byte(allowed), &j.AllowedTools); err != nil || j.AllowedTools == nil {
		j.AllowedTools = []string{}
	}
	j.Created, j.Next, j.Last = fromMS(created), fromMS(next), fromMS(last)
	return j, nil
}

// Get returns one job, or [ErrNoJob].
func (s *Store) Get(ctx context.Context, name string) (Job, error) {
	db, err := s.handle(ctx)
	if err != nil {
		return Job{}, err
	}
	j, err := scanJob(db.QueryRowContext(ctx, `SELECT `+jobColumns+` FROM jobs WHERE name = ?`, name))
	if errors.Is(err, sql.ErrNoRows) {
		return Job{}, fmt.Errorf("%w: %q; cron_list shows the jobs", ErrNoJob, name)
	}
	return j, dbError(err)
}

// List returns every job, sorted by name.
func (s *Store) List(ctx context.Context) ([]Job, error) {
	db, err := s.handle(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := db.QueryContext(ctx, `SELECT `+jobColumns+` FROM jobs ORDER BY name`)
	if err != nil {
		return nil, dbError(err)
	}
	defer func() { _ = rows.Close() }()
	var out []Job
	for rows.Next() {
		j, err := scanJob(rows)
		if err != nil {
			return nil, dbError(err)
		}
		out = append(out, j)
	}
	return out, dbError(rows.Err())
}

// due returns the jobs whose next time is at or before now.
func (s *Store) due(ctx context.Context, now time.Time) ([]Job, error) {
	db, err := s.handle(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := db.QueryContext(ctx, `SELECT `+jobColumns+` FROM jobs WHERE next_run != 0 AND next_run <= ? ORDER BY next_run, name`, ms(now))
	if err != nil {
		return nil, dbError(err)
	}
	defer func() { _ = rows.Close() }()
	var out []Job
	for rows.Next() {
		j, err := scanJob(rows)
		if err != nil {
			return nil, dbError(err)
		}
		out = append(out, j)
	}
	return out, dbError(rows.Err())
}

// advance moves a job from its scheduled time prev to next, only if its
// next time is still prev (another scheduler may have moved it), and
// reports whether it did.
func (s *Store) advance(ctx context.Context, name string, prev, next, last time.Time) (bool, error) {
	db, err := s.handle(ctx)
	if err != nil {
		return false, err
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	res, err := db.ExecContext(ctx, `UPDATE jobs SET next_run = ?, last_run = ? WHERE name = ? AND next_run = ?`, ms(next), ms(last), name, ms(prev))
	if err != nil {
		return false, dbError(err)
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// lease is a runner's claim on a job while it runs it.
type lease struct {
	Holder   string    // the runner's id
	Acquired time.Time // when the run started
	Expires  time.Time // after this, a runner that crashed no longer holds the job
}

// claimResult is what [Store.claim] decided.
type claimResult int

const (
	claimMoved claimResult = iota // another runner moved the job first: nothing to do
	claimRun                      // the job moved on and the lease is ours: run it
	claimBusy                     // the job moved on, but a run is still going on elsewhere
)

// claim moves a due job from its scheduled time due to next and takes its
// lease for holder until expires, in one write transaction (BEGIN
// IMMEDIATE: the database's write lock is taken first, so two runners
// never both see the job due or the lease free). When an unexpired lease
// of any holder exists, the job still moves on but the lease is left
// alone and busy describes it.
func (s *Store) claim(ctx context.Context, name string, due, next, now time.Time, holder string, expires time.Time) (res claimResult, busy lease, err error) {
	db, err := s.handle(ctx)
	if err != nil {
		return claimMoved, lease{}, err
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return claimMoved, lease{}, dbError(err)
	}
	defer func() { _ = tx.Rollback() }()
	moved, err := tx.ExecContext(ctx, `UPDATE jobs SET next_run = ?, last_run = ? WHERE name = ? AND next_run = ?`, ms(next), ms(now), name, ms(due))
	if err != nil {
		return claimMoved, lease{}, dbError(err)
	}
	if n, _ := moved.RowsAffected(); n != 1 {
		return claimMoved, lease{}, nil
	}
	var acquired, exp int64
	err = tx.QueryRowContext(ctx, `SELECT holder, acquired, expires FROM leases WHERE job = ?`, name).Scan(&busy.Holder, &acquired, &exp)
	switch {
	case err == nil && exp > ms(now):
		busy.Acquired, busy.Expires = fromMS(acquired), fromMS(exp)
		return claimBusy, busy, dbError(tx.Commit())
	case err != nil && !errors.Is(err, sql.ErrNoRows):
		return claimMoved, lease{}, dbError(err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO leases(job, holder, acquired, expires) VALUES (?, ?, ?, ?)`,
		name, holder, ms(now), ms(expires)); err != nil {
		return claimMoved, lease{}, dbError(err)
	}
	return claimRun, lease{}, dbError(tx.Commit())
}

// release gives up holder's lease on a job once its run is over.
func (s *Store) release(ctx context.Context, name, holder string) error {
	db, err := s.handle(ctx)
	if err != nil {
		return err
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	_, err = db.ExecContext(ctx, `DELETE FROM leases WHERE job = ? AND holder = ?`, name, holder)
	return dbError(err)
}

// touch records when a job last ran.
func (s *Store) touch(ctx context.Context, name string, last time.Time) error {
	db, err := s.handle(ctx)
	if err != nil {
		return err
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	_, err = db.ExecContext(ctx, `UPDATE jobs SET last_run = ? WHERE name = ?`, ms(last), name)
	return dbError(err)
}

// AddRun records a run and keeps the newest [MaxRunsPerJob] of its job.
func (s *Store) AddRun(ctx context.Context, r Run) (int64, error) {
	db, err := s.handle(ctx)
	if err != nil {
		return 0, err
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	res, err := db.ExecContext(ctx, `INSERT INTO runs(job, trigger, scheduled, started, duration_ns, outcome, error, receipt_id)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		r.Job, r.Trigger, ms(r.Scheduled), ms(r.Started), int64(r.Duration), r.Outcome, r.Error, r.ReceiptID)
	if err != nil {
		return 0, dbError(err)
	}
	id, _ := res.LastInsertId()
	_, err = db.ExecContext(ctx, `DELETE FROM runs WHERE job = ? AND id <= ?`, r.Job, id-MaxRunsPerJob)
	return id, dbError(err)
}

// Runs returns the newest runs first, of one job or ("" ) of every job
// in jobs (nil means every job), at most limit.
func (s *Store) Runs(ctx context.Context, jobs []string, limit int) ([]Run, error) {
	db, err := s.handle(ctx)
	if err != nil {
		return nil, err
	}
	q := `SELECT id, job, trigger, scheduled, started, duration_ns, outcome, error, receipt_id FROM runs`
	var args []any
	if jobs != nil {
		if len(jobs) == 0 {
			return nil, nil
		}
		q += ` WHERE job IN (?` + strings.Repeat(",?", len(jobs)-1) + `)` //nolint:gosec // only placeholders are added; values are bound
		for _, j := range jobs {
			args = append(args, j)
		}
	}
	q += ` ORDER BY id DESC LIMIT ?`
	args = append(args, limit)
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, dbError(err)
	}
	defer func() { _ = rows.Close() }()
	var out []Run
	for rows.Next() {
		var r Run
		var sched, started, dur int64
		if err := rows.Scan(&r.ID, &r.Job, &r.Trigger, &sched, &started, &dur, &r.Outcome, &r.Error, &r.ReceiptID); err != nil {
			return nil, dbError(err)
		}
		r.Scheduled, r.Started, r.Duration = fromMS(sched), fromMS(started), time.Duration(dur)
		out = append(out, r)
	}
	return out, dbError(rows.Err())
}
