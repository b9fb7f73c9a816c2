//go:build !wasip1

package pdk

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
)

// Fake stands in for talon when a plugin's handlers run natively, in the
// author's unit tests. Install it with [UseFake].
type Fake struct {
	// Config holds the granted config values; a key with a nil value is
	// one the plugin requests that the operator did not set.
	Config map[string]any
	// Secrets holds the granted secrets.
	Secrets map[string]string
	// HTTP answers http_request; nil refuses every request.
	HTTP func(Request) (*Response, error)
	// Dir, when set, serves fs_read, fs_write and fs_list: relative paths
	// are taken from it. Nothing stops a path from leaving it; the real
	// host confines paths to granted directories.
	Dir string

	mu   sync.Mutex
	logs []string
}

// Logs returns what the plugin logged, as "level: message".
func (f *Fake) Logs() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.logs...)
}

var (
	fakeMu sync.RWMutex
	fake   *Fake
)

// UseFake installs f as the host of native calls; nil removes it. It is
// available only outside wasip1.
func UseFake(f *Fake) {
	fakeMu.Lock()
	fake = f
	fakeMu.Unlock()
}

func current() *Fake {
	fakeMu.RLock()
	defer fakeMu.RUnlock()
	return fake
}

func hostLog(level Level, msg string) {
	if f := current(); f != nil {
		f.mu.Lock()
		f.logs = append(f.logs, fmt.Sprintf("%d: %s", level, msg))
		f.mu.Unlock()
	}
}

func hostRequest(fn string, req []byte) ([]byte, error) {
	f := current()
	if f == nil {
		return nil, fmt.Errorf("%s: no host outside WebAssembly: install a pdk.Fake with pdk.UseFake in tests", fn)
	}
	v, err := f.serve(fn, req)
	if err != nil {
		return json.Marshal(map[string]string{"error": err.Error()})
	}
	return json.Marshal(map[string]any{"value": v})
}

func (f *Fake) serve(fn string, req []byte) (any, error) {
	switch fn {
	case "config_get":
		v, ok := f.Config[string(req)]
		if !ok {
			return nil, fmt.Errorf("config key %q is not granted", req)
		}
		return v, nil // nil: requested, not set
	case "secret_get":
		v, ok := f.Secrets[string(req)]
		if !ok {
			return nil, fmt.Errorf("secret %q is not granted", req)
		}
		return v, nil
	case "http_request":
		if f.HTTP == nil {
			return nil, errors.New("http_request: no allowed hosts")
		}
		var r Request
		if err := json.Unmarshal(req, &r); err != nil {
			return nil, err
		}
		return f.HTTP(r)
	}
	var r fsRequest
	if err := json.Unmarshal(req, &r); err != nil {
		return nil, err
	}
	if f.Dir == "" {
		return nil, fmt.Errorf("%s: no directory granted", fn)
	}
	p := r.Path
	if !filepath.IsAbs(p) {
		p = filepath.Join(f.Dir, p)
	}
	switch fn {
	case "fs_read":
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		return map[string][]byte{"data": b}, nil
	case "fs_write":
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
		return map[string]int{"written": len(r.Data)}, os.WriteFile(p, r.Data, 0o644)
	case "fs_list":
		ents, err := os.ReadDir(p)
		if err != nil {
			return nil, err
		}
		out := []DirEntry{}
		for _, e := range ents {
			d := DirEntry{Name: e.Name(), Dir: e.IsDir()}
			if info, err := e.Info(); err == nil && !e.IsDir() {
				d.Size = info.Size()
			}
			out = append(out, d)
		}
		sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
		return map[string][]DirEntry{"entries": out}, nil
	}
	return nil, fmt.Errorf("unknown host function %s", fn)
}
