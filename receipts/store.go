package receipts

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"
)

// Options configures [Open]. Every field but Dir may be left zero.
type Options struct {
	// Dir is the store directory: it holds the keys and a directory per
	// chain. It is created with mode 0700 when missing.
	Dir string
	// Clock stamps an Entry whose Time is zero. Default: time.Now.
	Clock func() time.Time
	// StoreArguments records the call's arguments, with secret-looking keys
	// redacted, in each receipt's args member. Default: only their hash.
	StoreArguments bool
	// Logger receives what the store notices about itself (torn tails, key
	// rotation, write failures). Default: the disabled zero logger.
	Logger zerolog.Logger

	// rand supplies ids and new keys; nil means crypto/rand. Tests set it
	// to get reproducible bytes.
	rand io.Reader
}

// Entry holds the facts of one successful call, as the runtime knows them.
type Entry struct {
	Tool        string          // model-visible tool name; required
	Attribution string          // "<kind>.<alias>", e.g. "builtin.shell"; required
	Channel     string          // channel the call came in on
	Profile     string          // risk profile that decided it
	Session     string          // session id
	Tier        string          // TierLow, TierMedium or TierHigh
	AllowedBy   string          // AllowedAuto, AllowedByUser or AllowedAlways
	Args        json.RawMessage // arguments as called; empty or null mean {}
	Result      string          // result text returned to the caller
	Duration    time.Duration   // execution time; recorded in whole milliseconds
	Time        time.Time       // when the call ran; zero means Options.Clock()
	// Delegation, for a call that made calls of its own (a subagent),
	// names its model, rounds and tokens and the receipts issued inside
	// it; nil for every other call.
	Delegation *Delegation
}

const (
	// maxBatch bounds how many queued receipts share one write.
	maxBatch = 1024
	// queueLen is how many receipts may wait for the writer.
	queueLen = 1024
)

// maxSegmentBytes is the size past which the writer starts a new segment.
// It bounds the memory Verify needs per segment. A variable for tests.
var maxSegmentBytes int64 = 32 << 20

// Store appends receipts to one chain of a store directory. It is safe for
// concurrent use, and any number of Stores, in this process or others, may
// write one directory at once: each writes a chain of its own (see [Open]).
//
// Issue calls made at the same time share one write and one fsync (group
// commit): a single writer goroutine assigns sequence numbers, chains and
// signs queued receipts and appends them; a syncer goroutine fsyncs and
// wakes every caller whose receipt the fsync covered, while the writer
// already prepares the next batch.
type Store struct {
	dir       string // the store directory
	chain     *heldChain
	clock     func() time.Time
	storeArgs bool
	log       zerolog.Logger
	rand      io.Reader

	mu     sync.RWMutex // guards closed and sending on reqs
	closed bool
	reqs   chan *request
	toSync chan *batch
	wg     sync.WaitGroup

	// wmu is held by whoever writes: the writer goroutine, or a caller
	// that finds the store idle and writes and syncs its own receipt
	// (see [Store.issueInline]). syncing counts the batches handed to
	// the syncer and not yet acknowledged.
	wmu     sync.Mutex
	syncing atomic.Int64

	failMu  sync.Mutex
	failErr error

	key        atomic.Pointer[signingKey] // current signing key
	rotMu      sync.Mutex                 // serializes RotateKey
	rotPending atomic.Bool

	w writerState // owned by the writer goroutine once Open returns

	// keyInfo is the private key file as the writer last saw it; a
	// change (another process rotated the key) is noticed per batch.
	keyInfo fs.FileInfo

	syncs atomic.Int64 // fsyncs of segments, for tests and benchmarks

	// synced is the seq of the last record known durable (see Synced).
	synced atomic.Uint64
}

