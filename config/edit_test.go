package config

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// golden compares got with testdata/<name>, or rewrites it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s (run go test -update to accept):\n--- got\n%s\n--- want\n%s", p, got, want)
	}
}

const commented = `# talon config for this repository
schema_version = 1 # current

[tools] # what the agent sees
# the full catalog, minus nothing
optional = [
  "calculator", # math
  "cron_list",
] # keep this comment

[serve]
listen = "127.0.0.1:7357" # loopback only
token = ""

# profiles
[risk_profiles.default]
level = "supervised"
`

func TestSetInTextGolden(t *testing.T) {
	tests := []struct {
		name       string
		src        string
		key, value string
	}{
		{name: "value_replaced_comment_kept", src: commented, key: "serve.listen", value: `"127.0.0.1:9000"`},
		{name: "multiline_array_replaced", src: commented, key: "tools.optional", value: `[]`},
		{name: "bare_word_is_a_string", src: commented, key: "risk_profiles.default.level", value: `full`},
		{name: "inserted_into_existing_table", src: commented, key: "serve.surface", value: `"code"`},
		{name: "inserted_into_table_without_keys", src: "schema_version = 1\n\n[tools]\n\n[serve]\nlisten = \"127.0.0.1:1\"\n", key: "tools.optional", value: `["*"]`},
		{name: "table_created_at_end", src: commented, key: "approvals.timeout_seconds", value: `30`},
		{name: "table_created_in_empty_file", src: "", key: "tools.optional", value: `[]`},
		{name: "table_created_before_subtable", src: "schema_version = 1\n\n# shell limits\n[tools.shell]\ntimeout_seconds = 5\n", key: "tools.optional", value: `[]`},
		{name: "quoted_profile_key", src: commented, key: `risk_profiles."ci.nightly".level`, value: `"read_only"`},
		{name: "quoted_key_in_file_replaced", src: "schema_version = 1\n[risk_profiles.\"ci.nightly\"]\nlevel = \"full\"\n", key: `risk_profiles."ci.nightly".level`, value: `"supervised"`},
		{name: "literal_quoted_header", src: "schema_version = 1\n[ 'serve' ]\nlisten = '127.0.0.1:1'\n", key: "serve.listen", value: `"127.0.0.1:2"`},
		{name: "dotted_key_replaced", src: "schema_version = 1\n[tools]\nshell.timeout_seconds = 5 # short\n", key: "tools.shell.timeout_seconds", value: `10`},
		{name: "dotted_key_sibling_inserted", src: "schema_version = 1\n[tools]\nshell.timeout_seconds = 5\n\n[serve]\n", key: "tools.shell.max_output_bytes", value: `1024`},
		{name: "root_dotted_key_replaced", src: "schema_version = 1\ntools.optional = [\"*\"]\n", key: "tools.optional", value: `[]`},
		{name: "root_key_inserted_after_root_keys", src: commented, key: "locale", value: `"ja"`},
		{name: "root_key_inserted_above_first_table", src: "# header\n\n[tools]\noptional = []\n", key: "schema_version", value: `1`},
		{name: "multiline_string_replaced", src: "schema_version = 1\n[tools.commands.rg]\ndescription = \"\"\"\nSearch the\nrepository\"\"\" # multi\ncommand = [\"rg\"]\n", key: "tools.commands.rg.description", value: `"Search"`},
		{name: "inline_table_value", src: commented, key: "tools.commands.rg", value: `{ command = ["rg", "--json"], timeout = 10 }`},
		{name: "crlf_kept", src: "schema_version = 1\r\n[serve]\r\nlisten = \"127.0.0.1:1\"\r\n", key: "serve.surface", value: `"code"`},
		{name: "no_trailing_newline", src: "schema_version = 1\n[serve]\nlisten = \"127.0.0.1:1\"", key: "serve.token", value: `"t"`},
		{name: "array_of_tables_kept", src: "schema_version = 1\n[[plugins.entries]]\nname = \"a\"\n[plugins.entries.config]\nx = 1\n", key: "plugins.enabled", value: `true`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := SetInText([]byte(tt.src), tt.key, tt.value)
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := Parse("out.toml", out); err != nil {
				t.Fatalf("output does not load: %v\n%s", err, out)
			}
			golden(t, filepath.Join("set", tt.name+".toml"), out)
		})
	}
}

