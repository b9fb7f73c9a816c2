package config

import (
	"net/url"
	"time"

	"github.com/talonhq/talon/netguard"
)

// Providers accepted by [tools.web_search] provider.
const (
	SearchSearXNG   = "searxng"
	SearchBrave     = "brave"
	SearchAnySearch = "anysearch"
)

// Units accepted by [tools.weather] units.
const (
	UnitsMetric   = "metric"
	UnitsImperial = "imperial"
)

// Documented defaults of the optional tool groups, applied by the accessor
// methods.
const (
	DefaultWebSearchMaxResults     = 5
	DefaultWebSearchTimeoutSeconds = 15
	DefaultBraveURL                = "https://api.search.brave.com/res/v1/web/search"
	DefaultAnySearchURL            = "https://api.anysearch.com/v1/search"
	DefaultWeatherURL              = "https://api.open-meteo.com"
	DefaultGeocodingURL            = "https://geocoding-api.open-meteo.com"
	DefaultWeatherTimeoutSeconds   = 15
	DefaultGitHubURL               = "https://api.github.com"
	DefaultGitHubMaxResults        = 30
	DefaultGitHubTimeoutSeconds    = 30
	DefaultCodingCLITimeoutSeconds = 600
	DefaultCodingCLIMaxOutputBytes = 1048576
)

// WebSearch is [tools.web_search], the settings of the web_search tool
// (build feature tools-external). No provider is chosen by default: until
// the operator sets provider, every call fails with what to configure, so
// no query leaves the machine unasked.
type WebSearch struct {
	// Provider is searxng, brave or anysearch; "" means none configured.
	// anysearch is only ever used when named here.
	Provider string `toml:"provider"`
	// SearXNGURL is the base URL of a SearXNG instance with the JSON
	// format enabled, e.g. "http://127.0.0.1:8888".
	SearXNGURL string `toml:"searxng_url"`
	// BraveAPIKey is the Brave Search API key, usually "${BRAVE_API_KEY}";
	// ${VAR} is expanded by the tool on each call.
	BraveAPIKey string `toml:"brave_api_key"`
	// BraveURL overrides the Brave endpoint; see [WebSearch.BraveEndpoint].
	BraveURL string `toml:"brave_url"`
	// AnySearchURL overrides the AnySearch endpoint; see
	// [WebSearch.AnySearchEndpoint].
	AnySearchURL string `toml:"anysearch_url"`
	// AnySearchAPIKey, when set, is sent as a bearer token; without it
	// AnySearch is called anonymously, with no Authorization header.
	AnySearchAPIKey string `toml:"anysearch_api_key"`
	MaxResults      int    `toml:"max_results"`     // 0 = 5
	TimeoutSeconds  int    `toml:"timeout_seconds"` // 0 = 15
	// AllowPrivate lets the tool reach a provider on a private or loopback
	// address (a SearXNG on the LAN); same rules as web_fetch.
	AllowPrivate []string `toml:"allow_private"`
}

// ResultLimit returns max_results, 5 when absent.
func (w WebSearch) ResultLimit() int { return orDefault(w.MaxResults, DefaultWebSearchMaxResults) }

// Timeout returns timeout_seconds, 15 s when absent.
func (w WebSearch) Timeout() time.Duration {
	return seconds(w.TimeoutSeconds, DefaultWebSearchTimeoutSeconds)
}

// BraveEndpoint returns brave_url, the public Brave Search API when absent.
func (w WebSearch) BraveEndpoint() string { return orDefault(w.BraveURL, DefaultBraveURL) }

// AnySearchEndpoint returns anysearch_url, the public AnySearch API when
// absent.
func (w WebSearch) AnySearchEndpoint() string {
	return orDefault(w.AnySearchURL, DefaultAnySearchURL)
}

// Weather is [tools.weather], the settings of the weather tool (build
// feature tools-external). The API is Open-Meteo's, or any service that
// answers the same requests.
type Weather struct {
	// BaseURL serves /v1/forecast; see [Weather.ForecastBase].
	BaseURL string `toml:"base_url"`
	// GeocodingURL serves /v1/search, which turns a place name into
	// coordinates; see [Weather.GeocodingBase].
	GeocodingURL string `toml:"geocoding_url"`
	// Units is metric or imperial; "" means metric.
	Units          string   `toml:"units"`
	TimeoutSeconds int      `toml:"timeout_seconds"` // 0 = 15
	AllowPrivate   []string `toml:"allow_private"`
}

// ForecastBase returns base_url, Open-Meteo when absent.
func (w Weather) ForecastBase() string { return orDefault(w.BaseURL, DefaultWeatherURL) }

// GeocodingBase returns geocoding_url, Open-Meteo's geocoder when absent.
func (w Weather) GeocodingBase() string { return orDefault(w.GeocodingURL, DefaultGeocodingURL) }

// UnitSystem returns units, metric when absent.
func (w Weather) UnitSystem() string { return orDefault(w.Units, UnitsMetric) }

// Timeout returns timeout_seconds, 15 s when absent.
func (w Weather) Timeout() time.Duration {
	return seconds(w.TimeoutSeconds, DefaultWeatherTimeoutSeconds)
}

// GitHub is [tools.github], the settings of the github tool (build feature
// tools-saas).
type GitHub struct {
	// Token is a GitHub token, usually "${GITHUB_TOKEN}"; ${VAR} is
	// expanded by the tool on each call. Without one, only public reads
	// work.
	Token string `toml:"token"`
	// BaseURL is the REST API root; GitHub Enterprise Server uses
	// "https://HOST/api/v3". See [GitHub.APIBase].
	BaseURL string `toml:"base_url"`
	// Owner and Repo are used when a call names no repository.
	Owner          string   `toml:"owner"`
	Repo           string   `toml:"repo"`
	MaxResults     int      `toml:"max_results"`     // 0 = 30
	TimeoutSeconds int      `toml:"timeout_seconds"` // 0 = 30
	AllowPrivate   []string `toml:"allow_private"`
}

