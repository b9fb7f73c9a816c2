package fleet

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// HostIDFile is where the generated host id is kept, under the data
// directory.
const HostIDFile = "fleet/host-id"

// validHostID reports what a host id may look like: it names a host in
// every message, row and command line. (A loop, not a regular expression:
// package initialization is paid by every command.)
func validHostID(id string) bool {
	if len(id) == 0 || len(id) > 64 {
		return false
	}
	for i, c := range []byte(id) {
		alnum := (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
		if !alnum && (i == 0 || (c != '.' && c != '-' && c != '_')) {
			return false
		}
	}
	return true
}

// CheckHostID returns an error unless id is a usable host id: 1 to 64
// letters, digits, dots, dashes and underscores, starting with a letter or
// digit.
func CheckHostID(id string) error {
	if !validHostID(id) {
		return fmt.Errorf("%w: host id %q: use 1 to 64 letters, digits, '.', '-' and '_', starting with a letter or digit", ErrInvalidOptions, clip(id))
	}
	return nil
}

// HostID returns the host id of the data directory: configured when not
// empty, else the one stored in <dataDir>/fleet/host-id, which is made on
// first use (h- and 20 random hex digits) and never changes after.
func HostID(dataDir, configured string) (string, error) {
	if configured != "" {
		return configured, CheckHostID(configured)
	}
	if dataDir == "" {
		return "", fmt.Errorf("%w: no data directory to keep the host id in; set [fleet] host_id or data_dir", ErrInvalidOptions)
	}
	p := filepath.Join(dataDir, HostIDFile)
	if b, err := os.ReadFile(p); err == nil {
		id := strings.TrimSpace(string(b))
		if err := CheckHostID(id); err != nil {
			return "", fmt.Errorf("%s: %w; remove the file to get a new host id, or set [fleet] host_id", p, err)
		}
		return id, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("read the host id: %w", err)
	}
	var b [10]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("draw a host id: %w", err)
	}
	id := "h-" + hex.EncodeToString(b[:])
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return "", fmt.Errorf("keep the host id: %w", err)
	}
	// Link, not rename: two processes starting at once keep the first id.
	tmp := p + fmt.Sprintf(".%d.tmp", os.Getpid())
	if err := os.WriteFile(tmp, []byte(id+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("keep the host id: %w", err)
	}
	defer func() { _ = os.Remove(tmp) }()
	if err := os.Link(tmp, p); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", fmt.Errorf("keep the host id: %w", err)
	}
	b2, err := os.ReadFile(p)
	if err != nil {
		return "", fmt.Errorf("read the host id: %w", err)
	}
	return strings.TrimSpace(string(b2)), nil
}

// Machine identifies the machine talon runs on, for the host id claim:
// a hash of /etc/machine-id (or /var/lib/dbus/machine-id), else of the
// hostname. Machines cloned from one image share a machine id; give them
// distinct ones (systemd-machine-id-setup) or set host_id.
func Machine() string {
	for _, p := range []string{"/etc/machine-id", "/var/lib/dbus/machine-id"} {
		if b, err := os.ReadFile(p); err == nil && len(strings.TrimSpace(string(b))) > 0 {
			sum := sha256.Sum256([]byte("talon-machine\x00" + strings.TrimSpace(string(b))))
			return "machine-id:" + hex.EncodeToString(sum[:8])
		}
	}
	h, _ := os.Hostname()
	sum := sha256.Sum256([]byte("talon-machine\x00hostname\x00" + h))
	return "hostname:" + hex.EncodeToString(sum[:8])
}

// Host is a host's row.
type Host struct {
	ID        string
	Machine   string
	Hostname  string
	ClaimedAt time.Time
	LastSeen  time.Time
	Version   string
}

// Claim records that this machine uses host id h.ID, or refreshes its
// last_seen when it already does.
//
// # Errors
//
// [ErrHostClaimed] when another machine claimed the id first; the
// message names that machine's hostname and when it claimed it.
func (db *DB) Claim(ctx context.Context, h Host) error {
	var machine string
	err := db.pool.QueryRow(ctx, `INSERT INTO talon.hosts AS h (host_id, machine, hostname, talon_version)
VALUES ($1, $2, $3, $4)
ON CONFLICT (host_id) DO UPDATE SET last_seen = now(), hostname = excluded.hostname, talon_version = excluded.talon_version
	WHERE h.machine = excluded.machine
RETURNING machine`, h.ID, h.Machine, h.Hostname, h.Version).Scan(&machine)
	if err == nil {
		return nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("claim host id %s: %w", h.ID, err)
	}
	var other Host
	if err := db.pool.QueryRow(ctx, `SELECT hostname, claimed_at, last_seen FROM talon.hosts WHERE host_id = $1`, h.ID).
		Scan(&other.Hostname, &other.ClaimedAt, &other.LastSeen); err != nil {
		return fmt.Errorf("claim host id %s: %w", h.ID, err)
	}
	return fmt.Errorf("%w: host id %s belongs to the machine %q (claimed %s, last seen %s), not to this one (%s); "+
		"a copied data directory carries its host id: remove fleet/host-id from this machine's data directory or set [fleet] host_id to a new value, "+
		"or, if that machine is gone, release the id: DELETE FROM talon.hosts WHERE host_id = '%s'",
		ErrHostClaimed, h.ID, other.Hostname, other.ClaimedAt.UTC().Format(time.RFC3339), other.LastSeen.UTC().Format(time.RFC3339), h.Hostname, h.ID)
}

// Hosts returns every host's row, by host id.
func (db *DB) Hosts(ctx context.Context) ([]Host, error) {
	rows, err := db.pool.Query(ctx, `SELECT host_id, machine, hostname, claimed_at, last_seen, talon_version FROM talon.hosts ORDER BY host_id`)
	if err != nil {
		return nil, fmt.Errorf("list hosts: %w", err)
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (Host, error) {
		var h Host
		err := r.Scan(&h.ID, &h.Machine, &h.Hostname, &h.ClaimedAt, &h.LastSeen, &h.Version)
		return h, err
	})
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
