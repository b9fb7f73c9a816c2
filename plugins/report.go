package plugins

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/rs/zerolog"

	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/plugins/manifest"
	"github.com/talonhq/talon/tool"
)

// Options say where plugins are and what they may reach. The zero value
// loads nothing: plugins are off unless Config enables them.
type Options struct {
	// Config supplies [plugins]; nil means the embedded defaults.
	Config *config.Config
	// Workspace is the workspace directory grants are resolved under; ""
	// means the working directory.
	Workspace string
	// DataDir is talon's data directory: the trust store, the default
	// plugins_dir and the hosts' caches live there.
	DataDir string
	// Logger is handed to hosts with each plugin's attribution.
	Logger zerolog.Logger
	// Trust is the consent store; nil opens the one in DataDir.
	Trust *manifest.Trust
}

// Consent is the state of the operator's consent to a plugin.
type Consent string

// The consent states.
const (
	// ConsentNone: the plugin was never trusted (or consent was revoked).
	ConsentNone Consent = "none"
	// ConsentCurrent: trusted at the manifest hash it has now.
	ConsentCurrent Consent = "current"
	// ConsentStale: trusted, but plugin.toml changed since.
	ConsentStale Consent = "stale"
)

// ErrNotTrusted is wrapped when a plugin has no current consent.
var ErrNotTrusted = errors.New("plugin is not trusted")

// ErrOverCeiling is wrapped when a manifest asks for more than a
// [plugins] ceiling allows.
var ErrOverCeiling = errors.New("plugin asks for more than the operator's ceiling")

// ErrNoHost is wrapped when this binary was built without the host of a
// plugin's kind.
var ErrNoHost = errors.New("no host for this plugin kind")

// Report is everything known about one plugin directory without running
// it: what `talon plugins inspect` shows and what the loader decides on.
type Report struct {
	// Name is the manifest's name; Dir the plugin directory.
	Name string
	Dir  string
	// Manifest is plugin.toml as parsed; Hash is the SHA-256 of its bytes,
	// which consent binds to.
	Manifest *manifest.Manifest
	Hash     string
	// EntryPath is the resolved entry file ("" when it cannot be resolved);
	// EntryErr is nil when it exists inside Dir and matches sha256.
	EntryPath string
	EntryErr  error
	// Signature is the verified status; SignatureErr is what the configured
	// signature_mode says about it (nil: acceptable) and SignatureWarning
	// what permissive mode asks to print ("" for none).
	Signature        manifest.SignatureStatus
	SignatureErr     error
	SignatureWarning string
	// Consent is the trust store's view; Trusted is the record, when there
	// is one.
	Consent Consent
	Trusted *manifest.Record
	// Entry is the operator's [[plugins.entries]] table (nil when there is
	// none, which grants nothing).
	Entry *config.PluginEntry
	// Grants are requests intersected with Entry; GrantsErr says why they
	// could not be resolved. TierFloor is Grants.TierFloor().
	Grants    manifest.Grants
	GrantsErr error
	TierFloor tool.Tier
	// LimitsErr says which [plugins] ceilings the manifest's [limits] pass.
	LimitsErr error
	// HasHost reports whether this binary can run the plugin's kind.
	HasHost bool
	// Tools are the final names of the plugin's tools; only [Load] and
	// [LoadDir] fill them in.
	Tools []string
}

// Attribution renders the plugin's attribution, "<kind>.<name>".
func (r *Report) Attribution() string { return string(r.Manifest.Kind) + "." + r.Name }

// Refusal returns why the loader would not load the plugin, or nil: the
// entry check, the signature under signature_mode, consent, the grants, the
// [plugins] ceilings, and the host, in that order.
func (r *Report) Refusal() error {
	switch {
	case r.EntryErr != nil:
		return r.EntryErr
	case r.SignatureErr != nil:
		return r.SignatureErr
	case r.Consent != ConsentCurrent:
		return fmt.Errorf("%w: plugin %s is not trusted (or changed since it was trusted): review it with `talon plugins inspect %s`, then run `talon plugins trust %s`",
			ErrNotTrusted, r.Name, r.Name, r.Name)
	case r.GrantsErr != nil:
		return r.GrantsErr
	case r.LimitsErr != nil:
		return r.LimitsErr
	case !r.HasHost:
		return missingHost(r.Name, r.Manifest.Kind)
	}
	return nil
}

