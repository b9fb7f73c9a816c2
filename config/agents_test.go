package config

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestAgentsParse(t *testing.T) {
	src := `
[models.local]
provider = "openai"
base_url = "http://127.0.0.1:11434/v1"
model = "qwen2.5:7b"

[models.claude]
provider = "anthropic"
model = "claude-sonnet-4-5"
api_key_env = "ANTHROPIC_API_KEY"
max_retries = 0

[agents]
dir = "agents"
model = "local"
max_rounds = 4

[agents.researcher]
path = "agents/researcher.md"
`
	c, _, err := Parse(filepath.Join("/etc/talon", "talon.toml"), []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	d := c.Agents.Defaults()
	if d.Dir != "agents" || d.Model != "local" || d.MaxRounds != 4 || d.TimeoutSeconds != 0 {
		t.Errorf("defaults = %+v", d)
	}
	if got := c.Agents.Entries(); !reflect.DeepEqual(got, map[string]AgentEntry{"researcher": {Path: "agents/researcher.md"}}) {
		t.Errorf("entries = %+v", got)
	}
	if got := c.AgentsDir(); got != "/etc/talon/agents" {
		t.Errorf("AgentsDir = %q", got)
	}
	if got := c.AgentPath(c.Agents.Entries()["researcher"]); got != "/etc/talon/agents/researcher.md" {
		t.Errorf("AgentPath = %q", got)
	}
	local, claude := c.Models["local"], c.Models["claude"]
	if local.Endpoint() != "http://127.0.0.1:11434/v1" || claude.Endpoint() != DefaultAnthropicBaseURL {
		t.Errorf("endpoints %q %q", local.Endpoint(), claude.Endpoint())
	}
	if local.MaxRetries() != DefaultModelMaxRetries || claude.MaxRetries() != 0 {
		t.Errorf("retries %d %d", local.MaxRetries(), claude.MaxRetries())
	}
	if local.Timeout().Seconds() != DefaultModelTimeoutSeconds || local.TokenLimit() != DefaultModelMaxTokens {
		t.Errorf("timeout %v tokens %d", local.Timeout(), local.TokenLimit())
	}
	if got := c.ModelKeyEnvs(); !reflect.DeepEqual(got, []string{"ANTHROPIC_API_KEY"}) {
		t.Errorf("ModelKeyEnvs = %v", got)
	}
}

func TestAgentsZero(t *testing.T) {
	var c Config
	if c.Agents.Defaults() != (AgentDefaults{}) || len(c.Agents.Entries()) != 0 || c.AgentsDir() != "" {
		t.Error("a zero config has agents")
	}
	if d := Default(); d.Models != nil || d.Agents != nil {
		t.Error("the defaults define models or agents")
	}
}

func TestAgentsInvalid(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string // substrings of the error, each
	}{
		{
			name: "unknown key in an agent entry",
			src:  "[agents.researcher]\npath = \"r.md\"\npat = \"x\"\n",
			want: []string{"talon.toml:3:1:", `unknown key "agents.researcher.pat"`, `did you mean "path"`},
		},
		{
			name: "misspelled default",
			src:  "[agents]\nmax_round = 3\n",
			want: []string{"talon.toml:2:1:", `unknown key "agents.max_round"`, `did you mean "max_rounds"`},
		},
		{
			name: "wrong type of a default",
			src:  "[agents]\nmax_rounds = \"3\"\n",
			want: []string{"talon.toml:2:", `wrong type for "agents.max_rounds": expected an integer, found a string`},
		},
		{
			name: "entry without path",
			src:  "[agents.researcher]\n",
			want: []string{`agent "researcher" has no path`},
		},
		{
			name: "path not a string",
			src:  "[agents.researcher]\npath = 3\n",
			want: []string{"talon.toml:2:", `wrong type for "agents.researcher.path"`},
		},
		{
			name: "default model not defined",
			src:  "[models.local]\nprovider = \"openai\"\nmodel = \"m\"\n[agents]\nmodel = \"locl\"\n",
			want: []string{"talon.toml:5:", `agents.model = "locl" is not defined in [models]`, `did you mean "local"`},
		},
		{
			name: "limits",
			src:  "[agents]\nmax_rounds = -1\ntimeout_seconds = 100000\n",
			want: []string{"agents.max_rounds = -1 is negative", "agents.timeout_seconds = 100000 is more than 86400"},
		},
		{
			name: "model without provider or id",
			src:  "[models.local]\nbase_url = \"http://127.0.0.1:8080/v1\"\n",
			want: []string{`model "local" has no provider`, `model "local" has no model id`},
		},
		{
			name: "unknown provider",
			src:  "[models.local]\nprovider = \"openia\"\nmodel = \"m\"\n",
			want: []string{"talon.toml:2:", `models.local.provider = "openia" is not allowed`},
		},
		{
			name: "api_key_env holds a value",
			src:  "[models.local]\nprovider = \"openai\"\nmodel = \"m\"\napi_key_env = \"${OPENAI_API_KEY}\"\n",
			want: []string{"talon.toml:4:", "must be the name of an environment variable"},
		},
		{
			name: "base_url",
			src:  "[models.local]\nprovider = \"openai\"\nmodel = \"m\"\nbase_url = \"127.0.0.1:8080\"\n",
			want: []string{"talon.toml:4:", "is not an http or https URL"},
		},
		{
			name: "base_url with credentials",
			src:  "[models.local]\nprovider = \"openai\"\nmodel = \"m\"\nbase_url = \"https://u:p@example.com/v1\"\n",
			want: []string{"carries credentials"},
		},
		{
			name: "retries",
			src:  "[models.local]\nprovider = \"openai\"\nmodel = \"m\"\nmax_retries = 11\n",
			want: []string{"max_retries = 11 is out of range"},
		},
		{
			name: "unknown model key",
			src:  "[models.local]\nprovider = \"openai\"\nmodel = \"m\"\napi_key = \"sk\"\n",
			want: []string{"talon.toml:4:1:", `unknown key "models.local.api_key"`, `did you mean "api_key_env"`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := Parse("talon.toml", []byte(tt.src))
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}