// writerState is what the writer reads and writes, under wmu.
type writerState struct {
	seq     uint64 // seq of the last record
	prev    string // hash of the last record
	key     *signingKey
	file    *os.File // segment being appended to; nil: start a new one
	segName string
	size    int64 // bytes in the segment, including those in buf
	nextNum int   // number of the next new segment
	torn    []TornNote
	rot     *pendingRotation
	buf     []byte
	scratch []byte
	out     []*batch // written, to be synced
}

// pendingRotation is a key change the next record carries.
type pendingRotation struct {
	from    *signingKey // nil when the previous private key is not at hand
	fromID  string
	fromPub string // empty when the previous public key is unknown
	to      *signingKey
	finish  bool // move nextKeyFile over PrivateKeyFile once durable
}

type request struct {
	rec    *Receipt
	rotate *pendingRotation // a control message when set
	done   chan error
}

// batch is bytes already written to file, waiting for an fsync.
type batch struct {
	file      *os.File
	reqs      []*request
	closeFile bool
	afterSync func()
}

// Open opens (creating when needed) the store in opts.Dir, makes a signing
// key on first use, takes a chain of the store for this Store and checks
// the tail of that chain's last segment.
//
// # Chains
//
// Every Store writes a hash chain of its own, in chains/<id>/ under the
// store directory, so that several processes can issue receipts into one
// directory at once. Open continues a chain no other Store holds (held
// means its lock file is locked, which the operating system undoes when a
// process dies), preferring one whose last writer was cut off mid-write;
// with none free, it starts a chain with a random id. Segments written
// before chains existed, directly in the store directory, are the legacy
// chain: read and verified, never written. All chains are signed by the
// directory's one key, made under a lock so that processes starting
// together end up with the same key.
//
// # Torn tails
//
// If the chain's last segment ends in bytes that are not a valid record (a
// partial line, bad JSON or a bad signature: a write cut short by a
// crash), Open neither truncates nor repairs them. The next receipt goes
// into a new segment, chains from the last good record and names the torn
// bytes (segment, offset, length and SHA-256) in its torn member, so
// [Verify] can report them.
//
// # Errors
//
// Open returns [ErrKeyPermissions] when the private key file is readable
// by others, [ErrInvalidKey] when a key file cannot be decoded, and
// [ErrUnknownKey] when the chain's last receipts are signed by a key the
// public key file lacks.
func Open(opts Options) (*Store, error) {
	if opts.Dir == "" {
		return nil, fmt.Errorf("open receipts: %w: Options.Dir is empty; set it to the receipts directory under the data dir", ErrInvalidOptions)
	}
	s := &Store{
		dir:       opts.Dir,
		clock:     opts.Clock,
		storeArgs: opts.StoreArguments,
		log:       opts.Logger,
		rand:      rand.Reader,
		reqs:      make(chan *request, queueLen),
		toSync:    make(chan *batch, 64),
	}
	if s.clock == nil {
		s.clock = time.Now
	}
	if opts.rand != nil {
		s.rand = &lockedReader{r: opts.rand}
	}
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return nil, fmt.Errorf("open receipts: %w", err)
	}
	keys, err := s.loadKeys()
	if err != nil {
		return nil, fmt.Errorf("open receipts %s: %w", s.dir, err)
	}
	ch, err := acquireChain(s.dir, s.rand)
	if err != nil {
		return nil, fmt.Errorf("open receipts %s: %w", s.dir, err)
	}
	s.chain = ch
	if err := s.recover(keys); err != nil {
		if s.w.file != nil {
			_ = s.w.file.Close()
		}
		_ = ch.release()
		return nil, fmt.Errorf("open receipts %s: chain %s: %w", s.dir, ch.id, err)
	}
	s.wg.Add(2)
	go s.writeLoop()
	go s.syncLoop()
	return s, nil
}

// keyState is what Open reads about the store's keys.
type keyState struct {
	key  *signingKey // the current private key
	next *signingKey // a pending rotation's key; nil without one
	ring map[string]ed25519.PublicKey
	info fs.FileInfo // of the private key file
}

