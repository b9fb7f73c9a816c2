package fleet

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/rs/zerolog"

	"github.com/talonhq/talon/receipts"
)

// Shipping defaults.
const (
	// DefaultBatch is how many records one COPY carries at most.
	DefaultBatch = 4096
	// DefaultPoll is how often an idle shipper looks for new records.
	DefaultPoll = 100 * time.Millisecond
	// rescanEvery is how often the shipper looks for chains it does not
	// ship yet (a talon tools call's new chain, a chain left by a
	// process that ended).
	rescanEvery = 2 * time.Second
	// ShipLockDir holds one lock file per chain, under the data
	// directory: the process holding it ships the chain.
	ShipLockDir = "fleet/ship"
)

// receiptsTable and receiptColumns are where and what COPY writes.
var (
	receiptsTable  = pgx.Identifier{"talon", "receipts"}
	receiptColumns = []string{"host_id", "chain", "seq", "time", "id", "tool", "attribution", "channel",
		"profile", "session", "tier", "allowed_by", "key_id", "rotation", "hash", "record"}
)

// ShipStats are what a shipper has done, for status lines and metrics.
type ShipStats struct {
	// Shipped counts the records this process shipped.
	Shipped uint64
	// Backlog is how many records were read from the log and wait for
	// the database.
	Backlog int
	// Lag is the age of the oldest record read and not yet shipped; zero
	// when everything read is shipped.
	Lag time.Duration
	// Chains is how many chains this process ships.
	Chains int
}

// shipper copies the records of the chains it holds to the database.
type shipper struct {
	host    string
	dir     string // the receipt store
	lockDir string
	batch   int
	poll    time.Duration
	log     zerolog.Logger
	// onShipped, when set, sees every committed batch (benchmarks).
	onShipped func([]*receipts.Receipt)

	mu    sync.Mutex
	first []string // chains to take first (ShipChain), in order
	// durable holds, for chains a Store of this process writes, what
	// it says is on disk (ShipStore).
	durable map[string]func() uint64
	chains  map[string]*chainShip
	months  map[string]bool
	// scanned is when the store was last listed for chains.
	scanned time.Time
	// keysMod is the public key file's modification time when its keys
	// were last sent.
	keysMod time.Time

	wake    chan struct{}
	shipped atomic.Uint64
	backlog atomic.Int64
	// oldest is the time (Unix nanoseconds) of the oldest record read
	// and not shipped; 0 when there is none.
	oldest atomic.Int64
}

// chainShip is one chain being shipped.
type chainShip struct {
	id      string // "" for the legacy chain
	lock    *os.File
	f       *receipts.Follower
	pending []*receipts.Receipt
	// resumed is set once the shipped position was read from the
	// database in the current connection.
	resumed bool
	// broken stops the chain after the log broke its order.
	broken string
	// durable is the writing Store's Synced, when it is in this process.
	durable func() uint64
}

func (c *chainShip) name() string { return receipts.ChainName(c.id) }

func newShipper(host, dir, dataDir string, batch int, poll time.Duration, log zerolog.Logger) *shipper {
	if batch <= 0 {
		batch = DefaultBatch
	}
	if poll <= 0 {
		poll = DefaultPoll
	}
	return &shipper{host: host, dir: dir, lockDir: filepath.Join(dataDir, ShipLockDir), batch: batch, poll: poll, log: log,
		chains: map[string]*chainShip{}, months: map[string]bool{}, wake: make(chan struct{}, 1), durable: map[string]func() uint64{}}
}

// want asks for chain to be shipped by this process, before the others;
// durable, when not nil, is its Store's Synced.
func (s *shipper) want(chain string, durable func() uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !slices.Contains(s.first, chain) {
		s.first = append(s.first, chain)
	}
	if durable != nil {
		s.durable[chain] = durable
	}
	s.scanned = time.Time{}
}

func (s *shipper) stats() ShipStats {
	s.mu.Lock()
	n := len(s.chains)
	s.mu.Unlock()
	st := ShipStats{Shipped: s.shipped.Load(), Backlog: int(s.backlog.Load()), Chains: n}
	if o := s.oldest.Load(); o != 0 {
		st.Lag = max(0, time.Since(time.Unix(0, o)))
	}
	return st
}

