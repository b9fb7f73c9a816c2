package config

import (
	"fmt"
	"math"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Providers accepted by [models.<name>] provider.
const (
	// ProviderOpenAI is any endpoint that speaks OpenAI's Chat Completions
	// API: OpenAI itself, vLLM, the llama.cpp server, Ollama.
	ProviderOpenAI = "openai"
	// ProviderAnthropic is Anthropic's Messages API.
	ProviderAnthropic = "anthropic"
)

// Documented defaults of models and agents, applied by the accessor
// methods, and the most an operator may set.
const (
	DefaultOpenAIBaseURL       = "https://api.openai.com/v1/"
	DefaultAnthropicBaseURL    = "https://api.anthropic.com/"
	DefaultModelTimeoutSeconds = 120
	DefaultModelMaxRetries     = 2
	DefaultModelMaxTokens      = 4096
	DefaultAgentMaxRounds      = 8
	DefaultAgentTimeoutSeconds = 300
	DefaultAgentMaxOutputBytes = 262144

	MaxModelRetries        = 10
	MaxAgentRounds         = 1000
	MaxAgentTimeoutSeconds = 86400
	MaxAgentOutputBytes    = 64 << 20
)

// Keys of the [agents] table.
const (
	agentsDirKey       = "dir"
	agentsModelKey     = "model"
	agentsMaxRoundsKey = "max_rounds"
	agentsTimeoutKey   = "timeout_seconds"
	agentsMaxOutputKey = "max_output_bytes"
	agentEntryPathKey  = "path"
)

// Model is one [models.<name>] table: a model endpoint that agents run on.
type Model struct {
	// Provider is "openai" (any Chat Completions endpoint) or "anthropic".
	Provider string `toml:"provider"`
	// Model is the model id the endpoint expects, e.g. "gpt-4.1-mini" or
	// "qwen2.5:7b".
	Model string `toml:"model"`
	// BaseURL is the endpoint; "" means the provider's public API.
	BaseURL string `toml:"base_url"`
	// APIKeyEnv names the environment variable that holds the API key
	// (the name, not the key); "" sends no key, as local servers expect.
	APIKeyEnv string `toml:"api_key_env"`
	// TimeoutSeconds bounds each request; 0 means 120 s.
	TimeoutSeconds int `toml:"timeout_seconds"`
	// MaxRetriesSetting is nil when absent (2): how often a request that
	// failed with 408, 409, 429, a 5xx or a broken connection is retried,
	// with exponential backoff.
	MaxRetriesSetting *int `toml:"max_retries"`
	// MaxTokens caps each answer; 0 means 4096.
	MaxTokens int `toml:"max_tokens"`
}

// Endpoint returns base_url, or the provider's public API when absent.
func (m Model) Endpoint() string {
	if m.BaseURL != "" {
		return m.BaseURL
	}
	if m.Provider == ProviderAnthropic {
		return DefaultAnthropicBaseURL
	}
	return DefaultOpenAIBaseURL
}

// Timeout returns timeout_seconds, 120 s when absent.
func (m Model) Timeout() time.Duration {
	return seconds(m.TimeoutSeconds, DefaultModelTimeoutSeconds)
}

// MaxRetries returns max_retries, 2 when absent.
func (m Model) MaxRetries() int {
	if m.MaxRetriesSetting == nil {
		return DefaultModelMaxRetries
	}
	return *m.MaxRetriesSetting
}

// TokenLimit returns max_tokens, 4096 when absent.
func (m Model) TokenLimit() int { return orDefault(m.MaxTokens, DefaultModelMaxTokens) }

// AgentsTable is the [agents] table. It holds two kinds of key: the
// defaults of every agent (dir, model, max_rounds, timeout_seconds,
// max_output_bytes) and one [agents.<name>] table per registered agent. Go
// cannot decode such a table into one struct strictly, so it is kept as
// decoded and [Config.Validate] checks it key by key, with the same
// messages strict decoding gives; [AgentsTable.Defaults] and
// [AgentsTable.Entries] read it typed.
type AgentsTable map[string]any

// AgentDefaults are the scalar keys of [agents].
type AgentDefaults struct {
	// Dir is a directory whose *.md files are agents, relative to the
	// config file's directory; "" means none.
	Dir string
	// Model names the [models.<name>] an agent without model uses.
	Model string
	// MaxRounds, TimeoutSeconds and MaxOutputBytes are 0 when absent.
	MaxRounds      int
	TimeoutSeconds int
	MaxOutputBytes int
}

// AgentEntry is one [agents.<name>] table.
type AgentEntry struct {
	// Path is the agent file, relative to the config file's directory.
	Path string
}

// agentDefaultKeys are the scalar keys of [agents], in documentation order.
var agentDefaultKeys = []string{agentsDirKey, agentsModelKey, agentsMaxRoundsKey, agentsTimeoutKey, agentsMaxOutputKey}

// agentEntryKeys are the keys of an [agents.<name>] table.
var agentEntryKeys = []string{agentEntryPathKey}

// Defaults returns the defaults of [agents]; a key of the wrong type
// (which Validate rejects) reads as absent.
func (t AgentsTable) Defaults() AgentDefaults {
	str := func(k string) string { s, _ := t[k].(string); return s }
	num := func(k string) int { n, _ := intValue(t[k]); return n }
	return AgentDefaults{
		Dir: str(agentsDirKey), Model: str(agentsModelKey), MaxRounds: num(agentsMaxRoundsKey),
		TimeoutSeconds: num(agentsTimeoutKey), MaxOutputBytes: num(agentsMaxOutputKey),
	}
}

// Entries returns the [agents.<name>] tables by name.
func (t AgentsTable) Entries() map[string]AgentEntry {
	out := map[string]AgentEntry{}
	for name, v := range t {
		m, ok := v.(map[string]any)
		if !ok || slices.Contains(agentDefaultKeys, name) {
			continue
		}
		p, _ := m[agentEntryPathKey].(string)
		out[name] = AgentEntry{Path: p}
	}
	return out
}

// AgentsDir returns [agents] dir resolved against the config file's
// directory, "" when unset.
func (c *Config) AgentsDir() string {
	return c.resolve(c.Agents.Defaults().Dir)
}

// AgentPath returns the file of [agents.<name>] resolved against the config
// file's directory.
func (c *Config) AgentPath(e AgentEntry) string { return c.resolve(e.Path) }

func (c *Config) resolve(p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	if dir := c.ConfigDir(); dir != "" {
		return filepath.Join(dir, p)
	}
	return p
}

// ModelKeyEnvs lists, sorted and once each, the variables [models]
// api_key_env names: they hold secrets whatever they are called.
func (c *Config) ModelKeyEnvs() []string {
	var out []string
	for _, m := range c.Models {
		if m.APIKeyEnv != "" && !slices.Contains(out, m.APIKeyEnv) {
			out = append(out, m.APIKeyEnv)
		}
	}
	slices.Sort(out)
	return out
}

func (c *Config) validateModels(v *validator) {
	for _, name := range sortedKeys(c.Models) {
		m := c.Models[name]
		path := []string{"models", name}
		switch m.Provider {
		case "":
			v.fail(append(path, "provider"), "model %s has no provider; set provider = %s or %s",
				quoteString(name), quoteString(ProviderOpenAI), quoteString(ProviderAnthropic))
		default:
			v.enum(append(path, "provider"), m.Provider, ProviderOpenAI, ProviderAnthropic)
		}
		if strings.TrimSpace(m.Model) == "" {
			v.fail(append(path, "model"), "model %s has no model id; set model = \"<id the endpoint expects>\"", quoteString(name))
		}
		if m.BaseURL != "" {
			u, err := url.Parse(m.BaseURL)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				v.fail(append(path, "base_url"), "models.%s.base_url is not an http or https URL; write it like %s",
					name, quoteString("http://127.0.0.1:11434/v1"))
			} else if u.User != nil {
				v.fail(append(path, "base_url"), "models.%s.base_url carries credentials; put the key in the variable api_key_env names", name)
			}
		}
		if m.APIKeyEnv != "" && !EnvName(m.APIKeyEnv) {
			v.fail(append(path, "api_key_env"),
				"models.%s.api_key_env must be the name of an environment variable (such as %s), not its value or ${...}",
				name, quoteString("OPENAI_API_KEY"))
		}
		v.nonNegative(append(path, "timeout_seconds"), m.TimeoutSeconds)
		v.nonNegative(append(path, "max_tokens"), m.MaxTokens)
		if r := m.MaxRetriesSetting; r != nil && (*r < 0 || *r > MaxModelRetries) {
			v.fail(append(path, "max_retries"), "models.%s.max_retries = %d is out of range; use 0 to %d", name, *r, MaxModelRetries)
		}
	}
}

