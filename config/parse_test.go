package config

import (
	"errors"
	"strings"
	"testing"
)

// problems returns every *Error in err, in order.
func problems(t *testing.T, err error) []*Error {
	t.Helper()
	var out []*Error
	for _, e := range unwrapAll(err) {
		ce, ok := e.(*Error)
		if !ok {
			t.Fatalf("error %v (%T) is not a *config.Error", e, e)
		}
		out = append(out, ce)
	}
	return out
}

// want describes one expected problem.
type want struct {
	line, col int
	key       string
	contains  string
}

func checkProblems(t *testing.T, err error, wants []want) {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want %d problems", len(wants))
	}
	got := problems(t, err)
	if len(got) != len(wants) {
		t.Fatalf("got %d problems, want %d:\n%v", len(got), len(wants), err)
	}
	for i, w := range wants {
		g := got[i]
		if g.File != "talon.toml" {
			t.Errorf("problem %d: File = %q, want talon.toml", i, g.File)
		}
		if g.Line != w.line || (w.col != 0 && g.Col != w.col) {
			t.Errorf("problem %d: at %d:%d, want %d:%d (%v)", i, g.Line, g.Col, w.line, w.col, g)
		}
		if g.Key != w.key {
			t.Errorf("problem %d: Key = %q, want %q", i, g.Key, w.key)
		}
		if !strings.Contains(g.Error(), w.contains) {
			t.Errorf("problem %d: %q does not contain %q", i, g.Error(), w.contains)
		}
	}
}

