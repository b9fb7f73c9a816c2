// Package hostcache keeps what the WASM and Extism hosts look up once and
// share between the plugins they load: a wazero compilation cache per data
// directory, and workspaces with their symbolic links resolved. It also
// holds the check both hosts make of a module's bytes before compiling
// them.
package hostcache

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/tetratelabs/wazero"

	"github.com/talonhq/talon/plugins/manifest"
)

// Cache is safe for concurrent use; its zero value is ready.
type Cache struct {
	mu       sync.Mutex
	compiled map[string]wazero.CompilationCache
	real     map[string]string
}

// RealDir returns dir with its symbolic links resolved (dir itself when
// that fails), once per directory: every plugin of a start shares the
// workspace.
func (c *Cache) RealDir(dir string) string {
	if dir == "" {
		return ""
	}
	c.mu.Lock()
	real, ok := c.real[dir]
	c.mu.Unlock()
	if ok {
		return real
	}
	real = dir
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		real = r
	}
	c.mu.Lock()
	if c.real == nil {
		c.real = map[string]string{}
	}
	c.real[dir] = real
	c.mu.Unlock()
	return real
}

// Compilation returns the compilation cache of dataDir, shared by every
// plugin loaded with it: dataDir/cache/wasm on disk (wazero keys entries
// by module digest and its own version, so WASM and Extism modules share
// the directory), or memory only when dataDir is empty.
func (c *Cache) Compilation(dataDir string) (wazero.CompilationCache, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if cc, ok := c.compiled[dataDir]; ok {
		return cc, nil
	}
	var cc wazero.CompilationCache
	if dataDir == "" {
		cc = wazero.NewCompilationCache()
	} else {
		dir := filepath.Join(dataDir, "cache", "wasm")
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("create the compilation cache: %w", err)
		}
		var err error
		if cc, err = wazero.NewCompilationCacheWithDir(dir); err != nil {
			return nil, fmt.Errorf("open the compilation cache %s: %w", dir, err)
		}
	}
	if c.compiled == nil {
		c.compiled = map[string]wazero.CompilationCache{}
	}
	c.compiled[dataDir] = cc
	return cc, nil
}

// CheckDigest hashes bin on a goroutine of its own and sends nil when its
// sha256 is want (or want is ""), else an error that says to reinstall:
// the caller compiles meanwhile and runs nothing of bin before it reads
// the answer.
func CheckDigest(bin []byte, want string) <-chan error {
	done := make(chan error, 1)
	if want == "" {
		done <- nil
		return done
	}
	go func() {
		if got := manifest.HashBytes(bin); got != want {
			done <- fmt.Errorf("the module's sha256 is %s but plugin.toml says %s: reinstall the plugin", got, want)
			return
		}
		done <- nil
	}()
	return done
}
