package config

import (
	"errors"
	"slices"
	"time"
)

// SchemaVersion is the newest schema_version this binary understands. A file
// without schema_version is version 0 and still loads.
const SchemaVersion = 1

// Autonomy levels accepted by risk_profiles.<alias>.level.
const (
	LevelReadOnly   = "read_only"
	LevelSupervised = "supervised"
	LevelFull       = "full"
	// LevelReadOnlyAlias is the deprecated spelling of LevelReadOnly.
	LevelReadOnlyAlias = "readonly"
)

// Surfaces accepted by [serve] surface: the kind of client talon serves.
const (
	SurfaceChat = "chat"
	SurfaceCode = "code"
)

// Tiers accepted wherever a tool's floor tier is configured.
const (
	TierLow    = "low"
	TierMedium = "medium"
	TierHigh   = "high"
)

// Signature modes accepted by [plugins.security] signature_mode.
const (
	SignatureDisabled   = "disabled"
	SignaturePermissive = "permissive"
	SignatureStrict     = "strict"
)

// Sandbox modes accepted by [sandbox] mode.
const (
	SandboxAuto     = "auto"
	SandboxRequired = "required"
	SandboxOff      = "off"
)

// DefaultProfile is the risk profile used where none is named. It always
// exists, even when the file does not define it.
const DefaultProfile = "default"

// Documented defaults, applied by the accessor methods.
const (
	DefaultCommandTimeoutSeconds   = 30
	DefaultFileReadMaxBytes        = 262144
	DefaultShellTimeoutSeconds     = 60
	DefaultShellMaxOutputBytes     = 1048576
	DefaultContentSearchMaxResults = 200
	DefaultGlobSearchMaxResults    = 1000
	DefaultApprovalTimeoutSeconds  = 120
	DefaultListen                  = "127.0.0.1:7357"
	DefaultMCPStartupSeconds       = 30
)

var (
	// ErrNotFound reports a config file named by --config or $TALON_CONFIG
	// that does not exist.
	ErrNotFound = errors.New("config file not found")
	// ErrUnknownProfile reports a risk profile name the config does not define.
	ErrUnknownProfile = errors.New("unknown risk profile")
	// ErrUnknownKey reports a dotted key that is not part of the schema.
	ErrUnknownKey = errors.New("unknown config key")
	// ErrNotEditable reports a key whose place in the file cannot be edited
	// as a single value (inside an inline table or an array of tables).
	ErrNotEditable = errors.New("config key cannot be edited in place")
)

// defaultAllowedCommands is the allowlist a profile gets when it does not set
// allowed_commands.
var defaultAllowedCommands = []string{
	"git", "ls", "cat", "grep", "find", "echo", "pwd", "wc", "head", "tail",
	"date", "df", "du", "uname", "uptime", "hostname", "sort", "uniq", "cut",
	"tr", "diff", "stat", "file", "which", "mkdir", "touch",
}

// DefaultAllowedCommands returns a fresh copy of the allowlist used by a
// profile that does not set allowed_commands.
func DefaultAllowedCommands() []string { return slices.Clone(defaultAllowedCommands) }

// Config is the decoded talon.toml. The zero value is valid and means every
// default. Values returned by [Load] are not modified afterwards; treat them
// as read-only and build a new one to reload.
type Config struct {
	// SchemaVersion is 0 when the file has no schema_version.
	SchemaVersion int `toml:"schema_version"`
	// Locale is the BCP 47 tag of the description language ("" = detect).
	Locale string `toml:"locale"`
	// Workspace is the directory file tools are confined to; relative paths
	// are relative to the config file's directory. See [Config.WorkspaceDir].
	Workspace string `toml:"workspace"`
	// DataDirPath overrides the data directory. See [Config.DataDir].
	DataDirPath string `toml:"data_dir"`

	Tools        Tools                  `toml:"tools"`
	Runtime      Runtime                `toml:"runtime"`
	RiskProfiles map[string]RiskProfile `toml:"risk_profiles"`
	Approvals    Approvals              `toml:"approvals"`
	Receipts     Receipts               `toml:"receipts"`
	Serve        Serve                  `toml:"serve"`
	MCP          MCP                    `toml:"mcp"`
	Plugins      Plugins                `toml:"plugins"`
	Sandbox      Sandbox                `toml:"sandbox"`
	// Fleet is the shared PostgreSQL database of receipts and approvals
	// (see fleet.go); absent means off.
	Fleet Fleet `toml:"fleet"`
	// Models and Agents are the model endpoints and the subagents that
	// run on them (see agents.go).
	Models map[string]Model `toml:"models"`
	Agents AgentsTable      `toml:"agents"`

	// path is the file the config was loaded from ("" for embedded).
	path string
}

