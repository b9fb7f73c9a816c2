package memory

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
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
	FileName = "memory.db"
	// DefaultNamespace holds the memories of the default risk profile, and
	// of a tool built without a profile.
	DefaultNamespace = "default"
	// MaxContentBytes is the largest content one memory holds (64 KiB).
	MaxContentBytes = 64 << 10
	// MaxKeyBytes is the longest key.
	MaxKeyBytes = 128
	// MaxCategoryBytes is the longest category.
	MaxCategoryBytes = 64
	// MaxTags is the most tags one memory carries.
	MaxTags = 16
	// MaxTagBytes is the longest tag.
	MaxTagBytes = 64
	// DefaultLimit is the number of memories a recall returns when
	// [Query.Limit] is zero.
	DefaultLimit = 10
	// MaxLimit is the most memories one recall returns.
	MaxLimit = 100
	// DefaultBusyTimeout is how long a call waits for another process's
	// write when [StoreOptions.BusyTimeout] is zero.
	DefaultBusyTimeout = 5 * time.Second
	// maxOpenConns bounds the connections of one store: readers run in
	// parallel under WAL, writers take turns anyway.
	maxOpenConns = 4
)

// StoreOptions configures a [Store]. The zero value is the default.
type StoreOptions struct {
	// BusyTimeout is how long a call waits while another process holds
	// the write lock; zero means [DefaultBusyTimeout].
	BusyTimeout time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Store is the persistent memory database: an SQLite file (pure Go, no
// cgo) with a full-text index. It is safe for concurrent use by many
// goroutines, and several processes may share the file: the database runs
// in WAL mode, writes take the lock up front (BEGIN IMMEDIATE) and wait up
// to the busy timeout for another process's write.
//
// The file is opened on first use, never by [NewStore], and the schema is
// migrated then (PRAGMA user_version). A failed open is not remembered: the
// next call tries again.
type Store struct {
	path string
	opts StoreOptions

	mu     sync.Mutex // guards db and closed
	db     *sql.DB
	closed bool

	// wmu makes this process's writers take turns before they reach
	// SQLite, so they queue instead of polling the busy handler.
	wmu sync.Mutex

	// rankBudget is [RankBudget]; tests lower it.
	rankBudget int
}

// NewStore returns a store for the database file at path. It touches
// nothing on disk. An empty path makes a store whose every call fails with
// [ErrNoDataDir].
func NewStore(path string, opts StoreOptions) *Store {
	if opts.BusyTimeout <= 0 {
		opts.BusyTimeout = DefaultBusyTimeout
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Store{path: path, opts: opts, rankBudget: RankBudget}
}

// Path returns the database file's path.
func (s *Store) Path() string { return s.path }

// Close closes the database if it was opened. Calls after Close fail with
// [ErrClosed].
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

// handle opens the database on first use.
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

// openDB opens and migrates the database file, creating it (mode 0600, in
// a directory of mode 0700) when it is missing. SQLite gives the WAL and
// shared-memory files the database file's mode.
func openDB(ctx context.Context, path string, busy time.Duration) (*sql.DB, error) {
	db, abs, err := sqlitefile.Open(path, "memory", busy)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(maxOpenConns)
	db.SetMaxIdleConns(maxOpenConns)
	if err := migrate(ctx, db, abs); err != nil {
		_ = db.Close()
		if errors.Is(err, ErrSchemaTooNew) {
			return nil, err
		}
		return nil, fmt.Errorf("open memory database %s: %w", abs, dbError(err))
	}
	return db, nil
}

// dbError marks SQLite's busy and locked results with [ErrBusy], so callers
// can tell "try again" from a broken database.
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

// Memory is one stored memory.
type Memory struct {
	// Key names the memory within its namespace.
	Key string `json:"key"`
	// Content is the remembered text.
	Content string `json:"content"`
	// Category is an optional label to filter recalls by.
	Category string `json:"category,omitempty"`
	// Tags are optional labels, searched like the content.
	Tags []string `json:"tags,omitempty"`
	// Created is when the key was first stored.
	Created time.Time `json:"created"`
	// Updated is when the memory was last stored; recalls filter and sort
	// by it.
	Updated time.Time `json:"updated"`
}

// Put stores m in the namespace and returns it as stored. An empty key is
// generated ("mem-" and 12 hex digits); storing a key the namespace holds
// replaces that memory (replaced is true) and keeps its creation time.
// Leading and trailing spaces of the category and tags are dropped, and
// repeated tags (ignoring case) are kept once.
//
// # Errors
//
// [ErrInvalidKey], [ErrInvalidCategory], [ErrInvalidTags],
// [ErrEmptyContent], [ErrContentTooLarge]; [ErrBusy] when another process
// kept the database locked; [ErrNoDataDir] and [ErrClosed].
func (s *Store) Put(ctx context.Context, namespace string, m Memory) (stored Memory, replaced bool, err error) {
	if err := normalize(&m); err != nil {
		return Memory{}, false, err
	}
	db, err := s.handle(ctx)
	if err != nil {
		return Memory{}, false, err
	}
	m.Updated = s.opts.Now().UTC()
	m.Created = m.Updated
	generated := m.Key == ""
	s.wmu.Lock()
	defer s.wmu.Unlock()
	for attempt := 0; ; attempt++ {
		if generated {
			m.Key = newKey()
		}
		replaced, err = put(ctx, db, namespace, &m, generated)
		if errors.Is(err, errKeyTaken) && attempt < 3 {
			continue
		}
		if err != nil {
			return Memory{}, false, fmt.Errorf("store memory %q: %w", m.Key, dbError(err))
		}
		return m, replaced, nil
	}
}

// errKeyTaken reports a generated key that already exists.
var errKeyTaken = errors.New("generated key exists")

func put(ctx context.Context, db *sql.DB, ns string, m *Memory, generated bool) (replaced bool, err error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return false, err
	}
	defer func() { _ = tx.Rollback() }()
	if replaced, err = putTx(ctx, tx, ns, m, generated); err != nil {
		return false, err
	}
	return replaced, tx.Commit()
}

// putTx writes m and its index entry within tx.
func putTx(ctx context.Context, tx *sql.Tx, ns string, m *Memory, generated bool) (replaced bool, err error) {
	tags, err := json.Marshal(m.Tags)
	if err != nil {
		return false, err
	}
	if m.Tags == nil {
		tags = []byte("[]")
	}
	var id, created int64
	err = tx.QueryRowContext(ctx, `SELECT id, created_at FROM memories WHERE namespace = ? AND key = ?`, ns, m.Key).Scan(&id, &created)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		if id, err = insertRow(ctx, tx, ns, m, tags); err != nil {
			return false, err
		}
	case err != nil:
		return false, err
	case generated:
		return false, errKeyTaken
	default:
		// A replacement gets a new row id, so row ids follow the order in
		// which memories were last stored.
		replaced = true
		m.Created = time.Unix(0, created).UTC()
		if _, err := tx.ExecContext(ctx, `DELETE FROM memories WHERE id = ?`, id); err != nil {
			return false, err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM memories_fts WHERE rowid = ?`, id); err != nil {
			return false, err
		}
		if id, err = insertRow(ctx, tx, ns, m, tags); err != nil {
			return false, err
		}
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO memories_fts (rowid, key, category, tags, content) VALUES (?, ?, ?, ?, ?)`,
		id, indexText(m.Key), indexText(m.Category), indexText(strings.Join(m.Tags, " ")), indexText(m.Content))
	return replaced, err
}

func insertRow(ctx context.Context, tx *sql.Tx, ns string, m *Memory, tags []byte) (id int64, err error) {
	err = tx.QueryRowContext(ctx, `INSERT INTO memories (namespace, key, content, category, tags, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		ns, m.Key, m.Content, m.Category, string(tags), m.Created.UnixNano(), m.Updated.UnixNano()).Scan(&id)
	return id, err
}

// newKey returns a fresh random key.
func newKey() string {
	var b [6]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms
	return "mem-" + hex.EncodeToString(b[:])
}

// Get returns the memory stored under key.
//
// # Errors
//
// [ErrNotFound] when the namespace holds no such key; [ErrInvalidKey].
func (s *Store) Get(ctx context.Context, namespace, key string) (Memory, error) {
	if err := checkKey(key); err != nil {
		return Memory{}, err
	}
	db, err := s.handle(ctx)
	if err != nil {
		return Memory{}, err
	}
	row := db.QueryRowContext(ctx, `SELECT key, category, tags, content, created_at, updated_at
		FROM memories WHERE namespace = ? AND key = ?`, namespace, key)
	h, err := scanHit(row, false)
	if errors.Is(err, sql.ErrNoRows) {
		return Memory{}, fmt.Errorf("%w %q", ErrNotFound, key)
	}
	if err != nil {
		return Memory{}, fmt.Errorf("read memory %q: %w", key, dbError(err))
	}
	return h.Memory, nil
}

// Forget deletes the memory stored under key.
//
// # Errors
//
// [ErrNotFound] when the namespace holds no such key; [ErrInvalidKey];
// [ErrBusy].
func (s *Store) Forget(ctx context.Context, namespace, key string) error {
	if err := checkKey(key); err != nil {
		return err
	}
	db, err := s.handle(ctx)
	if err != nil {
		return err
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if err := forget(ctx, db, namespace, key); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("%w %q", ErrNotFound, key)
		}
		return fmt.Errorf("forget memory %q: %w", key, dbError(err))
	}
	return nil
}

func forget(ctx context.Context, db *sql.DB, ns, key string) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	var id int64
	if err := tx.QueryRowContext(ctx, `DELETE FROM memories WHERE namespace = ? AND key = ? RETURNING id`, ns, key).Scan(&id); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM memories_fts WHERE rowid = ?`, id); err != nil {
		return err
	}
	return tx.Commit()
}

type scanner interface{ Scan(...any) error }

func scanHit(sc scanner, scored bool) (Hit, error) {
	var h Hit
	var tags string
	var created, updated int64
	dest := []any{&h.Key, &h.Category, &tags, &h.Content, &created, &updated}
	var rank float64
	if scored {
		dest = append(dest, &rank)
	}
	if err := sc.Scan(dest...); err != nil {
		return Hit{}, err
	}
	if err := json.Unmarshal([]byte(tags), &h.Tags); err != nil {
		return Hit{}, fmt.Errorf("tags of memory %q: %w", h.Key, err)
	}
	if len(h.Tags) == 0 {
		h.Tags = nil
	}
	h.Created = time.Unix(0, created).UTC()
	h.Updated = time.Unix(0, updated).UTC()
	if rank != 0 {
		h.Score = -rank
	}
	return h, nil
}
