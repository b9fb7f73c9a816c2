package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// runLint runs `talon lint ARGS` in a directory holding talon.toml.
func runLint(t *testing.T, configTOML string, env map[string]string, args ...string) (int, string) {
	t.Helper()
	dir := t.TempDir()
	if configTOML != "" {
		if err := os.WriteFile(filepath.Join(dir, "talon.toml"), []byte(configTOML), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	vars := map[string]string{"HOME": dir, "XDG_CONFIG_HOME": filepath.Join(dir, ".config"), "PATH": os.Getenv("PATH")}
	for k, v := range env {
		vars[k] = v
	}
	var out bytes.Buffer
	code := Main(append([]string{"lint"}, args...), IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &out, Cwd: dir,
		Getenv: func(k string) string { return vars[k] }})
	return code, out.String()
}

func TestLint(t *testing.T) {
	tests := []struct {
		name   string
		config string
		env    map[string]string
		code   int
		want   []string
		absent []string
	}{
		{name: "no config file", code: 0, want: []string{"no config file found"}},
		{name: "clean", code: 0, config: `schema_version = 1
[tools.commands.hi]
description = "Say hi"
command = ["echo", "hi", "{{ input.who }}"]
parameters = { type = "object", properties = { who = { type = "string" } }, required = ["who"] }
`, want: []string{"talon.toml: no problems found"}},
		{name: "template problems", code: 2, config: `schema_version = 1
[tools.commands.t]
description = "x"
command = [
  "echo",
  "{{ input.missing }}",
  "{{ env.HOME }}",
]
`, want: []string{
			`talon.toml:4: error: command tool "t": command[1] refers to parameter "missing", which parameters.properties does not declare`,
			`talon.toml:4: error: command tool "t": command[2] uses the unknown variable "env.HOME"`,
			"talon.toml: 2 errors",
		}},
		{name: "parameters that are not an object schema", code: 2, config: `schema_version = 1
[tools.commands.t]
description = "x"
command = ["echo"]
parameters = { type = "array" }
`, want: []string{`talon.toml:5: error: command tool "t": parameters must be an object JSON Schema`}},
		{name: "parameters that do not compile", code: 2, config: `schema_version = 1
[tools.commands.t]
description = "x"
command = ["echo"]
parameters = { type = "object", properties = { n = { type = "strange" } } }
`, want: []string{`talon.toml:5: error: command tool "t": parameters is not a valid JSON Schema`}},
		{name: "missing variable", code: 2, config: `schema_version = 1
[tools.commands.t]
description = "x"
command = ["echo"]
env = { TOKEN = "${TALON_LINT_TOKEN}" }
`, want: []string{`talon.toml:5: error: command tool "t": ${TALON_LINT_TOKEN} in env.TOKEN is not set`}},
		{name: "variable present", code: 0, env: map[string]string{"TALON_LINT_TOKEN": "x"}, config: `schema_version = 1
[tools.commands.t]
description = "x"
command = ["echo"]
env = { TOKEN = "${TALON_LINT_TOKEN}", PATH = "${PATH}" }
`, want: []string{"no problems found"}},
		{name: "program not on PATH is a warning", code: 0, config: `schema_version = 1
[tools.commands.t]
description = "x"
command = ["talon-lint-no-such-program"]
`, want: []string{`talon.toml:4: warning: command tool "t": program talon-lint-no-such-program is not found in PATH`, "1 warning"}},
		{name: "names: sanitized note and too long", code: 2, config: `schema_version = 1
[tools.commands."my.tool"]
description = "x"
command = ["echo"]
[tools.commands.a-name-that-goes-on-and-on-well-past-the-limit-of-sixty-four-chars]
description = "x"
command = ["echo"]
`, want: []string{
			`talon.toml:2: note: command tool "my.tool" is exposed as tool__my_tool`,
			`talon.toml:5: error: command tool "a-name-that-goes-on-and-on-well-past-the-limit-of-sixty-four-chars" becomes`,
			"the limit is 64",
		}},
		{name: "tool_policy leaves a tool out", code: 0, config: `schema_version = 1
[tools.commands.rm]
description = "x"
command = ["echo"]
[tools.tool_policy]
allow = ["tool__git_*"]
`, want: []string{`talon.toml:2: note: tool__rm is not registered: no tool_policy.allow pattern matches it`}},
		{name: "tool_policy glob that does not compile", code: 2, config: `schema_version = 1
[tools.tool_policy]
deny = ["tool__[x"]
`, want: []string{`talon.toml:3: error:`, `"tool__[x" is not a valid glob pattern`}},
		{name: "risk profile that does not compile", code: 2, config: `schema_version = 1
[risk_profiles.strict]
forbidden_paths = ["[x"]
`, want: []string{`talon.toml:2: error: invalid risk profile strict: forbidden_paths pattern "[x" does not compile`}},
		{name: "unknown optional tool", code: 2, config: `schema_version = 1
[tools]
optional = ["calculatr"]
`, want: []string{`talon.toml:3: error: unknown tool in tools.optional: "calculatr" (did you mean "calculator"?)`}},
		{name: "MCP server without command or url", code: 2, config: `schema_version = 1
[mcp.servers.empty]
tier = "low"
`, want: []string{`talon.toml:2: error: MCP server "empty" has neither command nor url`, "1 error"}},
		{name: "validation errors and deeper checks together", code: 2, config: `schema_version = 1
[tools.commands.empty]
description = "x"
command = []
[tools.commands.t]
description = "x"
command = ["echo", "{{ input.x }}"]
`, want: []string{
			`talon.toml:4: error: command tool "empty" has an empty command`,
			`talon.toml:7: error: command tool "t": command[1] refers to parameter "x"`,
			"2 errors",
		}},
		{name: "undecodable file stops at the decoder", code: 2, config: `schema_version = 1
[tools]
bogus = 1
`, want: []string{`talon.toml:3: error: unknown key "tools.bogus"`, "1 error"}},
		{name: "warnings from loading", code: 0, config: `[tools]
optional = ["*"]
`, want: []string{"talon.toml: warning: no schema_version"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out := runLint(t, tt.config, tt.env)
			if code != tt.code {
				t.Fatalf("exit %d, want %d:\n%s", code, tt.code, out)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
}

func TestLintJSON(t *testing.T) {
	code, out := runLint(t, `schema_version = 1
[tools.commands.t]
command = ["echo", "{{ nope }}"]
`, nil, "--json")
	if code != ExitUsage {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	var got []finding
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	want := []finding{
		{File: "talon.toml", Line: 2, Severity: "note", Key: "tools.commands.t.description"},
		{File: "talon.toml", Line: 3, Severity: "error", Key: "tools.commands.t.command"},
	}
	if len(got) != len(want) {
		t.Fatalf("findings = %+v", got)
	}
	for i, w := range want {
		g := got[i]
		if g.File != w.File || g.Line != w.Line || g.Severity != w.Severity || g.Key != w.Key || g.Message == "" {
			t.Errorf("finding %d = %+v, want %+v", i, g, w)
		}
	}
	code, out = runLint(t, "", nil, "--json")
	if code != 0 || strings.TrimSpace(out) != "[]" {
		t.Fatalf("no config: exit %d %q", code, out)
	}
}

func TestKeyPositions(t *testing.T) {
	src := `schema_version = 1
[tools]
optional = ["*"]
commands.dotted.command = ["a"]

[tools.commands."my.tool"]
command = ["b"]
parameters = { type = "object", properties = { p = { type = "string" } } }

[[plugins.entries]]
name = "x"
`
	pos := keyPositions([]byte(src))
	l := &linter{positions: pos}
	tests := []struct {
		name string
		key  []string
		line int
	}{
		{name: "root key", key: []string{"schema_version"}, line: 1},
		{name: "table", key: []string{"tools"}, line: 2},
		{name: "key in table", key: []string{"tools", "optional"}, line: 3},
		{name: "dotted key", key: []string{"tools", "commands", "dotted", "command"}, line: 4},
		{name: "quoted table name", key: []string{"tools", "commands", "my.tool"}, line: 6},
		{name: "key under quoted table", key: []string{"tools", "commands", "my.tool", "command"}, line: 7},
		{name: "inside an inline table", key: []string{"tools", "commands", "my.tool", "parameters", "properties", "p"}, line: 8},
		{name: "absent key falls back to its table", key: []string{"tools", "commands", "my.tool", "env"}, line: 6},
		{name: "array of tables", key: []string{"plugins", "entries", "name"}, line: 11},
		{name: "unknown", key: []string{"nowhere"}, line: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := l.line(tt.key); got != tt.line {
				t.Fatalf("line(%v) = %d, want %d", tt.key, got, tt.line)
			}
		})
	}
	if got := keyPositions([]byte("a = [")); len(got) != 0 {
		t.Fatalf("broken TOML gave %v", got)
	}
}

func TestLintKey(t *testing.T) {
	tests := []struct {
		name string
		path []string
		want string
	}{
		{name: "bare", path: []string{"tools", "commands", "rg"}, want: "tools.commands.rg"},
		{name: "quoted", path: []string{"tools", "commands", "my.tool"}, want: `tools.commands."my.tool"`},
		{name: "empty part", path: []string{"a", ""}, want: `a.""`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := lintKey(tt.path); got != tt.want {
				t.Fatalf("lintKey = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestLintSummaryAndPaths(t *testing.T) {
	fs := []finding{{Severity: lintError}, {Severity: lintError}, {Severity: lintNote}}
	if got := summary("f", fs); got != "f: 2 errors, 1 note" {
		t.Fatalf("summary = %q", got)
	}
	if got := displayPath("/a/b/talon.toml", "/a"); got != filepath.Join("b", "talon.toml") {
		t.Fatalf("displayPath below = %q", got)
	}
	if got := displayPath("/x/talon.toml", "/a"); got != "/x/talon.toml" {
		t.Fatalf("displayPath outside = %q", got)
	}
	lookup := lookupEnv(IOStreams{Getenv: func(k string) string { return map[string]string{"A": "1", "E": ""}[k] }})
	if v, ok := lookup("A"); !ok || v != "1" {
		t.Fatal("A should be set")
	}
	if _, ok := lookup("E"); ok {
		t.Fatal("an empty variable counts as unset")
	}
	if !slices.Contains([]string{lintError, lintWarning, lintNote}, severityName(0)) {
		t.Fatal("severityName")
	}
}

// FuzzKeyPositions feeds arbitrary text to the line finder lint uses on
// the operator's file: it never panics, and every line it reports exists.
func FuzzKeyPositions(f *testing.F) {
	for _, s := range []string{
		"a = 1\n[t]\nb = { c = { d = 2 } }\n",
		"[tools.commands.\"my.tool\"]\ncommand = [\"x\"]\n",
		"[[p.e]]\nname = \"x\"\n", "a = [", "= 1", "[a.b.c]\nx.y.z = 1",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		lines := strings.Count(src, "\n") + 1
		for _, kp := range keyPositions([]byte(src)) {
			if kp.line < 1 || kp.line > lines {
				t.Fatalf("line %d of a %d-line text for %v", kp.line, lines, kp.path)
			}
		}
	})
}
