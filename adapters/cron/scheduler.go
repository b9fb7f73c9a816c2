package cron

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/talonhq/talon/approval"
	"github.com/talonhq/talon/risk"
	"github.com/talonhq/talon/tool"
	"github.com/talonhq/talon/toolfactory"
)

// Defaults of the scheduler.
const (
	// DefaultInterval is how often the scheduler looks for due jobs.
	DefaultInterval = time.Second
	// DefaultGrace is how late a run may start and still run; a run more
	// overdue than this (talon was stopped) is recorded as skipped.
	DefaultGrace = time.Minute
	// DefaultRunTimeout bounds one run of a job.
	DefaultRunTimeout = 10 * time.Minute
	// SessionPrefix starts the session id of every job's calls.
	SessionPrefix = "cron:"
	// LeaseMargin is how long past its run timeout a lease outlives a
	// runner that crashed mid-run.
	LeaseMargin = time.Minute
)

// SchedulerOptions configure a [Scheduler]. The zero value of each field
// is its documented default.
type SchedulerOptions struct {
	// DataDir holds cron.db; the scheduler shares the process's store for
	// it with the cron tools. Ignored when Store is set.
	DataDir string
	// Store overrides the database.
	Store *Store
	// Caller runs the calls: the runtime. A nil Caller runs nothing.
	Caller toolfactory.Caller
	// Logger receives one line per run and per skipped schedule.
	Logger zerolog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Interval is how often due jobs are looked for; zero means
	// [DefaultInterval].
	Interval time.Duration
	// Grace is how overdue a run may be and still run; zero means
	// [DefaultGrace].
	Grace time.Duration
	// RunTimeout bounds one run; zero means [DefaultRunTimeout].
	RunTimeout time.Duration
	// RunnerID names this scheduler in the leases it takes (see
	// [Scheduler.Tick]); empty means "pid <process id> <random hex>".
	RunnerID string
}

// Scheduler runs due jobs. Start it once and Stop it once.
type Scheduler struct {
	opts  SchedulerOptions
	store *Store

	mu     sync.Mutex
	cancel context.CancelFunc
	done   chan struct{}
	wg     sync.WaitGroup
}

// NewScheduler returns a scheduler; nothing runs before Start.
func NewScheduler(opts SchedulerOptions) *Scheduler {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Interval <= 0 {
		opts.Interval = DefaultInterval
	}
	if opts.Grace <= 0 {
		opts.Grace = DefaultGrace
	}
	if opts.RunTimeout <= 0 {
		opts.RunTimeout = DefaultRunTimeout
	}
	if opts.RunnerID == "" {
		var b [4]byte
		_, _ = rand.Read(b[:])
		opts.RunnerID = fmt.Sprintf("pid %d %x", os.Getpid(), b)
	}
	st := opts.Store
	if st == nil {
		st = sharedStore(opts.DataDir)
	}
	return &Scheduler{opts: opts, store: st}
}

// Start starts the scheduling goroutine.
func (s *Scheduler) Start() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cancel != nil {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel, s.done = cancel, make(chan struct{})
	go s.loop(ctx)
}

// Stop stops the scheduler, cancels the runs in flight and waits for
// them. It is safe to call more than once, and without Start.
func (s *Scheduler) Stop() {
	s.mu.Lock()
	cancel, done := s.cancel, s.done
	s.mu.Unlock()
	if cancel == nil {
		return
	}
	cancel()
	<-done
	s.wg.Wait()
}

func (s *Scheduler) loop(ctx context.Context) {
	defer close(s.done)
	t := time.NewTicker(s.opts.Interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			s.Tick(ctx)
		}
	}
}

// Tick starts every job due at the clock's now and moves it to its next
// time. A run overdue by more than the grace, or due while the same job
// still runs, is recorded as skipped. Runs started by Tick go on in the
// background; [Scheduler.Wait] waits for them.
//
// # Several runners
//
// Every talon serve on a data directory runs a scheduler on the same
// database. Moving a job on and taking its lease (holder, expiry) happen in
// one write transaction, so each due run is started by exactly one runner,
// and no runner starts a job while another one's lease on it has not
// expired: the run still going on elsewhere makes this one a skip. A lease
// is given up when the run ends and expires [LeaseMargin] after the run
// timeout, which covers a runner that crashed mid-run.
func (s *Scheduler) Tick(ctx context.Context) {
	if !s.store.exists() {
		return
	}
	now := s.opts.Now().UTC()
	jobs, err := s.store.due(ctx, now)
	if err != nil {
		s.opts.Logger.Warn().Err(err).Msg("cron: cannot read due jobs")
		return
	}
	for _, j := range jobs {
		s.fire(ctx, j, now)
	}
}

// Wait waits for the runs Tick started.
func (s *Scheduler) Wait() { s.wg.Wait() }