func (c *Config) validateAgents(v *validator) {
	t := c.Agents
	for _, key := range sortedKeys(t) {
		path := []string{"agents", key}
		val := t[key]
		switch key {
		case agentsDirKey, agentsModelKey:
			s, ok := val.(string)
			if !ok {
				v.wrongType(path, "a string", val)
				continue
			}
			if key == agentsModelKey && s != "" {
				if _, ok := c.Models[s]; !ok {
					v.fail(path, "agents.model = %s is not defined in [models]%s; add [models.%s] or fix the name",
						quoteString(s), didYouMean(s, sortedKeys(c.Models)), s)
				}
			}
			continue
		case agentsMaxRoundsKey, agentsTimeoutKey, agentsMaxOutputKey:
			n, ok := intValue(val)
			if !ok {
				v.wrongType(path, "an integer", val)
				continue
			}
			v.agentLimit(path, n)
			continue
		}
		entry, ok := val.(map[string]any)
		if !ok {
			v.fail(path, "unknown key %s%s; remove it or fix the spelling (an agent is registered as [agents.<name>] path = \"agents/<name>.md\")",
				quoteString(formatKey(path)), didYouMean(key, agentDefaultKeys))
			continue
		}
		for _, k := range sortedKeys(entry) {
			if !slices.Contains(agentEntryKeys, k) {
				v.fail(append(path, k), "unknown key %s%s; remove it or fix the spelling",
					quoteString(formatKey(append(path, k))), didYouMean(k, agentEntryKeys))
			}
		}
		p, ok := entry[agentEntryPathKey]
		switch s, isString := p.(string); {
		case !ok:
			v.fail(path, "agent %s has no path; set path = \"agents/%s.md\"", quoteString(key), key)
		case !isString:
			v.wrongType(append(path, agentEntryPathKey), "a string", p)
		case strings.TrimSpace(s) == "":
			v.fail(append(path, agentEntryPathKey), "agent %s has an empty path; set path = \"agents/%s.md\"", quoteString(key), key)
		}
	}
}

