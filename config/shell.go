package config

import (
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Shell modes: the one knob of [ShellPolicy.Mode].
const (
	// ShellModeDeny denies every shell line.
	ShellModeDeny = "deny"
	// ShellModeAllowlist runs allowlisted and safe-bin commands (by tier)
	// and denies the rest: the default behaviour, named.
	ShellModeAllowlist = "allowlist"
	// ShellModeAsk is allowlist, but a command off the allowlist asks a
	// person instead of being denied.
	ShellModeAsk = "ask"
	// ShellModeFull runs every line talon can analyse, at every tier,
	// without asking.
	ShellModeFull = "full"
)

// Defaults of the shell settings.
const (
	// DefaultApprovalRunningNoticeMs is how long a call waits on approval
	// before one progress notice is sent.
	DefaultApprovalRunningNoticeMs = 10000
)

// defaultSafeBins are the stdin filters that run without being listed in
// allowed_commands.
var defaultSafeBins = []string{"cut", "head", "tail", "tr", "uniq", "wc"}

// defaultSafeBinTrustedDirs are where a safe bin must be found.
var defaultSafeBinTrustedDirs = []string{"/bin", "/usr/bin"}

// DefaultSafeBins returns a fresh copy of the default safe_bins.
func DefaultSafeBins() []string { return slices.Clone(defaultSafeBins) }

// DefaultSafeBinTrustedDirs returns a fresh copy of the default
// safe_bin_trusted_dirs.
func DefaultSafeBinTrustedDirs() []string { return slices.Clone(defaultSafeBinTrustedDirs) }

// ShellPolicy is the shell table of a risk profile,
// [risk_profiles.<alias>.shell]: how the shell and process tools treat
// command lines for callers of that profile. The zero value is every
// default.
type ShellPolicy struct {
	// Mode is "deny", "allowlist", "ask" or "full"; "" leaves the
	// profile's own fields in charge. It is derived into them (see
	// docs/policy.md), so setting it together with
	// block_high_risk_commands is an error, as is deny or full with
	// allowed_commands or safe_bins.
	Mode string `toml:"mode"`
	// AllowNoTimeout lets a call pass timeout_seconds = 0, no timeout.
	AllowNoTimeout bool `toml:"allow_no_timeout"`
	// Allow, Ask and Deny are command patterns ("git push **"): deny wins,
	// then ask, then allow.
	Allow []string `toml:"allow"`
	Ask   []string `toml:"ask"`
	Deny  []string `toml:"deny"`
	// SafeBinsSetting is nil when absent ([DefaultSafeBins]).
	SafeBinsSetting *[]string `toml:"safe_bins"`
	// SafeBinProfiles are the argument rules of safe bins, by name.
	SafeBinProfiles map[string]SafeBinProfile `toml:"safe_bin_profiles"`
	// SafeBinTrustedDirsSetting is nil when absent
	// ([DefaultSafeBinTrustedDirs]).
	SafeBinTrustedDirsSetting *[]string `toml:"safe_bin_trusted_dirs"`
	// PathPrepend are directories put in front of the PATH commands are
	// found in and children get.
	PathPrepend []string `toml:"path_prepend"`
}

// SafeBins returns safe_bins, or [DefaultSafeBins] when absent.
func (s ShellPolicy) SafeBins() []string {
	if s.SafeBinsSetting == nil {
		return DefaultSafeBins()
	}
	return slices.Clone(*s.SafeBinsSetting)
}

// SafeBinTrustedDirs returns safe_bin_trusted_dirs, or
// [DefaultSafeBinTrustedDirs] when absent.
func (s ShellPolicy) SafeBinTrustedDirs() []string {
	if s.SafeBinTrustedDirsSetting == nil {
		return DefaultSafeBinTrustedDirs()
	}
	return slices.Clone(*s.SafeBinTrustedDirsSetting)
}

// SafeBinProfile is the argument rule of one safe bin,
// [risk_profiles.<alias>.shell.safe_bin_profiles.<bin>].
type SafeBinProfile struct {
	// MinPositional and MaxPositional bound the operands (none may name a
	// path or an existing file).
	MinPositional int `toml:"min_positional"`
	MaxPositional int `toml:"max_positional"`
	// AllowedValueFlags are the flags that take a value.
	AllowedValueFlags []string `toml:"allowed_value_flags"`
	// DeniedFlags are refused, alone or in a cluster.
	DeniedFlags []string `toml:"denied_flags"`
}

// NotifyOnExit reports whether a background process's end is sent to the
// MCP client that started it (default true).
func (s Shell) NotifyOnExit() bool { return boolOr(s.NotifyOnExitSetting, true) }

// ApprovalRunningNotice returns approval_running_notice_ms, 10 s when
// absent; zero means no notice.
func (s Shell) ApprovalRunningNotice() time.Duration {
	if s.ApprovalRunningNoticeMsSetting == nil {
		return DefaultApprovalRunningNoticeMs * time.Millisecond
	}
	return time.Duration(max(*s.ApprovalRunningNoticeMsSetting, 0)) * time.Millisecond
}

// Wait reports whether a call that needs approval waits for the answer
// (default true); false returns a pending result at once.
func (a Approvals) Wait() bool { return boolOr(a.WaitSetting, true) }

// validateShellPolicy checks the shell table of profile name.
func (c *Config) validateShellPolicy(v *validator, name string, p RiskProfile) {
	s := p.Shell
	path := []string{"risk_profiles", name, "shell"}
	v.enum(append(path, "mode"), s.Mode, ShellModeDeny, ShellModeAllowlist, ShellModeAsk, ShellModeFull)
	if s.Mode != "" {
		if p.BlockHighRiskCommandsSetting != nil {
			v.fail(append(path, "mode"), "risk profile %s sets shell.mode and block_high_risk_commands; mode = %s decides it, so remove block_high_risk_commands",
				quoteString(name), quoteString(s.Mode))
		}
		if (s.Mode == ShellModeDeny || s.Mode == ShellModeFull) && p.AllowedCommandsSetting != nil {
			v.fail(append(path, "mode"), "risk profile %s sets shell.mode = %s and allowed_commands; that mode decides every command, so remove allowed_commands",
				quoteString(name), quoteString(s.Mode))
		}
		if s.Mode == ShellModeDeny && s.SafeBinsSetting != nil {
			v.fail(append(path, "mode"), "risk profile %s sets shell.mode = \"deny\" and safe_bins; deny runs no command, so remove safe_bins",
				quoteString(name))
		}
	}
	for _, list := range []struct {
		key  string
		pats []string
	}{{"allow", s.Allow}, {"ask", s.Ask}, {"deny", s.Deny}} {
		for _, pat := range list.pats {
			if strings.TrimSpace(pat) == "" {
				v.fail(append(path, list.key), "%s has an empty pattern; write the command and its arguments, like \"make test\"", formatKey(append(path, list.key)))
			}
		}
	}
	for _, d := range s.PathPrepend {
		if !filepath.IsAbs(d) {
			v.fail(append(path, "path_prepend"), "path_prepend entry %s is not an absolute directory; write the full path", quoteString(d))
		}
	}
	for _, d := range s.SafeBinTrustedDirs() {
		if !filepath.IsAbs(d) {
			v.fail(append(path, "safe_bin_trusted_dirs"), "safe_bin_trusted_dirs entry %s is not an absolute directory; write the full path", quoteString(d))
		}
	}
	bins := s.SafeBins()
	for _, b := range bins {
		if b == "" || strings.ContainsAny(b, "/*?[ ") {
			v.fail(append(path, "safe_bins"), "safe_bins entry %s must be a bare command name", quoteString(b))
		}
	}
	for _, b := range sortedKeys(s.SafeBinProfiles) {
		sp := s.SafeBinProfiles[b]
		at := append(slices.Clone(path), "safe_bin_profiles", b)
		if !slices.Contains(bins, b) {
			v.fail(at, "safe_bin_profiles has %s, which is not in safe_bins; add it there or remove the profile", quoteString(b))
		}
		v.nonNegative(append(slices.Clone(at), "min_positional"), sp.MinPositional)
		v.nonNegative(append(slices.Clone(at), "max_positional"), sp.MaxPositional)
		if sp.MaxPositional < sp.MinPositional {
			v.fail(at, "safe bin %s has max_positional %d below min_positional %d", quoteString(b), sp.MaxPositional, sp.MinPositional)
		}
		for _, f := range slices.Concat(sp.AllowedValueFlags, sp.DeniedFlags) {
			if !strings.HasPrefix(f, "-") || f == "-" || f == "--" || strings.ContainsAny(f, "= ") {
				v.fail(at, "safe bin %s names the flag %s; write flags like \"-n\" or \"--lines\"", quoteString(b), quoteString(f))
			}
		}
	}
}
