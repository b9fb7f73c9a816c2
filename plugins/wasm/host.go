package wasm

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"

	"github.com/talonhq/talon/netguard"
	"github.com/talonhq/talon/plugins"
	"github.com/talonhq/talon/plugins/manifest"
	"github.com/talonhq/talon/secret"
	"github.com/talonhq/talon/tool"
)

func init() {
	plugins.RegisterHost(manifest.KindWASM, New(Options{}))
}

// DefaultMaxCalls is how many calls a warm instance serves before it is
// replaced by a fresh one.
const DefaultMaxCalls = 10000

// Options configures a [Host]. The zero value is the host talon registers:
// no private network destinations, secrets from the process environment.
type Options struct {
	// AllowPrivate exempts destinations of http_request from the refusal of
	// loopback, private and link-local addresses (see
	// netguard.Options.AllowPrivate). A plugin's allowed_hosts still apply.
	AllowPrivate []string
	// Resolver looks up host names for http_request; nil means the
	// system's. Tests map names to listeners on 127.0.0.1.
	Resolver netguard.Resolver
	// Secret returns the value of a granted secret; nil reads the process
	// environment variable of the same name. It is consulted only during a
	// call, only for names in the plugin's grants.
	Secret func(name string) (string, bool)
	// MaxCalls is how many calls an instance serves before it is recycled;
	// zero means DefaultMaxCalls.
	MaxCalls int
	// DescribeTimeout bounds describing a plugin's tools (starting an
	// instance, talon_abi_version and talon_describe), whatever the
	// plugin's own timeout; zero means DefaultDescribeTimeout.
	DescribeTimeout time.Duration
	// IdleTimeout is how long an instance stays warm in the pool without
	// a call before it is closed; zero means DefaultIdleTimeout.
	IdleTimeout time.Duration
}

// DefaultDescribeTimeout is the deadline for describing a plugin's tools.
// It is short because describing is listing, not work, and because it
// happens at install and (on a cold cache) while talon starts.
const DefaultDescribeTimeout = 5 * time.Second

// DefaultIdleTimeout is how long an idle instance is kept warm.
const DefaultIdleTimeout = time.Minute

// Host runs WASM plugins with wazero. It is safe for concurrent use.
type Host struct {
	opts Options

	mu     sync.Mutex
	caches map[string]wazero.CompilationCache

	// reclaimer hands closed instances' memory back to the system; one per
	// host, since the Go heap is one per process.
	reclaimer *reclaimer
	// onReap, when set (tests), runs after the idle reaper of any plugin
	// closed instances and reclaimed their memory, with how many stay idle.
	onReap func(left int)
}

var _ plugins.Host = (*Host)(nil)

// New returns a host with the given options.
func New(o Options) *Host {
	if o.MaxCalls <= 0 {
		o.MaxCalls = DefaultMaxCalls
	}
	if o.Secret == nil {
		o.Secret = secret.Lookup
	}
	if o.DescribeTimeout <= 0 {
		o.DescribeTimeout = DefaultDescribeTimeout
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = DefaultIdleTimeout
	}
	return &Host{opts: o, caches: map[string]wazero.CompilationCache{}, reclaimer: newReclaimer()}
}

// cache returns the compilation cache for dataDir, shared by every plugin
// loaded with it: DataDir/cache/wasm on disk, or memory only when dataDir
// is empty.
func (h *Host) cache(dataDir string) (wazero.CompilationCache, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if c, ok := h.caches[dataDir]; ok {
		return c, nil
	}
	var c wazero.CompilationCache
	if dataDir == "" {
		c = wazero.NewCompilationCache()
	} else {
		dir := filepath.Join(dataDir, "cache", "wasm")
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("create the compilation cache: %w", err)
		}
		var err error
		if c, err = wazero.NewCompilationCacheWithDir(dir); err != nil {
			return nil, fmt.Errorf("open the compilation cache %s: %w", dir, err)
		}
	}
	h.caches[dataDir] = c
	return c, nil
}

// Load compiles the plugin's module (through the compilation cache) and
// checks its imports and exports. Its tools come from the describe cache
// under <DataDir>/cache/wasm-describe when the same module, manifest and
// granted config were described before; then no guest code runs, and the
// first call starts an instance. Otherwise Load starts one instance,
// checks its ABI version and asks it to describe its tools, all within
// Options.DescribeTimeout, caches the answer and keeps the instance warm
// in the plugin's pool.
//
// # Errors
//
// Every error names the plugin as wasm.<name>. Errors wrap [ErrImport],
// [ErrMissingExport], [ErrABIVersion], [ErrBadResponse], [ErrTrap] or
// [ErrTimeout] when the module is at fault.
func (h *Host) Load(ctx context.Context, p *manifest.Plugin, env plugins.Env) (plugins.Loaded, error) {
	attr := tool.Attribution{Kind: tool.KindWASM, Alias: p.Manifest.Name}
	pl, err := h.load(ctx, p, env, attr)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", attr, err)
	}
	return pl, nil
}

