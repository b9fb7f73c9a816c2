package agents_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/talonhq/talon/agents"
	"github.com/talonhq/talon/config"
)

// load writes files under a temporary directory and loads the agents of
// the config there.
func load(t *testing.T, cfgSrc string, files map[string]string) (*agents.Set, []agents.Problem, error) {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg, _, err := config.Parse(filepath.Join(dir, "talon.toml"), []byte(cfgSrc))
	if err != nil {
		t.Fatal(err)
	}
	set, err := agents.Load(cfg, agents.Options{LookupEnv: lookup})
	return set, agents.Check(cfg, agents.Options{LookupEnv: lookup}), err
}

const twoModels = `
[models.local]
provider = "openai"
base_url = "http://127.0.0.1:1/v1"
model = "m1"
[models.keyed]
provider = "anthropic"
model = "claude"
api_key_env = "UNSET_MODEL_KEY"
[agents]
dir = "agents"
model = "local"
`

func TestLoadErrors(t *testing.T) {
	long := strings.Repeat("a", 58)
	tests := []struct {
		name  string
		cfg   string
		files map[string]string
		want  []string
	}{
		{name: "malformed front matter", files: map[string]string{"agents/r.md": "---\nname: [unclosed\n---\nhi\n"},
			want: []string{"agents/r.md:2:", "not valid YAML"}},
		{name: "unknown key", files: map[string]string{"agents/r.md": agentFile("modl: local", "{{ input }}")},
			want: []string{"agents/r.md:2:", `unknown key "modl"`, `did you mean "model"`}},
		{name: "wrong type", files: map[string]string{"agents/r.md": agentFile("max_rounds: many", "{{ input }}")},
			want: []string{"agents/r.md:2:", "max_rounds must be a whole number"}},
		{name: "tools not a list", files: map[string]string{"agents/r.md": agentFile("tools: file_read", "{{ input }}")},
			want: []string{"tools must be a list of names"}},
		{name: "invalid input_schema", files: map[string]string{"agents/r.md": agentFile("input_schema:\n  type: string", "{{ input }}")},
			want: []string{"agents/r.md:2:", "input_schema must describe an object"}},
		{name: "schema that does not compile", files: map[string]string{"agents/r.md": agentFile("input_schema:\n  type: object\n  properties:\n    n: {type: 3}", "{{ input }}")},
			want: []string{"input_schema is not a valid JSON Schema"}},
		{name: "placeholder outside the schema", files: map[string]string{"agents/r.md": agentFile("input_schema:\n  type: object\n  properties:\n    topic: {type: string}", "{{ input.subject }}")},
			want: []string{"{{ input.subject }}, which input_schema does not declare"}},
		{name: "bad placeholder", files: map[string]string{"agents/r.md": agentFile("", "line one\n{{ inptu }}")},
			want: []string{"agents/r.md:5:", "{{ inptu }} is not a placeholder"}},
		{name: "empty prompt", files: map[string]string{"agents/r.md": agentFile("", "")},
			want: []string{"the prompt is empty"}},
		{name: "unknown model", files: map[string]string{"agents/r.md": agentFile("model: locl", "{{ input }}")},
			want: []string{"agents/r.md:2:", `model "locl", which [models] does not define (did you mean "local"?)`}},
		{name: "missing API key", files: map[string]string{"agents/r.md": agentFile("model: keyed", "{{ input }}")},
			want: []string{"$UNSET_MODEL_KEY", "models.keyed.api_key_env", "not set"}},
		{name: "unknown subagent", files: map[string]string{"agents/r.md": agentFile("subagents: [reseacher]", "{{ input }}"), "agents/researcher.md": researcher},
			want: []string{`delegates to "reseacher", which is not registered (did you mean "researcher"?)`, "[agents.reseacher]"}},
		{name: "name too long", files: map[string]string{"agents/" + long + ".md": agentFile("", "{{ input }}")},
			want: []string{`agent "` + long + `" becomes the tool name agent__` + long + `, 65 characters long; the limit is 64`}},
		{name: "sanitized names clash", files: map[string]string{"agents/a.b.md": agentFile("", "{{ input }}"), "agents/a_b.md": agentFile("", "{{ input }}")},
			want: []string{`both become the tool agent__a_b`}},
		{name: "two files, one name", files: map[string]string{"agents/x.md": agentFile("name: same", "{{ input }}"), "agents/y.md": agentFile("name: same", "{{ input }}")},
			want: []string{`agent "same" is also defined by`}},
		{name: "a cycle", files: map[string]string{
			"agents/a.md": agentFile("subagents: [b]", "{{ input }}"),
			"agents/b.md": agentFile("subagents: [c]", "{{ input }}"),
			"agents/c.md": agentFile("subagents: [a]", "{{ input }}"),
		}, want: []string{"agents delegate in a cycle: a → b → c → a"}},
		{name: "an agent delegating to itself", files: map[string]string{"agents/a.md": agentFile("subagents: [a]", "{{ input }}")},
			want: []string{"agents delegate in a cycle: a → a"}},
		{name: "registered file missing", cfg: twoModels + "[agents.ghost]\npath = \"agents/ghost.md\"\n",
			want: []string{"agent ghost:", "no such file", "fix [agents.ghost] path"}},
		{name: "registered under another name", cfg: twoModels + "[agents.helper]\npath = \"other/r.md\"\n",
			files: map[string]string{"other/r.md": agentFile("name: researcher", "{{ input }}")},
			want:  []string{`the file names its agent "researcher", but talon.toml registers it as [agents.helper]`}},
		{name: "agent__ names in tools", files: map[string]string{"agents/r.md": agentFile("tools: [agent__x]", "{{ input }}")},
			want: []string{"list the agent x under subagents instead"}},
		{name: "unknown agent in optional", cfg: "[tools]\noptional = [\"agent__resarcher\"]\n" + twoModels, files: map[string]string{"agents/researcher.md": researcher},
			want: []string{`tools.optional names agent__resarcher, but no agent of that name is registered (did you mean "agent__researcher"?)`}},
		{name: "no model at all", cfg: "[agents]\ndir = \"agents\"\n", files: map[string]string{"agents/r.md": agentFile("", "{{ input }}")},
			want: []string{"agent r has no model"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := tt.cfg
			if cfg == "" {
				cfg = twoModels
			}
			_, problems, err := load(t, cfg, tt.files)
			if !errors.Is(err, agents.ErrInvalid) {
				t.Fatalf("err = %v, want ErrInvalid", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
			found := false
			for _, p := range problems {
				found = found || p.Severity == agents.SeverityError
			}
			if !found {
				t.Errorf("Check found no error: %+v", problems)
			}
		})
	}
}

func TestLoad(t *testing.T) {
	cfg := twoModels + "[agents.helper]\npath = \"other/helper.md\"\n"
	files := map[string]string{
		"agents/researcher.md":    researcher,
		"agents/README.md":        "# Our agents\n",
		"agents/researcher.ja.md": "---\ndescription: 調べます。\n---\n",
		"other/helper.md":         agentFile("description: Helps.\nmax_rounds: 3\ntimeout_seconds: 20", "{{ input }}"),
	}
	set, problems, err := load(t, cfg, files)
	if err != nil {
		t.Fatal(err)
	}
	if got := set.Names(); strings.Join(got, ",") != "helper,researcher" {
		t.Fatalf("agents = %v", got)
	}
	h, _ := set.Agent("helper")
	if h.MaxRounds != 3 || h.Timeout.Seconds() != 20 || h.MaxOutputBytes != config.DefaultAgentMaxOutputBytes || h.Model != "local" || !h.Selected {
		t.Errorf("helper = %+v", h)
	}
	r, _ := set.Agent("researcher")
	if r.Descriptions["ja"] != "調べます。" || r.MaxRounds != config.DefaultAgentMaxRounds {
		t.Errorf("researcher = %+v", r)
	}
	if len(set.Tools) != 2 || set.Tools[0].Spec().Name != "agent__helper" {
		t.Errorf("tools = %v", set.Tools)
	}
	note := false
	for _, p := range problems {
		note = note || p.Severity == agents.SeverityNote && strings.Contains(p.File, "README.md")
	}
	if !note {
		t.Errorf("README.md is not noted as skipped: %+v", problems)
	}
}

// TestSelection: an explicit tools.optional selects agents by name; one
// left out does not become a tool, and delegating to it is a warning.
func TestSelection(t *testing.T) {
	files := map[string]string{
		"agents/orchestrator.md": agentFile("subagents: [researcher]", "{{ input }}"),
		"agents/researcher.md":   researcher,
	}
	set, _, err := load(t, "[tools]\noptional = [\"agent__orchestrator\"]\n"+twoModels, files)
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Tools) != 1 || set.Tools[0].Spec().Name != "agent__orchestrator" {
		t.Fatalf("tools = %v", set.Tools)
	}
	if len(set.Warnings) != 1 || !strings.Contains(set.Warnings[0], "add agent__researcher to tools.optional") {
		t.Errorf("warnings = %v", set.Warnings)
	}
	set, _, err = load(t, "[tools]\noptional = []\n"+twoModels, files)
	if err != nil || len(set.Tools) != 0 {
		t.Fatalf("minimal catalog: tools = %v, err = %v", set.Tools, err)
	}
}

func TestTool(t *testing.T) {
	tests := []struct{ name, want, err string }{
		{name: "researcher", want: "agent__researcher"},
		{name: "fact.checker", want: "agent__fact_checker"},
		{name: "調査", want: "agent____"},
		{name: strings.Repeat("x", 57), want: "agent__" + strings.Repeat("x", 57)},
		{name: strings.Repeat("x", 58), err: "the limit is 64"},
	}
	for _, tt := range tests {
		got, err := agents.Tool(tt.name)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("Tool(%q) err = %v", tt.name, err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("Tool(%q) = %q, %v; want %q", tt.name, got, err, tt.want)
		}
	}
}

// TestCheckDefaultLookup: Check with zero Options reads keys through
// package secret rather than failing.
func TestCheckDefaultLookup(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "agents"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "agents", "r.md"), []byte(agentFile("model: keyed", "{{ input }}")), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, _, err := config.Parse(filepath.Join(dir, "talon.toml"), []byte(twoModels))
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, p := range agents.Check(cfg, agents.Options{}) {
		found = found || strings.Contains(p.Msg, "$UNSET_MODEL_KEY")
	}
	if !found {
		t.Error("the unset key variable is not reported")
	}
}
