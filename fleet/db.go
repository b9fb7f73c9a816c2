package fleet

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/url"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// migration is one embedded schema step.
type migration struct {
	version int
	name    string
	sql     string
}

// migrations returns the embedded steps in order; their versions are
// 1, 2, 3, ... without gaps.
func migrations() []migration {
	ents, _ := fs.ReadDir(migrationFiles, "migrations")
	var out []migration
	for _, e := range ents {
		num, _, ok := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil {
			continue
		}
		b, _ := migrationFiles.ReadFile(path.Join("migrations", e.Name()))
		out = append(out, migration{version: v, name: e.Name(), sql: string(b)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].version < out[j].version })
	return out
}

// SchemaVersion is the schema version this talon writes and reads.
func SchemaVersion() int {
	m := migrations()
	return m[len(m)-1].version
}

// DB is a connection pool to the fleet database.
type DB struct {
	pool *pgxpool.Pool
	// where names the database in messages, without the password.
	where string
}

// ConnectOptions tune [Connect]; the zero value is the documented
// default.
type ConnectOptions struct {
	// MaxConns bounds the pool; 0 means 4.
	MaxConns int32
	// Timeout bounds the first connection; 0 means 10 s.
	Timeout time.Duration
}

// Connect opens a pool to the database at url (postgres://…) and checks
// that it answers.
//
// # Errors
//
// [ErrInvalidOptions] for a URL that is not a PostgreSQL one,
// [ErrAuth] when the database refuses the user or password,
// [ErrUnreachable] when it cannot be reached.
func Connect(ctx context.Context, url string, o ...ConnectOptions) (*DB, error) {
	var opts ConnectOptions
	if len(o) > 0 {
		opts = o[0]
	}
	cfg, where, err := poolConfig(url)
	if err != nil {
		return nil, err
	}
	cfg.MaxConns = 4
	if opts.MaxConns > 0 {
		cfg.MaxConns = opts.MaxConns
	}
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	cfg.ConnConfig.ConnectTimeout = timeout
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, connectError(where, err)
	}
	pctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := pool.Ping(pctx); err != nil {
		pool.Close()
		return nil, connectError(where, err)
	}
	return &DB{pool: pool, where: where}, nil
}

// poolConfig parses url and names the database it points at.
func poolConfig(raw string) (*pgxpool.Config, string, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return nil, "", fmt.Errorf("%w: [fleet] database_url is empty; set it to postgres://user:password@host/database", ErrInvalidOptions)
	}
	if !strings.HasPrefix(raw, "postgres://") && !strings.HasPrefix(raw, "postgresql://") {
		return nil, "", fmt.Errorf("%w: [fleet] database_url must start with postgres:// or postgresql://", ErrInvalidOptions)
	}
	cfg, err := pgxpool.ParseConfig(raw)
	if err != nil {
		// pgx's message may quote the URL, password included.
		return nil, "", fmt.Errorf("%w: [fleet] database_url is not a valid PostgreSQL URL; check its syntax (postgres://user:password@host:5432/database)", ErrInvalidOptions)
	}
	return cfg, describeURL(raw), nil
}

// describeURL renders a URL without its password.
func describeURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "the fleet database"
	}
	host := u.Host
	if host == "" {
		host = "localhost"
	}
	db := strings.TrimPrefix(u.Path, "/")
	user := ""
	if u.User != nil {
		user = u.User.Username() + "@"
	}
	return "postgres://" + user + host + "/" + db
}

// connectError classifies a failed connection.
func connectError(where string, err error) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case "28P01", "28000":
			return fmt.Errorf("%w: %s: %s; check the user and password in [fleet] database_url", ErrAuth, where, pe.Message)
		case "3D000":
			return fmt.Errorf("%w: %s: %s; create the database (createdb) or fix its name in [fleet] database_url", ErrUnreachable, where, pe.Message)
		}
		return fmt.Errorf("%w: %s: %s (SQLSTATE %s)", ErrUnreachable, where, pe.Message, pe.Code)
	}
	var ne net.Error
	msg := err.Error()
	if errors.As(err, &ne) || errors.Is(err, context.DeadlineExceeded) || strings.Contains(msg, "connect") {
		return fmt.Errorf("%w: %s: %s; is PostgreSQL running and reachable from here?", ErrUnreachable, where, lastClause(msg))
	}
	return fmt.Errorf("%w: %s: %s", ErrUnreachable, where, lastClause(msg))
}

