package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/pelletier/go-toml/v2"
	"github.com/spf13/cobra"

	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/plugins"
	"github.com/talonhq/talon/plugins/manifest"
	"github.com/talonhq/talon/plugins/scaffold"
	"github.com/talonhq/talon/tool"
)

func newPluginsCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "plugins",
		Short: "Install, review, trust and write tool plugins (WASM modules and subprocesses)",
		Long: `A plugin is a directory holding plugin.toml, one entry (a .wasm module or a
binary) and optional locales/. Installed plugins live in plugins_dir ([plugins] dir,
default <data dir>/plugins). A plugin loads only when [plugins] enabled = true, it
is listed in [[plugins.entries]] (or auto_discover is on), its entry matches its
sha256, its signature passes [plugins.security] signature_mode, and the operator
trusted its current plugin.toml with ` + "`talon plugins trust NAME`" + `.`,
	}
	cmd.AddCommand(newPluginsListCmd(e), newPluginsInspectCmd(e), newPluginsInstallCmd(e),
		newPluginsTrustCmd(e), newPluginsRevokeCmd(e), newPluginsEnableCmd(e, true), newPluginsEnableCmd(e, false),
		newPluginsConfigCmd(e), newPluginsUninstallCmd(e),
		newPluginsVerifyCmd(e), newPluginsNewCmd(e), newPluginsTestCmd(e), newPluginsSignCmd(e), newPluginsKeygenCmd(e))
	return cmd
}

// Trust states of an installed plugin.
const (
	trustNone    = "not trusted"
	trustCurrent = "trusted"
	trustStale   = "changed since trusted"
)

// pluginStatus is what `plugins list`, `inspect` and `verify` know about
// one plugin directory without running any of its tools.
type pluginStatus struct {
	Name         string                   `json:"name"`
	Dir          string                   `json:"dir"`
	Version      string                   `json:"version,omitempty"`
	Kind         manifest.Kind            `json:"kind,omitempty"`
	ABIVersion   int                      `json:"abi_version,omitempty"`
	Description  string                   `json:"description,omitempty"`
	Author       string                   `json:"author,omitempty"`
	Entry        string                   `json:"entry,omitempty"`
	EntrySHA256  string                   `json:"sha256,omitempty"`
	EntryOK      bool                     `json:"entry_ok"`
	ManifestHash string                   `json:"manifest_hash,omitempty"`
	Signature    manifest.SignatureStatus `json:"signature,omitempty"`
	PublisherKey string                   `json:"publisher_key,omitempty"`
	// SignatureOK says whether signature_mode accepts the signature.
	SignatureOK bool   `json:"signature_ok"`
	Trust       string `json:"trust"`
	TrustedHash string `json:"trusted_hash,omitempty"`
	TrustedAt   string `json:"trusted_at,omitempty"`
	// Listed: a [[plugins.entries]] table names it; Enabled: it is a load
	// candidate (listed and enabled, or auto-discovered).
	Listed    bool                 `json:"listed"`
	Enabled   bool                 `json:"enabled"`
	Requested manifest.Permissions `json:"requested"`
	Granted   *manifest.Grants     `json:"granted,omitempty"`
	TierFloor string               `json:"tier_floor,omitempty"`
	Limits    *effectiveLimits     `json:"limits,omitempty"`
	HostOK    bool                 `json:"host_available"`
	Tools     []pluginTool         `json:"tools,omitempty"`
	// Problems are what keeps the plugin from loading, one sentence each.
	Problems []string `json:"problems,omitempty"`
	Warnings []string `json:"warnings,omitempty"`

	manifest *manifest.Manifest
	raw      []byte
}

type effectiveLimits struct {
	TimeoutMS       int64 `json:"timeout_ms"`
	MaxMemoryMB     int   `json:"max_memory_mb"`
	MaxOutputBytes  int   `json:"max_output_bytes"`
	MaxInstances    int   `json:"max_instances"`
	EnforceDeadline bool  `json:"enforce_deadline"`
}

type pluginTool struct {
	Name        string    `json:"name"`
	Description string    `json:"description"`
	Tier        tool.Tier `json:"tier"`
}

// pluginEnv is what the plugin commands share: config, directories and the
// trust store.
type pluginEnv struct {
	cfg     *config.Config
	dataDir string
	dir     string // plugins_dir
	ws      string
	trust   *manifest.Trust
}

func (e *env) pluginEnv() (*pluginEnv, error) {
	cfg, err := e.config()
	if err != nil {
		return nil, err
	}
	ws, err := e.workspaceDir(cfg)
	if err != nil {
		return nil, err
	}
	data := e.dataDir(cfg)
	tr, err := manifest.OpenTrust(data)
	if err != nil {
		return nil, err
	}
	return &pluginEnv{cfg: cfg, dataDir: data, dir: plugins.Dir(cfg, data), ws: ws, trust: tr}, nil
}

func (p *pluginEnv) options(e *env) (plugins.Options, error) {
	log, err := e.logger()
	if err != nil {
		return plugins.Options{}, err
	}
	return plugins.Options{Config: p.cfg, Workspace: p.ws, DataDir: p.dataDir, Logger: log, Trust: p.trust}, nil
}

