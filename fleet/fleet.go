package fleet

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/talonhq/talon/approval"
	"github.com/talonhq/talon/receipts"
)

// Options configure [New]. Every field but URL and DataDir may be left
// zero.
type Options struct {
	// URL is the database, postgres://… ([fleet] database_url, expanded).
	URL string
	// DataDir is talon's data directory: the host id and the ship locks
	// live under it.
	DataDir string
	// ReceiptsDir is the receipt store to ship; "" means
	// <DataDir>/receipts.
	ReceiptsDir string
	// HostID is [fleet] host_id; "" means the id kept in the data
	// directory (see [HostID]).
	HostID string
	// AutoMigrate applies the embedded schema at connect.
	AutoMigrate bool
	// Version is talon's version, recorded with the host and migrations.
	Version string
	// Logger receives what the fleet does and what goes wrong. Default:
	// the disabled zero logger.
	Logger zerolog.Logger
	// Machine identifies this machine for the host id claim; "" means
	// [Machine]. Tests set it to play several machines.
	Machine string
	// Batch and Poll tune the shipper: records per COPY (0 means
	// [DefaultBatch]) and how often an idle shipper looks (0 means
	// [DefaultPoll]).
	Batch int
	Poll  time.Duration
	// MaxBackoff bounds the wait between reconnection attempts; 0 means
	// 30 s.
	MaxBackoff time.Duration
}

// Fleet connects one talon process to the fleet database: it ships the
// receipt store's chains and, once attached to an approval queue,
// publishes what waits and applies answers. It runs in the background
// from [Fleet.Start] to [Fleet.Close], reconnecting after an outage; no
// method waits for the database.
type Fleet struct {
	opts     Options
	host     string
	server   string
	hostname string
	log      zerolog.Logger
	ship     *shipper

	mu     sync.Mutex
	ib     *inbox
	state  State
	cancel context.CancelFunc
	done   chan struct{}
}

// State is the fleet connection as a status line tells it.
type State struct {
	// Connected is set while a connection works.
	Connected bool
	// Err is why the fleet is not connected (the last failure).
	Err error
	// Refused is set when the fleet stopped for good: the schema is
	// newer than this talon, or another machine holds the host id.
	Refused bool
	// Since is when the state began.
	Since time.Time
}

// Stats are what the fleet reports for metrics.
type Stats struct {
	ShipStats
	State State
	// Pending is how many approvals of the attached queue wait.
	Pending int
}

// New prepares a fleet without connecting.
//
// # Errors
//
// [ErrInvalidOptions] for a URL that is not PostgreSQL's or a bad host
// id; an error when the host id cannot be read or kept.
func New(o Options) (*Fleet, error) {
	if _, _, err := poolConfig(o.URL); err != nil {
		return nil, err
	}
	host, err := HostID(o.DataDir, o.HostID)
	if err != nil {
		return nil, err
	}
	if o.ReceiptsDir == "" {
		o.ReceiptsDir = filepath.Join(o.DataDir, "receipts")
	}
	if o.Machine == "" {
		o.Machine = Machine()
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = 30 * time.Second
	}
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, fmt.Errorf("draw a server id: %w", err)
	}
	hostname, _ := os.Hostname()
	log := o.Logger.With().Str("fleet_host", host).Logger()
	return &Fleet{
		opts: o, host: host, hostname: hostname, log: log,
		server: fmt.Sprintf("%d-%s", os.Getpid(), hex.EncodeToString(b[:])),
		ship:   newShipper(host, o.ReceiptsDir, o.DataDir, o.Batch, o.Poll, log),
		state:  State{Since: time.Now()},
	}, nil
}

// Host returns the host id.
func (f *Fleet) Host() string { return f.host }

// ShipChain asks for a chain to be shipped first. Other chains of the
// store that no running process ships are shipped too.
func (f *Fleet) ShipChain(chain string) { f.ship.want(chain, nil) }

// ShipStore asks for the chain of s, a Store of this process, to be
// shipped first: the shipper then copies only what s says is on disk
// ([receipts.Store.Synced]) and needs no fsync of its own to be sure a
// record it ships cannot be lost from the log.
func (f *Fleet) ShipStore(s *receipts.Store) { f.ship.want(s.Chain(), s.Synced) }

// Attach publishes the approvals q waits for and lets people answer them
// from any machine; timeout is the queue's wait bound, which sets each
// approval's deadline. Call it before Start.
func (f *Fleet) Attach(q *approval.Queue, timeout time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.ib == nil {
		f.ib = newInbox(f.host, f.server, f.hostname, q, timeout, f.log)
	}
}

// Sharing reports whether an approval queue is attached.
func (f *Fleet) Sharing() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.ib != nil
}

