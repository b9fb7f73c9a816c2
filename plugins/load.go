package plugins

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	goruntime "runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/plugins/manifest"
	"github.com/talonhq/talon/risk"
	"github.com/talonhq/talon/tool"
	"github.com/talonhq/talon/workspace"
)

// Messages are the message files one plugin ships, laid out
// <lang>/*.ftl (the plugin's locales/ directory).
type Messages struct {
	FS fs.FS
	// Source is the plugin's attribution, e.g. "wasm.weather".
	Source string
}

// Set is the outcome of loading plugins: their tools, ready for the
// catalog, and what went wrong with the ones that were skipped.
type Set struct {
	// Tools are every loaded plugin's tools under their final names, with
	// tiers raised to their grants' floor.
	Tools []tool.Tool
	// Warnings are one line each for the operator: skipped plugins, renamed
	// tools, permissive signatures.
	Warnings []string
	// Messages are the loaded plugins' locales/ directories.
	Messages []Messages
	// Plugins are the reports of the loaded plugins.
	Plugins []*Report

	loaded []Loaded
}

// Close closes every loaded plugin. It returns the errors joined.
func (s *Set) Close(ctx context.Context) error {
	if s == nil {
		return nil
	}
	var errs []error
	for i := len(s.loaded) - 1; i >= 0; i-- {
		if err := s.loaded[i].Close(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	s.loaded = nil
	return errors.Join(errs...)
}

func (s *Set) warnf(format string, a ...any) {
	s.Warnings = append(s.Warnings, fmt.Sprintf(format, a...))
}

// Load loads the plugins [plugins] enables. It returns an empty set when
// enabled is false. Candidates are every directory of plugins_dir when
// auto_discover is true, otherwise the names of [[plugins.entries]]; an
// entry with enabled = false is skipped, and past max_plugins the rest are
// left out with a warning. Each candidate must pass, in order: plugin.toml
// parses and its name is the directory's; the entry is inside the
// directory and matches sha256 (hashed once, then remembered while the
// file stays the same; see [entryCache]); the signature is acceptable under
// signature_mode; the operator trusted this exact plugin.toml; its grants
// resolve; its [limits] are within the [plugins] ceilings (max_memory_mb,
// max_timeout_ms, max_instances, max_output_bytes); this binary has a
// host for its kind; the host loads it. Limits the manifest leaves out are
// handed to the host as their defaults, lowered to the ceilings.
// enforce_deadline = false is honoured only for a plugin signed with a
// trusted key. Hosts list a plugin's tools from their caches where they
// can and compile or start its code on its first call, so plugins cost
// next to nothing until they are used.
//
// A plugin that fails any step is skipped with a warning; the others load.
// A tool keeps the name it describes, or the alias the operator gives it
// in [[plugins.entries]] rename; names never move on their own. A tool
// whose name takes a built-in's, a reserved form (containing "__") or a
// name another plugin's tool also claims is left out, with a warning that
// names both and the rename that would let it in. Each tool's tier is
// raised to its grants' floor (see [manifest.Grants.TierFloor]).
//
// # Errors
//
// Load returns an error only when ctx is done; everything else is a
// warning in the set.
func Load(ctx context.Context, opts Options) (*Set, error) {
	set := &Set{}
	reports := check(opts, set)
	var protected workspace.Protected
	if len(reports) > 0 {
		protected = protectedPaths(opts)
	}
	started := make([]*plugin, len(reports))
	notes := make([]Set, len(reports))
	parallel(len(reports), func(i int) {
		if ctx.Err() != nil {
			return // no plugin starts once ctx is done
		}
		p, err := start(ctx, reports[i], opts, &notes[i], false, protected)
		if err != nil {
			notes[i].warnf("plugin %s skipped: %v", reports[i].Name, err)
			return
		}
		started[i] = p
	})
	var loaded []*plugin
	for i := range reports {
		set.Warnings = append(set.Warnings, notes[i].Warnings...)
		if started[i] != nil {
			loaded = append(loaded, started[i])
		}
	}
	if err := ctx.Err(); err != nil {
		for _, p := range loaded {
			_ = p.loaded.Close(context.WithoutCancel(ctx))
		}
		return nil, err
	}
	set.finish(loaded)
	return set, nil
}

// parallel runs f(0) to f(n-1) on at most GOMAXPROCS goroutines and
// returns when all have returned: plugins are checked and loaded side by
// side, and a host that has to compile or describe one keeps a processor
// busy, not the start.
func parallel(n int, f func(i int)) {
	workers := min(n, goruntime.GOMAXPROCS(0))
	if workers <= 1 {
		for i := range n {
			f(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				f(i)
			}
		})
	}
	wg.Wait()
}

// Check runs every check [Load] does short of handing plugins to their
// hosts: it returns the reports of the plugins that would be loaded and
// the warnings Load would give about the rest (`talon lint` shows them).
func Check(opts Options) ([]*Report, []string) {
	set := &Set{}
	reports := check(opts, set)
	return reports, set.Warnings
}

// check selects the candidates and inspects each, adding warnings to set
// for the ones that are refused.
func check(opts Options, set *Set) []*Report {
	cfg := opts.Config
	if cfg == nil {
		cfg = config.Default()
	}
	if !cfg.Plugins.Enabled {
		return nil
	}
	opts, err := withWorkspace(opts)
	if err != nil {
		set.warnf("no plugins loaded: %v", err)
		return nil
	}
	trust := opts.Trust
	if trust == nil {
		if trust, err = manifest.OpenTrust(opts.DataDir); err != nil {
			set.warnf("no plugins loaded: %v", err)
			return nil
		}
	}
	dir := Dir(cfg, opts.DataDir)
	entries := newEntryCache(opts.DataDir)
	names := candidates(cfg, dir, set)
	reports := make([]*Report, len(names))
	notes := make([]Set, len(names))
	parallel(len(names), func(i int) {
		r, err := checkOne(filepath.Join(dir, names[i]), names[i], opts, trust, entries, &notes[i])
		if err != nil {
			notes[i].warnf("plugin %s skipped: %v", names[i], err)
			return
		}
		reports[i] = r
	})
	var out []*Report
	for i := range names {
		set.Warnings = append(set.Warnings, notes[i].Warnings...)
		if reports[i] != nil {
			out = append(out, reports[i])
		}
	}
	return out
}

// LoadDir loads one plugin directory for `talon plugins install`,
// `inspect` and `test`: consent is not needed, the grants are everything
// the manifest requests (directories resolved under the workspace; config
// values from the operator's entry, if any), an entry whose sha256 differs
// loads with a warning (the developer just rebuilt it), and the signature
// is not checked. [plugins] enabled is not consulted; its ceilings are: a
// manifest over one is refused. The host compiles and checks the plugin's
// code and asks it for its tools even when they are cached ([Env.Verify]).
//
// # Errors
//
// LoadDir fails when the plugin cannot be loaded at all.
func LoadDir(ctx context.Context, dir string, opts Options) (*Set, error) {
	set := &Set{}
	opts, err := withWorkspace(opts)
	if err != nil {
		return nil, err
	}
	r, err := inspect(dir, opts, nil, true, nil)
	if err != nil {
		return nil, err
	}
	if r.EntryErr != nil {
		if !errors.Is(r.EntryErr, manifest.ErrHashMismatch) {
			return nil, r.EntryErr
		}
		set.warnf("%v", r.EntryErr)
	}
	if r.GrantsErr != nil {
		return nil, r.GrantsErr
	}
	if r.LimitsErr != nil {
		return nil, r.LimitsErr
	}
	p, err := start(ctx, r, opts, set, true, protectedPaths(opts))
	if err != nil {
		return nil, err
	}
	set.finish([]*plugin{p})
	return set, nil
}

// plugin is one loaded plugin before its tools are named.
type plugin struct {
	report *Report
	loaded Loaded
}

// candidates lists the plugin names to try, sorted, applying enabled and
// max_plugins.
func candidates(cfg *config.Config, dir string, set *Set) []string {
	p := cfg.Plugins
	entries := map[string]config.PluginEntry{}
	for _, e := range p.Entries {
		entries[e.Name] = e
	}
	seen := map[string]bool{}
	var names []string
	add := func(name string) {
		if seen[name] {
			return
		}
		seen[name] = true
		if e, ok := entries[name]; ok && !e.Enabled() {
			return
		}
		names = append(names, name)
	}
	if p.AutoDiscover {
		des, err := os.ReadDir(dir)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			set.warnf("cannot list plugins_dir %s: %v", dir, err)
		}
		for _, de := range des {
			if strings.HasPrefix(de.Name(), ".") {
				continue
			}
			if de.IsDir() || de.Type()&fs.ModeSymlink != 0 {
				if fi, err := os.Stat(filepath.Join(dir, de.Name())); err == nil && fi.IsDir() {
					add(de.Name())
				}
			}
		}
	}
	for _, e := range p.Entries {
		if !e.Enabled() || seen[e.Name] {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, e.Name, manifest.FileName)); err != nil {
			set.warnf("plugin %s is listed in [[plugins.entries]] but %s has no %s; install it with `talon plugins install`",
				e.Name, filepath.Join(dir, e.Name), manifest.FileName)
			seen[e.Name] = true
			continue
		}
		add(e.Name)
	}
	sort.Strings(names)
	if limit := p.MaxPluginsValue(); len(names) > limit {
		set.warnf("%d plugins are enabled but max_plugins is %d: left out %s; raise [plugins] max_plugins or disable some",
			len(names), limit, strings.Join(names[limit:], ", "))
		names = names[:limit]
	}
	return names
}