func (s *Scheduler) fire(ctx context.Context, j Job, now time.Time) {
	log := s.opts.Logger.With().Str("job", j.Name).Str("tool", j.Tool).Logger()
	due := j.Next
	sched, err := ParseSchedule(j.Schedule)
	if err != nil {
		// Only a database edited by hand gets here: stop the job.
		_, _ = s.store.advance(ctx, j.Name, due, time.Time{}, now)
		log.Warn().Err(err).Msg("cron: job has an invalid schedule; it will not run again")
		return
	}
	next, passed := sched.After(due, now)
	skip := func(why string) {
		_, _ = s.store.AddRun(ctx, Run{Job: j.Name, Trigger: TriggerSchedule, Scheduled: due, Started: now, Outcome: OutcomeSkipped, Error: why})
		log.Info().Time("scheduled", due).Str("outcome", OutcomeSkipped).Msg(why)
	}
	if now.Sub(due) > s.opts.Grace {
		moved, err := s.store.advance(ctx, j.Name, due, next, now)
		if err != nil {
			log.Warn().Err(err).Msg("cron: cannot advance job")
		}
		if moved {
			skip(fmt.Sprintf("missed %d scheduled run(s) while the scheduler was not running; the first was due %s", passed, due.Format(time.RFC3339)))
		}
		return
	}
	claimed, busy, err := s.store.claim(ctx, j.Name, due, next, now, s.opts.RunnerID, now.Add(s.opts.RunTimeout+LeaseMargin))
	switch {
	case err != nil:
		log.Warn().Err(err).Msg("cron: cannot advance job")
		return
	case claimed == claimMoved:
		return
	case claimed == claimBusy:
		skip(fmt.Sprintf("the previous run of this job was still running (runner %s, since %s)", busy.Holder, busy.Acquired.Format(time.RFC3339)))
		return
	}
	s.wg.Go(func() {
		defer func() {
			if err := s.store.release(context.WithoutCancel(ctx), j.Name, s.opts.RunnerID); err != nil {
				log.Warn().Err(err).Msg("cron: cannot give up the job's lease; it expires on its own")
			}
		}()
		rctx, cancel := context.WithTimeout(ctx, s.opts.RunTimeout)
		defer cancel()
		r := execute(rctx, s.opts.Caller, j, s.opts.Now)
		r.Trigger, r.Scheduled = TriggerSchedule, due
		if _, err := s.store.AddRun(context.WithoutCancel(ctx), r); err != nil {
			log.Warn().Err(err).Msg("cron: cannot record the run")
		}
		ev := log.Info().Str("outcome", r.Outcome).Dur("duration", r.Duration)
		if r.ReceiptID != "" {
			ev = ev.Str("receipt_id", r.ReceiptID)
		}
		ev.Msg("cron: job ran")
	})
}

// execute makes the job's call through the runtime and describes the run.
func execute(ctx context.Context, caller toolfactory.Caller, j Job, now func() time.Time) Run {
	start := now().UTC()
	r := Run{Job: j.Name, Started: start}
	if caller == nil {
		r.Outcome, r.Error = OutcomeError, "no runtime to run the call"
		return r
	}
	allowed := j.AllowedTools
	if allowed == nil {
		allowed = []string{} // never "no restriction"
	}
	call := tool.Call{
		Name: j.Tool, Args: j.Args, Channel: tool.ChannelCron, Profile: j.Profile,
		CallerAllowlist: allowed, SessionID: SessionPrefix + j.Name,
	}
	// Nobody stands behind a scheduled call. Whatever approver the host
	// wired in (a terminal, a queue), a call that would be asked about is
	// denied here without reaching it.
	if ex, ok := caller.(explainer); ok {
		if expl, bad, err := ex.Explain(ctx, call); err == nil && bad == nil && expl.Decision == risk.Ask {
			r.Duration = now().Sub(start)
			r.Outcome, r.Error = OutcomeDenied, approval.DeniedNoApprover
			return r
		}
	}
	res, err := caller.Call(ctx, call)
	r.Duration = now().Sub(start)
	switch {
	case err != nil:
		r.Outcome, r.Error = OutcomeError, err.Error()
	case res.Success:
		r.Outcome = OutcomeSuccess
		if res.Receipt != nil {
			r.ReceiptID = res.Receipt.ID
		}
	case res.Denied:
		r.Outcome, r.Error = OutcomeDenied, res.Error
	default:
		r.Outcome, r.Error = OutcomeFailed, res.Error
	}
	return r
}

// Approver wraps a host's approver so that calls on the cron channel are
// never asked about: nobody is behind them, so they fail closed at once
// instead of waiting in a queue or prompting whoever is at a terminal.
// Every other call goes to Next (nil means nobody can be asked).
type Approver struct {
	Next approval.Approver
}

var _ approval.Approver = Approver{}

// ErrScheduled is the reason a cron-channel call was not asked about.
var ErrScheduled = errors.New("a scheduled call has no person to ask")

// Approve fails closed for [tool.ChannelCron] and delegates the rest.
func (a Approver) Approve(ctx context.Context, req approval.Request) (approval.Answer, error) {
	if req.Channel == tool.ChannelCron {
		return approval.No, fmt.Errorf("%w: %w", approval.ErrNoApprover, ErrScheduled)
	}
	if a.Next == nil {
		return approval.No, approval.ErrNoApprover
	}
	return a.Next.Approve(ctx, req)
}

// stores holds one [Store] per database file for the whole process, so
// the tools, their profile variants, catalog reloads and the scheduler
// share one *sql.DB. A Store opens nothing until it is used.
var stores = struct {
	sync.Mutex
	byPath map[string]*Store
}{byPath: map[string]*Store{}}

func sharedStore(dataDir string) *Store {
	path := ""
	if dataDir != "" {
		path = filepath.Join(dataDir, FileName)
		if abs, err := filepath.Abs(path); err == nil {
			path = abs
		}
	}
	stores.Lock()
	defer stores.Unlock()
	if s, ok := stores.byPath[path]; ok {
		return s
	}
	s := NewStore(path, StoreOptions{})
	stores.byPath[path] = s
	return s
}
