package codingcli

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/locales"
	"github.com/talonhq/talon/tool"
	"github.com/talonhq/talon/toolfactory"
)

func TestRegistered(t *testing.T) {
	cfg, _, err := config.Parse("talon.toml", []byte(`
[tools.coding_cli]
timeout_seconds = 120
max_output_bytes = 4096
env_passthrough = ["HTTPS_PROXY"]

[tools.coding_cli.codex_cli]
binary = "/opt/codex/bin/codex"
extra_args = ["--skip-git-repo-check"]
`))
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range Vendors {
		t.Run(v.Tool, func(t *testing.T) {
			fac, ok := toolfactory.Get(v.Tool)
			if !ok || fac.Tier != tool.High {
				t.Fatalf("factory %+v, %v", fac, ok)
			}
			for _, env := range []toolfactory.Env{{Workspace: t.TempDir()}, {Workspace: t.TempDir(), Config: config.Default()}, {Workspace: t.TempDir(), Config: cfg}} {
				tl, err := fac.New(env)
				if err != nil {
					t.Fatal(err)
				}
				if spec := tl.Spec(); spec.Name != v.Tool || spec.Tier != tool.High || spec.Attribution.String() != "builtin."+v.Tool {
					t.Errorf("spec = %+v", spec)
				}
				if _, err := tool.CompileSchema(v.Tool, tl.Spec().Input); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := fac.New(toolfactory.Env{}); err == nil {
				t.Error("New without a workspace succeeded")
			}
			o := optionsFrom(v, toolfactory.Env{Workspace: "/w", Config: cfg})
			if o.Timeout != 120*time.Second || o.MaxOutputBytes != 4096 || len(o.EnvPassthrough) != 1 {
				t.Errorf("options = %+v", o)
			}
			if (v.Tool == CodexCLI.Tool) != (o.Binary == "/opt/codex/bin/codex" && len(o.ExtraArgs) == 1) {
				t.Errorf("%s got binary %q, args %q", v.Tool, o.Binary, o.ExtraArgs)
			}
			if o := optionsFrom(v, toolfactory.Env{Workspace: "/w", Config: config.Default()}); o.Timeout != DefaultTimeout || o.MaxOutputBytes != DefaultMaxOutputBytes {
				t.Errorf("default options = %+v", o)
			}
		})
	}
}

// TestMessages checks that English and Japanese describe each tool and
// its parameters.
func TestMessages(t *testing.T) {
	have := map[string]map[string]bool{}
	for _, lang := range []string{"en", "ja"} {
		files, err := locales.ReadLocale(locales.Embedded(), lang)
		if err != nil {
			t.Fatal(err)
		}
		have[lang] = map[string]bool{}
		for _, f := range files {
			for _, e := range f.Resource.Entries() {
				have[lang][e.Key] = true
			}
		}
	}
	for _, v := range Vendors {
		c, err := New(v, Options{Workspace: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		var schema struct {
			Properties map[string]json.RawMessage `json:"properties"`
		}
		if err := json.Unmarshal(c.Spec().Input, &schema); err != nil {
			t.Fatal(err)
		}
		ids := []string{locales.ToolID(v.Tool)}
		for p := range schema.Properties {
			ids = append(ids, locales.ParamID(v.Tool, p))
		}
		for lang, keys := range have {
			for _, id := range ids {
				if !keys[id] {
					t.Errorf("%s: no message %s", lang, id)
				}
			}
		}
	}
}