func (p *pluginEnv) entry(name string) *config.PluginEntry {
	for i := range p.cfg.Plugins.Entries {
		if p.cfg.Plugins.Entries[i].Name == name {
			return &p.cfg.Plugins.Entries[i]
		}
	}
	return nil
}

// installed lists the plugin directories of plugins_dir, sorted; dot
// directories (interrupted installs) are skipped.
func (p *pluginEnv) installed() ([]string, error) {
	ents, err := os.ReadDir(p.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read plugins_dir: %w", err)
	}
	var out []string
	for _, d := range ents {
		if d.IsDir() && !strings.HasPrefix(d.Name(), ".") {
			out = append(out, d.Name())
		}
	}
	return out, nil
}

// resolve turns DIR|NAME into a plugin directory: an argument with a path
// separator, or "." or "..", is a directory; otherwise it names an
// installed plugin.
func (p *pluginEnv) resolve(e *env, arg string) (string, error) {
	if strings.ContainsRune(arg, filepath.Separator) || arg == "." || arg == ".." {
		return e.absPath(arg)
	}
	dir := filepath.Join(p.dir, arg)
	if _, err := os.Stat(filepath.Join(dir, manifest.FileName)); err != nil {
		if local, aerr := e.absPath(arg); aerr == nil {
			if st, derr := os.Stat(local); derr == nil && st.IsDir() {
				return local, nil
			}
		}
		return "", usageErrorf("no plugin %q is installed in %s: see `talon plugins list`, or give a directory (./%s)", arg, p.dir, arg)
	}
	return dir, nil
}

// status checks one plugin directory: manifest, entry hash, signature,
// consent and grants. It runs nothing.
func (p *pluginEnv) status(dir string) *pluginStatus {
	st := &pluginStatus{Name: filepath.Base(dir), Dir: dir, Trust: trustNone}
	m, raw, err := manifest.Read(dir)
	if err != nil {
		st.Problems = append(st.Problems, err.Error())
		return st
	}
	st.manifest, st.raw = m, raw
	st.Name, st.Version, st.Kind, st.ABIVersion = m.Name, m.Version, m.Kind, m.ABIVersion
	st.Description, st.Author, st.Entry, st.EntrySHA256 = m.Description, m.Author, m.Entry, m.SHA256
	st.ManifestHash = manifest.HashBytes(raw)
	st.Requested = m.Permissions
	st.PublisherKey = m.PublisherKey
	st.Limits = &effectiveLimits{
		TimeoutMS: m.Limits.Timeout().Milliseconds(), MaxMemoryMB: m.Limits.MemoryMB(),
		MaxOutputBytes: m.Limits.OutputBytes(), MaxInstances: m.Limits.Instances(), EnforceDeadline: m.Limits.DeadlineEnforced(),
	}
	if err := plugins.CheckCeilings(p.cfg, m); err != nil {
		st.Problems = append(st.Problems, err.Error())
	}
	if _, err := manifest.CheckEntry(dir, m); err != nil {
		st.Problems = append(st.Problems, err.Error())
	} else {
		st.EntryOK = true
	}
	sec := p.cfg.Plugins.Security
	st.Signature = manifest.Verify(m, raw, sec.TrustedPublisherKeys)
	if err := manifest.CheckSignature(sec.SignatureModeName(), st.Signature); err != nil {
		st.Problems = append(st.Problems, err.Error())
	} else {
		st.SignatureOK = true
		if w := manifest.SignatureWarning(sec.SignatureModeName(), st.Signature); w != "" {
			st.Warnings = append(st.Warnings, "plugin "+m.Name+" "+w)
		}
	}
	if rec, ok := p.trust.Consent(m.Name); ok {
		st.TrustedHash, st.TrustedAt = rec.ManifestHash, rec.Time.UTC().Format(time.RFC3339)
		st.Trust = trustStale
		if rec.ManifestHash == st.ManifestHash {
			st.Trust = trustCurrent
		}
	}
	ent := p.entry(m.Name)
	st.Listed = ent != nil
	st.Enabled = (ent != nil && ent.Enabled()) || (ent == nil && p.cfg.Plugins.AutoDiscover)
	if g, err := manifest.ResolveGrants(m, ent, p.ws); err != nil {
		st.Problems = append(st.Problems, err.Error())
	} else {
		st.Granted = &g
		st.TierFloor = g.TierFloor().String()
	}
	_, st.HostOK = plugins.LookupHost(m.Kind)
	return st
}