// loadKeys reads the keys, making the private key on first use, under
// the key lock: two processes that start together end up with one key,
// and the public key file gets each key once.
func (s *Store) loadKeys() (*keyState, error) {
	l, err := lockFile(filepath.Join(s.dir, keyLockName))
	if err != nil {
		return nil, err
	}
	defer func() { _ = l.release() }()
	keyPath := filepath.Join(s.dir, PrivateKeyFile)
	key, err := loadKeyFile(keyPath)
	if errors.Is(err, fs.ErrNotExist) {
		key, err = generateKey(s.rand)
		if err == nil {
			err = writeKeyFile(keyPath, key)
		}
		if err == nil {
			s.log.Info().Str("key_id", key.id).Msg("receipts: created a signing key")
		}
	}
	if err != nil {
		return nil, err
	}
	ks := &keyState{key: key}
	if ks.info, err = os.Stat(keyPath); err != nil {
		return nil, fmt.Errorf("stat receipt key: %w", err)
	}
	pubs, err := addPublicKey(s.dir, key.pub)
	if err != nil {
		return nil, err
	}
	ks.ring = make(map[string]ed25519.PublicKey, len(pubs)+1)
	for _, p := range pubs {
		ks.ring[KeyID(p)] = p
	}
	ks.next, err = loadKeyFile(filepath.Join(s.dir, nextKeyFile))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if ks.next != nil {
		ks.ring[ks.next.id] = ks.next.pub
	}
	return ks, nil
}

// recover finds where the chain continues and which key signs next.
func (s *Store) recover(keys *keyState) error {
	key, next, ring := keys.key, keys.next, keys.ring
	s.keyInfo = keys.info
	tail, err := scanTail(s.chain.dir, ring)
	if err != nil {
		return err
	}
	w := &s.w
	w.key = key
	w.nextNum = tail.maxNum + 1
	w.prev = GenesisPrev
	lastKey := ""
	if tail.last != nil {
		w.seq = tail.last.Seq
		w.prev = tail.last.Hash()
		lastKey = tail.last.KeyID
	}
	w.torn = tail.torn
	for _, n := range tail.torn {
		s.log.Warn().Str("chain", s.chain.id).Str("segment", n.Segment).Int64("offset", n.Offset).Int64("bytes", n.Length).
			Msg("receipts: torn tail kept as is; the next receipt starts a new segment and records it")
	}

	switch {
	case next != nil && lastKey == next.id:
		// The first record signed by the new key is durable: finish.
		if err := s.finishRotationTo(next.id); err != nil {
			return err
		}
		w.key = next
	case next != nil:
		w.rot = s.rotationFrom(lastKey, key, ring, next)
		w.rot.finish = true
		s.rotPending.Store(true)
	case lastKey != "" && lastKey != key.id:
		// Another process rotated the key, or it was replaced by hand:
		// link to it, endorsed only when the chain's key is at hand.
		w.rot = s.rotationFrom(lastKey, key, ring, key)
		s.log.Info().Str("chain", s.chain.id).Str("from_key_id", lastKey).Str("key_id", key.id).
			Msg("receipts: the signing key differs from the one that signed the chain's last receipt; the next receipt starts a new segment and names both")
	}
	s.key.Store(w.key)
	if w.rot != nil {
		s.key.Store(w.rot.to)
	}

	if tail.appendTo != nil && w.rot == nil && len(w.torn) == 0 {
		f, err := os.OpenFile(tail.appendTo.path, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			return fmt.Errorf("open segment for append: %w", err)
		}
		w.file, w.segName, w.size = f, tail.appendTo.name, tail.appendSize
	}
	return nil
}

// rotationFrom describes a change from the key that signed the last record
// (lastKey) to `to`. The previous private key is known only when it is the
// one in PrivateKeyFile.
func (s *Store) rotationFrom(lastKey string, cur *signingKey, ring map[string]ed25519.PublicKey, to *signingKey) *pendingRotation {
	r := &pendingRotation{to: to, fromID: lastKey}
	if lastKey == "" || lastKey == cur.id {
		r.from, r.fromID, r.fromPub = cur, cur.id, cur.pubString()
		if cur == to {
			r.from = nil
		}
		return r
	}
	if p, ok := ring[lastKey]; ok {
		r.fromPub = pubEncoding.EncodeToString(p)
	}
	return r
}