func (h *Host) load(ctx context.Context, p *manifest.Plugin, env plugins.Env, attr tool.Attribution) (*plugin, error) {
	bin, err := os.ReadFile(p.EntryPath)
	if err != nil {
		return nil, fmt.Errorf("read the module: %w", err)
	}
	if want := strings.ToLower(p.Manifest.SHA256); want != "" {
		sum := sha256.Sum256(bin)
		if got := hex.EncodeToString(sum[:]); got != want {
			return nil, fmt.Errorf("the module's sha256 is %s but plugin.toml says %s: reinstall the plugin", got, want)
		}
	}
	limits := p.Manifest.Limits
	// Turning deadline enforcement off is honoured only for a trusted
	// publisher, whatever the loader did.
	enforce := limits.DeadlineEnforced() || p.Signature != manifest.SignedTrusted
	cache, err := h.cache(env.DataDir)
	if err != nil {
		return nil, err
	}
	pages := uint32(limits.MemoryMB()) * 16
	if pages > 65536 {
		pages = 65536
	}
	rc := wazero.NewRuntimeConfig().
		WithCompilationCache(cache).
		WithMemoryLimitPages(pages).
		WithCloseOnContextDone(enforce)
	rt := wazero.NewRuntimeWithConfig(ctx, rc)
	ok := false
	defer func() {
		if !ok {
			_ = rt.Close(context.WithoutCancel(ctx))
		}
	}()
	// Compiling happens here, at load, never on a call; on a cache miss it
	// uses every CPU.
	compiled, err := rt.CompileModule(experimental.WithCompilationWorkers(ctx, goruntime.GOMAXPROCS(0)), bin)
	if err != nil {
		return nil, fmt.Errorf("compile the module: %w", err)
	}
	needs, err := checkModule(compiled)
	if err != nil {
		return nil, err
	}
	if needs.wasi {
		if _, err := wasi_snapshot_preview1.Instantiate(ctx, rt); err != nil {
			return nil, fmt.Errorf("provide WASI: %w", err)
		}
	}
	ws := env.Workspace
	if ws != "" {
		if real, err := filepath.EvalSymlinks(ws); err == nil {
			ws = real
		}
	}
	guard, err := netguard.New(netguard.Options{
		AllowedHosts:        p.Grants.AllowedHosts,
		RequireAllowedHosts: true,
		AllowPrivate:        append(slices.Clone(h.opts.AllowPrivate), p.Grants.AllowPrivate...),
		Resolver:            h.opts.Resolver,
		Timeout:             limits.Timeout(),
		Logger:              env.Logger,
	})
	if err != nil {
		return nil, fmt.Errorf("allowed hosts: %w", err)
	}
	pl := &plugin{
		reclaim:   h.reclaimer,
		attr:      attr,
		name:      p.Manifest.Name,
		log:       env.Logger,
		rt:        rt,
		compiled:  compiled,
		limits:    limits,
		enforce:   enforce,
		maxOutput: limits.OutputBytes(),
		grants:    realDirs(p.Grants),
		workspace: ws,
		protected: protectedFor(env),
		guard:     guard,
		secret:    h.opts.Secret,
		maxCalls:  h.opts.MaxCalls,
		needs:     needs,

		configRead: p.Manifest.Permissions.ConfigRead,
	}
	if err := pl.instantiateHost(ctx); err != nil {
		return nil, err
	}
	pl.pool = newPool(limits.Instances(), h.opts.IdleTimeout, pl.newInstance)
	pl.pool.afterReap = func(left int) {
		h.reclaimer.reclaim()
		if h.onReap != nil {
			h.onReap(left)
		}
	}
	if err := pl.tooling(ctx, describeKey(p, bin), env.DataDir, h.opts.DescribeTimeout); err != nil {
		pl.pool.close()
		return nil, err
	}
	ok = true
	pl.log.Debug().Str("attribution", attr.String()).Int("tools", len(pl.tools)).Bool("deadline_enforced", enforce).Msg("wasm plugin loaded")
	return pl, nil
}

// realDirs returns grants with the granted directories' symbolic links
// resolved, as the workspace's are, so that a path taken from the
// workspace compares with them.
func realDirs(g manifest.Grants) manifest.Grants {
	resolve := func(dirs []string) []string {
		out := make([]string, 0, len(dirs))
		for _, d := range dirs {
			if real, err := filepath.EvalSymlinks(d); err == nil {
				d = real
			}
			out = append(out, filepath.Clean(d))
		}
		return out
	}
	g.FSRead, g.FSWrite = resolve(g.FSRead), resolve(g.FSWrite)
	return g
}

