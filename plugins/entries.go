package plugins

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
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
// stat said of it when it was hashed, and the digest it had then. A file
// holds one as a line of tab-separated fields: version, stat, digest,
// path.
type entryRecord struct {
	Version int
	Path    string
	Stat    string
	SHA256  string
}

func (r entryRecord) encode() []byte {
	return []byte(strconv.Itoa(r.Version) + "\t" + r.Stat + "\t" + r.SHA256 + "\t" + r.Path + "\n")
}

func decodeEntryRecord(b []byte) (entryRecord, error) {
	var r entryRecord
	f := strings.SplitN(strings.TrimSuffix(string(b), "\n"), "\t", 4)
	if len(f) != 4 {
		return r, fmt.Errorf("not an entry record")
	}
	v, err := strconv.Atoi(f[0])
	if err != nil {
		return r, err
	}
	r.Version, r.Stat, r.SHA256, r.Path = v, f[1], f[2], f[3]
	return r, nil
}

// entryCache remembers the digests of plugin entries under
// <data dir>/cache/entries, so that loading plugins does not read every
// module and binary at every start. It only spares the listing: the hosts
// hash the bytes they compile or copy before any code of the plugin runs.
// A nil cache remembers nothing.
type entryCache struct {
	dir string

	mu      sync.Mutex
	parents map[string]string // a plugins directory -> its resolved path
}

func newEntryCache(dataDir string) *entryCache {
	if dataDir == "" {
		return nil
	}
	return &entryCache{dir: filepath.Join(dataDir, "cache", "entries"), parents: map[string]string{}}
}

// root resolves a plugin directory (absolute, clean, without symbolic
// links) the way manifest.ResolveEntry does, resolving the directory that
// holds it only once for all the plugins in it.
func (c *entryCache) root(dir string) (string, error) {
	if c == nil {
		return manifest.ResolveDir(dir)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	parent := filepath.Dir(abs)
	c.mu.Lock()
	real, ok := c.parents[parent]
	c.mu.Unlock()
	if !ok {
		if real, err = manifest.ResolveDir(parent); err != nil {
			return manifest.ResolveDir(dir)
		}
		c.mu.Lock()
		c.parents[parent] = real
		c.mu.Unlock()
	}
	p := filepath.Join(real, filepath.Base(abs))
	if fi, err := os.Lstat(p); err == nil && fi.IsDir() {
		return p, nil
	}
	return manifest.ResolveDir(dir) // a link, or not there: the slow way says which
}

// check is [manifest.CheckEntry] that skips the hash when the entry is the
// file whose digest was remembered: same device, inode, size, mode,
// modification and change time. The change time moves on every write,
// rename onto the path or change of mode, and cannot be set back.
func (c *entryCache) check(dir string, m *manifest.Manifest) (string, error) {
	root, err := c.root(dir)
	if err != nil {
		return "", fmt.Errorf("plugin directory: %w", err)
	}
	p, fi, err := manifest.ResolveEntryIn(root, m)
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
		_ = WriteCacheFile(file, rec.encode()) // a record not written is a hash next time
	}
	return p, nil
}

func readEntryRecord(file string) (entryRecord, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return entryRecord{}, err
	}
	return decodeEntryRecord(b)
}

// WriteCacheFile writes one of the plugin caches' files (an entry's
// digest record, a host's describe document) through a temporary file in
// its directory and a rename, so a reader never sees half of one. It does
// not sync: a cache file lost in a crash is computed again.
func WriteCacheFile(file string, b []byte) error {
	dir := filepath.Dir(file)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".cache-*")
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