// Tools is the [tools] table.
type Tools struct {
	// Optional selects compiled-in tools beyond the surface's core set:
	// ["*"] is the full catalog, [] the minimal one. Nil means the key is
	// absent, which loads as full; see [Tools.OptionalTools].
	Optional   *[]string              `toml:"optional"`
	Commands   map[string]CommandTool `toml:"commands"`
	ToolPolicy ToolPolicy             `toml:"tool_policy"`
	FileRead   FileRead               `toml:"file_read"`
	Shell      Shell                  `toml:"shell"`
	// ContentSearch and GlobSearch limit the search tools.
	ContentSearch ContentSearch `toml:"content_search"`
	GlobSearch    GlobSearch    `toml:"glob_search"`
	// WebFetch and HTTPRequest are the outbound HTTP rules of web_fetch and
	// http_request.
	WebFetch    WebFetch    `toml:"web_fetch"`
	HTTPRequest HTTPRequest `toml:"http_request"`
	// WebSearch, Weather, GitHub and CodingCLI configure the tools of the
	// optional build features tools-external, tools-saas and
	// tools-coding-cli; see toolgroups.go.
	WebSearch WebSearch `toml:"web_search"`
	Weather   Weather   `toml:"weather"`
	GitHub    GitHub    `toml:"github"`
	CodingCLI CodingCLI `toml:"coding_cli"`
}

// WebFetch is [tools.web_fetch].
type WebFetch struct {
	// AllowedDomains are exact hosts or "*.example.com" (subdomains only);
	// empty means any public host.
	AllowedDomains []string `toml:"allowed_domains"`
	// BlockedDomains win over AllowedDomains.
	BlockedDomains []string `toml:"blocked_domains"`
	// AllowPrivate lists CIDRs, addresses or hosts exempt from the refusal
	// of private, loopback, link-local and metadata addresses.
	AllowPrivate   []string `toml:"allow_private"`
	MaxBytes       int64    `toml:"max_bytes"`       // 0 = 2 MiB
	TimeoutSeconds int      `toml:"timeout_seconds"` // 0 = 30
	// MaxRedirectsSetting is nil when absent (5); 0 means do not follow.
	MaxRedirectsSetting *int `toml:"max_redirects"`
}

// HTTPRequest is [tools.http_request]: the rules of [WebFetch], where an
// empty AllowedDomains refuses every call, plus named secrets.
type HTTPRequest struct {
	AllowedDomains      []string `toml:"allowed_domains"`
	BlockedDomains      []string `toml:"blocked_domains"`
	AllowPrivate        []string `toml:"allow_private"`
	MaxBytes            int64    `toml:"max_bytes"`
	TimeoutSeconds      int      `toml:"timeout_seconds"`
	MaxRedirectsSetting *int     `toml:"max_redirects"`
	// Secrets maps a NAME the model may reference in secret_headers to a
	// value, usually "${ENV_VAR}", expanded by the tool per call.
	Secrets map[string]string `toml:"secrets"`
}

// OptionalTools returns tools.optional, or ["*"] (the full catalog) when the
// key is absent. The result is a fresh slice.
func (t Tools) OptionalTools() []string {
	if t.Optional == nil {
		return []string{"*"}
	}
	return slices.Clone(*t.Optional)
}