// lastClause keeps the end of a pgx connection error, which repeats the
// address before the cause.
func lastClause(msg string) string {
	if i := strings.LastIndex(msg, "): "); i >= 0 {
		return msg[i+3:]
	}
	return msg
}

// Close closes the pool.
func (db *DB) Close() { db.pool.Close() }

// Where names the database, without its password.
func (db *DB) Where() string { return db.where }

// Version returns the schema version of the database: 0 when it has no
// talon schema.
func (db *DB) Version(ctx context.Context) (int, error) {
	var v int
	err := db.pool.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM talon.schema_migrations`).Scan(&v)
	var pe *pgconn.PgError
	if errors.As(err, &pe) && (pe.Code == "42P01" || pe.Code == "3F000") {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read the fleet schema version: %w", err)
	}
	return v, nil
}

// CheckSchema returns nil when the database's schema is the one this
// talon uses.
//
// # Errors
//
// [ErrNotMigrated] for a missing or older schema, [ErrSchemaNewer] for a
// newer one.
func (db *DB) CheckSchema(ctx context.Context) error {
	v, err := db.Version(ctx)
	if err != nil {
		return err
	}
	return schemaError(v)
}

func schemaError(v int) error {
	want := SchemaVersion()
	switch {
	case v == want:
		return nil
	case v > want:
		return fmt.Errorf("%w: the database is at schema version %d, this talon knows versions up to %d; upgrade talon on this machine (it never writes a schema it does not know)", ErrSchemaNewer, v, want)
	case v == 0:
		return fmt.Errorf("%w: the database has no talon schema; run talon fleet migrate (or set [fleet] auto_migrate = true)", ErrNotMigrated)
	default:
		return fmt.Errorf("%w: the database is at schema version %d, this talon needs %d; run talon fleet migrate (or set [fleet] auto_migrate = true)", ErrNotMigrated, v, want)
	}
}

// Migrate brings the schema up to this talon's version, in one
// transaction under an advisory lock, so servers migrating at once apply
// each step once. It returns the versions it applied (none when the
// schema was current).
//
// # Errors
//
// [ErrSchemaNewer] when the database is ahead of this talon: nothing is
// changed.
func (db *DB) Migrate(ctx context.Context, talonVersion string) ([]int, error) {
	tx, err := db.pool.Begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("migrate the fleet schema: %w", err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('talon.migrate'))`); err != nil {
		return nil, fmt.Errorf("migrate the fleet schema: %w", err)
	}
	if _, err := tx.Exec(ctx, `CREATE SCHEMA IF NOT EXISTS talon;
CREATE TABLE IF NOT EXISTS talon.schema_migrations (
	version       integer PRIMARY KEY,
	applied_at    timestamptz NOT NULL DEFAULT now(),
	talon_version text NOT NULL DEFAULT ''
)`); err != nil {
		return nil, fmt.Errorf("migrate the fleet schema: %w", err)
	}
	var have int
	if err := tx.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM talon.schema_migrations`).Scan(&have); err != nil {
		return nil, fmt.Errorf("migrate the fleet schema: %w", err)
	}
	if have > SchemaVersion() {
		return nil, schemaError(have)
	}
	var applied []int
	for _, m := range migrations() {
		if m.version <= have {
			continue
		}
		if _, err := tx.Exec(ctx, m.sql); err != nil {
			return nil, fmt.Errorf("migrate the fleet schema: %s: %w", m.name, err)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO talon.schema_migrations (version, talon_version) VALUES ($1, $2)`, m.version, talonVersion); err != nil {
			return nil, fmt.Errorf("migrate the fleet schema: %w", err)
		}
		applied = append(applied, m.version)
	}
	// The partitions of this month and the next, so that the first
	// receipts of a month need not make one.
	if _, err := tx.Exec(ctx, `SELECT talon.receipts_partition(now()), talon.receipts_partition(now() + interval '1 month')`); err != nil {
		return nil, fmt.Errorf("migrate the fleet schema: make this month's partitions: %w", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return nil, fmt.Errorf("migrate the fleet schema: %w", err)
	}
	return applied, nil
}

// isUnique reports a unique violation.
func isUnique(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "23505"
}

// collectStrings reads one text column.
func collectStrings(rows pgx.Rows) ([]string, error) {
	return pgx.CollectRows(rows, pgx.RowTo[string])
}
