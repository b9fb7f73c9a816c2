package config

import (
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/talonhq/talon/netguard"
	"golang.org/x/text/language"
)

// validator collects problems in file order of discovery.
type validator struct {
	errs     []*Error
	warnings []string
}

func (v *validator) fail(path []string, format string, args ...any) {
	v.errs = append(v.errs, &Error{Key: formatKey(path), Msg: fmt.Sprintf(format, args...)})
}

func (v *validator) enum(path []string, got string, allowed ...string) {
	if got == "" {
		return
	}
	for _, a := range allowed {
		if got == a {
			return
		}
	}
	v.fail(path, "%s = %s is not allowed; use one of %s",
		formatKey(path), quoteString(got), quoteList(allowed))
}

func (v *validator) nonNegative(path []string, n int) {
	if n < 0 {
		v.fail(path, "%s = %d is negative; use 0 for the default or a positive number", formatKey(path), n)
	}
}

// network checks the host rules of an outbound HTTP table with the same
// rules the guard applies, so a bad entry fails at load, naming the key.
func (v *validator) network(path []string, allowed, blocked, private []string, timeout int, maxBytes int64) {
	v.nonNegative(append(path, "timeout_seconds"), timeout)
	if maxBytes < 0 {
		v.fail(append(path, "max_bytes"), "%s = %d is negative; use 0 for the default or a positive number", formatKey(append(path, "max_bytes")), maxBytes)
	}
	if err := (netguard.Options{AllowedHosts: allowed, BlockedHosts: blocked, AllowPrivate: private}).Validate(); err != nil {
		v.fail(path, "%s: %v", formatKey(path), err)
	}
}

func (v *validator) globs(path []string, patterns []string) {
	for _, p := range patterns {
		if !doublestar.ValidatePattern(p) {
			v.fail(path, "%s: %s is not a valid glob pattern; fix the brackets or escapes", formatKey(path), quoteString(p))
		}
	}
}

func (v *validator) locale(path []string, tag string) {
	if tag == "" {
		return
	}
	if _, err := language.Parse(tag); err != nil {
		v.fail(path, "%s = %s is not a BCP 47 language tag; use a tag such as \"en\" or \"ja\"", formatKey(path), quoteString(tag))
	}
}

func quoteList(items []string) string {
	q := make([]string, len(items))
	for i, s := range items {
		q[i] = quoteString(s)
	}
	return strings.Join(q, ", ")
}

var tiers = []string{TierLow, TierMedium, TierHigh}

// Validate checks what strict decoding cannot: enumerations, contradictory
// settings, empty commands and a schema_version newer than this binary.
// Warnings (a deprecated spelling, a file without schema_version) do not
// make the config unusable and are returned separately.
//
// # Errors
//
// Every problem is an [*Error] whose Key names the setting; several are
// joined with [errors.Join]. Validate leaves File and Line empty; [Parse]
// and [Load] fill them in.
func (c *Config) Validate() (warnings []string, err error) {
	v := &validator{}
	switch {
	case c.SchemaVersion > SchemaVersion:
		v.fail([]string{"schema_version"},
			"schema_version = %d is newer than this talon understands (%d); upgrade talon",
			c.SchemaVersion, SchemaVersion)
	case c.SchemaVersion < 0:
		v.fail([]string{"schema_version"}, "schema_version = %d is negative; set schema_version = %d",
			c.SchemaVersion, SchemaVersion)
	case c.SchemaVersion == 0:
		v.warnings = append(v.warnings, fmt.Sprintf(
			"no schema_version; run \"talon config migrate\" to record schema_version = %d and tools.optional explicitly",
			SchemaVersion))
	}
	v.locale([]string{"locale"}, c.Locale)
	c.validateTools(v)
	c.validateProfiles(v)
	v.nonNegative([]string{"approvals", "timeout_seconds"}, c.Approvals.TimeoutSeconds)
	c.validateServe(v)
	c.validateMCP(v)
	c.validatePlugins(v)
	c.validateSandbox(v)
	c.validateModels(v)
	c.validateAgents(v)
	c.validateFleet(v)
	return v.warnings, joinErrors(v.errs)
}

