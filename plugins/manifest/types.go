// Package manifest decodes and checks plugin.toml, the description every
// plugin ships beside its entry (a .wasm module or a binary): its identity,
// the permissions it requests, its limits and its signature. It also holds
// the operator's side of trust: consent recorded per manifest hash, and the
// grants that are what a manifest requests intersected with what the
// operator allowed in [[plugins.entries]].
package manifest

import "time"

// ABIVersion is the only WASM ABI version this host speaks.
const ABIVersion = 1

// ProtocolVersion is the only subprocess plugin protocol version this host
// speaks.
const ProtocolVersion = 1

// ExtismVersion is the only version of talon's mapping of Extism modules
// onto tools (MCP servlet exports or [[tools]] plain exports) this host
// speaks.
const ExtismVersion = 1

// Kind says how a plugin runs.
type Kind string

// The kinds of plugins.
const (
	KindWASM    Kind = "wasm"
	KindProcess Kind = "process"
	// KindExtism is an Extism module: an MCP servlet exporting describe and
	// call, or a module whose plain exports [[tools]] maps to tools.
	KindExtism Kind = "extism"
)

// Manifest is plugin.toml as written by the plugin's author.
type Manifest struct {
	Name        string `toml:"name"`
	Version     string `toml:"version"`
	ABIVersion  int    `toml:"abi_version"`
	Description string `toml:"description"`
	Author      string `toml:"author"`
	Kind        Kind   `toml:"kind"`
	// Entry is the module or binary, relative to the plugin directory.
	Entry string `toml:"entry"`
	// SHA256 is the lowercase hex digest of the entry file.
	SHA256      string      `toml:"sha256"`
	Permissions Permissions `toml:"permissions"`
	// ConfigSchema is a JSON Schema (written as TOML) for the operator's
	// [[plugins.entries]] config values.
	ConfigSchema map[string]any `toml:"config_schema"`
	Limits       Limits         `toml:"limits"`
	// Tools are the [[tools]] tables of an Extism plugin (kind "extism"
	// only): tools mapped to plain exports, or the tier of a servlet's
	// described tools.
	Tools []Tool `toml:"tools"`
	// Signature is the base64 Ed25519 signature over the manifest with
	// signature and publisher_key removed; PublisherKey is the base64 public
	// key it verifies with.
	Signature    string `toml:"signature"`
	PublisherKey string `toml:"publisher_key"`
}

// Permissions are what a plugin requests. It receives at most these, and
// only as far as the operator grants them.
type Permissions struct {
	HTTP HTTPPermissions `toml:"http"`
	// FSRead and FSWrite are directories, relative to the workspace.
	FSRead  []string `toml:"fs_read"`
	FSWrite []string `toml:"fs_write"`
	// Secrets are names whose values the plugin may read during a call.
	Secrets []string `toml:"secrets"`
	// ConfigRead lists the config keys the plugin may read.
	ConfigRead []string `toml:"config_read"`
}

// Tool is one [[tools]] table of an Extism plugin. With Export, the tool
// is that export called with the arguments as its input, its output the
// result's text; without it, it names a tool the module's describe export
// lists, and sets its tier or description.
type Tool struct {
	// Name is the tool's model-visible name, ^[a-zA-Z0-9_-]{1,64}$.
	Name string `toml:"name"`
	// Export is the module's exported function, of type [] -> [i32].
	Export string `toml:"export"`
	// Description is the English text for the model; locales/ translate
	// it. For a described tool it replaces the module's.
	Description string `toml:"description"`
	// InputSchema is the JSON Schema of the arguments, written as TOML;
	// absent means {"type": "object"}.
	InputSchema map[string]any `toml:"input_schema"`
	// Tier is "low", "medium" or "high"; absent means high.
	Tier string `toml:"tier"`
}

// HTTPPermissions is [permissions.http].
type HTTPPermissions struct {
	// AllowedHosts are host names (or *.suffix patterns) the plugin may call.
	AllowedHosts []string `toml:"allowed_hosts"`
}