// moduleNeeds records what a module imports from WASI, so that a real
// clock and a crypto random source are wired only where asked for.
type moduleNeeds struct {
	wasi   bool
	clock  bool
	random bool
	// abort: AssemblyScript's env.abort, which traps with its message.
	abort bool
}

// hostFunctions are the names ABI v1 defines in talon_host_v1.
var hostFunctions = map[string]bool{
	"log": true, "config_get": true, "secret_get": true, "http_request": true,
	"fs_read": true, "fs_write": true, "fs_list": true, "take": true,
}

// checkModule refuses a module whose imports the host cannot satisfy or
// whose exports are not ABI v1's, with an error that says which.
func checkModule(m wazero.CompiledModule) (moduleNeeds, error) {
	var needs moduleNeeds
	for _, f := range m.ImportedFunctions() {
		mod, name, _ := f.Import()
		switch mod {
		case wasiModule:
			needs.wasi = true
			switch name {
			case "clock_time_get", "clock_res_get", "poll_oneoff":
				needs.clock = true
			case "random_get":
				needs.random = true
			}
		case HostModule:
			if !hostFunctions[name] {
				return needs, fmt.Errorf("%w: %s.%s is not a host function of ABI v1 (see plugins/ABI.md): rebuild the plugin against ABI v1", ErrImport, mod, name)
			}
		case abortModule:
			i32 := api.ValueTypeI32
			if name != "abort" || !sameTypes(f.ParamTypes(), []api.ValueType{i32, i32, i32, i32}) || len(f.ResultTypes()) > 0 {
				return needs, fmt.Errorf("%w: %s.%s: of module env, only AssemblyScript's abort (i32, i32, i32, i32) -> () is provided", ErrImport, mod, name)
			}
			needs.abort = true
		default:
			return needs, fmt.Errorf("%w: %s.%s: a plugin may import only %s, %s and AssemblyScript's env.abort", ErrImport, mod, name, HostModule, wasiModule)
		}
	}
	if len(m.ImportedMemories()) > 0 {
		return needs, fmt.Errorf("%w: the module imports its memory; it must define and export %q", ErrImport, exportMemory)
	}
	exports := m.ExportedFunctions()
	i32, i64 := api.ValueTypeI32, api.ValueTypeI64
	want := []struct {
		name            string
		params, results []api.ValueType
	}{
		{exportABIVersion, nil, []api.ValueType{i32}},
		{exportAlloc, []api.ValueType{i32}, []api.ValueType{i32}},
		{exportFree, []api.ValueType{i32}, nil},
		{exportDescribe, nil, []api.ValueType{i64}},
		{exportCall, []api.ValueType{i32, i32}, []api.ValueType{i64}},
	}
	var missing []string
	for _, w := range want {
		d, ok := exports[w.name]
		if !ok {
			missing = append(missing, w.name)
			continue
		}
		if !sameTypes(d.ParamTypes(), w.params) || !sameTypes(d.ResultTypes(), w.results) {
			return needs, fmt.Errorf("%w: %s has type %s, ABI v1 wants %s", ErrMissingExport, w.name,
				signature(d.ParamTypes(), d.ResultTypes()), signature(w.params, w.results))
		}
	}
	if len(missing) > 0 {
		return needs, fmt.Errorf("%w: the module does not export %s (see plugins/ABI.md)", ErrMissingExport, strings.Join(missing, ", "))
	}
	if _, ok := m.ExportedMemories()[exportMemory]; !ok {
		return needs, fmt.Errorf("%w: the module does not export its memory as %q", ErrMissingExport, exportMemory)
	}
	if d, ok := exports[exportInitialize]; ok && (len(d.ParamTypes()) > 0 || len(d.ResultTypes()) > 0) {
		return needs, fmt.Errorf("%w: %s must take and return nothing", ErrMissingExport, exportInitialize)
	}
	return needs, nil
}

func sameTypes(a, b []api.ValueType) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func signature(params, results []api.ValueType) string {
	name := func(ts []api.ValueType) string {
		s := make([]string, len(ts))
		for i, t := range ts {
			s[i] = api.ValueTypeName(t)
		}
		return "(" + strings.Join(s, ", ") + ")"
	}
	return name(params) + " -> " + name(results)
}

// moduleConfig is the configuration of one guest instance: no arguments,
// no environment, no preopened directories; stdout and stderr go to w;
// real clocks and crypto randomness only where the module imports them.
func (p *plugin) moduleConfig(w *logWriter) wazero.ModuleConfig {
	mc := wazero.NewModuleConfig().
		WithName("").
		WithStartFunctions(). // _initialize is called explicitly, under a deadline
		WithStdout(w.stream("stdout")).
		WithStderr(w.stream("stderr"))
	if p.needs.clock {
		mc = mc.WithSysWalltime().WithSysNanotime().WithSysNanosleep()
	}
	if p.needs.random {
		mc = mc.WithRandSource(rand.Reader)
	}
	return mc
}