// APIBase returns base_url, https://api.github.com when absent.
func (g GitHub) APIBase() string { return orDefault(g.BaseURL, DefaultGitHubURL) }

// ResultLimit returns max_results, 30 when absent.
func (g GitHub) ResultLimit() int { return orDefault(g.MaxResults, DefaultGitHubMaxResults) }

// Timeout returns timeout_seconds, 30 s when absent.
func (g GitHub) Timeout() time.Duration {
	return seconds(g.TimeoutSeconds, DefaultGitHubTimeoutSeconds)
}

// CodingCLI is [tools.coding_cli], the settings of claude_code, codex_cli
// and gemini_cli (build feature tools-coding-cli).
type CodingCLI struct {
	TimeoutSeconds int `toml:"timeout_seconds"`  // 0 = 600
	MaxOutputBytes int `toml:"max_output_bytes"` // 0 = 1048576
	// EnvPassthrough names variables handed to every CLI on top of the
	// ones each needs (its API keys, PATH, HOME, locale).
	EnvPassthrough []string         `toml:"env_passthrough"`
	ClaudeCode     CodingCLIProgram `toml:"claude_code"`
	CodexCLI       CodingCLIProgram `toml:"codex_cli"`
	GeminiCLI      CodingCLIProgram `toml:"gemini_cli"`
}

// CodingCLIProgram is one [tools.coding_cli.<tool>] table.
type CodingCLIProgram struct {
	// Binary is the CLI's path; "" means its usual name in PATH.
	Binary string `toml:"binary"`
	// ExtraArgs go before the prompt, e.g. ["--model", "..."].
	ExtraArgs []string `toml:"extra_args"`
}

// Timeout returns timeout_seconds, 600 s when absent.
func (c CodingCLI) Timeout() time.Duration {
	return seconds(c.TimeoutSeconds, DefaultCodingCLITimeoutSeconds)
}

// OutputLimit returns max_output_bytes, 1048576 when absent.
func (c CodingCLI) OutputLimit() int {
	return orDefault(c.MaxOutputBytes, DefaultCodingCLIMaxOutputBytes)
}

func (c *Config) validateToolGroups(v *validator) {
	t := c.Tools
	ws := []string{"tools", "web_search"}
	v.enum(append(ws, "provider"), t.WebSearch.Provider, SearchSearXNG, SearchBrave, SearchAnySearch)
	v.httpURL(append(ws, "searxng_url"), t.WebSearch.SearXNGURL)
	v.httpURL(append(ws, "brave_url"), t.WebSearch.BraveURL)
	v.httpURL(append(ws, "anysearch_url"), t.WebSearch.AnySearchURL)
	v.nonNegative(append(ws, "max_results"), t.WebSearch.MaxResults)
	v.nonNegative(append(ws, "timeout_seconds"), t.WebSearch.TimeoutSeconds)
	v.allowPrivate(ws, t.WebSearch.AllowPrivate)
	if t.WebSearch.Provider == SearchSearXNG && t.WebSearch.SearXNGURL == "" {
		v.fail(append(ws, "searxng_url"), "tools.web_search.provider = \"searxng\" needs searxng_url; set it to the instance's base URL, e.g. \"http://127.0.0.1:8888\"")
	}

	we := []string{"tools", "weather"}
	v.httpURL(append(we, "base_url"), t.Weather.BaseURL)
	v.httpURL(append(we, "geocoding_url"), t.Weather.GeocodingURL)
	v.enum(append(we, "units"), t.Weather.Units, UnitsMetric, UnitsImperial)
	v.nonNegative(append(we, "timeout_seconds"), t.Weather.TimeoutSeconds)
	v.allowPrivate(we, t.Weather.AllowPrivate)

	gh := []string{"tools", "github"}
	v.httpURL(append(gh, "base_url"), t.GitHub.BaseURL)
	v.nonNegative(append(gh, "max_results"), t.GitHub.MaxResults)
	v.nonNegative(append(gh, "timeout_seconds"), t.GitHub.TimeoutSeconds)
	v.allowPrivate(gh, t.GitHub.AllowPrivate)
	if (t.GitHub.Owner == "") != (t.GitHub.Repo == "") {
		v.fail(gh, "tools.github sets only one of owner and repo; set both, or neither")
	}

	cc := []string{"tools", "coding_cli"}
	v.nonNegative(append(cc, "timeout_seconds"), t.CodingCLI.TimeoutSeconds)
	v.nonNegative(append(cc, "max_output_bytes"), t.CodingCLI.MaxOutputBytes)
	for _, name := range t.CodingCLI.EnvPassthrough {
		if !EnvName(name) {
			v.fail(append(cc, "env_passthrough"), "tools.coding_cli.env_passthrough has %s, which is not a variable name; use letters, digits and _", quoteString(name))
		}
	}
}

// httpURL checks an optional http or https URL.
func (v *validator) httpURL(path []string, s string) {
	if s == "" {
		return
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		v.fail(path, "%s = %s is not an http or https URL; write it like \"https://host/path\"", formatKey(path), quoteString(s))
	}
}

// allowPrivate checks an allow_private list with the guard's rules.
func (v *validator) allowPrivate(path []string, rules []string) {
	if err := (netguard.Options{AllowPrivate: rules}).Validate(); err != nil {
		v.fail(append(path, "allow_private"), "%s: %v", formatKey(append(path, "allow_private")), err)
	}
}