// trustProblem is the consent half of verification.
func (st *pluginStatus) trustProblem() string {
	switch st.Trust {
	case trustNone:
		return fmt.Sprintf("plugin %s is not trusted: review it with `talon plugins inspect %s`, then run `talon plugins trust %s`", st.Name, st.Name, st.Name)
	case trustStale:
		return fmt.Sprintf("plugin %s changed since it was trusted (plugin.toml sha256 %s, trusted %s): review it with `talon plugins inspect %s`, then run `talon plugins trust %s`",
			st.Name, short(st.ManifestHash), short(st.TrustedHash), st.Name, st.Name)
	}
	return ""
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// describe loads the plugin through its host to list its tools. Loading
// asks the module to describe itself; it never runs a tool. It is skipped
// when the entry or the signature failed, since the module is then not
// what was reviewed.
func (p *pluginEnv) describe(ctx context.Context, e *env, st *pluginStatus) {
	if st.manifest == nil || !st.EntryOK || !st.SignatureOK || !st.HostOK {
		return
	}
	opts, err := p.options(e)
	if err != nil {
		st.Problems = append(st.Problems, err.Error())
		return
	}
	set, err := plugins.LoadDir(ctx, st.Dir, opts)
	if err != nil {
		st.Problems = append(st.Problems, err.Error())
		return
	}
	defer func() { _ = set.Close(context.WithoutCancel(ctx)) }()
	for _, t := range set.Tools {
		s := t.Spec()
		st.Tools = append(st.Tools, pluginTool{Name: s.Name, Description: s.Description, Tier: s.Tier})
	}
	if len(set.Tools) == 0 {
		st.Problems = append(st.Problems, slices.Concat([]string{"the plugin describes no tools"}, set.Warnings)...)
	}
}

func newPluginsListCmd(e *env) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List installed plugins with their version, trust, signature and (trusted ones) tool count",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p, err := e.pluginEnv()
			if err != nil {
				return err
			}
			names, err := p.installed()
			if err != nil {
				return err
			}
			rows := make([]*pluginStatus, 0, len(names))
			for _, n := range names {
				st := p.status(filepath.Join(p.dir, n))
				// Only plugins the operator trusts are loaded to count their
				// tools: listing must not run code nobody reviewed yet.
				if st.Trust == trustCurrent {
					p.describe(cmd.Context(), e, st)
				}
				rows = append(rows, st)
			}
			out := cmd.OutOrStdout()
			if asJSON {
				return writeJSON(out, rows)
			}
			if len(rows) == 0 {
				fmt.Fprintf(out, "no plugins installed in %s; install one with `talon plugins install DIR|FILE.tar.gz`\n", p.dir)
				return nil
			}
			tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tVERSION\tKIND\tENABLED\tTRUST\tSIGNATURE\tTOOLS")
			for _, st := range rows {
				tools := "-"
				if len(st.Tools) > 0 {
					tools = fmt.Sprint(len(st.Tools))
				}
				sig := string(st.Signature)
				if !st.EntryOK && st.manifest != nil {
					sig += " (entry changed)"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", st.Name, orDash(st.Version), orDash(string(st.Kind)),
					yesNo(st.Enabled), st.Trust, orDash(sig), tools)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			if !p.cfg.Plugins.Enabled {
				fmt.Fprintln(e.io.ErrOut, "talon: note: [plugins] enabled = false, so none of these load; turn plugins on with `talon config set plugins.enabled true`")
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON array")
	return cmd
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func newPluginsInspectCmd(e *env) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "inspect DIR|NAME",
		Short: "Show a plugin's manifest, hash and signature checks, permissions, grants, limits and tools",
		Long: `inspect reads a plugin directory (or an installed plugin by name) and shows what
trusting it would mean: the permissions it requests and what [[plugins.entries]]
grants, the tier floor that follows, its limits, and its tools as the module
describes them. Describing loads the module; no tool runs.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := e.pluginEnv()
			if err != nil {
				return err
			}
			dir, err := p.resolve(e, args[0])
			if err != nil {
				return err
			}
			st := p.status(dir)
			if st.manifest == nil {
				return withCode(ExitUsage, fmt.Errorf("inspect %s: %s", dir, strings.Join(st.Problems, "; ")))
			}
			p.describe(cmd.Context(), e, st)
			out := cmd.OutOrStdout()
			if asJSON {
				return writeJSON(out, st)
			}
			printStatus(out, st)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func printStatus(out io.Writer, st *pluginStatus) {
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	row := func(k, v string) { fmt.Fprintf(tw, "%s:\t%s\n", k, v) }
	row("name", st.Name)
	row("version", orDash(st.Version))
	row("kind", fmt.Sprintf("%s (abi %d)", st.Kind, st.ABIVersion))
	row("description", orDash(st.Description))
	row("author", orDash(st.Author))
	row("directory", st.Dir)
	entry := "ok"
	if !st.EntryOK {
		entry = "MISMATCH"
	}
	row("entry", fmt.Sprintf("%s (sha256 %s: %s)", st.Entry, short(st.EntrySHA256), entry))
	row("manifest sha256", st.ManifestHash)
	sig := string(st.Signature)
	if st.PublisherKey != "" {
		sig += " by " + st.PublisherKey
	}
	if !st.SignatureOK {
		sig += " (refused by signature_mode)"
	}
	row("signature", sig)
	trust := st.Trust
	if st.TrustedAt != "" {
		trust += " (consent given " + st.TrustedAt + ")"
	}
	row("trust", trust)
	enabled := yesNo(st.Enabled)
	if !st.Listed {
		enabled += " (no [[plugins.entries]] table)"
	}
	row("enabled", enabled)
	if !st.HostOK {
		row("host", fmt.Sprintf("this talon cannot run %s plugins (built without them)", st.Kind))
	}
	_ = tw.Flush()

	fmt.Fprintln(out, "\npermissions (requested -> granted):")
	g := st.Granted
	if g == nil {
		g = &manifest.Grants{}
	}
	req := st.Requested
	perm := func(k string, want, have []string) {
		fmt.Fprintf(out, "  %-14s %s -> %s\n", k, list(want), list(have))
	}
	perm("allowed_hosts", req.HTTP.AllowedHosts, g.AllowedHosts)
	perm("fs_read", req.FSRead, g.FSRead)
	perm("fs_write", req.FSWrite, g.FSWrite)
	perm("secrets", req.Secrets, g.Secrets)
	var cfgKeys []string
	for k := range g.Config {
		cfgKeys = append(cfgKeys, k)
	}
	slices.Sort(cfgKeys)
	perm("config_read", req.ConfigRead, cfgKeys)
	fmt.Fprintf(out, "  tier floor     %s\n", orDash(st.TierFloor))
	if l := st.Limits; l != nil {
		fmt.Fprintf(out, "\nlimits: timeout %dms, memory %d MiB, output %d bytes, %d instances, deadline enforced %s\n",
			l.TimeoutMS, l.MaxMemoryMB, l.MaxOutputBytes, l.MaxInstances, yesNo(l.EnforceDeadline))
	}
	if len(st.Tools) > 0 {
		fmt.Fprintln(out, "\ntools (tiers as if every requested permission were granted):")
		tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
		for _, t := range st.Tools {
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", t.Name, t.Tier, firstLine(t.Description))
		}
		_ = tw.Flush()
	}
	for _, w := range st.Warnings {
		fmt.Fprintf(out, "\nwarning: %s\n", w)
	}
	for _, pr := range st.Problems {
		fmt.Fprintf(out, "\nproblem: %s\n", pr)
	}
}

func list(s []string) string {
	if len(s) == 0 {
		return "(none)"
	}
	return strings.Join(s, ", ")
}

func newPluginsTrustCmd(e *env) *cobra.Command {
	var yes bool
	cmd := &cobra.Command{
		Use:   "trust NAME",
		Short: "Record consent to an installed plugin's current plugin.toml",
		Long: `trust shows what is being trusted (permissions requested, the manifest hash, the
signature) and records consent bound to the hash of plugin.toml, which pins the
entry's sha256. Any change to plugin.toml or to the entry afterwards stops the
plugin from loading until it is trusted again.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := e.pluginEnv()
			if err != nil {
				return err
			}
			dir, err := p.installedDir(args[0])
			if err != nil {
				return err
			}
			st := p.status(dir)
			if st.manifest == nil || !st.EntryOK || !st.SignatureOK {
				return withCode(ExitVerify, fmt.Errorf("refusing to trust %s: %s", args[0], strings.Join(st.Problems, "; ")))
			}
			out := cmd.OutOrStdout()
			r := st.Requested
			fmt.Fprintf(out, "plugin %s %s (%s) by %s\n", st.Name, orDash(st.Version), st.Kind, orDash(st.Author))
			fmt.Fprintf(out, "  plugin.toml sha256  %s\n  entry sha256        %s\n  signature           %s\n", st.ManifestHash, st.EntrySHA256, st.Signature)
			fmt.Fprintf(out, "  requests            allowed_hosts %s; fs_read %s; fs_write %s; secrets %s; config_read %s\n",
				list(r.HTTP.AllowedHosts), list(r.FSRead), list(r.FSWrite), list(r.Secrets), list(r.ConfigRead))
			switch {
			case yes:
			case e.io.InTTY:
				fmt.Fprintf(e.io.ErrOut, "trust %s? [y/N] ", st.Name)
				line, _ := bufio.NewReader(e.io.In).ReadString('\n')
				if a := strings.ToLower(strings.TrimSpace(line)); a != "y" && a != "yes" {
					return withCode(ExitDenied, errors.New("not trusted"))
				}
			default:
				// Consent is a person's: without a terminal to ask on,
				// only an explicit --yes records it.
				return usageErrorf("not trusted: there is no terminal to ask on; review the above and run `talon plugins trust %s --yes`", st.Name)
			}
			if err := p.trust.Grant(st.Name, st.ManifestHash); err != nil {
				return err
			}
			fmt.Fprintf(out, "trusted %s at plugin.toml sha256 %s\n", st.Name, short(st.ManifestHash))
			switch {
			case !p.cfg.Plugins.Enabled:
				fmt.Fprintf(out, "next: turn plugins on with `talon config set plugins.enabled true` and run `talon plugins enable %s`\n", st.Name)
			case !st.Enabled:
				fmt.Fprintf(out, "next: run `talon plugins enable %s`\n", st.Name)
			}
			return nil
		},
	}
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "record consent without asking (needed without a terminal)")
	return cmd
}