// close releases the chains' locks.
func (s *shipper) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.chains {
		if c.f != nil {
			_ = c.f.Close()
		}
		_ = c.lock.Close()
	}
	s.chains = map[string]*chainShip{}
}

// run ships until ctx ends or the database fails; the caller reconnects
// and calls run again, which resumes every chain from the database.
func (s *shipper) run(ctx context.Context, db *DB) error {
	s.mu.Lock()
	for _, c := range s.chains {
		c.resumed, c.pending = false, nil
	}
	s.keysMod = time.Time{}
	s.mu.Unlock()
	for {
		if err := s.scan(); err != nil {
			s.log.Warn().Err(err).Msg("fleet: cannot list the receipt chains to ship")
		}
		if err := s.sendKeys(ctx, db); err != nil {
			return err
		}
		busy := false
		for _, c := range s.ordered() {
			full, err := s.step(ctx, db, c)
			if err != nil {
				return err
			}
			busy = busy || full
		}
		s.measure()
		if busy {
			continue
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-s.wake:
		case <-time.After(s.poll):
		}
	}
}

// ordered returns the chains, those asked for first.
func (s *shipper) ordered() []*chainShip {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*chainShip, 0, len(s.chains))
	for _, id := range s.first {
		if c := s.chains[id]; c != nil {
			out = append(out, c)
		}
	}
	var rest []*chainShip
	for id, c := range s.chains {
		if !slices.Contains(s.first, id) {
			rest = append(rest, c)
		}
	}
	sort.Slice(rest, func(i, j int) bool { return rest[i].id < rest[j].id })
	return append(out, rest...)
}

// scan takes the ship lock of every chain of the store that no other
// process ships, at most every rescanEvery.
func (s *shipper) scan() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if time.Since(s.scanned) < rescanEvery {
		return nil
	}
	s.scanned = time.Now()
	ids, err := receipts.ListChains(s.dir)
	if err != nil {
		return err
	}
	for _, id := range s.first {
		if !slices.Contains(ids, id) {
			ids = append(ids, id) // a chain whose first record is yet to come
		}
	}
	if err := os.MkdirAll(s.lockDir, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", s.lockDir, err)
	}
	for _, id := range ids {
		if _, ok := s.chains[id]; ok {
			continue
		}
		l, err := tryLock(filepath.Join(s.lockDir, receipts.ChainName(id)+".lock"))
		if err != nil {
			return err
		}
		if l == nil {
			continue // another process ships it
		}
		s.chains[id] = &chainShip{id: id, lock: l, durable: s.durable[id]}
	}
	return nil
}

// step reads and ships one batch of a chain; full reports that a whole
// batch went, so more may be waiting.
func (s *shipper) step(ctx context.Context, db *DB, c *chainShip) (full bool, err error) {
	if c.broken != "" {
		return false, nil
	}
	if !c.resumed {
		if err := s.resume(ctx, db, c); err != nil {
			return false, err
		}
	}
	if len(c.pending) < s.batch {
		recs, err := c.f.Next(s.batch - len(c.pending))
		c.pending = append(c.pending, recs...)
		if errors.Is(err, receipts.ErrChainBroken) {
			c.broken = err.Error()
			s.log.Error().Err(err).Str("chain", c.name()).
				Msg("fleet: the local receipt log does not continue as shipped; this chain is no longer shipped: run talon receipts verify and talon receipts verify --against postgres")
			if perr := s.problem(ctx, db, c); perr != nil {
				return false, perr
			}
		} else if err != nil {
			s.log.Warn().Err(err).Str("chain", c.name()).Msg("fleet: cannot read the receipt log")
		}
	}
	if len(c.pending) == 0 {
		return false, nil
	}
	full = len(c.pending) >= s.batch
	return full, s.ship(ctx, db, c)
}

