package search

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
	if !ok {
		t.Fatal("web_search is not registered")
	}
	if fac.Tier != tool.Low {
		t.Errorf("factory tier = %v, want low", fac.Tier)
	}
	for _, env := range []toolfactory.Env{{}, {Config: config.Default()}} {
		tl, err := fac.New(env)
		if err != nil {
			t.Fatal(err)
		}
		if spec := tl.Spec(); spec.Name != Name || spec.Attribution.String() != "builtin.web_search" {
			t.Errorf("spec = %+v", spec)
		}
		if _, err := tool.CompileSchema(Name, tl.Spec().Input); err != nil {
			t.Fatal(err)
		}
	}
}

// TestConfigReachesTool checks that [tools.web_search] becomes the tool's
// options, defaults included.
func TestConfigReachesTool(t *testing.T) {
	cfg, _, err := config.Parse("talon.toml", []byte(`
[tools.web_search]
provider = "brave"
brave_api_key = "${BRAVE_API_KEY}"
max_results = 8
timeout_seconds = 4
allow_private = ["10.0.0.0/8"]
`))
	if err != nil {
		t.Fatal(err)
	}
	o := optionsFrom(toolfactory.Env{Config: cfg})
	if o.Provider != Brave || o.BraveAPIKey != "${BRAVE_API_KEY}" || o.BraveURL != config.DefaultBraveURL ||
		o.AnySearchURL != config.DefaultAnySearchURL || o.MaxResults != 8 || o.Timeout.Seconds() != 4 || len(o.AllowPrivate) != 1 {
		t.Errorf("options = %+v", o)
	}
	if o := optionsFrom(toolfactory.Env{Config: config.Default()}); o.Provider != "" || o.MaxResults != DefaultMaxResults {
		t.Errorf("default options = %+v", o)
	}
}

// TestMessages checks that English and Japanese describe the tool and each
// of its parameters.
func TestMessages(t *testing.T) {
	ws, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkMessages(t, ws.Spec())
}

func checkMessages(t *testing.T, spec tool.Spec) {
	t.Helper()
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
		ids := []string{locales.ToolID(spec.Name)}
		var schema struct {
			Properties map[string]json.RawMessage `json:"properties"`
		}
		if err := json.Unmarshal(spec.Input, &schema); err != nil {
			t.Fatal(err)
		}
		for p := range schema.Properties {
			ids = append(ids, locales.ParamID(spec.Name, p))
		}
		for _, id := range ids {
			if !have[id] {
				t.Errorf("%s: no message %s", lang, id)
			}
		}
	}
}
