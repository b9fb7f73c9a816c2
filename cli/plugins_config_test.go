package cli

import (
	"errors"
	"strings"
	"testing"

	"github.com/talonhq/talon/config"
)

func TestSetEntryEnabled(t *testing.T) {
	tests := []struct {
		name    string
		src     string
		plugin  string
		enabled bool
		want    string // substring of the result, or of the error when wantErr
		keep    []string
		wantErr bool
	}{
		{
			name:   "no entries: appended",
			src:    "schema_version = 1\n\n# plugins are off\n[plugins]\nenabled = true\n",
			plugin: "hello", enabled: true,
			want: "[plugins]\nenabled = true\n\n[[plugins.entries]]\nname = \"hello\"\nenabled = true\n",
			keep: []string{"# plugins are off"},
		},
		{
			name:   "existing value replaced, comment kept",
			src:    "schema_version = 1\n[plugins]\nenabled = true\n\n[[plugins.entries]]\nname = \"hello\"\nenabled = true # until Friday\nallowed_hosts = [\n  \"api.example.com\",\n]\n",
			plugin: "hello", enabled: false,
			want: "enabled = false # until Friday\n",
		},
		{
			name:   "entry without enabled: added after its name",
			src:    "schema_version = 1\n[[plugins.entries]]\nname = 'hello' # the greeter\nsecrets = [\"k\"]\n\n[[plugins.entries]]\nname = \"other\"\nenabled = true\n",
			plugin: "hello", enabled: false,
			want: "name = 'hello' # the greeter\nenabled = false\nsecrets",
		},
		{
			name:   "the right one of several",
			src:    "schema_version = 1\n[[plugins.entries]]\nname = \"a\"\nenabled = true\n[[plugins.entries]]\nname = \"b\"\nenabled = true\n[plugins.entries.config]\nenabled = true\n",
			plugin: "b", enabled: false,
			want: "name = \"b\"\nenabled = false\n[plugins.entries.config]\nenabled = true\n",
		},
		{
			name:   "a config sub-table is not the entry's enabled",
			src:    "schema_version = 1\n[[plugins.entries]]\nname = \"b\"\n[plugins.entries.config]\nenabled = true\n",
			plugin: "b", enabled: false,
			want: "name = \"b\"\nenabled = false\n[plugins.entries.config]\nenabled = true\n",
		},
		{
			name:   "no newline at the end",
			src:    "schema_version = 1",
			plugin: "x", enabled: true,
			want: "schema_version = 1\n\n[[plugins.entries]]\nname = \"x\"\nenabled = true\n",
		},
		{
			name:   "inline array refused",
			src:    "schema_version = 1\n[plugins]\nentries = [{ name = \"hello\" }]\n",
			plugin: "hello", enabled: true,
			want: "inline array", wantErr: true,
		},
		{
			name:   "broken file",
			src:    "schema_version = 1\n[plugins\n",
			plugin: "hello", enabled: true,
			want: "fix it first", wantErr: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := setEntryEnabled("talon.toml", []byte(tt.src), tt.plugin, tt.enabled)
			if tt.wantErr {
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("err = %v, want %q", err, tt.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(out), tt.want) {
				t.Fatalf("result lacks %q:\n%s", tt.want, out)
			}
			for _, k := range tt.keep {
				if !strings.Contains(string(out), k) {
					t.Errorf("lost %q", k)
				}
			}
			cfg, _, err := config.Parse("talon.toml", out)
			if err != nil {
				t.Fatal(err)
			}
			i := entryIndex(cfg.Plugins.Entries, tt.plugin)
			if i < 0 || cfg.Plugins.Entries[i].Enabled() != tt.enabled {
				t.Fatalf("entry %q not set to %v: %+v", tt.plugin, tt.enabled, cfg.Plugins.Entries)
			}
		})
	}
}

func TestSetEntryEnabledRefusesOtherChanges(t *testing.T) {
	// A multi-line string that looks like a table header is not one.
	src := "schema_version = 1\n[[plugins.entries]]\nname = \"x\"\n[plugins.entries.config]\nnote = '''\n[[plugins.entries]]\nname = \"y\"\n'''\n"
	out, err := setEntryEnabled("talon.toml", []byte(src), "y", true)
	if err != nil && !errors.Is(err, errEntryNotEditable) {
		t.Fatal(err)
	}
	if err == nil {
		cfg, _, perr := config.Parse("talon.toml", out)
		if perr != nil {
			t.Fatal(perr)
		}
		if cfg.Plugins.Entries[0].Config["note"] != "\n[[plugins.entries]]\nname = \"y\"\n" && cfg.Plugins.Entries[0].Config["note"] != "[[plugins.entries]]\nname = \"y\"\n" {
			t.Fatalf("the string changed: %q", cfg.Plugins.Entries[0].Config["note"])
		}
		if entryIndex(cfg.Plugins.Entries, "y") != 1 {
			t.Fatalf("no new entry y: %+v", cfg.Plugins.Entries)
		}
	}
}