// tailInfo is where the log continues.
type tailInfo struct {
	last       *Receipt // last good record; nil in an empty store
	torn       []TornNote
	appendTo   *segFile // the clean segment holding last
	appendSize int64
	maxNum     int
}

func scanTail(dir string, ring map[string]ed25519.PublicKey) (*tailInfo, error) {
	segs, err := listSegments(dir)
	if err != nil {
		return nil, err
	}
	info := &tailInfo{}
	if len(segs) > 0 {
		info.maxNum = segs[len(segs)-1].num
	}
	for i := len(segs) - 1; i >= 0; i-- {
		st, err := os.Stat(segs[i].path)
		if err != nil {
			return nil, fmt.Errorf("stat segment: %w", err)
		}
		size := st.Size()
		if size == 0 {
			continue
		}
		last, goodEnd, sum, err := segmentTail(segs[i].path, size, ring)
		if err != nil {
			return nil, err
		}
		if goodEnd < size {
			n := TornNote{Segment: segs[i].name, Offset: goodEnd, Length: size - goodEnd, SHA256: sum}
			info.torn = append([]TornNote{n}, info.torn...)
		}
		if last != nil {
			info.last = last
			if len(info.torn) == 0 {
				info.appendTo, info.appendSize = &segs[i], size
			}
			break
		}
	}
	return info, nil
}

// Dir returns the store directory.
func (s *Store) Dir() string { return s.dir }

// Chain returns the id of the chain this Store writes.
func (s *Store) Chain() string { return s.chain.id }

// ChainDir returns the directory of the chain this Store writes.
func (s *Store) ChainDir() string { return s.chain.dir }

// PublicKey returns the key that signs the next receipt.
func (s *Store) PublicKey() ed25519.PublicKey {
	return append(ed25519.PublicKey(nil), s.key.Load().pub...)
}

// KeyID returns the id of [Store.PublicKey].
func (s *Store) KeyID() string { return s.key.Load().id }

// Issue records a successful call and returns its receipt once the receipt
// is durable: written and fsynced together with any receipts issued
// concurrently. The runtime calls it only for calls that succeeded; there is
// no way to record a failure.
//
// # Errors
//
// [ErrInvalidEntry] or [ErrInvalidArgs] for an entry it cannot record,
// [ErrClosed] after Close, [ErrStoreFailed] after a write or fsync failed.
// If ctx ends while the receipt waits for its fsync, Issue returns ctx.Err()
// and the receipt may still be written.
func (s *Store) Issue(ctx context.Context, e Entry) (*Receipt, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rec, err := s.prepare(e)
	if err != nil {
		return nil, err
	}
	req := &request{rec: rec, done: make(chan error, 1)}
	if !s.issueInline(req) {
		if err := s.send(ctx, req); err != nil {
			return nil, err
		}
	}
	select {
	case err := <-req.done:
		if err != nil {
			s.log.Error().Err(err).Str("attribution", e.Attribution).Str("tool", e.Tool).Msg("receipts: receipt not recorded")
			return nil, fmt.Errorf("issue receipt for %s: %w", e.Attribution, err)
		}
		return rec, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("issue receipt for %s: %w (the receipt may still be written)", e.Attribution, ctx.Err())
	}
}

// issueInline writes and syncs req on the caller's goroutine when the
// store is idle (nothing queued, nothing waiting for an fsync), sparing
// the hand-offs to the writer and the syncer that a lone caller would
// otherwise wait through. It reports false, having done nothing, when
// the store is busy: req then goes through the queue, where concurrent
// receipts share a write and an fsync. The outcome is in req.done.
func (s *Store) issueInline(req *request) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed || len(s.reqs) > 0 || s.syncing.Load() > 0 || !s.wmu.TryLock() {
		return false
	}
	defer s.wmu.Unlock()
	if len(s.reqs) > 0 || s.syncing.Load() > 0 {
		return false
	}
	s.writeBatch([]*request{req})
	out := s.w.out
	s.w.out = nil
	s.syncGroup(out)
	return true
}

