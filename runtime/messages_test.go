package runtime

import (
	"bytes"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/rs/zerolog"

	"github.com/talonhq/talon/catalog"
	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/tool"
)

type pluginFake struct{ fake }

func (p *pluginFake) Spec() tool.Spec {
	s := p.fake.Spec()
	s.Attribution = tool.Attribution{Kind: tool.KindWASM, Alias: "weather"}
	s.Description = "the plugin's own text"
	return s
}

func TestPluginMessages(t *testing.T) {
	good := fstest.MapFS{
		"en/tools.ftl": {Data: []byte("tool-weather-now = Current weather, from the plugin's messages\n")},
		"ja/tools.ftl": {Data: []byte("tool-weather-now = 現在の天気\n")},
	}
	broken := fstest.MapFS{"en/tools.ftl": {Data: []byte("tool-other = { unclosed\n")}}
	none := []string{}
	cfg := &config.Config{}
	cfg.Tools.Optional = &none
	var logs bytes.Buffer
	rt, err := New(Options{Config: cfg, Workspace: t.TempDir(), DataDir: t.TempDir(),
		Tools:  []tool.Tool{&pluginFake{fake{name: "weather_now", tier: tool.Low}}},
		Logger: zerolog.New(zerolog.SyncWriter(&logs)),
		Messages: []MessageSource{
			{FS: broken, Source: "wasm.broken"},
			{FS: good, Source: "wasm.weather"},
		}})
	if err != nil {
		t.Fatalf("a plugin's broken messages must not fail the runtime: %v", err)
	}
	if !strings.Contains(logs.String(), "wasm.broken") || !strings.Contains(logs.String(), "plugin messages not loaded") {
		t.Errorf("broken messages not logged: %s", logs.String())
	}
	e, ok := rt.Catalog().Lookup("weather_now")
	if !ok {
		t.Fatal("plugin tool not in the catalog")
	}
	for lang, want := range map[string]string{"en": "Current weather, from the plugin's messages", "ja": "現在の天気"} {
		got := catalog.Localize(e.Spec, rt.Locales().Localizer(lang)).Description
		if got != want {
			t.Errorf("%s description %q, want %q", lang, got, want)
		}
	}
}
