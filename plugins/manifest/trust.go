package manifest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/talonhq/talon/config"
)

// TrustFile is the trust store's name inside the data directory.
const TrustFile = "plugin-trust.json"

// ErrTrustCorrupt is wrapped when the trust store cannot be decoded.
var ErrTrustCorrupt = errors.New("plugin trust store is corrupt")

// Record is the operator's consent to one plugin: the hash of the
// plugin.toml they reviewed, and when.
type Record struct {
	Name         string    `json:"name"`
	ManifestHash string    `json:"manifest_hash"`
	Time         time.Time `json:"time"`
}

// Trust is the consent store, <data dir>/plugin-trust.json. Consent binds
// to the manifest's hash: a plugin whose plugin.toml changed (a new
// version, new permissions) needs consent again. It is safe for concurrent
// use; every change rereads the file first and replaces it atomically, so
// two talon processes do not undo each other's changes.
type Trust struct {
	path string

	mu      sync.Mutex
	records map[string]Record
}

// trustDoc is the file's layout.
type trustDoc struct {
	Version int      `json:"version"`
	Plugins []Record `json:"plugins"`
}

// OpenTrust opens the trust store of a data directory. A missing file is
// an empty store.
//
// # Errors
//
// A file that cannot be decoded wraps [ErrTrustCorrupt]; it is never reset
// silently, since that would drop every consent without anybody noticing.
func OpenTrust(dataDir string) (*Trust, error) {
	t := &Trust{path: filepath.Join(dataDir, TrustFile)}
	recs, err := t.read()
	if err != nil {
		return nil, err
	}
	t.records = recs
	return t, nil
}

// Path returns the store's file.
func (t *Trust) Path() string { return t.path }

func (t *Trust) read() (map[string]Record, error) {
	data, err := os.ReadFile(t.path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]Record{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read plugin trust store: %w", err)
	}
	var doc trustDoc
	if err := json.Unmarshal(data, &doc); err != nil || doc.Version != 1 {
		if err == nil {
			err = fmt.Errorf("unknown version %d", doc.Version)
		}
		return nil, fmt.Errorf("%w: %s: %v; move the file aside and run talon plugins trust again for each plugin you trust",
			ErrTrustCorrupt, t.path, err)
	}
	recs := make(map[string]Record, len(doc.Plugins))
	for _, r := range doc.Plugins {
		recs[r.Name] = r
	}
	return recs, nil
}

func (t *Trust) write(recs map[string]Record) error {
	doc := trustDoc{Version: 1, Plugins: make([]Record, 0, len(recs))}
	for _, r := range recs {
		doc.Plugins = append(doc.Plugins, r)
	}
	sort.Slice(doc.Plugins, func(i, j int) bool { return doc.Plugins[i].Name < doc.Plugins[j].Name })
	data, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(t.path), 0o700); err != nil {
		return fmt.Errorf("write plugin trust store: %w", err)
	}
	if err := config.WriteFileAtomic(t.path, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("write plugin trust store: %w", err)
	}
	return nil
}

// Consent returns the record of a plugin, if the operator trusted it.
func (t *Trust) Consent(name string) (Record, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	r, ok := t.records[name]
	return r, ok
}

// Grant records consent to a plugin at its current manifest hash,
// replacing an earlier record.
func (t *Trust) Grant(name, manifestHash string) error {
	if !nameRE().MatchString(name) {
		return fmt.Errorf("trust plugin %q: not a plugin name", name)
	}
	if !sha256RE().MatchString(manifestHash) {
		return fmt.Errorf("trust plugin %s: %q is not a lowercase hex SHA-256", name, manifestHash)
	}
	return t.update(func(recs map[string]Record) {
		recs[name] = Record{Name: name, ManifestHash: manifestHash, Time: time.Now().UTC().Truncate(time.Second)}
	})
}

// Revoke removes consent to a plugin; revoking a plugin that is not
// trusted is not an error.
func (t *Trust) Revoke(name string) error {
	return t.update(func(recs map[string]Record) { delete(recs, name) })
}

func (t *Trust) update(change func(map[string]Record)) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	recs, err := t.read()
	if err != nil {
		return err
	}
	change(recs)
	if err := t.write(recs); err != nil {
		return err
	}
	t.records = recs
	return nil
}

// List returns every record, sorted by name.
func (t *Trust) List() []Record {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]Record, 0, len(t.records))
	for _, r := range t.records {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