func (s *Store) send(ctx context.Context, req *request) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return ErrClosed
	}
	if err := s.failure(); err != nil {
		return err
	}
	select {
	case s.reqs <- req:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// prepare does the per-call work that needs no ordering: validation,
// canonical arguments, hashes and the id. It runs on the caller's goroutine.
func (s *Store) prepare(e Entry) (*Receipt, error) {
	switch {
	case e.Tool == "":
		return nil, fmt.Errorf("%w: Tool is empty", ErrInvalidEntry)
	case e.Attribution == "":
		return nil, fmt.Errorf("%w: Attribution is empty; pass \"<kind>.<alias>\"", ErrInvalidEntry)
	case !validTier(e.Tier):
		return nil, fmt.Errorf("%w: Tier %q is not low, medium or high", ErrInvalidEntry, clip(e.Tier))
	case !validAllowedBy(e.AllowedBy):
		return nil, fmt.Errorf("%w: AllowedBy %q is not auto, approved:user or approved:always", ErrInvalidEntry, clip(e.AllowedBy))
	case e.Duration < 0:
		return nil, fmt.Errorf("%w: Duration is negative", ErrInvalidEntry)
	}
	t := e.Time
	if t.IsZero() {
		t = s.clock()
	}
	t = t.UTC().Truncate(time.Microsecond)
	if t.Year() < 1970 || t.Year() > 9999 {
		return nil, fmt.Errorf("%w: Time %s is outside 1970-9999", ErrInvalidEntry, t.Format(time.RFC3339))
	}
	args, err := CanonicalArgs(e.Args)
	if err != nil {
		return nil, err
	}
	id, err := newID(t, s.rand)
	if err != nil {
		return nil, err
	}
	r := &Receipt{
		Version:      Version,
		ID:           id,
		Chain:        s.chain.id,
		Time:         t,
		Tool:         validUTF8(e.Tool),
		Attribution:  validUTF8(e.Attribution),
		Channel:      validUTF8(e.Channel),
		Profile:      validUTF8(e.Profile),
		Session:      validUTF8(e.Session),
		Tier:         e.Tier,
		AllowedBy:    e.AllowedBy,
		ArgsSHA256:   sha256Hex(args),
		ResultSHA256: sha256Hex([]byte(e.Result)),
		Duration:     e.Duration.Truncate(time.Millisecond),
	}
	if d := e.Delegation; d != nil {
		c := &Delegation{Model: validUTF8(d.Model), Rounds: d.Rounds, InputTokens: d.InputTokens, OutputTokens: d.OutputTokens, Inner: slices.Clone(d.Inner)}
		if _, err := (&wireDelegation{Model: c.Model, Rounds: c.Rounds, InputTokens: c.InputTokens, OutputTokens: c.OutputTokens, Inner: c.Inner}).delegation(); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrInvalidEntry, err)
		}
		r.Delegation = c
	}
	if s.storeArgs {
		if r.Args, err = RedactArgs(args); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// validUTF8 replaces invalid bytes, which JSON strings cannot carry.
func validUTF8(s string) string { return strings.ToValidUTF8(s, "\uFFFD") }

// RotateKey makes a new signing key. The next receipt starts a new segment,
// is signed by the new key and carries a rotation member naming the previous
// key, plus an endorsement: the previous key's signature over the same bytes.
// An auditor who trusts either key can thus extend trust to the other (see
// FORMAT.md). The new public key is appended to the public key file at once;
// the private key file is replaced once that receipt is durable. Stores of
// other processes notice the new private key file at their next receipt
// and rotate their own chains to it, endorsed by the key they held.
//
// It returns the new key id, or [ErrRotationPending] when an earlier
// rotation, of this or another process, still waits for its first receipt.
func (s *Store) RotateKey(ctx context.Context) (string, error) {
	s.rotMu.Lock()
	defer s.rotMu.Unlock()
	if s.rotPending.Load() {
		return "", fmt.Errorf("rotate receipt key: %w; issue a receipt first", ErrRotationPending)
	}
	cur := s.key.Load()
	next, err := generateKey(s.rand)
	if err != nil {
		return "", err
	}
	if err := s.prepareRotation(next); err != nil {
		return "", fmt.Errorf("rotate receipt key: %w", err)
	}
	s.rotPending.Store(true)
	rot := &pendingRotation{from: cur, fromID: cur.id, fromPub: cur.pubString(), to: next, finish: true}
	req := &request{rotate: rot, done: make(chan error, 1)}
	if err := s.send(ctx, req); err != nil {
		return "", fmt.Errorf("rotate receipt key: %w", err)
	}
	if err := <-req.done; err != nil {
		return "", fmt.Errorf("rotate receipt key: %w", err)
	}
	s.log.Info().Str("from_key_id", cur.id).Str("key_id", next.id).Msg("receipts: signing key rotated; the next receipt starts a new segment")
	return next.id, nil
}

// prepareRotation writes the next key and its public half, under the key
// lock, unless another rotation is pending.
func (s *Store) prepareRotation(next *signingKey) error {
	l, err := lockFile(filepath.Join(s.dir, keyLockName))
	if err != nil {
		return err
	}
	defer func() { _ = l.release() }()
	nextPath := filepath.Join(s.dir, nextKeyFile)
	if _, err := os.Lstat(nextPath); err == nil {
		return fmt.Errorf("%w: %s exists; issue a receipt to finish it", ErrRotationPending, nextPath)
	}
	if err := writeKeyFile(nextPath, next); err != nil {
		return err
	}
	_, err = addPublicKey(s.dir, next.pub)
	return err
}

// finishRotationTo moves the pending key over the private key file, under
// the key lock, if the pending key is still id (another process may have
// finished it, and even started the next rotation).
func (s *Store) finishRotationTo(id string) error {
	l, err := lockFile(filepath.Join(s.dir, keyLockName))
	if err != nil {
		return err
	}
	defer func() { _ = l.release() }()
	nextPath := filepath.Join(s.dir, nextKeyFile)
	next, err := loadKeyFile(nextPath)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("finish key rotation: %w", err)
	}
	if next.id != id {
		return nil
	}
	if err := os.Rename(nextPath, filepath.Join(s.dir, PrivateKeyFile)); err != nil {
		return fmt.Errorf("finish key rotation: %w", err)
	}
	return syncDir(s.dir)
}

