package extism

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	goruntime "runtime"
	"slices"
	"sort"
	"strings"
	"time"

	sdk "github.com/extism/go-sdk"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/experimental"

	"github.com/talonhq/talon/netguard"
	"github.com/talonhq/talon/plugins"
	"github.com/talonhq/talon/plugins/internal/guestlog"
	"github.com/talonhq/talon/plugins/internal/hostcache"
	"github.com/talonhq/talon/plugins/internal/instpool"
	"github.com/talonhq/talon/plugins/manifest"
	"github.com/talonhq/talon/tool"
)

func init() {
	plugins.RegisterHost(manifest.KindExtism, New(Options{}))
}

// Kind is the attribution kind of Extism plugin tools ("extism.<plugin>").
const Kind tool.Kind = "extism"

// Import modules a module may use.
const (
	// EnvModule is the Extism kernel's import module.
	EnvModule = "extism:host/env"
	// userModule holds an Extism host's own functions; talon has none.
	userModule = "extism:host/user"
	wasiModule = "wasi_snapshot_preview1"
	// abortModule is where AssemblyScript imports abort from.
	abortModule = "env"
	// talonModule is where the kernel functions talon answers itself are
	// redirected (see redirect).
	talonModule = "talon:extism/env"
)

// Servlet exports.
const (
	exportDescribe = "describe"
	exportCall     = "call"
)

// Defaults of [Options].
const (
	// DefaultMaxCalls is how many calls an instance serves before it is
	// replaced.
	DefaultMaxCalls = 10000
	// DefaultDescribeTimeout bounds describing a servlet's tools.
	DefaultDescribeTimeout = 5 * time.Second
	// DefaultIdleTimeout is how long an idle instance is kept warm.
	DefaultIdleTimeout = time.Minute
)

var (
	// ErrImport is wrapped when a module imports what this host does not
	// provide.
	ErrImport = errors.New("unsupported import")
	// ErrNoTools is wrapped when a module is neither a servlet nor mapped
	// by [[tools]], or a [[tools]] export is missing or mistyped.
	ErrNoTools = errors.New("no tools")
	// ErrBadResponse is wrapped when describe or call returns a document
	// of the wrong shape.
	ErrBadResponse = errors.New("bad response from plugin")
	// ErrTimeout is wrapped by a call stopped at its deadline.
	ErrTimeout = errors.New("timed out")
	// ErrTrap is wrapped by a call whose guest trapped, exited or set an
	// error.
	ErrTrap = errors.New("plugin crashed")
	// ErrRefused is wrapped when a host function refused what the guest
	// asked for (a config key, a host or a request it was not granted),
	// which traps it.
	ErrRefused = errors.New("refused by the host")
	// ErrOutputTooLarge is wrapped by output over max_output_bytes.
	ErrOutputTooLarge = errors.New("output over the cap")
	// ErrClosed is returned by calls after the plugin was closed.
	ErrClosed = errors.New("plugin closed")
	// ErrBusy is returned when no instance frees up before the deadline.
	ErrBusy = errors.New("every instance is busy")
)

// Options configures a [Host]. The zero value is the host talon registers.
type Options struct {
	// AllowPrivate exempts http_request destinations from the refusal of
	// private and loopback addresses; allowed_hosts still apply.
	AllowPrivate []string
	// Resolver looks up host names for http_request; nil is the system's.
	Resolver netguard.Resolver
	// MaxCalls is how many calls an instance serves before it is recycled;
	// zero means DefaultMaxCalls.
	MaxCalls int
	// DescribeTimeout bounds a servlet's describe, the instance's start
	// included; zero means DefaultDescribeTimeout.
	DescribeTimeout time.Duration
	// IdleTimeout closes an instance left without a call this long; zero
	// means DefaultIdleTimeout.
	IdleTimeout time.Duration
}

// Host runs Extism plugins. It is safe for concurrent use.
type Host struct {
	opts Options

	// dirs holds the compilation caches and the resolved workspaces.
	dirs hostcache.Cache
}

var _ plugins.Host = (*Host)(nil)

// New returns a host with the given options.
func New(o Options) *Host {
	if o.MaxCalls <= 0 {
		o.MaxCalls = DefaultMaxCalls
	}
	if o.DescribeTimeout <= 0 {
		o.DescribeTimeout = DefaultDescribeTimeout
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = DefaultIdleTimeout
	}
	return &Host{opts: o}
}