// Start connects in the background and keeps the fleet running until
// Close.
func (f *Fleet) Start() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.cancel != nil {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	f.cancel, f.done = cancel, make(chan struct{})
	go func() {
		defer close(f.done)
		f.loop(ctx)
	}()
}

// Close stops the fleet and lets go of the chains it shipped. Records
// not shipped yet stay in the log for the next shipper.
func (f *Fleet) Close() error {
	f.mu.Lock()
	cancel, done := f.cancel, f.done
	ib := f.ib
	f.mu.Unlock()
	if cancel != nil {
		cancel()
		<-done
	}
	if ib != nil {
		ib.close()
	}
	f.ship.close()
	return nil
}

// Stats returns what the fleet has done and how it stands.
func (f *Fleet) Stats() Stats {
	f.mu.Lock()
	st := Stats{State: f.state}
	ib := f.ib
	f.mu.Unlock()
	st.ShipStats = f.ship.stats()
	if ib != nil {
		st.Pending = ib.pendingCount()
	}
	return st
}

// permanent errors stop the fleet: retrying cannot fix them.
func permanent(err error) bool {
	return errors.Is(err, ErrSchemaNewer) || errors.Is(err, ErrHostClaimed) || errors.Is(err, ErrInvalidOptions)
}

func (f *Fleet) setState(s State) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s.Since = time.Now()
	f.state = s
}

func (f *Fleet) loop(ctx context.Context) {
	backoff := 100 * time.Millisecond
	var logged string
	for ctx.Err() == nil {
		began := time.Now()
		err := f.session(ctx)
		if ctx.Err() != nil {
			return
		}
		if permanent(err) {
			f.setState(State{Err: err, Refused: true})
			f.log.Error().Err(err).Msg("fleet: stopped; receipts stay in the local log and approvals are answered on this host only")
			return
		}
		f.setState(State{Err: err})
		if msg := err.Error(); msg != logged {
			logged = msg
			f.log.Warn().Err(err).Msg("fleet: not connected; calls go on, receipts wait in the local log and shipping resumes once the database answers")
		}
		if time.Since(began) > 10*time.Second {
			backoff = 100 * time.Millisecond
		}
		until := time.Now().Add(backoff)
		for time.Now().Before(until) {
			f.ship.fill()
			select {
			case <-ctx.Done():
				return
			case <-time.After(min(time.Until(until), f.ship.poll*5)):
			}
		}
		backoff = min(backoff*2, f.opts.MaxBackoff)
	}
}

// session connects, checks the schema and the host id and runs the
// shipper and the inbox until one of them fails.
func (f *Fleet) session(ctx context.Context) error {
	db, err := Connect(ctx, f.opts.URL, ConnectOptions{MaxConns: 4, Timeout: 5 * time.Second})
	if err != nil {
		return err
	}
	defer db.Close()
	if f.opts.AutoMigrate {
		if applied, err := db.Migrate(ctx, f.opts.Version); err != nil {
			return err
		} else if len(applied) > 0 {
			f.log.Info().Ints("versions", applied).Msg("fleet: schema migrated")
		}
	} else if err := db.CheckSchema(ctx); err != nil {
		return err
	}
	me := Host{ID: f.host, Machine: f.opts.Machine, Hostname: f.hostname, Version: f.opts.Version}
	if err := db.Claim(ctx, me); err != nil {
		return err
	}
	f.setState(State{Connected: true})
	f.log.Info().Str("database", db.Where()).Msg("fleet: connected")

	sctx, stop := context.WithCancel(ctx)
	defer stop()
	errs := make(chan error, 3)
	run := func(fn func(context.Context, *DB) error) {
		go func() {
			err := fn(sctx, db)
			stop()
			errs <- err
		}()
	}
	n := 2
	run(f.ship.run)
	run(func(ctx context.Context, db *DB) error {
		// The claim is refreshed, and checked again, every minute.
		t := time.NewTicker(time.Minute)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-t.C:
				if err := db.Claim(ctx, me); err != nil {
					return err
				}
			}
		}
	})
	f.mu.Lock()
	ib := f.ib
	f.mu.Unlock()
	if ib != nil {
		n++
		run(ib.run)
	}
	var first error
	for range n {
		if err := <-errs; first == nil || (errors.Is(first, context.Canceled) && !errors.Is(err, context.Canceled)) {
			first = err
		}
	}
	if first == nil || errors.Is(first, context.Canceled) {
		first = fmt.Errorf("%w: the connection ended", ErrUnreachable)
	}
	if !errors.Is(first, ErrUnreachable) && !permanent(first) && ctx.Err() == nil {
		first = fmt.Errorf("%w: %s: %v", ErrUnreachable, db.Where(), first)
	}
	return first
}
