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
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"

	"github.com/talonhq/talon/netguard"
	"github.com/talonhq/talon/plugins"
	"github.com/talonhq/talon/plugins/internal/guestlog"
	"github.com/talonhq/talon/plugins/internal/hostcache"
	"github.com/talonhq/talon/plugins/internal/instpool"
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

	// dirs holds the compilation caches and the resolved workspaces.
	dirs hostcache.Cache

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
	return &Host{opts: o, reclaimer: newReclaimer()}
}

// Load prepares a plugin without running or, when it can, compiling
// anything. Its tools come from the describe cache under
// <DataDir>/cache/wasm-describe when the same module (by the sha256
// plugin.toml pins), manifest and granted config were described before;
// then the module is compiled on the plugin's first call, and every
// instance starts then too. Otherwise, or with Env.Verify, Load compiles
// the module (through the compilation cache) and checks its imports and
// exports, starts one instance, checks its ABI version and asks it to
// describe its tools, all within Options.DescribeTimeout, caches the
// answer and closes the instance again: a plugin's pool starts empty.
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
	limits := p.Manifest.Limits
	// Turning deadline enforcement off is honoured only for a trusted
	// publisher, whatever the loader did.
	enforce := limits.DeadlineEnforced() || p.Signature != manifest.SignedTrusted
	cache, err := h.dirs.Compilation(env.DataDir)
	if err != nil {
		return nil, err
	}
	ws := h.dirs.RealDir(env.Workspace)
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
		module:    module{path: p.EntryPath, sha256: strings.ToLower(p.Manifest.SHA256), cache: cache},
		limits:    limits,
		enforce:   enforce,
		maxOutput: limits.OutputBytes(),
		grants:    realDirs(p.Grants),
		workspace: ws,
		protected: protectedFor(env),
		guard:     guard,
		secret:    h.opts.Secret,
		maxCalls:  h.opts.MaxCalls,

		configRead: p.Manifest.Permissions.ConfigRead,
	}
	pl.pool = instpool.New(instpool.Options[*instance]{Max: limits.Instances(), IdleTimeout: h.opts.IdleTimeout,
		New: pl.newInstance, Close: (*instance).close, ErrBusy: ErrBusy, ErrClosed: ErrClosed})
	pl.pool.AfterReap = func(left int) {
		h.reclaimer.reclaim()
		if h.onReap != nil {
			h.onReap(left)
		}
	}
	sum := pl.module.sha256
	if sum == "" {
		// Only a plugin without a manifest digest (a test fixture) is read
		// to name its cache entry.
		bin, err := os.ReadFile(p.EntryPath)
		if err != nil {
			return nil, fmt.Errorf("read the module: %w", err)
		}
		d := sha256.Sum256(bin)
		sum = hex.EncodeToString(d[:])
	}
	if err := pl.tooling(ctx, describeKey(p, sum), env.DataDir, h.opts.DescribeTimeout, env.Verify); err != nil {
		pl.close(ctx)
		return nil, err
	}
	pl.log.Debug().Str("attribution", attr.String()).Int("tools", len(pl.tools)).Bool("deadline_enforced", enforce).
		Bool("compiled", pl.isCompiled()).Msg("wasm plugin loaded")
	return pl, nil
}

// module is where a plugin's code comes from: read, checked and compiled
// on first use.
type module struct {
	path   string
	sha256 string // plugin.toml's sha256, lowercase; "" checks nothing (tests)
	cache  wazero.CompilationCache
}

// prepare compiles the plugin's module, once: it reads the module,
// compiles it through the compilation cache (which every plugin of the
// data directory shares, so identical modules share one compiled form),
// checks its imports and exports and defines the host functions, while
// another goroutine checks the bytes against plugin.toml's sha256, so
// that the check costs no time where a processor is free. Nothing of the
// module runs before the digest matched: what runs is exactly what the
// operator trusted, whatever happened to the file since talon started. A
// failure is remembered, and every later call fails the same way, unless
// the file could not be read at all.
func (p *plugin) prepare(ctx context.Context) error {
	p.prepMu.Lock()
	defer p.prepMu.Unlock()
	if p.rt != nil || p.prepErr != nil {
		return p.prepErr
	}
	bin, err := os.ReadFile(p.module.path)
	if err != nil {
		return fmt.Errorf("read the module: %w", err)
	}
	digest := hostcache.CheckDigest(bin, p.module.sha256)
	ctx = context.WithoutCancel(ctx) // a first caller that gives up does not fail the plugin
	pages := uint32(p.limits.MemoryMB()) * 16
	if pages > 65536 {
		pages = 65536
	}
	rc := wazero.NewRuntimeConfig().
		WithCompilationCache(p.module.cache).
		WithMemoryLimitPages(pages).
		WithCloseOnContextDone(p.enforce)
	rt := wazero.NewRuntimeWithConfig(ctx, rc)
	err = p.compile(ctx, rt, bin)
	if derr := <-digest; derr != nil {
		err = derr
	}
	if err != nil {
		_ = rt.Close(ctx)
		p.compiled = nil
		p.prepErr = err
		return err
	}
	p.rt = rt
	return nil
}

// compile compiles bin in rt (on a cache miss with every CPU), checks it
// and defines what it imports.
func (p *plugin) compile(ctx context.Context, rt wazero.Runtime, bin []byte) error {
	compiled, err := rt.CompileModule(experimental.WithCompilationWorkers(ctx, goruntime.GOMAXPROCS(0)), bin)
	if err != nil {
		return fmt.Errorf("compile the module: %w", err)
	}
	needs, err := checkModule(compiled)
	if err != nil {
		return err
	}
	if needs.wasi {
		if _, err := wasi_snapshot_preview1.Instantiate(ctx, rt); err != nil {
			return fmt.Errorf("provide WASI: %w", err)
		}
	}
	p.compiled, p.needs = compiled, needs
	return instantiateHost(ctx, rt, needs)
}

// isCompiled reports whether the module was compiled (logs, tests).
func (p *plugin) isCompiled() bool {
	p.prepMu.Lock()
	defer p.prepMu.Unlock()
	return p.rt != nil
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
func (p *plugin) moduleConfig(w *guestlog.Writer) wazero.ModuleConfig {
	mc := wazero.NewModuleConfig().
		WithName("").
		WithStartFunctions(). // _initialize is called explicitly, under a deadline
		WithStdout(w.Stream("stdout")).
		WithStderr(w.Stream("stderr"))
	if p.needs.clock {
		mc = mc.WithSysWalltime().WithSysNanotime().WithSysNanosleep()
	}
	if p.needs.random {
		mc = mc.WithRandSource(rand.Reader)
	}
	return mc
}