// resume reads where the database says the chain's shipping stands and
// follows the log from there.
func (s *shipper) resume(ctx context.Context, db *DB, c *chainShip) error {
	var seq int64
	var hash string
	err := db.pool.QueryRow(ctx, `SELECT shipped_seq, shipped_hash FROM talon.chains WHERE host_id = $1 AND chain = $2`,
		s.host, c.name()).Scan(&seq, &hash)
	if errors.Is(err, pgx.ErrNoRows) {
		seq, hash, err = 0, "", nil
	}
	if err != nil {
		return fmt.Errorf("read where chain %s was shipped to: %w", c.name(), err)
	}
	if c.f != nil {
		_ = c.f.Close()
	}
	c.f, err = receipts.FollowChain(s.dir, c.id, receipts.FollowOptions{After: uint64(seq), Prev: hash, Durable: c.durable})
	if err != nil {
		return err
	}
	c.pending, c.resumed = nil, true
	return nil
}

// problem records in the database why a chain stopped.
func (s *shipper) problem(ctx context.Context, db *DB, c *chainShip) error {
	_, err := db.pool.Exec(ctx, `INSERT INTO talon.chains (host_id, chain, shipped_seq, shipped_hash, problem) VALUES ($1, $2, 0, '', $3)
ON CONFLICT (host_id, chain) DO UPDATE SET problem = excluded.problem`, s.host, c.name(), c.broken)
	if err != nil {
		return fmt.Errorf("record the problem of chain %s: %w", c.name(), err)
	}
	return nil
}

// ship copies the chain's pending records in one transaction: a COPY
// into talon.receipts and the chain's new position. A record already in
// the database (a shipper that ran before this one lost its position)
// makes the batch go again through a staging table, keeping each record
// once.
func (s *shipper) ship(ctx context.Context, db *DB, c *chainShip) error {
	recs := c.pending
	if err := s.partitions(ctx, db, recs); err != nil {
		return err
	}
	rows := make([][]any, len(recs))
	rotation := false
	for i, r := range recs {
		rot := r.Rotation != nil
		rotation = rotation || rot
		rows[i] = []any{s.host, c.name(), int64(r.Seq), r.Time, r.ID, r.Tool, r.Attribution, r.Channel,
			r.Profile, r.Session, r.Tier, r.AllowedBy, r.KeyID, rot, r.Hash(), string(r.Canonical())}
	}
	if rotation {
		s.mu.Lock()
		s.keysMod = time.Time{}
		s.mu.Unlock()
		if err := s.sendKeys(ctx, db); err != nil {
			return err
		}
	}
	last := recs[len(recs)-1]
	err := pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		if _, err := tx.CopyFrom(ctx, receiptsTable, receiptColumns, pgx.CopyFromRows(rows)); err != nil {
			return err
		}
		return s.advance(ctx, tx, c, last)
	})
	if isUnique(err) {
		err = s.shipStaged(ctx, db, c, rows, last)
	}
	if err != nil {
		return fmt.Errorf("ship chain %s: %w", c.name(), err)
	}
	if s.onShipped != nil {
		s.onShipped(recs)
	}
	s.shipped.Add(uint64(len(recs)))
	clear(c.pending)
	c.pending = c.pending[:0]
	return nil
}

func (s *shipper) advance(ctx context.Context, tx pgx.Tx, c *chainShip, last *receipts.Receipt) error {
	_, err := tx.Exec(ctx, `INSERT INTO talon.chains AS c (host_id, chain, shipped_seq, shipped_hash, local_seq)
VALUES ($1, $2, $3, $4, $3)
ON CONFLICT (host_id, chain) DO UPDATE SET shipped_seq = excluded.shipped_seq, shipped_hash = excluded.shipped_hash,
	shipped_at = now(), local_seq = greatest(c.local_seq, excluded.local_seq), local_seen = now()
	WHERE c.shipped_seq < excluded.shipped_seq`, s.host, c.name(), int64(last.Seq), last.Hash())
	return err
}