// installedDir is the directory of an installed plugin, by name.
func (p *pluginEnv) installedDir(name string) (string, error) {
	dir := filepath.Join(p.dir, name)
	if strings.ContainsAny(name, `/\`) || strings.HasPrefix(name, ".") {
		return "", usageErrorf("%q is not a plugin name: give the name shown by `talon plugins list`", name)
	}
	if _, err := os.Stat(filepath.Join(dir, manifest.FileName)); err != nil {
		return "", usageErrorf("no plugin %q is installed in %s: install it with `talon plugins install DIR|FILE.tar.gz`", name, p.dir)
	}
	return dir, nil
}

func newPluginsRevokeCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "revoke NAME",
		Short: "Remove consent to a plugin; it stops loading",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := e.pluginEnv()
			if err != nil {
				return err
			}
			name := args[0]
			if _, ok := p.trust.Consent(name); !ok {
				fmt.Fprintf(cmd.OutOrStdout(), "%s was not trusted; nothing to revoke\n", name)
				return nil
			}
			if err := p.trust.Revoke(name); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "revoked trust in %s; it no longer loads\n", name)
			return nil
		},
	}
}

func newPluginsEnableCmd(e *env, enable bool) *cobra.Command {
	use, short := "enable NAME", "Set enabled = true in the plugin's [[plugins.entries]] table (adding the table if missing)"
	if !enable {
		use, short = "disable NAME", "Set enabled = false in the plugin's [[plugins.entries]] table"
	}
	return &cobra.Command{
		Use:   use,
		Short: short,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			if err := validPluginName(name); err != nil {
				return err
			}
			path, src, err := e.configFile("edit")
			if err != nil {
				return err
			}
			out, err := setEntryEnabled(path, src, name, enable)
			if err != nil {
				return withCode(ExitUsage, fmt.Errorf("%s %s in %s: %w", strings.Fields(use)[0], name, path, err))
			}
			if err := writeConfig(path, out); err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if !enable {
				fmt.Fprintf(w, "disabled %s in %s\n", name, path)
				return nil
			}
			fmt.Fprintf(w, "enabled %s in %s\n", name, path)
			p, err := e.pluginEnv()
			if err != nil {
				return err
			}
			if !p.cfg.Plugins.Enabled {
				fmt.Fprintln(w, "note: [plugins] enabled = false, so this has no effect yet; turn plugins on with `talon config set plugins.enabled true`")
			}
			if _, err := os.Stat(filepath.Join(p.dir, name, manifest.FileName)); err != nil {
				fmt.Fprintf(w, "note: %s is not installed in %s; install it with `talon plugins install DIR|FILE.tar.gz`\n", name, p.dir)
			} else if rec, ok := p.trust.Consent(name); !ok {
				fmt.Fprintf(w, "note: %s is not trusted yet; review it with `talon plugins inspect %s`, then run `talon plugins trust %s`\n", name, name, name)
			} else if st := p.status(filepath.Join(p.dir, name)); rec.ManifestHash != st.ManifestHash {
				fmt.Fprintf(w, "note: %s changed since it was trusted; review it and run `talon plugins trust %s`\n", name, name)
			}
			return nil
		},
	}
}

func newPluginsConfigCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "config NAME KEY VALUE",
		Short: "Set one key of a plugin's config in its [[plugins.entries]] table (VALUE is a TOML value, or a bare word)",
		Long: `config sets config.KEY of the plugin's [[plugins.entries]] table, keeping comments
and layout, and writes the file only if it still loads. A plugin without a table
gets one with enabled = false: configuring a plugin never turns it on. The value
is checked against the plugin's config_schema when the plugin loads.`,
		Args: cobra.ExactArgs(3),
		RunE: func(cmd *cobra.Command, args []string) error {
			name, key, value := args[0], args[1], args[2]
			if err := validPluginName(name); err != nil {
				return err
			}
			path, src, err := e.configFile("edit")
			if err != nil {
				return err
			}
			out, created, err := setEntryConfig(path, src, name, key, value)
			if err != nil {
				return withCode(ExitUsage, fmt.Errorf("plugins config %s %s in %s: %w", name, key, path, err))
			}
			if err := writeConfig(path, out); err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "set config.%s of plugin %s in %s\n", key, name, path)
			if created {
				fmt.Fprintf(w, "note: added a [[plugins.entries]] table for %s with enabled = false; turn it on with `talon plugins enable %s`\n", name, name)
			}
			return nil
		},
	}
}