// CommandTool is one [tools.commands.<name>] table: an operator-defined argv
// tool exposed as tool__<name>.
type CommandTool struct {
	Description string `toml:"description"`
	// Command is the argv template; element 0 is the program.
	Command []string `toml:"command"`
	// Parameters is the JSON Schema of the tool's arguments.
	Parameters map[string]any `toml:"parameters"`
	// TimeoutSeconds is 0 when absent; see [CommandTool.Timeout].
	TimeoutSeconds int `toml:"timeout"`
	// Env, when set, is the child's whole environment.
	Env  map[string]string `toml:"env"`
	Cwd  string            `toml:"cwd"`
	Tier string            `toml:"tier"`
}

// Timeout returns the timeout, 30 s when absent.
func (c CommandTool) Timeout() time.Duration {
	return seconds(c.TimeoutSeconds, DefaultCommandTimeoutSeconds)
}

// ToolPolicy holds allow and deny globs over qualified command tool names;
// deny wins.
type ToolPolicy struct {
	Allow []string `toml:"allow"`
	Deny  []string `toml:"deny"`
}

// FileRead is [tools.file_read].
type FileRead struct {
	MaxBytes int `toml:"max_bytes"`
}

// ByteLimit returns max_bytes, 262144 when absent.
func (f FileRead) ByteLimit() int { return orDefault(f.MaxBytes, DefaultFileReadMaxBytes) }

// Shell is [tools.shell].
type Shell struct {
	TimeoutSeconds int `toml:"timeout_seconds"`
	MaxOutputBytes int `toml:"max_output_bytes"`
	// NotifyOnExitSetting is nil when absent (true); see
	// [Shell.NotifyOnExit].
	NotifyOnExitSetting *bool `toml:"notify_on_exit"`
	// ApprovalRunningNoticeMsSetting is nil when absent (10000); see
	// [Shell.ApprovalRunningNotice].
	ApprovalRunningNoticeMsSetting *int `toml:"approval_running_notice_ms"`
}

// Timeout returns timeout_seconds, 60 s when absent.
func (s Shell) Timeout() time.Duration {
	return seconds(s.TimeoutSeconds, DefaultShellTimeoutSeconds)
}

// OutputLimit returns max_output_bytes, 1048576 when absent.
func (s Shell) OutputLimit() int { return orDefault(s.MaxOutputBytes, DefaultShellMaxOutputBytes) }

// ContentSearch is [tools.content_search].
type ContentSearch struct {
	MaxResults int `toml:"max_results"`
}

// ResultLimit returns max_results, 200 when absent.
func (s ContentSearch) ResultLimit() int {
	return orDefault(s.MaxResults, DefaultContentSearchMaxResults)
}

// GlobSearch is [tools.glob_search].
type GlobSearch struct {
	MaxResults int `toml:"max_results"`
}

// ResultLimit returns max_results, 1000 when absent.
func (s GlobSearch) ResultLimit() int { return orDefault(s.MaxResults, DefaultGlobSearchMaxResults) }

// Runtime is [runtime].
type Runtime struct {
	DeferredBuiltinTools bool `toml:"deferred_builtin_tools"`
}

// RiskProfile is one [risk_profiles.<alias>] table. The zero value is the
// default profile.
type RiskProfile struct {
	// Level is read_only, readonly (deprecated alias), supervised or full;
	// "" means supervised. See [RiskProfile.LevelName].
	Level         string   `toml:"level"`
	AutoApprove   []string `toml:"auto_approve"`
	AlwaysAsk     []string `toml:"always_ask"`
	AllowedTools  []string `toml:"allowed_tools"`
	ExcludedTools []string `toml:"excluded_tools"`
	DenyAllTools  bool     `toml:"deny_all_tools"`
	// RequireApprovalForMediumRiskSetting is nil when absent (true).
	RequireApprovalForMediumRiskSetting *bool `toml:"require_approval_for_medium_risk"`
	// BlockHighRiskCommandsSetting is nil when absent (true).
	BlockHighRiskCommandsSetting *bool `toml:"block_high_risk_commands"`
	// AllowedCommandsSetting is nil when absent ([DefaultAllowedCommands]).
	AllowedCommandsSetting *[]string `toml:"allowed_commands"`
	ForbiddenPaths         []string  `toml:"forbidden_paths"`
	// WorkspaceOnlySetting is nil when absent (true).
	WorkspaceOnlySetting *bool    `toml:"workspace_only"`
	ShellEnvPassthrough  []string `toml:"shell_env_passthrough"`
	// Shell is the profile's shell table (mode, rules, safe bins); see
	// shell.go.
	Shell ShellPolicy `toml:"shell"`
}