// shipStaged ships rows of which some are already in the database.
func (s *shipper) shipStaged(ctx context.Context, db *DB, c *chainShip, rows [][]any, last *receipts.Receipt) error {
	return pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `CREATE TEMP TABLE IF NOT EXISTS talon_stage (LIKE talon.receipts INCLUDING DEFAULTS) ON COMMIT DELETE ROWS`); err != nil {
			return err
		}
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"talon_stage"}, receiptColumns, pgx.CopyFromRows(rows)); err != nil {
			return err
		}
		differ, err := tx.Query(ctx, `SELECT DISTINCT s.seq::text FROM talon_stage s JOIN talon.receipts r
	ON r.host_id = s.host_id AND r.chain = s.chain AND r.seq = s.seq WHERE r.hash <> s.hash ORDER BY 1`)
		if err != nil {
			return err
		}
		seqs, err := collectStrings(differ)
		if err != nil {
			return err
		}
		if len(seqs) > 0 {
			s.log.Error().Str("chain", c.name()).Strs("seqs", seqs).
				Msg("fleet: the database holds other records under these seqs of this chain than the local log; both are kept: run talon receipts verify --source postgres")
		}
		if _, err := tx.Exec(ctx, `INSERT INTO talon.receipts SELECT * FROM talon_stage ON CONFLICT DO NOTHING`); err != nil {
			return err
		}
		return s.advance(ctx, tx, c, last)
	})
}

// partitions makes sure the month partitions of recs exist.
func (s *shipper) partitions(ctx context.Context, db *DB, recs []*receipts.Receipt) error {
	for _, r := range recs {
		m := r.Time.UTC().Format("2006-01")
		if s.months[m] {
			continue
		}
		if _, err := db.pool.Exec(ctx, `SELECT talon.receipts_partition($1)`, r.Time); err != nil {
			// Rows of the month land in the default partition;
			// shipping goes on.
			s.log.Warn().Err(err).Str("month", m).Msg("fleet: cannot make the month's partition of talon.receipts; its receipts go to talon.receipts_default")
		}
		s.months[m] = true
	}
	return nil
}

// sendKeys copies the store's public keys when the key file changed.
func (s *shipper) sendKeys(ctx context.Context, db *DB) error {
	path := receipts.PublicKeyPath(s.dir)
	st, err := os.Stat(path)
	if err != nil {
		return nil // no key yet: no receipt yet
	}
	s.mu.Lock()
	same := st.ModTime().Equal(s.keysMod)
	s.mu.Unlock()
	if same {
		return nil
	}
	keys, err := receipts.ReadPublicKeys(path)
	if err != nil {
		s.log.Warn().Err(err).Msg("fleet: cannot read the receipts' public keys; verify --source postgres needs them or --pubkey")
		return nil
	}
	for _, k := range keys {
		if _, err := db.pool.Exec(ctx, `INSERT INTO talon.receipt_keys (host_id, key_id, public_key) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
			s.host, receipts.KeyID(k), receipts.FormatPublicKey(k)); err != nil {
			return fmt.Errorf("send the receipts' public keys: %w", err)
		}
	}
	s.mu.Lock()
	s.keysMod = st.ModTime()
	s.mu.Unlock()
	return nil
}

// fill reads records into the chains' batches without a database, while
// it is away, so that the backlog and lag say how far behind shipping is.
func (s *shipper) fill() {
	for _, c := range s.ordered() {
		if c.f == nil || c.broken != "" || len(c.pending) >= s.batch {
			continue
		}
		recs, _ := c.f.Next(s.batch - len(c.pending)) // errors are reported once connected
		c.pending = append(c.pending, recs...)
	}
	s.measure()
}

// measure updates the backlog and lag.
func (s *shipper) measure() {
	var n int
	var oldest time.Time
	for _, c := range s.ordered() {
		n += len(c.pending)
		if len(c.pending) > 0 && (oldest.IsZero() || c.pending[0].Time.Before(oldest)) {
			oldest = c.pending[0].Time
		}
	}
	s.backlog.Store(int64(n))
	if oldest.IsZero() {
		s.oldest.Store(0)
	} else {
		s.oldest.Store(oldest.UnixNano())
	}
}
