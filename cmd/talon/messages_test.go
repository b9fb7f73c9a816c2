package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/locales"
	"github.com/talonhq/talon/toolfactory"
)

// TestEveryBuiltinIsDescribed constructs every compiled-in tool and checks
// that English and Japanese describe it and each of its parameters, and that
// the message files describe no tool the project does not know.
func TestEveryBuiltinIsDescribed(t *testing.T) {
	b, err := locales.New(locales.Options{})
	if err != nil {
		t.Fatal(err)
	}
	env := toolfactory.Env{Workspace: t.TempDir(), DataDir: t.TempDir(), Config: config.Default()}
	for _, lang := range []string{"en", "ja"} {
		loc := b.Localizer(lang)
		for _, f := range toolfactory.Registered() {
			tl, err := f.New(env)
			if err != nil {
				t.Fatalf("construct %s: %v", f.Name, err)
			}
			spec := tl.Spec()
			if _, ok := loc.Lookup(locales.ToolID(spec.Name), nil); !ok {
				t.Errorf("%s: no %s", lang, locales.ToolID(spec.Name))
			}
			var schema struct {
				Properties map[string]json.RawMessage `json:"properties"`
			}
			if err := json.Unmarshal(spec.Input, &schema); err != nil {
				t.Fatalf("%s schema: %v", spec.Name, err)
			}
			for p := range schema.Properties {
				if _, ok := loc.Lookup(locales.ParamID(spec.Name, p), nil); !ok {
					t.Errorf("%s: no %s", lang, locales.ParamID(spec.Name, p))
				}
			}
		}
	}
	files, err := locales.ReadLocale(locales.Embedded(), "en")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if f.Path == "en/console.ftl" {
			continue // the console's own text, checked by the console's tests
		}
		for _, e := range f.Resource.Entries() {
			known := false
			for _, k := range toolfactory.Known() {
				id := locales.ToolID(k.Name)
				if e.Key == id || strings.HasPrefix(e.Key, id+"-param-") || strings.HasPrefix(e.Key, id+"-error-") || strings.HasPrefix(e.Key, id+"-text-") {
					known = true
				}
			}
			if !known {
				t.Errorf("%s:%d: %s describes no tool talon knows", f.Path, e.Line, e.Key)
			}
		}
	}
}