func validPluginName(name string) error {
	for i, r := range name {
		ok := r >= 'a' && r <= 'z' || i > 0 && (r >= '0' && r <= '9' || r == '-' || r == '_')
		if !ok || i >= 64 {
			return usageErrorf("%q is not a plugin name: names are lowercase letters, digits, - and _, starting with a letter", name)
		}
	}
	if name == "" {
		return usageErrorf("a plugin name is required")
	}
	return nil
}

func newPluginsVerifyCmd(e *env) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "verify [NAME...]",
		Short: "Re-check the hash, signature and consent of installed plugins (exit 6 when one fails)",
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := e.pluginEnv()
			if err != nil {
				return err
			}
			names := args
			if len(names) == 0 {
				if names, err = p.installed(); err != nil {
					return err
				}
			}
			type verdict struct {
				Name     string   `json:"name"`
				OK       bool     `json:"ok"`
				Problems []string `json:"problems,omitempty"`
			}
			var rows []verdict
			failed := 0
			for _, n := range names {
				dir, err := p.installedDir(n)
				if err != nil {
					return err
				}
				st := p.status(dir)
				probs := st.Problems
				if st.manifest != nil {
					if tp := st.trustProblem(); tp != "" {
						probs = append(probs, tp)
					}
				}
				if len(probs) > 0 {
					failed++
				}
				rows = append(rows, verdict{Name: st.Name, OK: len(probs) == 0, Problems: probs})
			}
			out := cmd.OutOrStdout()
			if asJSON {
				if err := writeJSON(out, rows); err != nil {
					return err
				}
			} else {
				for _, r := range rows {
					if r.OK {
						fmt.Fprintf(out, "ok    %s\n", r.Name)
						continue
					}
					fmt.Fprintf(out, "FAIL  %s\n", r.Name)
					for _, pr := range r.Problems {
						fmt.Fprintf(out, "      %s\n", pr)
					}
				}
				if len(rows) == 0 {
					fmt.Fprintf(out, "no plugins installed in %s\n", p.dir)
				}
			}
			if failed > 0 {
				fmt.Fprintf(e.io.ErrOut, "talon: %d of %d plugins failed verification\n", failed, len(rows))
				return errSilent(ExitVerify)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func newPluginsNewCmd(e *env) *cobra.Command {
	var dir, module, kind string
	cmd := &cobra.Command{
		Use:   "new NAME [--kind wasm|process]",
		Short: "Scaffold a Go plugin that builds offline: a WASM plugin (the default) or a subprocess plugin",
		Long: `new writes a Go project for a plugin: main.go registering one tool, its handler and a
test that calls it natively, plugin.toml, locales/en and locales/ja, a Makefile and a
README. The project carries a copy of the kit it builds against (talon/pdk for WASM,
talon/sdk and talon/proto for subprocess plugins), taken from this talon, and go.mod
points at it, so it builds with the Go toolchain alone, without a network. A release
of talon pins its own version of the kit in go.mod.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			if err := validPluginName(name); err != nil {
				return err
			}
			k := manifest.Kind(kind)
			if k != manifest.KindWASM && k != manifest.KindProcess {
				return usageErrorf("--kind %q: use wasm (a WebAssembly plugin) or process (a subprocess plugin); Extism plugins are built with an Extism PDK", kind)
			}
			if dir == "" {
				dir = name
			}
			dir, err := e.absPath(dir)
			if err != nil {
				return err
			}
			files, err := scaffold.Write(dir, scaffold.Options{Name: name, Kind: k, Module: module, TalonVersion: releaseVersion()})
			if err != nil {
				if errors.Is(err, scaffold.ErrExists) {
					return withCode(ExitUsage, err)
				}
				return err
			}
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "created %s:\n", dir)
			for _, f := range files {
				if strings.HasPrefix(f, scaffold.KitDir+"/") {
					continue
				}
				fmt.Fprintf(out, "  %s\n", f)
			}
			fmt.Fprintf(out, "  %s/ (the %s, copied from this talon)\n", scaffold.KitDir, map[manifest.Kind]string{manifest.KindWASM: "PDK", manifest.KindProcess: "SDK"}[k])
			fmt.Fprintf(out, "next: cd %s && make test && make && talon plugins test . --tool %s_greet --args '{\"name\":\"Ada\"}'\n",
				dir, strings.ReplaceAll(name, "-", "_"))
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "", "directory to create (default: ./NAME); it must not exist or be empty")
	cmd.Flags().StringVar(&module, "module", "", "Go module path (default: example.com/NAME)")
	cmd.Flags().StringVar(&kind, "kind", "wasm", "wasm (a WebAssembly plugin with the PDK) or process (a subprocess plugin with the SDK)")
	return cmd
}

// releaseVersion is talon's version when it is a release tag, which the
// scaffold's go.mod then requires; "" for development builds.
func releaseVersion() string {
	if strings.HasPrefix(version, "v") && !strings.ContainsAny(version, "+") {
		return version
	}
	return ""
}

func newPluginsTestCmd(e *env) *cobra.Command {
	var name, args string
	var configs []string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "test DIR --tool T [--args JSON] [--config KEY=VALUE]...",
		Short: "Run one tool of a plugin directory without installing or trusting it",
		Long: `test loads the plugin in DIR through its host with every permission it requests
(file roots resolved in the workspace) and runs one tool directly: no policy, no
approvals, no receipts. It is for the plugin's author; an entry that does not match
sha256 is a warning, and the signature is not checked. Config values come from the
plugin's [[plugins.entries]] table, if there is one, and --config KEY=VALUE sets one
for this run (VALUE is a TOML value, or a bare word taken as a string); the
plugin reads only the keys its manifest lists in permissions.config_read.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, a []string) error {
			if name == "" {
				return usageErrorf("--tool is required: name the tool to run (see `talon plugins inspect %s`)", a[0])
			}
			p, err := e.pluginEnv()
			if err != nil {
				return err
			}
			dir, err := e.absPath(a[0])
			if err != nil {
				return err
			}
			opts, err := p.options(e)
			if err != nil {
				return err
			}
			if len(configs) > 0 {
				if opts.Config, err = withTestConfig(p.cfg, dir, configs); err != nil {
					return err
				}
			}
			loadFrom, warning, cleanup, err := devCopy(dir)
			if err != nil {
				return err
			}
			defer cleanup()
			if warning != "" {
				fmt.Fprintf(e.io.ErrOut, "talon: warning: %s\n", warning)
			}
			set, err := plugins.LoadDir(cmd.Context(), loadFrom, opts)
			if err != nil {
				return withCode(ExitUsage, err)
			}
			defer func() { _ = set.Close(context.WithoutCancel(cmd.Context())) }()
			for _, w := range set.Warnings {
				fmt.Fprintf(e.io.ErrOut, "talon: warning: %s\n", w)
			}
			var found tool.Tool
			var names []string
			for _, t := range set.Tools {
				names = append(names, t.Spec().Name)
				if t.Spec().Name == name {
					found = t
				}
			}
			if found == nil {
				return usageErrorf("the plugin in %s has no tool %q; it has: %s", dir, name, list(names))
			}
			res := runPluginTool(cmd.Context(), found, args)
			return printResult(cmd.OutOrStdout(), e.io.ErrOut, res, asJSON)
		},
	}
	f := cmd.Flags()
	f.StringVar(&name, "tool", "", "tool to run")
	f.StringVar(&args, "args", "{}", "arguments as a JSON object")
	f.BoolVar(&asJSON, "json", false, "print the whole result as JSON")
	f.StringArrayVar(&configs, "config", nil, "set a config value for this run: KEY=VALUE (repeatable)")
	return cmd
}