// Limits is [limits]. Zero values mean the defaults below. The operator's
// [plugins] ceilings bound them: the loader refuses a manifest over one and
// hands hosts the defaults lowered to them.
type Limits struct {
	TimeoutMS      int `toml:"timeout_ms"`
	MaxMemoryMB    int `toml:"max_memory_mb"`
	MaxOutputBytes int `toml:"max_output_bytes"`
	MaxInstances   int `toml:"max_instances"`
	// EnforceDeadline is nil when absent (true). Turning it off is honoured
	// only for a plugin signed by a trusted publisher.
	EnforceDeadline *bool `toml:"enforce_deadline"`
	// IdleTimeoutMS stops an idle subprocess plugin (process kind only).
	IdleTimeoutMS int `toml:"idle_timeout_ms"`
	// StartTimeoutMS bounds a subprocess plugin's handshake (process kind only).
	StartTimeoutMS int `toml:"start_timeout_ms"`
}

// The defaults of [Limits].
const (
	DefaultTimeout        = 30 * time.Second
	DefaultMaxMemoryMB    = 256
	DefaultMaxOutputBytes = 1 << 20
	DefaultMaxInstances   = 4
	DefaultIdleTimeout    = 5 * time.Minute
	DefaultStartTimeout   = 10 * time.Second
)

// SignatureStatus is what signature checking concluded about a manifest.
type SignatureStatus string

// The signature statuses.
const (
	// Unsigned: no signature and no publisher key.
	Unsigned SignatureStatus = "unsigned"
	// SignedUntrusted: the signature verifies, but the key is not one of
	// trusted_publisher_keys.
	SignedUntrusted SignatureStatus = "signed-untrusted"
	// SignedTrusted: verifies with a key from trusted_publisher_keys.
	SignedTrusted SignatureStatus = "signed-trusted"
	// BadSignature: present but does not verify (always refused).
	BadSignature SignatureStatus = "bad-signature"
)

// Grants are what a plugin may use: its requests intersected with the
// operator's [[plugins.entries]] grants. Host functions check these and
// nothing else.
type Grants struct {
	AllowedHosts []string
	// AllowPrivate is the operator's exemption of HTTP destinations from
	// the private-address refusal ([[plugins.entries]] allow_private); it
	// never widens AllowedHosts.
	AllowPrivate []string
	// FSRead and FSWrite are absolute, cleaned directories inside the
	// workspace.
	FSRead  []string
	FSWrite []string
	Secrets []string
	// Config holds the granted config keys with the operator's values.
	Config map[string]any
}

// Plugin is a manifest that passed every check, ready for a host to load.
type Plugin struct {
	Manifest Manifest
	// Dir is the plugin directory; EntryPath the absolute entry file.
	Dir       string
	EntryPath string
	// Hash is the lowercase hex SHA-256 of plugin.toml as read; consent
	// binds to it.
	Hash      string
	Signature SignatureStatus
	Grants    Grants
}

// Timeout returns timeout_ms as a duration, or DefaultTimeout.
func (l Limits) Timeout() time.Duration {
	return msOr(l.TimeoutMS, DefaultTimeout)
}

// MemoryMB returns max_memory_mb, or DefaultMaxMemoryMB.
func (l Limits) MemoryMB() int { return intOr(l.MaxMemoryMB, DefaultMaxMemoryMB) }

// OutputBytes returns max_output_bytes, or DefaultMaxOutputBytes.
func (l Limits) OutputBytes() int { return intOr(l.MaxOutputBytes, DefaultMaxOutputBytes) }

// Instances returns max_instances, or DefaultMaxInstances.
func (l Limits) Instances() int { return intOr(l.MaxInstances, DefaultMaxInstances) }

// DeadlineEnforced returns enforce_deadline (true when absent). Whether a
// false value is honoured depends on the signature; see the loader.
func (l Limits) DeadlineEnforced() bool { return l.EnforceDeadline == nil || *l.EnforceDeadline }

// IdleTimeout returns idle_timeout_ms as a duration, or DefaultIdleTimeout.
func (l Limits) IdleTimeout() time.Duration { return msOr(l.IdleTimeoutMS, DefaultIdleTimeout) }

// StartTimeout returns start_timeout_ms as a duration, or DefaultStartTimeout.
func (l Limits) StartTimeout() time.Duration { return msOr(l.StartTimeoutMS, DefaultStartTimeout) }

func msOr(ms int, def time.Duration) time.Duration {
	if ms <= 0 {
		return def
	}
	return time.Duration(ms) * time.Millisecond
}

func intOr(v, def int) int {
	if v <= 0 {
		return def
	}
	return v
}