func (c *Config) validateTools(v *validator) {
	t := c.Tools
	if t.Optional != nil {
		for _, name := range *t.Optional {
			if strings.TrimSpace(name) == "" {
				v.fail([]string{"tools", "optional"}, "tools.optional has an empty name; remove it")
			}
		}
	}
	for _, name := range sortedKeys(t.Commands) {
		cmd := t.Commands[name]
		path := []string{"tools", "commands", name}
		if len(cmd.Command) == 0 || strings.TrimSpace(cmd.Command[0]) == "" {
			v.fail(append(path, "command"),
				"command tool %s has an empty command; set command = [\"program\", \"arg\", ...]", quoteString(name))
		}
		v.nonNegative(append(path, "timeout"), cmd.TimeoutSeconds)
		v.enum(append(path, "tier"), cmd.Tier, tiers...)
	}
	v.globs([]string{"tools", "tool_policy", "allow"}, t.ToolPolicy.Allow)
	v.globs([]string{"tools", "tool_policy", "deny"}, t.ToolPolicy.Deny)
	v.nonNegative([]string{"tools", "file_read", "max_bytes"}, t.FileRead.MaxBytes)
	v.nonNegative([]string{"tools", "shell", "timeout_seconds"}, t.Shell.TimeoutSeconds)
	v.nonNegative([]string{"tools", "shell", "max_output_bytes"}, t.Shell.MaxOutputBytes)
	if n := t.Shell.ApprovalRunningNoticeMsSetting; n != nil {
		v.nonNegative([]string{"tools", "shell", "approval_running_notice_ms"}, *n)
	}
	v.nonNegative([]string{"tools", "content_search", "max_results"}, t.ContentSearch.MaxResults)
	v.nonNegative([]string{"tools", "glob_search", "max_results"}, t.GlobSearch.MaxResults)
	v.network([]string{"tools", "web_fetch"}, t.WebFetch.AllowedDomains, t.WebFetch.BlockedDomains, t.WebFetch.AllowPrivate, t.WebFetch.TimeoutSeconds, t.WebFetch.MaxBytes)
	v.network([]string{"tools", "http_request"}, t.HTTPRequest.AllowedDomains, t.HTTPRequest.BlockedDomains, t.HTTPRequest.AllowPrivate, t.HTTPRequest.TimeoutSeconds, t.HTTPRequest.MaxBytes)
	c.validateToolGroups(v)
}

func (c *Config) validateProfiles(v *validator) {
	for _, name := range sortedKeys(c.RiskProfiles) {
		p := c.RiskProfiles[name]
		path := []string{"risk_profiles", name}
		if p.Level == LevelReadOnlyAlias {
			v.warnings = append(v.warnings, fmt.Sprintf(
				"%s = \"readonly\" is deprecated; write \"read_only\" (talon config migrate does it)", formatKey(append(path, "level"))))
		} else {
			v.enum(append(path, "level"), p.Level, LevelReadOnly, LevelSupervised, LevelFull)
		}
		if p.DenyAllTools && len(p.AllowedTools) > 0 {
			v.fail(append(path, "deny_all_tools"),
				"risk profile %s sets deny_all_tools = true and a non-empty allowed_tools; keep only one of them",
				quoteString(name))
		}
		if p.AllowedCommandsSetting != nil {
			v.globs(append(path, "allowed_commands"), *p.AllowedCommandsSetting)
		}
		c.validateShellPolicy(v, name, p)
	}
}

