package manifest

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const validSum = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// valid is a complete manifest every table case starts from.
const valid = `name = "hello"
version = "1.0.0"
abi_version = 1
description = "Says hello"
author = "Example"
kind = "wasm"
entry = "hello.wasm"
sha256 = "` + validSum + `"

[permissions]
fs_read = ["data", "."]
fs_write = ["out"]
secrets = ["API_TOKEN"]
config_read = ["greeting"]

[permissions.http]
allowed_hosts = ["api.example.com", "*.example.org"]

[limits]
timeout_ms = 5000
max_memory_mb = 64
`

func TestParseValid(t *testing.T) {
	m, err := Parse([]byte(valid))
	if err != nil {
		t.Fatal(err)
	}
	if m.Name != "hello" || m.Kind != KindWASM || m.Entry != "hello.wasm" || m.SHA256 != validSum {
		t.Fatalf("decoded %+v", m)
	}
	if got := m.Permissions.HTTP.AllowedHosts; len(got) != 2 || got[1] != "*.example.org" {
		t.Fatalf("allowed_hosts = %v", got)
	}
	if m.Limits.Timeout().Milliseconds() != 5000 || m.Limits.MemoryMB() != 64 || m.Limits.Instances() != DefaultMaxInstances {
		t.Fatalf("limits %+v", m.Limits)
	}
}

func TestParseRules(t *testing.T) {
	tests := []struct {
		name    string
		replace [2]string // old, new applied to valid
		append  string
		want    []string // substrings of the error; nil means valid
		line    int
	}{
		{name: "process protocol v1", replace: [2]string{`kind = "wasm"`, `kind = "process"`}},
		{name: "name uppercase", replace: [2]string{`name = "hello"`, `name = "Hello"`}, want: []string{`name "Hello" must match`}, line: 1},
		{name: "name starts with digit", replace: [2]string{`name = "hello"`, `name = "1hello"`}, want: []string{"must match"}},
		{name: "name too long", replace: [2]string{`name = "hello"`, `name = "a` + strings.Repeat("b", 64) + `"`}, want: []string{"must match"}},
		{name: "name 64 chars", replace: [2]string{`name = "hello"`, `name = "a` + strings.Repeat("b", 63) + `"`}},
		{name: "name missing", replace: [2]string{`name = "hello"`, ``}, want: []string{"name is missing"}},
		{name: "kind unknown", replace: [2]string{`kind = "wasm"`, `kind = "docker"`}, want: []string{`kind "docker" is not a plugin kind`}, line: 6},
		{name: "kind missing", replace: [2]string{`kind = "wasm"`, ``}, want: []string{"kind is missing"}},
		{name: "abi v2", replace: [2]string{`abi_version = 1`, `abi_version = 2`},
			want: []string{"plugin hello speaks ABI v2; this talon speaks v1: install a build of hello for ABI v1"}, line: 3},
		{name: "abi missing", replace: [2]string{`abi_version = 1`, ``}, want: []string{"speaks ABI v0"}},
		{name: "process protocol v3", replace: [2]string{"abi_version = 1\n", "abi_version = 3\n"}, append: "", want: nil},
		{name: "entry absolute", replace: [2]string{`entry = "hello.wasm"`, `entry = "/bin/sh"`}, want: []string{"is absolute"}, line: 7},
		{name: "entry dotdot", replace: [2]string{`entry = "hello.wasm"`, `entry = "../x.wasm"`}, want: []string{`contains ".."`}},
		{name: "entry inner dotdot", replace: [2]string{`entry = "hello.wasm"`, `entry = "a/../../x.wasm"`}, want: []string{`contains ".."`}},
		{name: "entry backslash", replace: [2]string{`entry = "hello.wasm"`, `entry = "a\\b.wasm"`}, want: []string{"separate directories"}},
		{name: "entry dot", replace: [2]string{`entry = "hello.wasm"`, `entry = "."`}, want: []string{"names the plugin directory"}},
		{name: "entry subdir", replace: [2]string{`entry = "hello.wasm"`, `entry = "bin/hello.wasm"`}},
		{name: "entry missing", replace: [2]string{`entry = "hello.wasm"`, ``}, want: []string{"entry is missing"}},
		{name: "sha256 uppercase", replace: [2]string{validSum, strings.ToUpper(validSum)}, want: []string{"64 lowercase hex"}, line: 8},
		{name: "sha256 short", replace: [2]string{validSum, validSum[:63]}, want: []string{"64 lowercase hex"}},
		{name: "negative timeout", replace: [2]string{`timeout_ms = 5000`, `timeout_ms = -1`}, want: []string{"limits.timeout_ms is -1"}, line: 20},
		{name: "negative memory", replace: [2]string{`max_memory_mb = 64`, `max_memory_mb = -64`}, want: []string{"limits.max_memory_mb"}},
		{name: "host with scheme", replace: [2]string{`"api.example.com"`, `"https://api.example.com"`}, want: []string{"drop the scheme"}, line: 17},
		{name: "host with port", replace: [2]string{`"api.example.com"`, `"api.example.com:443"`}, want: []string{"drop the port"}},
		{name: "host with path", replace: [2]string{`"api.example.com"`, `"api.example.com/v1"`}, want: []string{"drop the path"}},
		{name: "host star alone", replace: [2]string{`"api.example.com"`, `"*"`}, want: []string{"may only start"}},
		{name: "host inner star", replace: [2]string{`"api.example.com"`, `"api.*.com"`}, want: []string{"'*' may only start"}},
		{name: "host uppercase", replace: [2]string{`"api.example.com"`, `"API.example.com"`}, want: []string{"lowercase"}},
		{name: "host ipv4", replace: [2]string{`"api.example.com"`, `"10.0.0.1"`}},
		{name: "fs_read absolute", replace: [2]string{`fs_read = ["data", "."]`, `fs_read = ["/etc"]`}, want: []string{`permissions.fs_read has "/etc", which is absolute`}, line: 11},
		{name: "fs_write dotdot", replace: [2]string{`fs_write = ["out"]`, `fs_write = ["out/../.."]`}, want: []string{"permissions.fs_write", `".."`}},
		{name: "secret blank", replace: [2]string{`secrets = ["API_TOKEN"]`, `secrets = [" "]`}, want: []string{"permissions.secrets"}},
		{name: "unknown top-level key", append: "\n[limits2]\n", want: []string{`unknown table "limits2"`, `did you mean "limits"`}},
		{name: "unknown key typo", replace: [2]string{`description =`, `descripton =`}, want: []string{`unknown key "descripton"`, `did you mean "description"`}, line: 4},
		{name: "unknown nested key", replace: [2]string{`timeout_ms = 5000`, `timeout = 5000`}, want: []string{`unknown key "limits.timeout"`, `did you mean "timeout_ms"`}, line: 20},
		{name: "wrong type", replace: [2]string{`abi_version = 1`, `abi_version = "1"`}, want: []string{`"abi_version"`, "fix the value"}, line: 3},
		{name: "syntax error", append: "\nname = \n", want: []string{"invalid TOML", "fix the syntax"}},
		{name: "config schema free-form", append: "\n[config_schema]\ntype = \"object\"\n[config_schema.properties.greeting]\ntype = \"string\"\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text := valid
			if tt.replace[0] != "" {
				if !strings.Contains(text, tt.replace[0]) {
					t.Fatalf("fixture lacks %q", tt.replace[0])
				}
				text = strings.Replace(text, tt.replace[0], tt.replace[1], 1)
			}
			if tt.name == "process protocol v1" || tt.name == "process protocol v3" {
				text = strings.Replace(text, `kind = "wasm"`, `kind = "process"`, 1)
				if tt.name == "process protocol v3" {
					tt.want = []string{"speaks plugin protocol v3; this talon speaks v1"}
				}
			}
			text += tt.append
			m, err := Parse([]byte(text))
			if tt.want == nil {
				if err != nil {
					t.Fatalf("rejected: %v", err)
				}
				if m == nil {
					t.Fatal("nil manifest")
				}
				return
			}
			if err == nil {
				t.Fatalf("accepted:\n%s", text)
			}
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("error %v does not wrap ErrInvalid", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if tt.line > 0 {
				var me *Error
				if !errors.As(err, &me) || me.Line != tt.line {
					t.Errorf("error %q: line %d, want %d", err, me.Line, tt.line)
				}
			}
		})
	}
}