// checkOne inspects the plugin in dir, expected to be called name, and
// returns its report when the loader may start it.
func checkOne(dir, name string, opts Options, trust *manifest.Trust, entries *entryCache, set *Set) (*Report, error) {
	r, err := inspect(dir, opts, trust, false, entries)
	if err != nil {
		return nil, err
	}
	if r.Name != name {
		return nil, fmt.Errorf("its plugin.toml says name = %q; the directory must be named after the plugin (%s)", r.Name, filepath.Join(filepath.Dir(dir), r.Name))
	}
	if err := r.Refusal(); err != nil {
		if errors.Is(err, ErrNotTrusted) {
			// The message already names the plugin and the fix.
			return nil, errors.New(strings.TrimPrefix(err.Error(), ErrNotTrusted.Error()+": "))
		}
		return nil, err
	}
	if r.SignatureWarning != "" {
		set.warnf("plugin %s %s", name, r.SignatureWarning)
	}
	return r, nil
}

// protectedPaths are the places no plugin file access may reach, the
// same for every plugin of one load.
func protectedPaths(opts Options) workspace.Protected {
	cfg := opts.Config
	if cfg == nil {
		cfg = config.Default()
	}
	return risk.ProtectedPaths(cfg, opts.DataDir, nil)
}

// start hands a checked plugin to its host; verify is [Env.Verify].
func start(ctx context.Context, r *Report, opts Options, set *Set, verify bool, protected workspace.Protected) (*plugin, error) {
	host, ok := LookupHost(r.Manifest.Kind)
	if !ok {
		return nil, missingHost(r.Name, r.Manifest.Kind)
	}
	m := *r.Manifest
	cfg := opts.Config
	if cfg == nil {
		cfg = config.Default()
	}
	m.Limits = ceilingsOf(cfg).fill(m.Limits)
	if !m.Limits.DeadlineEnforced() && r.Signature != manifest.SignedTrusted {
		set.warnf("plugin %s sets enforce_deadline = false, which only a plugin signed with a trusted key may do; its deadline stays enforced", r.Name)
		m.Limits.EnforceDeadline = nil
	}
	p := &manifest.Plugin{
		Manifest: m, Dir: r.Dir, EntryPath: r.EntryPath, Hash: r.Hash,
		Signature: r.Signature, Grants: r.Grants,
	}
	if p.EntryPath == "" {
		return nil, fmt.Errorf("plugin %s has no usable entry", r.Name)
	}
	env := Env{Workspace: opts.Workspace, DataDir: opts.DataDir, Protected: protected,
		Logger: opts.Logger.With().Str("attribution", r.Attribution()).Logger(), Verify: verify}
	l, err := host.Load(ctx, p, env)
	if err != nil {
		return nil, err
	}
	return &plugin{report: r, loaded: l}, nil
}