func (c *Config) validateServe(v *validator) {
	s := c.Serve
	v.enum([]string{"serve", "surface"}, s.Surface, SurfaceChat, SurfaceCode)
	v.locale([]string{"serve", "locale"}, s.Locale)
	if s.Listen != "" {
		host, port, err := net.SplitHostPort(s.Listen)
		n, perr := strconv.Atoi(port)
		if err != nil || perr != nil || n < 0 || n > 65535 || strings.ContainsAny(host, " /") {
			v.fail([]string{"serve", "listen"}, "serve.listen = %s is not a host:port address; write it like %s",
				quoteString(s.Listen), quoteString(DefaultListen))
		}
	}
	if s.Profile != "" {
		if _, err := c.Profile(s.Profile); err != nil {
			v.fail([]string{"serve", "profile"}, "serve.profile: %v", err)
		}
	}
	v.nonNegative([]string{"serve", "max_in_flight"}, s.MaxInFlight)
	v.nonNegative([]string{"serve", "queue_length"}, s.QueueLength)
	v.nonNegative([]string{"serve", "queue_wait_seconds"}, s.QueueWaitSeconds)
}

func (c *Config) validateMCP(v *validator) {
	for _, name := range sortedKeys(c.MCP.Servers) {
		s := c.MCP.Servers[name]
		path := []string{"mcp", "servers", name}
		switch {
		case s.Command == "" && s.URL == "":
			v.fail(path, "MCP server %s has neither command nor url; set one of them", quoteString(name))
		case s.Command != "" && s.URL != "":
			v.fail(path, "MCP server %s sets both command and url; keep only one of them", quoteString(name))
		}
		v.enum(append(path, "tier"), s.Tier, tiers...)
		for _, tool := range sortedKeys(s.Tools) {
			v.enum(append(path, "tools", tool, "tier"), s.Tools[tool].Tier, tiers...)
		}
		v.nonNegative(append(path, "startup_timeout_seconds"), s.StartupTimeoutSeconds)
	}
}

func (c *Config) validatePlugins(v *validator) {
	p := c.Plugins
	v.enum([]string{"plugins", "security", "signature_mode"}, p.Security.SignatureMode,
		SignatureDisabled, SignaturePermissive, SignatureStrict)
	v.nonNegative([]string{"plugins", "max_plugins"}, p.MaxPlugins)
	for _, c := range []struct {
		key    string
		v, cap int
	}{
		{"max_memory_mb", p.MaxMemoryMB, PluginMemoryMBCap},
		{"max_timeout_ms", p.MaxTimeoutMS, PluginTimeoutMSCap},
		{"max_instances", p.MaxInstances, PluginInstancesCap},
		{"max_output_bytes", p.MaxOutputBytes, PluginOutputBytesCap},
	} {
		path := []string{"plugins", c.key}
		v.nonNegative(path, c.v)
		if c.v > c.cap {
			v.fail(path, "%s = %d is more than %d, the most talon allows; use at most %d", formatKey(path), c.v, c.cap, c.cap)
		}
	}
	seen := map[string]bool{}
	for i, e := range p.Entries {
		path := []string{"plugins", "entries"}
		switch {
		case strings.TrimSpace(e.Name) == "":
			v.fail(path, "plugins.entries[%d] has no name; set name = \"<plugin>\"", i)
		case seen[e.Name]:
			v.fail(path, "plugins.entries lists %s twice; merge the two entries", quoteString(e.Name))
		}
		seen[e.Name] = true
		v.allowPrivate(path, e.AllowPrivate)
	}
}

func (c *Config) validateSandbox(v *validator) {
	s := c.Sandbox
	v.enum([]string{"sandbox", "mode"}, s.Mode, SandboxAuto, SandboxRequired, SandboxOff)
	for _, port := range s.AllowConnectPorts {
		if port < 1 || port > 65535 {
			v.fail([]string{"sandbox", "allow_connect_ports"},
				"sandbox.allow_connect_ports has %d; use ports from 1 to 65535", port)
		}
	}
	v.nonNegative([]string{"sandbox", "max_cpu_seconds"}, s.MaxCPUSeconds)
	v.nonNegative([]string{"sandbox", "max_memory_mb"}, s.MaxMemoryMB)
	v.nonNegative([]string{"sandbox", "max_processes"}, s.MaxProcesses)
	v.nonNegative([]string{"sandbox", "max_open_files"}, s.MaxOpenFiles)
}