func (s *Store) finishRotation(id string) {
	if err := s.finishRotationTo(id); err != nil {
		// Open finishes the rename: the durable record names the new key.
		s.log.Error().Err(err).Msg("receipts: could not replace the private key file after rotation; the next Open retries")
		return
	}
	s.rotPending.Store(false)
}

// noticeKeyChange runs on the writer before each batch: when another
// process has replaced the private key file (it finished a rotation), the
// next record of this chain rotates to that key, endorsed by the key this
// Store signed with. One stat per batch.
func (s *Store) noticeKeyChange() {
	w := &s.w
	if w.rot != nil {
		return
	}
	path := filepath.Join(s.dir, PrivateKeyFile)
	st, err := os.Stat(path)
	if err != nil || (os.SameFile(st, s.keyInfo) && st.ModTime().Equal(s.keyInfo.ModTime()) && st.Size() == s.keyInfo.Size()) {
		return
	}
	k, err := loadKeyFile(path)
	if err != nil {
		s.log.Warn().Err(err).Msg("receipts: the private key file changed but cannot be read; signing with the key in use")
		return
	}
	s.keyInfo = st
	if k.id == w.key.id {
		return
	}
	w.rot = &pendingRotation{from: w.key, fromID: w.key.id, fromPub: w.key.pubString(), to: k}
	s.key.Store(k)
	s.log.Info().Str("chain", s.chain.id).Str("from_key_id", w.key.id).Str("key_id", k.id).
		Msg("receipts: the signing key was rotated; the next receipt starts a new segment endorsed by the previous key")
}

