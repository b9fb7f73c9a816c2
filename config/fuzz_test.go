package config

import (
	"bytes"
	"strings"
	"testing"
)

// fuzzSeeds are config texts shared by the fuzzers' seed corpora.
var fuzzSeeds = []string{
	"",
	commented,
	string(defaultsTOML),
	string(templateTOML),
	"schema_version = 1\n[tools]\noptinal = []\n",
	"[tools]\noptional = \"*\"\n",
	"tools = { shell = { timeout_seconds = 5 } }\n",
	"[[plugins.entries]]\nname = \"a\"\n[plugins.entries.config]\nx = 1\n",
	"[risk_profiles.\"a.b\"]\nlevel = 'readonly'\n",
	"[tools.commands.rg]\ndescription = \"\"\"\nx\"\"\"\"\ncommand = ['''rg''']\n",
	"a = 1979-05-27 07:32:00Z\n",
	"schema_version = 1\r\n[serve]\r\nlisten = \"127.0.0.1:1\"\r\n",
	"[x\n",
	"k = [[[[[[[[[[",
	"\"\\u00e9\" = 1\n",
}

func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, _, err := Parse("fuzz.toml", data)
		if err != nil {
			for _, e := range unwrapAll(err) {
				if _, ok := e.(*Error); !ok {
					t.Fatalf("Parse returned %T, want *Error: %v", e, e)
				}
			}
			return
		}
		for _, key := range []string{"tools", "risk_profiles", "mcp", "plugins", "sandbox"} {
			if _, err := Get(c, key); err != nil {
				t.Fatalf("Get(%q) on a loaded config: %v", key, err)
			}
		}
	})
}

func FuzzSetInText(f *testing.F) {
	keys := []string{
		"tools.optional", "serve.listen", "risk_profiles.default.level", "locale",
		"tools.shell.timeout_seconds", `risk_profiles."a.b".level`, "schema_version",
		"tools.commands.rg.command", "plugins.security.signature_mode",
	}
	values := []string{"[]", `"en"`, "full", "7", `["*"]`, "{ level = \"full\" }", "[\n\"a\",\n]"}
	for i, s := range fuzzSeeds {
		f.Add([]byte(s), keys[i%len(keys)], values[i%len(values)])
	}
	f.Fuzz(func(t *testing.T, src []byte, key, value string) {
		// Most random keys are not in the schema; map them onto known keys
		// so that the mutations exercise the editor.
		if path, err := parseKeyArg(key); err != nil || func() bool { _, miss := schemaType(path); return miss != nil }() {
			key = keys[len(key)%len(keys)]
		}
		out, err := SetInText(src, key, value)
		if err != nil {
			if out != nil {
				t.Fatal("output returned with an error")
			}
			return
		}
		c, _, err := Parse("out.toml", out)
		if err != nil {
			t.Fatalf("SetInText output does not load: %v\n%s", err, out)
		}
		// The key now holds the value (unless a zero value reads back as
		// its default).
		var want map[string]any
		val, _ := normalizeValue(value)
		if decodeLoose([]byte("v = "+val+"\n"), &want) != nil {
			t.Fatalf("accepted value %q does not decode", value)
		}
		if w := FormatValue(want["v"]); w != "0" && w != `""` && !strings.HasPrefix(w, "{") {
			got, err := Get(c, key)
			if err != nil || FormatValue(got) != w {
				t.Fatalf("after SetInText(%q, %q): Get = %s, %v; want %s\n%s", key, value, FormatValue(got), err, w, out)
			}
		}
	})
}

func FuzzMigrate(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		out, _, err := Migrate(src)
		if err != nil {
			return
		}
		if err := decodeLoose(out, new(map[string]any)); err != nil {
			t.Fatalf("Migrate output does not decode: %v\n%s", err, out)
		}
		again, changes, err := Migrate(out)
		if err != nil || len(changes) > 0 || !bytes.Equal(again, out) {
			t.Fatalf("Migrate is not idempotent: %q %v\n%s\n---\n%s", changes, err, out, again)
		}
	})
}