// withTestConfig returns cfg with the KEY=VALUE settings added to the
// config of the [[plugins.entries]] table of the plugin in dir (a table
// made for the run when there is none); cfg itself is not changed.
func withTestConfig(cfg *config.Config, dir string, settings []string) (*config.Config, error) {
	m, _, err := manifest.Read(dir)
	if err != nil {
		return nil, withCode(ExitUsage, err)
	}
	values := map[string]any{}
	for _, kv := range settings {
		key, value, ok := strings.Cut(kv, "=")
		if !ok || key == "" || strings.ContainsAny(key, ".\"' \t\r\n") {
			return nil, usageErrorf("--config %q: write KEY=VALUE, such as --config database=data/app.db", kv)
		}
		v, _, err := config.ParseValue(value)
		if err != nil {
			return nil, usageErrorf("--config %s: %v", key, err)
		}
		if !slices.Contains(m.Permissions.ConfigRead, key) {
			return nil, usageErrorf("--config %s: plugin %s does not read %q (its permissions.config_read lists %s); add it there, or check the spelling", key, m.Name, key, list(m.Permissions.ConfigRead))
		}
		values[key] = v
	}
	out := *cfg
	out.Plugins.Entries = slices.Clone(cfg.Plugins.Entries)
	i := slices.IndexFunc(out.Plugins.Entries, func(e config.PluginEntry) bool { return e.Name == m.Name })
	if i < 0 {
		out.Plugins.Entries = append(out.Plugins.Entries, config.PluginEntry{Name: m.Name})
		i = len(out.Plugins.Entries) - 1
	}
	merged := map[string]any{}
	for k, v := range out.Plugins.Entries[i].Config {
		merged[k] = v
	}
	for k, v := range values {
		merged[k] = v
	}
	out.Plugins.Entries[i].Config = merged
	return &out, nil
}