// LevelName returns the normalized autonomy level: read_only, supervised or
// full. The alias readonly becomes read_only and "" becomes supervised. An
// unrecognized value (which Validate rejects) is returned unchanged.
func (p RiskProfile) LevelName() string {
	switch p.Level {
	case "":
		return LevelSupervised
	case LevelReadOnlyAlias:
		return LevelReadOnly
	default:
		return p.Level
	}
}

// RequireApprovalForMediumRisk reports whether medium-risk calls ask under
// the supervised level (default true).
func (p RiskProfile) RequireApprovalForMediumRisk() bool {
	return boolOr(p.RequireApprovalForMediumRiskSetting, true)
}

// BlockHighRiskCommands reports whether high-risk shell lines are denied
// under the supervised level (default true).
func (p RiskProfile) BlockHighRiskCommands() bool {
	return boolOr(p.BlockHighRiskCommandsSetting, true)
}

// WorkspaceOnly reports whether file access is confined to the workspace
// (default true).
func (p RiskProfile) WorkspaceOnly() bool { return boolOr(p.WorkspaceOnlySetting, true) }

// AllowedCommands returns the command allowlist: allowed_commands when set
// (even when empty), else [DefaultAllowedCommands]. The result is a fresh
// slice.
func (p RiskProfile) AllowedCommands() []string {
	if p.AllowedCommandsSetting == nil {
		return DefaultAllowedCommands()
	}
	return slices.Clone(*p.AllowedCommandsSetting)
}

// Approvals is [approvals].
type Approvals struct {
	TimeoutSeconds int `toml:"timeout_seconds"`
	// WaitSetting is nil when absent (true); see [Approvals.Wait].
	WaitSetting *bool `toml:"wait"`
}

// Timeout returns how long an approver may take, 120 s when absent.
func (a Approvals) Timeout() time.Duration {
	return seconds(a.TimeoutSeconds, DefaultApprovalTimeoutSeconds)
}

// Receipts is [receipts].
type Receipts struct {
	// EnabledSetting is nil when absent (true).
	EnabledSetting *bool `toml:"enabled"`
	// Path is the receipt store; "" means the data dir's default.
	Path           string `toml:"path"`
	ShowInResponse bool   `toml:"show_in_response"`
	StoreArguments bool   `toml:"store_arguments"`
}

// Enabled reports whether receipts are issued (default true).
func (r Receipts) Enabled() bool { return boolOr(r.EnabledSetting, true) }

// Serve is [serve], the defaults of talon serve.
type Serve struct {
	Listen         string   `toml:"listen"`
	Token          string   `toml:"token"`
	Profile        string   `toml:"profile"`
	Surface        string   `toml:"surface"`
	Locale         string   `toml:"locale"`
	AllowedOrigins []string `toml:"allowed_origins"`
	// MaxInFlight, QueueLength and QueueWaitSeconds bound the calls that
	// run at once, those that wait for a slot, and how long one waits
	// before it is refused as busy; 0 means the default.
	MaxInFlight      int `toml:"max_in_flight"`
	QueueLength      int `toml:"queue_length"`
	QueueWaitSeconds int `toml:"queue_wait_seconds"`
}

// Defaults of the [serve] queue.
const (
	DefaultServeMaxInFlight      = 32
	DefaultServeQueueLength      = 1024
	DefaultServeQueueWaitSeconds = 60
)

// InFlightLimit returns max_in_flight, 32 when absent.
func (s Serve) InFlightLimit() int { return orDefault(s.MaxInFlight, DefaultServeMaxInFlight) }