// Close waits for queued receipts, fsyncs, closes the segment and releases
// the lock. It returns the store's failure, if a write or fsync failed.
// Calling Close again does nothing.
func (s *Store) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	close(s.reqs)
	s.mu.Unlock()
	s.wg.Wait()
	err := s.failure()
	if lerr := s.chain.release(); err == nil && lerr != nil {
		err = fmt.Errorf("close receipts: release the chain's lock: %w", lerr)
	}
	return err
}

func (s *Store) failure() error {
	s.failMu.Lock()
	defer s.failMu.Unlock()
	return s.failErr
}

func (s *Store) fail(err error) {
	s.failMu.Lock()
	defer s.failMu.Unlock()
	if s.failErr == nil {
		s.failErr = fmt.Errorf("%w: %v; the store refuses new receipts: fix the disk, then reopen it (the tail is checked on open)", ErrStoreFailed, err)
		s.log.Error().Err(err).Msg("receipts: write failed; refusing further receipts")
	}
}

// writeLoop is the single writer: it takes every queued request, signs and
// chains the receipts in order and appends them with one write.
func (s *Store) writeLoop() {
	defer s.wg.Done()
	defer close(s.toSync)
	for req := range s.reqs {
		reqs := []*request{req}
	drain:
		for len(reqs) < maxBatch {
			select {
			case r, ok := <-s.reqs:
				if !ok {
					break drain
				}
				reqs = append(reqs, r)
			default:
				break drain
			}
		}
		s.wmu.Lock()
		s.writeBatch(reqs)
		s.handOver()
	}
	s.wmu.Lock()
	if s.w.file != nil {
		s.w.out = append(s.w.out, &batch{file: s.w.file, closeFile: true})
		s.w.file = nil
	}
	s.handOver()
}

// handOver passes what the writer wrote to the syncer and releases wmu.
func (s *Store) handOver() {
	out := s.w.out
	s.w.out = nil
	s.syncing.Add(int64(len(out)))
	s.wmu.Unlock()
	for _, b := range out {
		s.toSync <- b
	}
}

func (s *Store) writeBatch(reqs []*request) {
	w := &s.w
	s.noticeKeyChange()
	var cur []*request
	var after func()
	for _, r := range reqs {
		if r.rotate != nil {
			w.rot = r.rotate
			s.key.Store(r.rotate.to)
			r.done <- nil
			continue
		}
		if err := s.failure(); err != nil {
			r.done <- err
			continue
		}
		if w.file == nil || w.rot != nil || len(w.torn) > 0 || w.size >= maxSegmentBytes {
			s.flush(cur, after, true)
			cur, after = nil, nil
			if err := s.startSegment(); err != nil {
				s.fail(err)
				r.done <- s.failure()
				continue
			}
		}
		if fn := s.appendRecord(r.rec); fn != nil {
			after = fn
		}
		cur = append(cur, r)
	}
	s.flush(cur, after, false)
}

// flush writes the buffered records and queues them, in w.out, for an
// fsync.
func (s *Store) flush(reqs []*request, after func(), closeFile bool) {
	w := &s.w
	if w.file == nil {
		return
	}
	if len(w.buf) > 0 {
		if s.failure() == nil {
			if _, err := w.file.Write(w.buf); err != nil {
				s.fail(fmt.Errorf("write %s: %w", w.segName, err))
			}
		}
		w.buf = w.buf[:0]
	}
	if len(reqs) == 0 && after == nil && !closeFile {
		return
	}
	w.out = append(w.out, &batch{file: w.file, reqs: reqs, closeFile: closeFile, afterSync: after})
	if closeFile {
		w.file = nil
	}
}

