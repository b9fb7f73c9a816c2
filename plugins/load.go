package plugins

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/plugins/manifest"
	"github.com/talonhq/talon/risk"
	"github.com/talonhq/talon/tool"
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
	var loaded []*plugin
	for _, r := range reports {
		if err := ctx.Err(); err != nil {
			for _, p := range loaded {
				_ = p.loaded.Close(context.WithoutCancel(ctx))
			}
			return nil, err
		}
		p, err := start(ctx, r, opts, set, false)
		if err != nil {
			set.warnf("plugin %s skipped: %v", r.Name, err)
			continue
		}
		loaded = append(loaded, p)
	}
	set.finish(loaded)
	return set, nil
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
	var out []*Report
	for _, name := range candidates(cfg, dir, set) {
		r, err := checkOne(filepath.Join(dir, name), name, opts, trust, entries, set)
		if err != nil {
			set.warnf("plugin %s skipped: %v", name, err)
			continue
		}
		out = append(out, r)
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
	p, err := start(ctx, r, opts, set, true)
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

// start hands a checked plugin to its host; verify is [Env.Verify].
func start(ctx context.Context, r *Report, opts Options, set *Set, verify bool) (*plugin, error) {
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
	env := Env{Workspace: opts.Workspace, DataDir: opts.DataDir, Protected: risk.ProtectedPaths(cfg, opts.DataDir, nil),
		Logger: opts.Logger.With().Str("attribution", r.Attribution()).Logger(), Verify: verify}
	l, err := host.Load(ctx, p, env)
	if err != nil {
		return nil, err
	}
	return &plugin{report: r, loaded: l}, nil
}
