package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestToolGroupsDocExamples parses every ```toml block of
// docs/tool-groups.md as a talon.toml: each must load without error or
// warning beyond the missing schema_version.
func TestToolGroupsDocExamples(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "tool-groups.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := 0
	lines := strings.Split(string(doc), "\n")
	for i := 0; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) != "```toml" {
			continue
		}
		start := i + 1
		var b strings.Builder
		for i++; i < len(lines) && strings.TrimSpace(lines[i]) != "```"; i++ {
			b.WriteString(lines[i] + "\n")
		}
		blocks++
		src := "schema_version = 1\n" + b.String()
		if _, warnings, err := Parse("tool-groups.md", []byte(src)); err != nil || len(warnings) > 0 {
			t.Errorf("block at line %d: %v %q\n%s", start, err, warnings, src)
		}
	}
	if blocks < 6 {
		t.Fatalf("found %d toml blocks; the walk is probably broken", blocks)
	}
}

func TestToolGroupsValidated(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{name: "every provider", src: "[tools.web_search]\nprovider = \"anysearch\"\n"},
		{name: "brave", src: "[tools.web_search]\nprovider = \"brave\"\nbrave_api_key = \"${BRAVE_API_KEY}\"\n"},
		{name: "unknown provider", src: "[tools.web_search]\nprovider = \"google\"\n", want: "tools.web_search.provider"},
		{name: "searxng needs a url", src: "[tools.web_search]\nprovider = \"searxng\"\n", want: "searxng_url"},
		{name: "bad searxng url", src: "[tools.web_search]\nsearxng_url = \"localhost:8888\"\n", want: "tools.web_search.searxng_url"},
		{name: "negative results", src: "[tools.web_search]\nmax_results = -1\n", want: "tools.web_search.max_results"},
		{name: "bad private rule", src: "[tools.web_search]\nallow_private = [\"10.0.0.0/99\"]\n", want: "tools.web_search.allow_private"},
		{name: "unknown key", src: "[tools.web_search]\nproviders = \"brave\"\n", want: "providers"},
		{name: "units", src: "[tools.weather]\nunits = \"kelvin\"\n", want: "tools.weather.units"},
		{name: "weather url", src: "[tools.weather]\nbase_url = \"ftp://x\"\n", want: "tools.weather.base_url"},
		{name: "github owner without repo", src: "[tools.github]\nowner = \"octo\"\n", want: "owner and repo"},
		{name: "github url", src: "[tools.github]\nbase_url = \"api.github.com\"\n", want: "tools.github.base_url"},
		{name: "coding cli env", src: "[tools.coding_cli]\nenv_passthrough = [\"BAD-NAME\"]\n", want: "env_passthrough"},
		{name: "coding cli timeout", src: "[tools.coding_cli]\ntimeout_seconds = -5\n", want: "tools.coding_cli.timeout_seconds"},
		{name: "coding cli unknown vendor", src: "[tools.coding_cli.cursor]\nbinary = \"x\"\n", want: "cursor"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := Parse("talon.toml", []byte("schema_version = 1\n"+tt.src))
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to name %q", err, tt.want)
			}
		})
	}
}

func TestToolGroupAccessors(t *testing.T) {
	var zero Config
	tests := []struct {
		name      string
		got, want any
	}{
		{"web_search results", zero.Tools.WebSearch.ResultLimit(), DefaultWebSearchMaxResults},
		{"web_search timeout", zero.Tools.WebSearch.Timeout(), 15 * time.Second},
		{"brave", zero.Tools.WebSearch.BraveEndpoint(), DefaultBraveURL},
		{"anysearch", zero.Tools.WebSearch.AnySearchEndpoint(), DefaultAnySearchURL},
		{"weather", zero.Tools.Weather.ForecastBase(), DefaultWeatherURL},
		{"geocoding", zero.Tools.Weather.GeocodingBase(), DefaultGeocodingURL},
		{"units", zero.Tools.Weather.UnitSystem(), UnitsMetric},
		{"weather timeout", zero.Tools.Weather.Timeout(), 15 * time.Second},
		{"github", zero.Tools.GitHub.APIBase(), DefaultGitHubURL},
		{"github results", zero.Tools.GitHub.ResultLimit(), DefaultGitHubMaxResults},
		{"github timeout", zero.Tools.GitHub.Timeout(), 30 * time.Second},
		{"coding timeout", zero.Tools.CodingCLI.Timeout(), 600 * time.Second},
		{"coding output", zero.Tools.CodingCLI.OutputLimit(), DefaultCodingCLIMaxOutputBytes},
		{"embedded defaults agree", Default().Tools.WebSearch.Provider, ""},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s = %v, want %v", tt.name, tt.got, tt.want)
		}
	}
}