func (s *Store) startSegment() error {
	w := &s.w
	name := segmentName(w.nextNum)
	f, err := os.OpenFile(filepath.Join(s.chain.dir, name), os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("create segment: %w", err)
	}
	if err := syncDir(s.chain.dir); err != nil {
		_ = f.Close()
		return err
	}
	w.nextNum++
	w.file, w.segName, w.size = f, name, 0
	return nil
}

// appendRecord completes rec (seq, prev, key, notes, signatures) and appends
// its line to the buffer. It returns work to do once the record is durable.
func (s *Store) appendRecord(rec *Receipt) (after func()) {
	w := &s.w
	key := w.key
	var rot *pendingRotation
	if w.rot != nil {
		rot, w.rot = w.rot, nil
		key = rot.to
		rec.Rotation = &Rotation{FromKeyID: rot.fromID, FromPubKey: rot.fromPub, PubKey: rot.to.pubString()}
		w.key = rot.to
		s.key.Store(rot.to)
		if rot.finish {
			id := rot.to.id
			after = func() { s.finishRotation(id) }
		}
	}
	if len(w.torn) > 0 {
		rec.Torn, w.torn = w.torn, nil
	}
	rec.Seq = w.seq + 1
	rec.Prev = w.prev
	rec.KeyID = key.id
	w.scratch = appendRecord(w.scratch[:0], rec, false)
	rec.Sig = encodeSig(ed25519.Sign(key.priv, w.scratch))
	if rot != nil && rot.from != nil {
		rec.Endorsement = encodeSig(ed25519.Sign(rot.from.priv, w.scratch))
	}
	rec.raw = appendRecord(make([]byte, 0, len(w.scratch)+100+len(rec.Endorsement)), rec, true)
	w.seq = rec.Seq
	w.prev = sha256Hex(rec.raw)
	w.buf = append(w.buf, rec.raw...)
	w.buf = append(w.buf, '\n')
	w.size += int64(len(rec.raw)) + 1
	return after
}

// syncLoop fsyncs what the writer wrote and wakes the callers. Batches that
// queue up while an fsync runs share the next one.
func (s *Store) syncLoop() {
	defer s.wg.Done()
	for b := range s.toSync {
		group := []*batch{b}
	drain:
		for {
			select {
			case nb, ok := <-s.toSync:
				if !ok {
					break drain
				}
				group = append(group, nb)
			default:
				break drain
			}
		}
		s.syncGroup(group)
		s.syncing.Add(-int64(len(group)))
	}
}

// syncGroup fsyncs each file of group once, finishes what waited for
// durability and wakes the callers of its receipts.
func (s *Store) syncGroup(group []*batch) {
	var synced *os.File
	for _, g := range group {
		if g.file != synced && s.failure() == nil {
			s.syncs.Add(1)
			if err := g.file.Sync(); err != nil {
				s.fail(fmt.Errorf("fsync %s: %w", filepath.Base(g.file.Name()), err))
			}
			synced = g.file
		}
	}
	err := s.failure()
	for _, g := range group {
		// Work that waits for durability (finishing a rotation) is
		// done before the receipts' callers learn they are durable.
		if err == nil && g.afterSync != nil {
			g.afterSync()
		}
		if err == nil {
			for _, r := range g.reqs {
				if r.rec != nil && r.rec.Seq > s.synced.Load() {
					s.synced.Store(r.rec.Seq)
				}
			}
		}
		for _, r := range g.reqs {
			r.done <- err
		}
		if g.closeFile {
			if cerr := g.file.Close(); cerr != nil && err == nil {
				s.log.Warn().Err(cerr).Msg("receipts: closing a segment failed")
			}
		}
	}
}

// lockedReader serializes a test's deterministic random source.
type lockedReader struct {
	mu sync.Mutex
	r  io.Reader
}

func (l *lockedReader) Read(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.r.Read(p)
}
