// Package sqlitefile opens talon's SQLite databases (memory, cron) the one
// way they are opened: the file created with mode 0600 in a directory of
// mode 0700, WAL journaling, a busy timeout, and transactions that take the
// write lock up front, so several talon processes can share a file.
package sqlitefile

import (
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"time"

	_ "modernc.org/sqlite" // the pure-Go driver, registered as "sqlite"
)

// Open opens the database at path, creating it when missing. what names the
// database in errors ("memory", "cron").
func Open(path, what string, busy time.Duration) (*sql.DB, string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, "", fmt.Errorf("open %s database %s: %w", what, path, err)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
		return nil, "", fmt.Errorf("create the directory of the %s database: %w; check that the data directory is writable", what, err)
	}
	f, err := os.OpenFile(abs, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, "", fmt.Errorf("open %s database %s: %w; check that the data directory is writable", what, abs, err)
	}
	_ = f.Close()
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busy.Milliseconds()))
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Set("_txlock", "immediate")
	dsn := (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs), RawQuery: q.Encode()}).String()
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, "", fmt.Errorf("open %s database %s: %w", what, abs, err)
	}
	return db, abs, nil
}