// Load lists the plugin's tools without reading its module when it can:
// from the cache under <DataDir>/cache/extism-describe, which holds, for
// the same module (by the sha256 plugin.toml pins), manifest and granted
// config, that the module passed the checks below and, for a servlet, its
// describe. The module is then read, checked and compiled on the plugin's
// first call. Otherwise, or with Env.Verify, Load checks the module's
// imports and exports, compiles it (through the compilation cache), lists
// its tools ([[tools]] from the manifest, or a servlet's describe, asked
// of a first instance under Options.DescribeTimeout and then closed: a
// pool starts empty) and caches the outcome.
//
// # Errors
//
// Every error names the plugin as extism.<name> and wraps [ErrImport],
// [ErrNoTools], [ErrBadResponse], [ErrTrap] or [ErrTimeout] when the
// module is at fault.
func (h *Host) Load(ctx context.Context, p *manifest.Plugin, env plugins.Env) (plugins.Loaded, error) {
	attr := tool.Attribution{Kind: Kind, Alias: p.Manifest.Name}
	pl, err := h.load(ctx, p, env, attr)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", attr, err)
	}
	return pl, nil
}

func (h *Host) load(ctx context.Context, p *manifest.Plugin, env plugins.Env, attr tool.Attribution) (*plugin, error) {
	if _, set := os.LookupEnv("EXTISM_ENABLE_WASI_OUTPUT"); set {
		// The SDK would then send the guest's stdout to talon's, which a
		// stdio MCP session owns.
		return nil, errors.New("EXTISM_ENABLE_WASI_OUTPUT is set, which would send plugin output to talon's own stdout: unset it; talon logs plugin output with its attribution")
	}
	limits := p.Manifest.Limits
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
		attr:      attr,
		name:      p.Manifest.Name,
		log:       env.Logger,
		module:    module{path: p.EntryPath, sha256: strings.ToLower(p.Manifest.SHA256), cache: cache, declared: p.Manifest.Tools},
		limits:    limits,
		enforce:   enforce,
		maxOutput: limits.OutputBytes(),
		grants:    p.Grants,
		requested: p.Manifest.Permissions.ConfigRead,
		workspace: ws,
		guard:     guard,
		maxCalls:  h.opts.MaxCalls,
	}
	if pl.mounts, err = mountsFor(p.Grants, ws); err != nil {
		return nil, err
	}
	pl.protected = protectedFor(env)
	pl.pool = instpool.New(instpool.Options[*instance]{Max: limits.Instances(), IdleTimeout: h.opts.IdleTimeout,
		New: pl.newInstance, Close: (*instance).close, ErrBusy: ErrBusy, ErrClosed: ErrClosed})
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
	file := recordFile(env.DataDir, describeKey(p, sum))
	if !env.Verify {
		if rec, ok := pl.readRecord(file); ok && pl.setTools(rec) == nil {
			pl.log.Debug().Str("attribution", attr.String()).Int("tools", len(pl.tools)).Bool("servlet", pl.servlet).Msg("extism plugin loaded from its cached description")
			return pl, nil
		}
		pl.tools = nil
	}
	rec, err := pl.check(ctx, h.opts.DescribeTimeout)
	if err == nil {
		err = pl.setTools(rec)
	}
	if err != nil {
		pl.close(ctx)
		return nil, err
	}
	pl.writeRecord(file, rec)
	pl.log.Debug().Str("attribution", attr.String()).Int("tools", len(pl.tools)).Bool("servlet", pl.servlet).Msg("extism plugin loaded")
	return pl, nil
}

// module is where a plugin's code comes from, read, checked and compiled
// on first use; declared are plugin.toml's [[tools]].
type module struct {
	path     string
	sha256   string // plugin.toml's sha256, lowercase; "" checks nothing (tests)
	cache    wazero.CompilationCache
	declared []manifest.Tool
}

// check compiles the module (see prepare) and, for a servlet, asks it to
// describe its tools: what the record of a load holds.
func (p *plugin) check(ctx context.Context, deadline time.Duration) (loadRecord, error) {
	servlet, err := p.prepare(ctx)
	if err != nil {
		return loadRecord{}, err
	}
	p.servlet = servlet
	rec := loadRecord{Version: recordVersion, Servlet: servlet}
	if servlet {
		if rec.Describe, err = p.describe(ctx, deadline); err != nil {
			return loadRecord{}, err
		}
	}
	return rec, nil
}