// devCopy is where `plugins test` loads a directory from: the directory
// itself, or, when the entry no longer matches sha256 (the author just
// rebuilt it), a temporary copy whose plugin.toml has the new sha256, with
// a warning saying so. Hosts check the hash again, so the copy is what lets
// an unsigned-off build run.
func devCopy(dir string) (string, string, func(), error) {
	none := func() {}
	m, raw, err := manifest.Read(dir)
	if err != nil {
		return "", "", none, withCode(ExitUsage, err)
	}
	entry, err := manifest.CheckEntry(dir, m)
	if !errors.Is(err, manifest.ErrHashMismatch) {
		return dir, "", none, nil // a good entry, or an error LoadDir reports
	}
	sum, herr := manifest.HashFile(entry)
	if herr != nil {
		return "", "", none, herr
	}
	fixed, ferr := setTopLevelString(raw, "sha256", sum)
	if ferr != nil {
		return "", "", none, ferr
	}
	tmp, terr := os.MkdirTemp("", "talon-plugin-test-")
	if terr != nil {
		return "", "", none, terr
	}
	cleanup := func() { _ = os.RemoveAll(tmp) }
	stage := filepath.Join(tmp, m.Name)
	if cerr := copyPlugin(dir, stage, m, fixed, entry); cerr != nil {
		cleanup()
		return "", "", none, cerr
	}
	return stage, fmt.Sprintf("%v; testing it anyway (run `talon plugins sign %s` before installing)", err, dir), cleanup, nil
}