func TestSetTopLevelString(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{name: "replaced, comment kept", src: "name = \"x\"\nsha256 = \"old\" # digest\n[limits]\nsha256 = \"inner\"\n",
			want: "name = \"x\"\nsha256 = \"new\" # digest\n[limits]\nsha256 = \"inner\"\n"},
		{name: "missing: added after the last top-level key", src: "# m\nname = \"x\"\nentry = \"x.wasm\"\n\n[limits]\ntimeout_ms = 1\n",
			want: "# m\nname = \"x\"\nentry = \"x.wasm\"\nsha256 = \"new\"\n\n[limits]\ntimeout_ms = 1\n"},
		{name: "only tables", src: "[limits]\ntimeout_ms = 1\n", want: "sha256 = \"new\"\n[limits]\ntimeout_ms = 1\n"},
		{name: "no final newline", src: "name = \"x\"", want: "name = \"x\"\nsha256 = \"new\"\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := setTopLevelString([]byte(tt.src), "sha256", "new")
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Fatalf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
	if _, err := setTopLevelString([]byte("sha256 = 3\n"), "sha256", "x"); err == nil {
		t.Error("a non-string value was overwritten")
	}
}

func TestSetEntryConfig(t *testing.T) {
	tests := []struct {
		name       string
		src        string
		plugin     string
		key, value string
		want       string // substring of the result, or of the error when wantErr
		keep       []string
		created    bool
		wantErr    bool
	}{
		{
			name:   "no entry: one is added, disabled",
			src:    "schema_version = 1\n# plugins\n[plugins]\nenabled = true\n",
			plugin: "sqlite-query", key: "database", value: "./app.db",
			want:    "[[plugins.entries]]\nname = \"sqlite-query\"\nenabled = false\nconfig.database = \"./app.db\"\n",
			keep:    []string{"# plugins"},
			created: true,
		},
		{
			name:   "entry without config: a dotted key after its keys",
			src:    "schema_version = 1\n[[plugins.entries]]\nname = \"q\" # mine\nenabled = true\n\n[serve]\nlisten = \"127.0.0.1:7357\"\n",
			plugin: "q", key: "limit", value: "10",
			want: "name = \"q\" # mine\nenabled = true\nconfig.limit = 10\n\n[serve]",
		},
		{
			name:   "dotted key replaced",
			src:    "schema_version = 1\n[[plugins.entries]]\nname = \"q\"\nconfig.database = \"old.db\" # keep\n",
			plugin: "q", key: "database", value: `"new.db"`,
			want: "config.database = \"new.db\" # keep\n",
		},
		{
			name:   "sub-table key replaced",
			src:    "schema_version = 1\n[[plugins.entries]]\nname = \"q\"\n[plugins.entries.config]\n# the file\ndatabase = \"old.db\"\nlimit = 5\n",
			plugin: "q", key: "limit", value: "6",
			want: "# the file\ndatabase = \"old.db\"\nlimit = 6\n",
		},
		{
			name:   "sub-table key added",
			src:    "schema_version = 1\n[[plugins.entries]]\nname = \"q\"\n[plugins.entries.config]\ndatabase = \"old.db\"\n\n[[plugins.entries]]\nname = \"r\"\n",
			plugin: "q", key: "limit", value: "6",
			want: "database = \"old.db\"\nlimit = 6\n\n[[plugins.entries]]\nname = \"r\"\n",
		},
		{
			name:   "empty sub-table: the key goes under its header",
			src:    "schema_version = 1\n[[plugins.entries]]\nname = \"q\"\n[plugins.entries.config]\n\n[serve]\nlisten = \"127.0.0.1:7357\"\n",
			plugin: "q", key: "limit", value: "6",
			want: "[plugins.entries.config]\nlimit = 6\n\n[serve]",
		},
		{
			name:   "inline table rewritten",
			src:    "schema_version = 1\n[[plugins.entries]]\nname = \"q\"\nconfig = { database = \"a.db\" } # inline\n",
			plugin: "q", key: "limit", value: "6",
			want: "config = { database = \"a.db\", limit = 6 } # inline\n",
		},
		{
			name:   "the right one of several",
			src:    "schema_version = 1\n[[plugins.entries]]\nname = \"a\"\nconfig.k = 1\n[[plugins.entries]]\nname = \"b\"\nconfig.k = 1\n",
			plugin: "b", key: "k", value: "2",
			want: "name = \"a\"\nconfig.k = 1\n[[plugins.entries]]\nname = \"b\"\nconfig.k = 2\n",
		},
		{
			name:   "a key with a dot refused",
			src:    "schema_version = 1\n",
			plugin: "q", key: "a.b", value: "1",
			want: "not a config key", wantErr: true,
		},
		{
			name:   "not one TOML value",
			src:    "schema_version = 1\n",
			plugin: "q", key: "k", value: "[1,",
			want: "not a TOML value", wantErr: true,
		},
		{
			name:   "nested config keys refused",
			src:    "schema_version = 1\n[[plugins.entries]]\nname = \"q\"\nconfig.a.b = 1\n",
			plugin: "q", key: "c", value: "1",
			want: "nested keys", wantErr: true,
		},
		{
			name:   "inline array of entries refused",
			src:    "schema_version = 1\n[plugins]\nentries = [{ name = \"q\" }]\n",
			plugin: "q", key: "c", value: "1",
			want: "inline array", wantErr: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, created, err := setEntryConfig("talon.toml", []byte(tt.src), tt.plugin, tt.key, tt.value)
			if tt.wantErr {
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("err = %v, want %q", err, tt.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(out), tt.want) {
				t.Fatalf("result:\n%s\nwant to contain:\n%s", out, tt.want)
			}
			for _, k := range tt.keep {
				if !strings.Contains(string(out), k) {
					t.Errorf("lost %q", k)
				}
			}
			if created != tt.created {
				t.Errorf("created = %v, want %v", created, tt.created)
			}
			cfg, _, err := config.Parse("talon.toml", out)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range cfg.Plugins.Entries {
				if e.Name == tt.plugin {
					if _, ok := e.Config[tt.key]; !ok {
						t.Errorf("config of %s lacks %s: %v", tt.plugin, tt.key, e.Config)
					}
				}
			}
		})
	}
}