// QueueLimit returns queue_length, 1024 when absent.
func (s Serve) QueueLimit() int { return orDefault(s.QueueLength, DefaultServeQueueLength) }

// QueueWait returns queue_wait_seconds, 60 s when absent.
func (s Serve) QueueWait() time.Duration {
	return seconds(s.QueueWaitSeconds, DefaultServeQueueWaitSeconds)
}

// ListenAddress returns listen, 127.0.0.1:7357 when absent.
func (s Serve) ListenAddress() string { return orDefault(s.Listen, DefaultListen) }

// ProfileName returns profile, "default" when absent.
func (s Serve) ProfileName() string { return orDefault(s.Profile, DefaultProfile) }

// SurfaceName returns surface, "chat" when absent.
func (s Serve) SurfaceName() string { return orDefault(s.Surface, SurfaceChat) }

// MCP is [mcp].
type MCP struct {
	Servers map[string]MCPServer `toml:"servers"`
}

// MCPServer is one [mcp.servers.<name>] table: a stdio command or a URL.
type MCPServer struct {
	Command string            `toml:"command"`
	Args    []string          `toml:"args"`
	Env     map[string]string `toml:"env"`
	URL     string            `toml:"url"`
	Headers map[string]string `toml:"headers"`
	// Tier is the floor tier of the server's tools.
	Tier string `toml:"tier"`
	// Tools overrides settings per tool of the server.
	Tools map[string]MCPTool `toml:"tools"`
	// EnabledSetting is nil when absent (true).
	EnabledSetting        *bool `toml:"enabled"`
	StartupTimeoutSeconds int   `toml:"startup_timeout_seconds"`
}

// Enabled reports whether the server is started (default true).
func (s MCPServer) Enabled() bool { return boolOr(s.EnabledSetting, true) }

// StartupTimeout returns startup_timeout_seconds, 30 s when absent.
func (s MCPServer) StartupTimeout() time.Duration {
	return seconds(s.StartupTimeoutSeconds, DefaultMCPStartupSeconds)
}

// MCPTool overrides one tool of an MCP server.
type MCPTool struct {
	Tier string `toml:"tier"`
}

// Plugins is [plugins]. Plugins are off unless enabled is true.
type Plugins struct {
	Enabled      bool   `toml:"enabled"`
	AutoDiscover bool   `toml:"auto_discover"`
	Dir          string `toml:"dir"`
	// MaxPlugins caps how many plugins load; 0 means the default (32).
	MaxPlugins int `toml:"max_plugins"`
	// The ceilings: the most any plugin's [limits] may ask for; 0 means
	// the defaults below. A manifest over a ceiling is refused; a limit a
	// manifest leaves out is its default, lowered to the ceiling.
	MaxMemoryMB    int `toml:"max_memory_mb"`
	MaxTimeoutMS   int `toml:"max_timeout_ms"`
	MaxInstances   int `toml:"max_instances"`
	MaxOutputBytes int `toml:"max_output_bytes"`
	// Security holds signature checking.
	Security PluginSecurity `toml:"security"`
	Entries  []PluginEntry  `toml:"entries"`
}

// DefaultMaxPlugins is max_plugins when unset.
const DefaultMaxPlugins = 32

// The defaults of the plugin ceilings, and the hard caps a ceiling may not
// pass: 4096 MiB is all a 32-bit WebAssembly memory can address.
const (
	DefaultPluginMaxMemoryMB    = 256
	DefaultPluginMaxTimeoutMS   = 60000
	DefaultPluginMaxInstances   = 4
	DefaultPluginMaxOutputBytes = 4 << 20

	PluginMemoryMBCap    = 4096
	PluginTimeoutMSCap   = 3600000
	PluginInstancesCap   = 64
	PluginOutputBytesCap = 64 << 20
)

// MaxPluginsValue returns max_plugins, or DefaultMaxPlugins when unset.
func (p Plugins) MaxPluginsValue() int { return positiveOr(p.MaxPlugins, DefaultMaxPlugins) }