// prepare reads, checks and compiles the module, once: the imports and
// exports must be ones this host serves, and the kernel imports talon
// answers are redirected to its own functions before the SDK compiles it
// through the compilation cache, which every plugin of the data directory
// shares. Meanwhile another goroutine checks the bytes against
// plugin.toml's sha256, so that the check costs no time where a processor
// is free; nothing of the module runs before the digest matched, so what
// runs is exactly what the operator trusted, whatever happened to the file
// since talon started. It reports whether the module is a servlet. A
// failure is remembered, and every later call fails the same way, unless
// the file could not be read at all.
func (p *plugin) prepare(ctx context.Context) (servlet bool, err error) {
	p.prepMu.Lock()
	defer p.prepMu.Unlock()
	if p.compiled != nil || p.prepErr != nil {
		return p.isServlet, p.prepErr
	}
	bin, err := os.ReadFile(p.module.path)
	if err != nil {
		return false, fmt.Errorf("read the module: %w", err)
	}
	// The digest is checked on another goroutine while the module is
	// read and compiled, and before anything of it runs.
	digest := hostcache.CheckDigest(bin, p.module.sha256)
	ctx = context.WithoutCancel(ctx)
	servlet, err = p.compile(ctx, bin)
	if derr := <-digest; derr != nil {
		err = derr
	}
	if err != nil {
		if p.compiled != nil {
			_ = p.compiled.Close(ctx)
			p.compiled = nil
		}
		p.prepErr = err
		return false, err
	}
	p.isServlet = servlet
	return servlet, nil
}

// compile checks the module's imports and exports, redirects the kernel
// imports talon answers and compiles it; it reports whether the module is
// a servlet.
func (p *plugin) compile(ctx context.Context, bin []byte) (bool, error) {
	info, err := readModule(bin)
	if err != nil {
		return false, err
	}
	needs, err := checkImports(info)
	if err != nil {
		return false, err
	}
	servlet, err := checkExports(info, p.module.declared)
	if err != nil {
		return false, err
	}
	code, _, err := redirect(bin, EnvModule, talonModule, ownedFunctions)
	if err != nil {
		return false, err
	}
	pages := uint32(p.limits.MemoryMB()) * 16
	if pages > 65536 {
		pages = 65536
	}
	rc := wazero.NewRuntimeConfig().
		WithCompilationCache(p.module.cache).
		WithMemoryLimitPages(pages).
		WithCloseOnContextDone(p.enforce)
	p.needs = needs
	// On a cache miss compiling uses every CPU.
	compiled, err := sdk.NewCompiledPlugin(experimental.WithCompilationWorkers(ctx, goruntime.GOMAXPROCS(0)), sdk.Manifest{
		Wasm: []sdk.Wasm{sdk.WasmData{Data: code, Name: "main"}},
	}, sdk.PluginConfig{RuntimeConfig: rc, EnableWasi: needs.wasi}, p.hostFunctions())
	if err != nil {
		return false, fmt.Errorf("compile the module: %w", err)
	}
	p.compiled = compiled
	return servlet, nil
}

// isCompiled reports whether the module was compiled (logs, tests).
func (p *plugin) isCompiled() bool {
	p.prepMu.Lock()
	defer p.prepMu.Unlock()
	return p.compiled != nil
}

// needs records what a module imports, so that WASI, a real clock and a
// crypto random source are wired only where asked for.
type needs struct {
	wasi, clock, random bool
}

// kernelFunctions are the functions of extism:host/env, as the Extism
// kernel defines them, with their signatures.
var kernelFunctions = map[string]funcType{
	"alloc":            {i64, i64},
	"free":             {i64, ""},
	"length":           {i64, i64},
	"length_unsafe":    {i64, i64},
	"load_u8":          {i64, i32},
	"load_u64":         {i64, i64},
	"store_u8":         {i64 + i32, ""},
	"store_u64":        {i64 + i64, ""},
	"input_set":        {i64 + i64, ""},
	"input_length":     {"", i64},
	"input_offset":     {"", i64},
	"input_load_u8":    {i64, i32},
	"input_load_u64":   {i64, i64},
	"output_set":       {i64 + i64, ""},
	"output_length":    {"", i64},
	"output_offset":    {"", i64},
	"reset":            {"", ""},
	"error_set":        {i64, ""},
	"error_get":        {"", i64},
	"memory_bytes":     {"", i64},
	"config_get":       {i64, i64},
	"var_get":          {i64, i64},
	"var_set":          {i64 + i64, ""},
	"http_request":     {i64 + i64, i64},
	"http_status_code": {"", i32},
	"http_headers":     {"", i64},
	"get_log_level":    {"", i32},
	"log_trace":        {i64, ""},
	"log_debug":        {i64, ""},
	"log_info":         {i64, ""},
	"log_warn":         {i64, ""},
	"log_error":        {i64, ""},
}

// ownedFunctions are the kernel functions talon answers itself, because
// they reach outside the module: configuration, the network and the log.
var ownedFunctions = map[string]bool{
	"config_get": true, "http_request": true, "http_status_code": true, "http_headers": true,
	"get_log_level": true, "log_trace": true, "log_debug": true, "log_info": true, "log_warn": true, "log_error": true,
}

// abortType is AssemblyScript's abort(message, file, line, column).
var abortType = funcType{i32 + i32 + i32 + i32, ""}