// extismValid is an Extism plugin whose plain exports are its tools.
const extismValid = `name = "text"
version = "1.0.0"
abi_version = 1
kind = "extism"
entry = "text.wasm"
sha256 = "` + validSum + `"

[[tools]]
name = "reverse"
export = "reverse"
description = "Reverse a text."
tier = "low"
[tools.input_schema]
type = "object"
required = ["text"]
[tools.input_schema.properties.text]
type = "string"

[[tools]]
name = "count"
export = "count_words"
`

func TestParseExtismTools(t *testing.T) {
	m, err := Parse([]byte(extismValid))
	if err != nil {
		t.Fatal(err)
	}
	if m.Kind != KindExtism || len(m.Tools) != 2 || m.Tools[1].Export != "count_words" {
		t.Fatalf("decoded %+v", m)
	}
	schema, err := ToolSchema(m.Tools[0])
	if err != nil || !strings.Contains(string(schema), `"required":["text"]`) {
		t.Fatalf("schema %s, %v", schema, err)
	}
	if s, _ := ToolSchema(m.Tools[1]); string(s) != `{"type":"object"}` {
		t.Fatalf("default schema %s", s)
	}
	tests := []struct {
		name    string
		replace [2]string
		append  string
		want    string
	}{
		{name: "tools on a wasm plugin", replace: [2]string{`kind = "extism"`, `kind = "wasm"`}, want: `kind "wasm" plugins describe their tools themselves`},
		{name: "extism abi 2", replace: [2]string{`abi_version = 1`, `abi_version = 2`}, want: "version 2 of talon's Extism mapping"},
		{name: "bad tool name", replace: [2]string{`name = "count"`, `name = "count words"`}, want: "[[tools]] #2: name"},
		{name: "duplicate tool", replace: [2]string{`name = "count"`, `name = "reverse"`}, want: `names "reverse" twice`},
		{name: "duplicate export", replace: [2]string{`export = "count_words"`, `export = "reverse"`}, want: `both map export "reverse"`},
		{name: "bad tier", replace: [2]string{`tier = "low"`, `tier = "harmless"`}, want: `tier "harmless"`},
		{name: "schema not an object", replace: [2]string{"[tools.input_schema]\ntype = \"object\"", "[tools.input_schema]\ntype = \"string\""}, want: `must have type = "object"`},
		{name: "schema does not compile", replace: [2]string{"required = [\"text\"]", "required = \"text\""}, want: "does not compile"},
		{name: "unknown tool key", replace: [2]string{`export = "count_words"`, `exprot = "count_words"`}, want: `unknown key "tools.exprot"`},
		{name: "servlet annotation", replace: [2]string{`export = "count_words"`, `tier = "medium"`}},
		{name: "secrets", replace: [2]string{`sha256 = "` + validSum + `"`, `sha256 = "` + validSum + `"` + "\n[permissions]\nsecrets = [\"TOKEN\"]"}, want: "an Extism plugin has no way to read secrets"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !strings.Contains(extismValid, tt.replace[0]) {
				t.Fatalf("fixture lacks %q", tt.replace[0])
			}
			text := strings.Replace(extismValid, tt.replace[0], tt.replace[1], 1) + tt.append
			_, err := Parse([]byte(text))
			if tt.want == "" {
				if err != nil {
					t.Fatalf("rejected: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
		})
	}
}

func TestParseSeveralErrorsInOrder(t *testing.T) {
	text := strings.Replace(valid, `name = "hello"`, `name = "Hello"`, 1)
	text = strings.Replace(text, `timeout_ms = 5000`, `timeout_ms = -5`, 1)
	_, err := Parse([]byte(text))
	if err == nil {
		t.Fatal("accepted")
	}
	msg := err.Error()
	i, j := strings.Index(msg, "name"), strings.Index(msg, "timeout_ms")
	if i < 0 || j < 0 || i > j {
		t.Fatalf("errors not both reported in file order: %q", msg)
	}
	if !strings.HasPrefix(msg, "1:1: ") {
		t.Fatalf("first error has no position: %q", msg)
	}
}

func TestRead(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := Read(dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing file: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, FileName), []byte(valid), 0o644); err != nil {
		t.Fatal(err)
	}
	m, data, err := Read(dir)
	if err != nil || m.Name != "hello" || string(data) != valid {
		t.Fatalf("Read = %v, %v", m, err)
	}
	bad := strings.Replace(valid, `kind = "wasm"`, `kind = "nope"`, 1)
	if err := os.WriteFile(filepath.Join(dir, FileName), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err = Read(dir)
	if err == nil || !strings.HasPrefix(err.Error(), filepath.Join(dir, FileName)+":6:1: ") {
		t.Fatalf("error does not name file and line: %v", err)
	}
	big := valid + "# " + strings.Repeat("x", MaxSize) + "\n"
	if err := os.WriteFile(filepath.Join(dir, FileName), []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Read(dir); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("oversized manifest: %v", err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(valid))
	f.Add([]byte(strings.Replace(valid, `kind = "wasm"`, `kind = "process"`, 1)))
	f.Add([]byte("name = \"x\"\n[limits]\nenforce_deadline = false\n"))
	f.Add([]byte("[config_schema]\ntype = \"object\"\n"))
	f.Add([]byte(extismValid))
	f.Add([]byte("name = '''\nsignature = \"x\"\n'''\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Parse(data)
		if err != nil {
			if m != nil {
				t.Fatal("manifest returned with an error")
			}
			return
		}
		if ps := m.problems(); len(ps) > 0 {
			t.Fatalf("accepted manifest has problems: %v", ps)
		}
		if !nameRE().MatchString(m.Name) || (m.Kind != KindWASM && m.Kind != KindProcess && m.Kind != KindExtism) || !sha256RE().MatchString(m.SHA256) {
			t.Fatalf("accepted invalid manifest %+v", m)
		}
		if strings.Contains("/"+m.Entry+"/", "/../") || strings.HasPrefix(m.Entry, "/") {
			t.Fatalf("accepted entry %q", m.Entry)
		}
		// Signature checking must cope with anything Parse accepts.
		_ = Verify(m, data, nil)
		if _, err := SignedPayload(data); err != nil {
			t.Logf("payload: %v", err)
		}
	})
}