// missingHost explains which build feature left a kind's host out. The
// Extism host runs on wazero, so the plugins-wasm feature carries it too.
func missingHost(name string, kind manifest.Kind) error {
	host := string(kind)
	if kind == manifest.KindExtism {
		host = string(manifest.KindWASM)
	}
	feature, tag := "plugins-"+host, "talon_no_plugins_"+host
	article := "a"
	if kind != "" && strings.ContainsRune("aeiou", rune(kind[0])) {
		article = "an"
	}
	return fmt.Errorf("%w: plugin %s is %s %s plugin, and this talon was built without the %s feature (build tag %s); use a build that includes it",
		ErrNoHost, name, article, kind, feature, tag)
}

// Dir returns plugins_dir: [plugins] dir (a leading ~/ is the home
// directory; a relative path is relative to the config file's directory),
// else <dataDir>/plugins.
func Dir(cfg *config.Config, dataDir string) string {
	if cfg == nil || cfg.Plugins.Dir == "" {
		return filepath.Join(dataDir, "plugins")
	}
	d := cfg.Plugins.Dir
	if rest, ok := strings.CutPrefix(d, "~/"); ok || d == "~" {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, rest)
		}
	}
	if !filepath.IsAbs(d) {
		d = filepath.Join(cfg.ConfigDir(), d)
		if abs, err := filepath.Abs(d); err == nil {
			d = abs
		}
	}
	return filepath.Clean(d)
}

// Inspect checks one plugin directory without running anything: it parses
// plugin.toml, checks the entry and the signature, looks up consent and the
// operator's entry, resolves the grants and looks for a host.
//
// # Errors
//
// Inspect fails only when there is nothing to report on: plugin.toml cannot
// be read or parsed, or the trust store cannot be opened. Every other
// problem is in the report; see [Report.Refusal].
func Inspect(dir string, opts Options) (*Report, error) {
	opts, err := withWorkspace(opts)
	if err != nil {
		return nil, err
	}
	trust := opts.Trust
	if trust == nil {
		if trust, err = manifest.OpenTrust(opts.DataDir); err != nil {
			return nil, err
		}
	}
	return inspect(dir, opts, trust, false, nil)
}

// consent looks a plugin up in trust; a nil store has no records.
func consent(trust *manifest.Trust, name string) (manifest.Record, bool) {
	if trust == nil {
		return manifest.Record{}, false
	}
	return trust.Consent(name)
}

// inspect builds a report; forTest grants everything requested instead of
// looking up the operator's entry. entries, when not nil, spares the hash
// of an entry whose digest it remembers (see [entryCache]).
func inspect(dir string, opts Options, trust *manifest.Trust, forTest bool, entries *entryCache) (*Report, error) {
	cfg := opts.Config
	if cfg == nil {
		cfg = config.Default()
	}
	m, data, err := manifest.Read(dir)
	if err != nil {
		return nil, err
	}
	r := &Report{Name: m.Name, Dir: dir, Manifest: m, Hash: manifest.HashBytes(data), Consent: ConsentNone}
	r.EntryPath, r.EntryErr = entries.check(dir, m)
	mode := cfg.Plugins.Security.SignatureModeName()
	r.Signature = manifest.Verify(m, data, cfg.Plugins.Security.TrustedPublisherKeys)
	r.SignatureErr = manifest.CheckSignature(mode, r.Signature)
	r.SignatureWarning = manifest.SignatureWarning(mode, r.Signature)
	if rec, ok := consent(trust, m.Name); ok {
		r.Trusted = &rec
		r.Consent = ConsentStale
		if rec.ManifestHash == r.Hash {
			r.Consent = ConsentCurrent
		}
	}
	for i := range cfg.Plugins.Entries {
		if cfg.Plugins.Entries[i].Name == m.Name {
			e := cfg.Plugins.Entries[i]
			r.Entry = &e
			break
		}
	}
	ws := opts.Workspace
	if forTest {
		r.Grants, r.GrantsErr = manifest.RequestedGrants(m, r.Entry, ws)
	} else {
		r.Grants, r.GrantsErr = manifest.ResolveGrants(m, r.Entry, ws)
	}
	r.TierFloor = r.Grants.TierFloor()
	r.LimitsErr = ceilingsOf(cfg).check(m)
	_, r.HasHost = LookupHost(m.Kind)
	return r, nil
}

// withWorkspace fills in an empty Workspace with the working directory and
// makes it absolute.
func withWorkspace(opts Options) (Options, error) {
	ws := opts.Workspace
	if ws == "" {
		var err error
		if ws, err = os.Getwd(); err != nil {
			return opts, fmt.Errorf("workspace: %w", err)
		}
	}
	abs, err := filepath.Abs(ws)
	if err != nil {
		return opts, fmt.Errorf("workspace: %w", err)
	}
	opts.Workspace = abs
	return opts, nil
}