func TestParseStrict(t *testing.T) {
	tests := []struct {
		name  string
		input string
		wants []want
	}{
		{
			name:  "unknown top-level key",
			input: "schema_version = 1\nlocal = \"en\"\n",
			wants: []want{{2, 1, "local", `talon.toml:2:1: unknown key "local" (did you mean "locale"?); remove it or fix the spelling`}},
		},
		{
			name:  "unknown key in a nested table",
			input: "schema_version = 1\n\n[tools]\noptional = []\n\n[tools.shell]\ntimeout_second = 5\n",
			wants: []want{{7, 1, "tools.shell.timeout_second", `(did you mean "timeout_seconds"?)`}},
		},
		{
			name:  "misspelled optional",
			input: "schema_version = 1\n\n# tools\n\n[tools]\n\noptinal = []\n",
			wants: []want{{7, 1, "tools.optinal", `talon.toml:7:1: unknown key "tools.optinal" (did you mean "optional"?); remove it or fix the spelling`}},
		},
		{
			name:  "unknown key in an array of tables",
			input: "schema_version = 1\n[[plugins.entries]]\nname = \"a\"\n[[plugins.entries]]\nname = \"b\"\nfs_reed = []\n",
			wants: []want{{6, 1, "plugins.entries.fs_reed", `(did you mean "fs_read"?)`}},
		},
		{
			name:  "unknown key in a map entry",
			input: "schema_version = 1\n[risk_profiles.ci]\nlevel = \"full\"\nauto_aprove = []\n",
			wants: []want{{4, 1, "risk_profiles.ci.auto_aprove", `(did you mean "auto_approve"?)`}},
		},
		{
			name:  "unknown table",
			input: "schema_version = 1\n[toolz]\noptional = []\n",
			wants: []want{{2, 0, "toolz", `unknown table "toolz" (did you mean "tools"?)`}},
		},
		{
			name:  "several unknown keys are all reported",
			input: "schema_version = 1\nlocal = \"en\"\n[serve]\nlisten = \"127.0.0.1:1\"\nsurfce = \"chat\"\n[sandbox]\nmod = \"off\"\n",
			wants: []want{
				{2, 1, "local", `"locale"`},
				{5, 1, "serve.surfce", `"surface"`},
				{7, 1, "sandbox.mod", `"mode"`},
			},
		},
		{
			name:  "wrong type for a list",
			input: "schema_version = 1\n[tools]\noptional = \"*\"\n",
			wants: []want{{3, 12, "tools.optional", `wrong type for "tools.optional": expected an array of strings, found a string; fix the value`}},
		},
		{
			name:  "wrong type for an integer",
			input: "schema_version = 1\n[tools.shell]\ntimeout_seconds = \"60\"\n",
			wants: []want{{3, 0, "tools.shell.timeout_seconds", "expected an integer, found a string"}},
		},
		{
			name:  "wrong element type",
			input: "[sandbox]\nallow_connect_ports = [443, \"80\"]\n",
			wants: []want{{2, 0, "sandbox.allow_connect_ports", "expected an array of integers, found a string"}},
		},
		{
			name:  "wrong type for a boolean",
			input: "[receipts]\nenabled = \"yes\"\n",
			wants: []want{{2, 0, "receipts.enabled", "expected a boolean (true or false), found a string"}},
		},
		{
			name:  "wrong type for a table",
			input: "tools = 3\n",
			wants: []want{{1, 0, "tools", "expected a table, found an integer"}},
		},
		{
			name:  "syntax error",
			input: "schema_version = 1\n[tools\n",
			wants: []want{{2, 0, "", "invalid TOML"}},
		},
		{
			name:  "duplicate key",
			input: "locale = \"en\"\nlocale = \"ja\"\n",
			wants: []want{{2, 0, "locale", "already defined"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := Parse("talon.toml", []byte(tt.input))
			checkProblems(t, err, tt.wants)
		})
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name  string
		input string
		wants []want
	}{
		{
			name:  "level out of range",
			input: "[risk_profiles.default]\nlevel = \"yolo\"\n",
			wants: []want{{2, 1, "risk_profiles.default.level", `risk_profiles.default.level = "yolo" is not allowed; use one of "read_only", "supervised", "full"`}},
		},
		{
			name:  "deny_all_tools with allowed_tools",
			input: "[risk_profiles.locked]\ndeny_all_tools = true\nallowed_tools = [\"file_read\"]\n",
			wants: []want{{2, 1, "risk_profiles.locked.deny_all_tools", `risk profile "locked" sets deny_all_tools = true and a non-empty allowed_tools`}},
		},
		{
			name:  "empty command",
			input: "[tools.commands.rg]\ndescription = \"search\"\ncommand = []\n",
			wants: []want{{3, 1, "tools.commands.rg.command", `command tool "rg" has an empty command`}},
		},
		{
			name:  "missing command",
			input: "[tools.commands.rg]\ndescription = \"search\"\n",
			wants: []want{{1, 1, "tools.commands.rg.command", `command tool "rg" has an empty command`}},
		},
		{
			name:  "command tool tier",
			input: "[tools.commands.rg]\ncommand = [\"rg\"]\ntier = \"extreme\"\n",
			wants: []want{{3, 1, "tools.commands.rg.tier", `use one of "low", "medium", "high"`}},
		},
		{
			name:  "surface",
			input: "[serve]\nsurface = \"ide\"\n",
			wants: []want{{2, 1, "serve.surface", `serve.surface = "ide" is not allowed; use one of "chat", "code"`}},
		},
		{
			name:  "serve profile undefined",
			input: "[serve]\nprofile = \"ci\"\n",
			wants: []want{{2, 1, "serve.profile", `unknown risk profile "ci"; defined profiles: default`}},
		},
		{
			name:  "listen address",
			input: "[serve]\nlisten = \"localhost\"\n",
			wants: []want{{2, 1, "serve.listen", "not a host:port address"}},
		},
		{
			name:  "schema_version too new",
			input: "schema_version = 2\n",
			wants: []want{{1, 1, "schema_version", "schema_version = 2 is newer than this talon understands (1); upgrade talon"}},
		},
		{
			name:  "signature mode",
			input: "[plugins.security]\nsignature_mode = \"lenient\"\n",
			wants: []want{{2, 1, "plugins.security.signature_mode", `use one of "disabled", "permissive", "strict"`}},
		},
		{
			name:  "sandbox mode and ports",
			input: "[sandbox]\nmode = \"on\"\nallow_connect_ports = [0, 443]\nmax_processes = -1\n",
			wants: []want{
				{2, 1, "sandbox.mode", `use one of "auto", "required", "off"`},
				{3, 1, "sandbox.allow_connect_ports", "use ports from 1 to 65535"},
				{4, 1, "sandbox.max_processes", "is negative"},
			},
		},
		{
			name:  "mcp server needs command or url",
			input: "[mcp.servers.gh]\ntier = \"high\"\n[mcp.servers.both]\ncommand = \"x\"\nurl = \"http://x\"\n[mcp.servers.ok]\ncommand = \"x\"\ntools = { search = { tier = \"mild\" } }\n",
			wants: []want{
				{1, 1, "mcp.servers.gh", "has neither command nor url"},
				{3, 1, "mcp.servers.both", "sets both command and url"},
				{8, 1, "mcp.servers.ok.tools.search.tier", `use one of "low", "medium", "high"`},
			},
		},
		{
			name:  "plugin entries",
			input: "[[plugins.entries]]\nname = \"a\"\n[[plugins.entries]]\nname = \"a\"\n[[plugins.entries]]\nfs_read = []\n",
			wants: []want{
				{1, 1, "plugins.entries", `lists "a" twice`},
				{1, 1, "plugins.entries", "has no name"},
			},
		},
		{
			name:  "locale",
			input: "locale = \"not a tag\"\n",
			wants: []want{{1, 1, "locale", "not a BCP 47 language tag"}},
		},
		{
			name:  "bad glob",
			input: "[tools.tool_policy]\ndeny = [\"tool__[\"]\n",
			wants: []want{{2, 1, "tools.tool_policy.deny", "not a valid glob pattern"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := Parse("talon.toml", []byte(tt.input))
			checkProblems(t, err, tt.wants)
		})
	}
}

func TestValidateAccepts(t *testing.T) {
	tests := []struct {
		name     string
		input    string
		warnings []string
	}{
		{name: "empty file is version 0", input: "", warnings: []string{"no schema_version"}},
		{name: "current version", input: "schema_version = 1\n"},
		{
			name:     "readonly alias warns",
			input:    "schema_version = 1\n[risk_profiles.ro]\nlevel = \"readonly\"\n",
			warnings: []string{`risk_profiles.ro.level = "readonly" is deprecated; write "read_only"`},
		},
		{
			name:  "deny_all_tools with empty allowed_tools",
			input: "schema_version = 1\n[risk_profiles.x]\ndeny_all_tools = true\nallowed_tools = []\n",
		},
		{
			name:  "serve profile defined",
			input: "schema_version = 1\n[serve]\nprofile = \"ci\"\nsurface = \"code\"\n[risk_profiles.ci]\nlevel = \"read_only\"\n",
		},
		{
			name:  "command tool with schema",
			input: "schema_version = 1\n[tools.commands.rg]\ncommand = [\"rg\", \"{{ input.pattern }}\"]\nparameters = { type = \"object\", properties = { pattern = { type = \"string\" } }, required = [\"pattern\"] }\ntimeout = 10\nenv = { PATH = \"${PATH}\" }\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, warnings, err := Parse("talon.toml", []byte(tt.input))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if c == nil {
				t.Fatal("Parse returned a nil config")
			}
			if len(warnings) != len(tt.warnings) {
				t.Fatalf("warnings = %q, want %d", warnings, len(tt.warnings))
			}
			for i, w := range tt.warnings {
				if !strings.Contains(warnings[i], w) || !strings.HasPrefix(warnings[i], "talon.toml: ") {
					t.Errorf("warning %d = %q, want it to contain %q", i, warnings[i], w)
				}
			}
		})
	}
}

func TestErrorString(t *testing.T) {
	tests := []struct {
		name string
		err  Error
		want string
	}{
		{"full", Error{File: "a.toml", Line: 3, Col: 2, Key: "k", Msg: "bad"}, "a.toml:3:2: bad"},
		{"no column", Error{File: "a.toml", Line: 3, Msg: "bad"}, "a.toml:3: bad"},
		{"no file", Error{Line: 3, Col: 1, Msg: "bad"}, "3:1: bad"},
		{"no place", Error{Msg: "bad"}, "bad"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.err.Error(); got != tt.want {
				t.Errorf("Error() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestErrorsAs(t *testing.T) {
	_, _, err := Parse("talon.toml", []byte("local = 1\nsurfce = 2\n"))
	var ce *Error
	if !errors.As(err, &ce) || ce.Key != "local" {
		t.Fatalf("errors.As found %+v, want the first problem", ce)
	}
}