// MaxMemoryMBValue returns max_memory_mb, or DefaultPluginMaxMemoryMB.
func (p Plugins) MaxMemoryMBValue() int { return positiveOr(p.MaxMemoryMB, DefaultPluginMaxMemoryMB) }

// MaxTimeoutMSValue returns max_timeout_ms, or DefaultPluginMaxTimeoutMS.
func (p Plugins) MaxTimeoutMSValue() int {
	return positiveOr(p.MaxTimeoutMS, DefaultPluginMaxTimeoutMS)
}

// MaxInstancesValue returns max_instances, or DefaultPluginMaxInstances.
func (p Plugins) MaxInstancesValue() int {
	return positiveOr(p.MaxInstances, DefaultPluginMaxInstances)
}

// MaxOutputBytesValue returns max_output_bytes, or
// DefaultPluginMaxOutputBytes.
func (p Plugins) MaxOutputBytesValue() int {
	return positiveOr(p.MaxOutputBytes, DefaultPluginMaxOutputBytes)
}

func positiveOr(v, def int) int {
	if v <= 0 {
		return def
	}
	return v
}

// PluginSecurity is [plugins.security].
type PluginSecurity struct {
	SignatureMode        string   `toml:"signature_mode"`
	TrustedPublisherKeys []string `toml:"trusted_publisher_keys"`
}

// SignatureModeName returns signature_mode, "permissive" when absent.
func (s PluginSecurity) SignatureModeName() string {
	return orDefault(s.SignatureMode, SignaturePermissive)
}

// PluginEntry is one [[plugins.entries]] table: what the operator grants one
// plugin.
type PluginEntry struct {
	Name string `toml:"name"`
	// EnabledSetting is nil when absent (true: listing a plugin enables it
	// while [plugins] enabled is true).
	EnabledSetting *bool    `toml:"enabled"`
	AllowedHosts   []string `toml:"allowed_hosts"`
	// AllowPrivate exempts the plugin's HTTP destinations from the refusal
	// of private and loopback addresses (CIDRs, addresses or host
	// patterns); its allowed_hosts still apply.
	AllowPrivate []string       `toml:"allow_private"`
	FSRead       []string       `toml:"fs_read"`
	FSWrite      []string       `toml:"fs_write"`
	Secrets      []string       `toml:"secrets"`
	Config       map[string]any `toml:"config"`
	// Rename gives the plugin's tools other names (tool = alias): a tool
	// whose name clashes with a built-in or another plugin's is left out
	// unless renamed. Policies and receipts see the alias.
	Rename map[string]string `toml:"rename"`
}

// Enabled reports whether the entry is enabled (default true).
func (e PluginEntry) Enabled() bool { return boolOr(e.EnabledSetting, true) }

// Sandbox is [sandbox], applied to every process talon spawns for tools.
type Sandbox struct {
	Mode              string   `toml:"mode"`
	ReadOnly          []string `toml:"read_only"`
	ReadWrite         []string `toml:"read_write"`
	AllowConnectPorts []int    `toml:"allow_connect_ports"`
	AllowBind         bool     `toml:"allow_bind"`
	// Limits; 0 means no limit beyond the system's.
	MaxCPUSeconds int `toml:"max_cpu_seconds"`
	MaxMemoryMB   int `toml:"max_memory_mb"`
	MaxProcesses  int `toml:"max_processes"`
	MaxOpenFiles  int `toml:"max_open_files"`
	// Helper is talon-sandbox, the helper as a small static program: ""
	// looks for it next to talon's executable, "builtin" always
	// re-executes talon.
	Helper string `toml:"helper"`
}

// ModeName returns mode, "auto" when absent.
func (s Sandbox) ModeName() string { return orDefault(s.Mode, SandboxAuto) }

func seconds(v, def int) time.Duration {
	return time.Duration(orDefault(v, def)) * time.Second
}

func orDefault[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

func boolOr(p *bool, def bool) bool {
	if p == nil {
		return def
	}
	return *p
}