func TestSetInTextErrors(t *testing.T) {
	tests := []struct {
		name       string
		src        string
		key, value string
		wantIs     error
		want       string
	}{
		{name: "unknown key", src: commented, key: "tools.optinal", value: "[]", wantIs: ErrUnknownKey, want: `(did you mean "optional"?)`},
		{name: "unknown table", src: commented, key: "serv.listen", value: `"x"`, wantIs: ErrUnknownKey, want: `(did you mean "serve"?)`},
		{name: "wrong type", src: commented, key: "tools.optional", value: `"*"`, want: `the edited file would not load`},
		{name: "invalid enum", src: commented, key: "serve.surface", value: `web`, want: `use one of "chat", "code"`},
		{name: "unclosed array", src: commented, key: "tools.optional", value: `["a"`, want: "is not a TOML value"},
		{name: "two values", src: commented, key: "locale", value: "\"en\"\nschema_version = 9", want: "is not a TOML value"},
		{name: "empty value", src: commented, key: "locale", value: "  ", want: "empty value"},
		{name: "inside inline table", src: "schema_version = 1\nserve = { listen = \"127.0.0.1:1\" }\n", key: "serve.surface", value: `"code"`, wantIs: ErrNotEditable, want: "inline value of \"serve\" on line 2"},
		{name: "array of tables", src: commented, key: "plugins.entries.name", value: `"x"`, wantIs: ErrNotEditable, want: "talon plugins config NAME KEY VALUE"},
		{name: "table header exists", src: commented, key: "serve", value: `{}`, wantIs: ErrNotEditable, want: "is a table in the file (line 11)"},
		{name: "broken file", src: "schema_version = 1\n[serve\n", key: "serve.listen", value: `"x:1"`, want: "2:"},
		{name: "file does not load before", src: "local = 1\n", key: "locale", value: `"en"`, want: "does not load even before the edit"},
		{name: "bad key syntax", src: commented, key: "tools.", value: `[]`, wantIs: ErrUnknownKey, want: "not a dotted key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := SetInText([]byte(tt.src), tt.key, tt.value)
			if err == nil {
				t.Fatalf("no error; output:\n%s", out)
			}
			if out != nil {
				t.Errorf("output returned with an error")
			}
			if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
				t.Errorf("err = %v, want errors.Is %v", err, tt.wantIs)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %q, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestSetInFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "talon.toml")
	if err := os.WriteFile(p, []byte(commented), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := SetInFile(p, "tools.optional", "[]"); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(got, []byte("optional = [] # keep this comment")) || !bytes.Contains(got, []byte("# profiles")) {
		t.Errorf("edited file:\n%s", got)
	}
	c, _, err := Load(Source{Path: p})
	if err != nil || c.Tools.Optional == nil || len(*c.Tools.Optional) != 0 {
		t.Fatalf("reload: %v", err)
	}
	if runtime.GOOS != "windows" {
		if info, _ := os.Stat(p); info.Mode().Perm() != 0o640 {
			t.Errorf("mode = %v, want 0640", info.Mode().Perm())
		}
	}

	t.Run("invalid value leaves the file untouched", func(t *testing.T) {
		before, _ := os.ReadFile(p)
		for _, kv := range [][2]string{{"tools.optional", `"*"`}, {"serve.surface", "web"}, {"tools.optinal", "[]"}, {"locale", `["a"`}} {
			if err := SetInFile(p, kv[0], kv[1]); err == nil {
				t.Errorf("SetInFile(%s, %s) succeeded", kv[0], kv[1])
			}
		}
		after, _ := os.ReadFile(p)
		if !bytes.Equal(before, after) {
			t.Errorf("file changed:\n%s", after)
		}
		entries, _ := os.ReadDir(dir)
		if len(entries) != 1 {
			t.Errorf("directory has %d entries, want only talon.toml (temporary files left?)", len(entries))
		}
	})

	t.Run("errors name the file", func(t *testing.T) {
		err := SetInFile(p, "serve.surface", "web")
		var ce *Error
		if !errors.As(err, &ce) || ce.File != p {
			t.Errorf("err = %v, want an *Error naming %s", err, p)
		}
	})

	t.Run("missing file", func(t *testing.T) {
		if err := SetInFile(filepath.Join(dir, "none.toml"), "locale", "en"); err == nil {
			t.Error("SetInFile on a missing file succeeded")
		}
	})

	t.Run("symlink target edited", func(t *testing.T) {
		if runtime.GOOS == "windows" {
			t.Skip("symlinks need privileges on windows")
		}
		link := filepath.Join(t.TempDir(), "link.toml")
		if err := os.Symlink(p, link); err != nil {
			t.Fatal(err)
		}
		if err := SetInFile(link, "locale", "ja"); err != nil {
			t.Fatal(err)
		}
		if info, _ := os.Lstat(link); info.Mode()&os.ModeSymlink == 0 {
			t.Error("the link was replaced by a file")
		}
		got, _ := os.ReadFile(p)
		if !bytes.Contains(got, []byte(`locale = "ja"`)) {
			t.Errorf("target not edited:\n%s", got)
		}
	})
}

func TestMigrate(t *testing.T) {
	tests := []struct {
		name        string
		src         string
		want        string
		wantChanges int
	}{
		{
			name:        "empty file",
			src:         "",
			want:        "schema_version = 1\n\n[tools]\noptional = [\"*\"]  # " + optionalComment + "\n",
			wantChanges: 2,
		},
		{
			name:        "missing tools section",
			src:         "# mine\nlocale = \"en\" # lang\n\n[serve]\nlisten = \"127.0.0.1:1\"\n",
			want:        "schema_version = 1\n# mine\nlocale = \"en\" # lang\n\n[serve]\nlisten = \"127.0.0.1:1\"\n\n[tools]\noptional = [\"*\"]  # " + optionalComment + "\n",
			wantChanges: 2,
		},
		{
			name:        "tools without optional",
			src:         "schema_version = 1\n\n[tools] # tools\n# shell limits below\n[tools.shell]\ntimeout_seconds = 5\n",
			want:        "schema_version = 1\n\n[tools] # tools\noptional = [\"*\"]  # " + optionalComment + "\n# shell limits below\n[tools.shell]\ntimeout_seconds = 5\n",
			wantChanges: 1,
		},
		{
			name:        "only a subtable",
			src:         "# config\n\n# shell\n[tools.shell]\ntimeout_seconds = 5\n",
			want:        "# config\n\nschema_version = 1\n\n[tools]\noptional = [\"*\"]  # " + optionalComment + "\n\n# shell\n[tools.shell]\ntimeout_seconds = 5\n",
			wantChanges: 2,
		},
		{
			name:        "explicit minimal kept",
			src:         "[tools]\noptional = [] # minimal on purpose\n",
			want:        "schema_version = 1\n\n[tools]\noptional = [] # minimal on purpose\n",
			wantChanges: 1,
		},
		{
			name:        "explicit names kept, version bumped",
			src:         "schema_version = 0 # old\n[tools]\noptional = [\"calculator\"]\n",
			want:        "schema_version = 1 # old\n[tools]\noptional = [\"calculator\"]\n",
			wantChanges: 1,
		},
		{
			name:        "readonly alias rewritten",
			src:         "schema_version = 1\n[tools]\noptional = [\"*\"]\n[risk_profiles.ro]\nlevel = \"readonly\" # safe\n",
			want:        "schema_version = 1\n[tools]\noptional = [\"*\"]\n[risk_profiles.ro]\nlevel = \"read_only\" # safe\n",
			wantChanges: 1,
		},
		{
			name: "current file unchanged",
			src:  commented,
			want: commented,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, changes, err := Migrate([]byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != tt.want {
				t.Errorf("Migrate:\n%s\nwant:\n%s", out, tt.want)
			}
			if len(changes) != tt.wantChanges {
				t.Errorf("changes = %q, want %d", changes, tt.wantChanges)
			}
			if _, warnings, err := Parse("out.toml", out); err != nil || len(warnings) > 0 {
				t.Errorf("migrated text: warnings %q, error %v", warnings, err)
			}
			again, changes, err := Migrate(out)
			if err != nil || len(changes) != 0 || !bytes.Equal(again, out) {
				t.Errorf("second Migrate not idempotent: %q %v\n%s", changes, err, again)
			}
		})
	}
}

func TestMigrateErrors(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want string
	}{
		{name: "newer version", src: "schema_version = 2\n", want: "upgrade talon"},
		{name: "not TOML", src: "[tools\n", want: "1:"},
		{name: "inline tools", src: "tools = { shell = { timeout_seconds = 5 } }\n", want: "edit that line by hand"},
		{name: "version not an integer", src: "schema_version = \"1\"\n", want: "is not an integer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := Migrate([]byte(tt.src))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestInitTemplate(t *testing.T) {
	tmpl := InitTemplate()
	c, warnings, err := Parse("talon.toml", tmpl)
	if err != nil || len(warnings) > 0 {
		t.Fatalf("template: warnings %q, error %v", warnings, err)
	}
	if c.SchemaVersion != SchemaVersion {
		t.Errorf("schema_version = %d", c.SchemaVersion)
	}
	if c.Tools.Optional == nil || len(*c.Tools.Optional) != 1 || (*c.Tools.Optional)[0] != "*" {
		t.Errorf("optional = %v, want [\"*\"]", c.Tools.Optional)
	}
	for _, section := range []string{"[risk_profiles.default]", "[receipts]", "[serve]"} {
		if !bytes.Contains(tmpl, []byte("# "+section)) {
			t.Errorf("template lacks a commented %s example", section)
		}
	}
	if out, changes, err := Migrate(tmpl); err != nil || len(changes) > 0 || !bytes.Equal(out, tmpl) {
		t.Errorf("Migrate changes the template: %q %v", changes, err)
	}
	tmpl[0] = 'X'
	if InitTemplate()[0] == 'X' {
		t.Error("InitTemplate returned shared bytes")
	}
	// Uncommenting the examples still yields a valid config.
	var b strings.Builder
	for _, line := range strings.Split(string(InitTemplate()), "\n") {
		if rest, ok := strings.CutPrefix(line, "# ["); ok {
			line = "[" + rest
		} else if rest, ok := strings.CutPrefix(line, "# "); ok && strings.Contains(rest, " = ") && !strings.HasPrefix(rest, " ") {
			line = rest
		}
		b.WriteString(line + "\n")
	}
	if _, _, err := Parse("uncommented.toml", []byte(b.String())); err != nil {
		t.Errorf("template with its examples uncommented does not load: %v\n%s", err, b.String())
	}
}
