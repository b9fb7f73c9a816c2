// Package plugins loads third-party tool plugins into the catalog. A plugin
// is a directory with a plugin.toml (see plugins/manifest) and an entry that
// a [Host] of its kind runs: plugins/wasm for WASM modules, plugins/process
// for subprocess plugins. Hosts register themselves from init, so a build
// without one (feature tags talon_no_plugins_wasm, talon_no_plugins_process)
// simply cannot load that kind.
package plugins

import (
	"context"
	"fmt"
	"sort"
	"sync"

	"github.com/rs/zerolog"

	"github.com/talonhq/talon/plugins/manifest"
	"github.com/talonhq/talon/tool"
	"github.com/talonhq/talon/workspace"
)

// Host runs the plugins of one kind.
type Host interface {
	// Load prepares a plugin whose manifest, signature and consent were
	// already checked. It lists the plugin's tools, from a cache keyed by
	// the manifest's hash when the plugin described them before, and
	// otherwise by asking the plugin; code is compiled, instantiated or
	// started only for that, or on the first call. Before any code of the
	// plugin runs, the host checks the bytes it runs against the
	// manifest's sha256. Load never runs a tool. An error names the
	// plugin.
	Load(ctx context.Context, p *manifest.Plugin, env Env) (Loaded, error)
}

// Env is what a host is given besides the plugin.
type Env struct {
	// Workspace is the absolute workspace directory.
	Workspace string
	// DataDir is talon's data directory; a host keeps its caches under
	// DataDir/cache/<kind> (installed plugins live elsewhere, in
	// plugins_dir).
	DataDir string
	// Protected lists the places no plugin file access may read or change
	// (talon's config and data, the operator's secrets); the zero value
	// makes a host derive it from DataDir and the environment.
	Protected workspace.Protected
	// Logger carries the plugin's attribution ("wasm.<name>").
	Logger zerolog.Logger
	// Verify makes the host compile and check the plugin's code and ask
	// it for its tools even when it has them cached: for install, inspect
	// and test, which answer whether the plugin works.
	Verify bool
}

// Loaded is one plugin a host has prepared.
type Loaded interface {
	// Tools are the plugin's tools as it describes them, with
	// Spec.Attribution {Kind: wasm|extism|process, Alias: plugin name}.
	// The loader gives them the operator's aliases, and leaves out the
	// ones whose names clash.
	Tools() []tool.Tool
	// Close releases instances and processes; calls after Close fail.
	Close(ctx context.Context) error
}

var (
	hostsMu sync.RWMutex
	hosts   = map[manifest.Kind]Host{}
)

// RegisterHost makes a kind loadable. It panics on a second host for the
// same kind, like toolfactory.Register.
func RegisterHost(kind manifest.Kind, h Host) {
	hostsMu.Lock()
	defer hostsMu.Unlock()
	if _, dup := hosts[kind]; dup {
		panic(fmt.Sprintf("plugins: host for kind %q registered twice", kind))
	}
	hosts[kind] = h
}

// LookupHost returns the host of a kind, if this binary has one.
func LookupHost(kind manifest.Kind) (Host, bool) {
	hostsMu.RLock()
	defer hostsMu.RUnlock()
	h, ok := hosts[kind]
	return h, ok
}

// Kinds lists the kinds this binary can load, sorted.
func Kinds() []manifest.Kind {
	hostsMu.RLock()
	defer hostsMu.RUnlock()
	out := make([]manifest.Kind, 0, len(hosts))
	for k := range hosts {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}