// checkImports refuses a module that imports anything but the Extism
// kernel, WASI and AssemblyScript's abort, or imports one of them with
// the wrong signature.
func checkImports(info *moduleInfo) (needs, error) {
	var n needs
	for _, im := range info.imports {
		if im.kind != importFunc {
			return n, fmt.Errorf("%w: %s.%s is not a function; an Extism module defines its own memory and tables", ErrImport, im.module, im.name)
		}
		got := info.importTypes[im.module+"\x00"+im.name]
		switch im.module {
		case EnvModule:
			want, ok := kernelFunctions[im.name]
			if !ok {
				return n, fmt.Errorf("%w: %s.%s is not a function of the Extism kernel this host runs (runtime %s)", ErrImport, im.module, im.name, strings.TrimSpace(sdk.RuntimeVersion()))
			}
			if got != want {
				return n, fmt.Errorf("%w: %s.%s has type %s, the Extism kernel's is %s", ErrImport, im.module, im.name, got, want)
			}
		case wasiModule:
			n.wasi = true
			switch im.name {
			case "clock_time_get", "clock_res_get", "poll_oneoff":
				n.clock = true
			case "random_get":
				n.random = true
			}
		case abortModule:
			if im.name != "abort" || got != abortType {
				return n, fmt.Errorf("%w: %s.%s %s: of module env, only AssemblyScript's abort %s is provided", ErrImport, im.module, im.name, got, abortType)
			}
		case userModule:
			return n, fmt.Errorf("%w: %s.%s: talon provides no host functions of its own to Extism plugins; use a build of the plugin that needs none", ErrImport, im.module, im.name)
		default:
			return n, fmt.Errorf("%w: %s.%s: an Extism plugin may import only %s, %s and AssemblyScript's env.abort", ErrImport, im.module, im.name, EnvModule, wasiModule)
		}
	}
	return n, nil
}

// checkExports decides how the module's tools are found: servlet reports
// a module exporting describe and call; otherwise every [[tools]] table
// must name an export of type [] -> [i32] (or [] -> []).
func checkExports(info *moduleInfo, declared []manifest.Tool) (servlet bool, err error) {
	callable := func(name string) error {
		t, ok := info.exports[name]
		if !ok {
			return fmt.Errorf("the module does not export %q", name)
		}
		if t.params != "" || (t.results != "" && t.results != i32) {
			return fmt.Errorf("export %q has type %s; an Extism function takes nothing and returns an i32 (or nothing)", name, t)
		}
		return nil
	}
	_, hasDescribe := info.exports[exportDescribe]
	_, hasCall := info.exports[exportCall]
	if hasDescribe && hasCall {
		for _, e := range []string{exportDescribe, exportCall} {
			if err := callable(e); err != nil {
				return false, fmt.Errorf("%w: %v", ErrNoTools, err)
			}
		}
		for _, t := range declared {
			if t.Export != "" {
				return false, fmt.Errorf("%w: the module is an MCP servlet (it exports describe and call), so [[tools]] %q may set its tier or description but not an export", ErrNoTools, t.Name)
			}
		}
		return true, nil
	}
	if len(declared) == 0 {
		var exports []string
		for name := range info.exports {
			exports = append(exports, name)
		}
		sort.Strings(exports)
		return false, fmt.Errorf("%w: the module exports neither describe and call (an MCP servlet) nor does plugin.toml map its exports with [[tools]]; its exports are %s: add a [[tools]] table for each export that is a tool (see plugins/MANIFEST.md)",
			ErrNoTools, strings.Join(exports, ", "))
	}
	for _, t := range declared {
		if t.Export == "" {
			return false, fmt.Errorf("%w: [[tools]] %q has no export, and the module is not a servlet (it does not export describe and call): name the export that runs the tool", ErrNoTools, t.Name)
		}
		if err := callable(t.Export); err != nil {
			return false, fmt.Errorf("%w: [[tools]] %q: %v", ErrNoTools, t.Name, err)
		}
	}
	return false, nil
}

// moduleConfig is the configuration of one instance: no arguments,
// environment or preopened directories beyond the granted mounts; stdout
// and stderr re-logged; real clocks and crypto randomness only where the
// module imports them.
func (p *plugin) moduleConfig(w *guestlog.Writer, fsys *mountFS) wazero.ModuleConfig {
	mc := wazero.NewModuleConfig().
		WithStdout(w.Stream("stdout")).
		WithStderr(w.Stream("stderr"))
	if p.needs.clock {
		mc = mc.WithSysWalltime().WithSysNanotime().WithSysNanosleep()
	}
	if p.needs.random {
		mc = mc.WithRandSource(rand.Reader)
	}
	if fsys != nil {
		mc = mc.WithFSConfig(fsys.config())
	}
	return mc
}
