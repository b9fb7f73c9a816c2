package memory

import (
	"context"
	"database/sql"
	"fmt"
)

// migrations bring the database from one schema version to the next:
// migrations[i] takes PRAGMA user_version from i to i+1. Entries are only
// ever appended.
//
// Version 1: one row per memory, unique per namespace and key, timestamps
// in Unix nanoseconds (UTC), tags as a JSON array; a contentless FTS5 index
// (rowid = memories.id) over the key, category, tags and content as
// [indexText] renders them, kept in step by the store in the same
// transaction as the row.
var migrations = [][]string{
	{
		`CREATE TABLE memories (
			id         INTEGER PRIMARY KEY,
			namespace  TEXT    NOT NULL,
			key        TEXT    NOT NULL,
			content    TEXT    NOT NULL,
			category   TEXT    NOT NULL DEFAULT '',
			tags       TEXT    NOT NULL DEFAULT '[]',
			created_at INTEGER NOT NULL,
			updated_at INTEGER NOT NULL,
			UNIQUE (namespace, key)
		) STRICT`,
		`CREATE INDEX memories_by_time ON memories (namespace, updated_at)`,
		`CREATE INDEX memories_by_category ON memories (namespace, category COLLATE NOCASE, updated_at)`,
		`CREATE VIRTUAL TABLE memories_fts USING fts5(
			key, category, tags, content,
			content = '', contentless_delete = 1,
			tokenize = 'porter unicode61 remove_diacritics 2'
		)`,
	},
}

// schemaVersion is the version this build writes.
var schemaVersion = len(migrations)

// migrate brings the database to [schemaVersion]. It reads the version
// first without a lock, so opening a current database writes nothing; the
// migration itself runs in one IMMEDIATE transaction, so two processes
// opening a new file at once apply it exactly once.
func migrate(ctx context.Context, db *sql.DB, path string) error {
	v, err := userVersion(ctx, db)
	if err != nil {
		return err
	}
	if v == schemaVersion {
		return nil
	}
	if v > schemaVersion {
		return fmt.Errorf("%w: %s has schema version %d and this build knows up to %d; upgrade talon, or set another data_dir", ErrSchemaTooNew, path, v, schemaVersion)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	var now int
	if err := tx.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&now); err != nil {
		return err
	}
	if now > schemaVersion {
		return fmt.Errorf("%w: %s has schema version %d and this build knows up to %d; upgrade talon, or set another data_dir", ErrSchemaTooNew, path, now, schemaVersion)
	}
	for i := now; i < schemaVersion; i++ {
		for _, stmt := range migrations[i] {
			if _, err := tx.ExecContext(ctx, stmt); err != nil {
				return fmt.Errorf("migrate to schema version %d: %w", i+1, err)
			}
		}
	}
	// PRAGMA takes no bound parameters; the value is our own integer.
	if _, err := tx.ExecContext(ctx, fmt.Sprintf(`PRAGMA user_version = %d`, schemaVersion)); err != nil {
		return err
	}
	return tx.Commit()
}

func userVersion(ctx context.Context, db *sql.DB) (int, error) {
	var v int
	err := db.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&v)
	return v, err
}