// runPluginTool checks the arguments against the tool's schema and runs it.
func runPluginTool(ctx context.Context, t tool.Tool, raw string) tool.Result {
	s := t.Spec()
	args, err := tool.NormalizeArgs(json.RawMessage(raw))
	if err != nil {
		return tool.Failure("%s: %v", s.Name, err)
	}
	schema, err := tool.CompileSchema(s.Name, s.Input)
	if err != nil {
		return tool.Failure("%s: %v", s.Name, err)
	}
	if err := schema.Validate(args); err != nil {
		return tool.Failure("%v", err)
	}
	res, err := t.Execute(ctx, args)
	return tool.Normalize(s.Name, res, err)
}

func newPluginsKeygenCmd(e *env) *cobra.Command {
	var force bool
	cmd := &cobra.Command{
		Use:   "keygen FILE",
		Short: "Create an Ed25519 signing key (mode 0600) and print its public key",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path, err := e.absPath(args[0])
			if err != nil {
				return err
			}
			if _, err := os.Stat(path); err == nil && !force {
				return usageErrorf("%s already exists: keep using it, or pass --force to replace it (plugins signed with it then need signing again)", path)
			}
			pub, priv := manifest.GenerateKey()
			if err := manifest.WritePrivateKey(path, priv); err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "wrote %s\npublic key: %s\n", path, manifest.PublicKeyString(pub))
			fmt.Fprintf(out, "operators trust it with: [plugins.security] trusted_publisher_keys = [%q]\n", manifest.PublicKeyString(pub))
			return nil
		},
	}
	cmd.Flags().BoolVar(&force, "force", false, "replace an existing key file")
	return cmd
}

func newPluginsSignCmd(e *env) *cobra.Command {
	var keyPath string
	cmd := &cobra.Command{
		Use:   "sign DIR [--key FILE]",
		Short: "Set sha256 of the entry in plugin.toml and, with --key, sign the manifest",
		Long: `sign computes the SHA-256 of the plugin's entry and writes it to plugin.toml's
sha256, keeping the rest of the file as it is. With --key (a file from
` + "`talon plugins keygen`" + `) it then signs the manifest and sets publisher_key and
signature. Without --key, a manifest that is already signed is refused, since the
new sha256 would break its signature.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, err := e.absPath(args[0])
			if err != nil {
				return err
			}
			path := filepath.Join(dir, manifest.FileName)
			raw, err := os.ReadFile(path)
			if err != nil {
				return withCode(ExitUsage, fmt.Errorf("sign %s: %w", dir, err))
			}
			// sha256 may be missing or stale, so the manifest is read
			// loosely first and strictly once it is set.
			var loose struct {
				Entry        string `toml:"entry"`
				SHA256       string `toml:"sha256"`
				Signature    string `toml:"signature"`
				PublisherKey string `toml:"publisher_key"`
			}
			if err := toml.Unmarshal(raw, &loose); err != nil {
				return withCode(ExitUsage, fmt.Errorf("sign %s: %w", path, err))
			}
			if loose.Entry == "" || filepath.IsAbs(loose.Entry) {
				return usageErrorf("sign %s: entry must name the module or binary, relative to the plugin directory", path)
			}
			sum, err := manifest.HashFile(filepath.Join(dir, filepath.FromSlash(loose.Entry)))
			if err != nil {
				return withCode(ExitUsage, fmt.Errorf("sign %s: the entry: %w; build it first", dir, err))
			}
			out := raw
			if sum != loose.SHA256 {
				if keyPath == "" && (loose.Signature != "" || loose.PublisherKey != "") {
					return usageErrorf("%s is signed and its entry changed: pass --key FILE to sign it again", path)
				}
				if out, err = setTopLevelString(raw, "sha256", sum); err != nil {
					return fmt.Errorf("sign %s: %w", path, err)
				}
			}
			m, err := manifest.Parse(out)
			if err != nil {
				return withCode(ExitUsage, fmt.Errorf("sign %s: %w", path, err))
			}
			w := cmd.OutOrStdout()
			if keyPath != "" {
				kp, err := e.absPath(keyPath)
				if err != nil {
					return err
				}
				key, err := manifest.ReadPrivateKey(kp)
				if err != nil {
					return withCode(ExitUsage, err)
				}
				if out, err = manifest.Sign(out, key); err != nil {
					return fmt.Errorf("sign %s: %w", path, err)
				}
			}
			if _, err := manifest.Parse(out); err != nil {
				return fmt.Errorf("sign %s: the edited manifest does not load: %w", path, err)
			}
			if err := writeConfig(path, out); err != nil {
				return err
			}
			fmt.Fprintf(w, "sha256 %s (%s)\n", sum, m.Entry)
			if keyPath != "" {
				signed, _ := manifest.Parse(out)
				fmt.Fprintf(w, "signed %s with publisher key %s\n", m.Name, signed.PublisherKey)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&keyPath, "key", "", "private key file from `talon plugins keygen`")
	return cmd
}

// absPath resolves a path argument against the command's working directory.
func (e *env) absPath(p string) (string, error) {
	if filepath.IsAbs(p) {
		return filepath.Clean(p), nil
	}
	cwd, err := e.io.cwd()
	if err != nil {
		return "", err
	}
	return filepath.Join(cwd, p), nil
}
