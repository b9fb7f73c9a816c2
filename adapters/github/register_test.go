package github

import (
	"encoding/json"
	"testing"

	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/locales"
	"github.com/talonhq/talon/tool"
	"github.com/talonhq/talon/toolfactory"
)

func TestRegistered(t *testing.T) {
	fac, ok := toolfactory.Get(Name)
	if !ok || fac.Tier != tool.Low {
		t.Fatalf("factory %+v, %v", fac, ok)
	}
	cfg, _, err := config.Parse("talon.toml", []byte(`
[tools.github]
token = "${GITHUB_TOKEN}"
base_url = "https://ghe.example/api/v3"
owner = "octo"
repo = "hello"
max_results = 50
`))
	if err != nil {
		t.Fatal(err)
	}
	o := optionsFrom(toolfactory.Env{Config: cfg})
	if o.Token != "${GITHUB_TOKEN}" || o.BaseURL != "https://ghe.example/api/v3" || o.Owner != "octo" || o.Repo != "hello" || o.Limit != 50 {
		t.Errorf("options = %+v", o)
	}
	if o := optionsFrom(toolfactory.Env{Config: config.Default()}); o.BaseURL != config.DefaultGitHubURL || o.Limit != DefaultLimit {
		t.Errorf("default options = %+v", o)
	}
	for _, env := range []toolfactory.Env{{}, {Config: config.Default()}, {Config: cfg}} {
		tl, err := fac.New(env)
		if err != nil {
			t.Fatal(err)
		}
		if spec := tl.Spec(); spec.Name != Name || spec.Attribution.String() != "builtin.github" {
			t.Errorf("spec = %+v", spec)
		}
		if _, err := tool.CompileSchema(Name, tl.Spec().Input); err != nil {
			t.Fatal(err)
		}
	}
}

// TestMessages checks that English and Japanese describe the tool and each
// of its parameters.
func TestMessages(t *testing.T) {
	spec := (&GitHub{}).Spec()
	var schema struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(spec.Input, &schema); err != nil {
		t.Fatal(err)
	}
	ids := []string{locales.ToolID(Name)}
	for p := range schema.Properties {
		ids = append(ids, locales.ParamID(Name, p))
	}
	for _, lang := range []string{"en", "ja"} {
		files, err := locales.ReadLocale(locales.Embedded(), lang)
		if err != nil {
			t.Fatal(err)
		}
		have := map[string]bool{}
		for _, f := range files {
			for _, e := range f.Resource.Entries() {
				have[e.Key] = true
			}
		}
		for _, id := range ids {
			if !have[id] {
				t.Errorf("%s: no message %s", lang, id)
			}
		}
	}
}
