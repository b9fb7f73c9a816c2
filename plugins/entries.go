package plugins

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"time"

	"github.com/talonhq/talon/plugins/manifest"
)

// entryCacheVersion changes when a record's meaning changes.
const entryCacheVersion = 1

// settleTime is how long ago an entry must have last changed before its
// digest is remembered: file times advance in clock ticks, and a change
// within the tick of the hash could leave them as they were.
const settleTime = 2 * time.Second

// Seams for tests.
var (
	checkDigest = manifest.CheckDigest
	entryClock  = time.Now
)

// entryRecord is one remembered digest: the entry's resolved path, what
// stat said of it when it was hashed, and the digest it had then.
type entryRecord struct {
	Version int    `json:"version"`
	Path    string `json:"path"`
	Stat    string `json:"stat"`
	SHA256  string `json:"sha256"`
}

// entryCache remembers the digests of plugin entries under
// <data dir>/cache/entries, so that loading plugins does not read every
// module and binary at every start. It only spares the listing: the hosts
// hash the bytes they compile or copy before any code of the plugin runs.
// A nil cache remembers nothing.
type entryCache struct{ dir string }

func newEntryCache(dataDir string) *entryCache {
	if dataDir == "" {
		return nil
	}
	return &entryCache{dir: filepath.Join(dataDir, "cache", "entries")}
}

// check is [manifest.CheckEntry] that skips the hash when the entry is the
// file whose digest was remembered: same device, inode, size, mode,
// modification and change time. The change time moves on every write,
// rename onto the path or change of mode, and cannot be set back.
func (c *entryCache) check(dir string, m *manifest.Manifest) (string, error) {
	p, fi, err := manifest.ResolveEntry(dir, m)
	if err != nil {
		return "", err
	}
	key, changed, ok := statKey(fi)
	var file string
	if c != nil && ok {
		sum := sha256.Sum256([]byte(p))
		file = filepath.Join(c.dir, hex.EncodeToString(sum[:])+".json")
		if rec, err := readEntryRecord(file); err == nil && rec.Version == entryCacheVersion &&
			rec.Path == p && rec.Stat == key && rec.SHA256 == m.SHA256 {
			return p, nil
		}
	}
	if err := checkDigest(dir, p, m); err != nil {
		return p, err
	}
	if file != "" && entryClock().Sub(changed) >= settleTime {
		rec := entryRecord{Version: entryCacheVersion, Path: p, Stat: key, SHA256: m.SHA256}
		if b, err := json.Marshal(rec); err == nil {
			_ = writeFileAtomic(file, b) // a record not written is a hash next time
		}
	}
	return p, nil
}

func readEntryRecord(file string) (entryRecord, error) {
	var rec entryRecord
	b, err := os.ReadFile(file)
	if err != nil {
		return rec, err
	}
	return rec, json.Unmarshal(b, &rec)
}

// writeFileAtomic writes file through a temporary file and a rename.
func writeFileAtomic(file string, b []byte) error {
	dir := filepath.Dir(file)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".entry-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(b); err != nil {
		_ = tmp.Close()
		_ = os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		_ = os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), file); err != nil {
		_ = os.Remove(tmp.Name())
		return err
	}
	return nil
}