// agentLimit checks max_rounds, timeout_seconds and max_output_bytes,
// wherever they are set.
func (v *validator) agentLimit(path []string, n int) {
	limit := map[string]int{agentsMaxRoundsKey: MaxAgentRounds, agentsTimeoutKey: MaxAgentTimeoutSeconds, agentsMaxOutputKey: MaxAgentOutputBytes}[path[len(path)-1]]
	switch {
	case n < 0:
		v.nonNegative(path, n)
	case n > limit:
		v.fail(path, "%s = %d is more than %d, the most talon allows; use at most %d", formatKey(path), n, limit, limit)
	}
}

// wrongType reports a value of [agents] whose type is not the one its key
// needs, the way strict decoding reports the other tables.
func (v *validator) wrongType(path []string, want string, got any) {
	v.fail(path, "wrong type for %s: expected %s, found %s; fix the value", quoteString(formatKey(path)), want, article(tomlTypeName(got)))
}

// tomlTypeName names the TOML type of a decoded value.
func tomlTypeName(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case bool:
		return "boolean"
	case int64, int:
		return "integer"
	case float64:
		return "float"
	case []any:
		return "array"
	case map[string]any:
		return "table"
	case nil:
		return ""
	}
	return fmt.Sprintf("%T", v)
}

// intValue reads an integer as go-toml decodes it into an interface.
func intValue(v any) (int, bool) {
	switch n := v.(type) {
	case int64:
		switch {
		case n > math.MaxInt32:
			return math.MaxInt32, true
		case n < 0:
			return -1, true
		}
		return int(n), true
	case int:
		return n, true
	}
	return 0, false
}
