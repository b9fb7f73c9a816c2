package config

import (
	"errors"
	"strings"
	"testing"
)

func TestGet(t *testing.T) {
	src := `schema_version = 1
locale = "ja"
[tools]
optional = ["calculator"]
[tools.commands.rg]
command = ["rg", "--json"]
parameters = { type = "object", properties = { pattern = { type = "string" } } }
[risk_profiles.ci]
level = "full"
allowed_commands = ["git"]
[mcp.servers.gh]
url = "https://example.com/mcp"
[sandbox]
allow_connect_ports = [443]
`
	c, _, err := Parse("talon.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		key     string
		want    string
		wantErr string
	}{
		{name: "top-level string", key: "locale", want: `"ja"`},
		{name: "explicit list", key: "tools.optional", want: `["calculator"]`},
		{name: "int default", key: "tools.shell.timeout_seconds", want: `60`},
		{name: "list of ints", key: "sandbox.allow_connect_ports", want: `[443]`},
		{name: "unset string", key: "workspace", want: `""`},
		{name: "profile level", key: "risk_profiles.ci.level", want: `"full"`},
		{name: "profile default applied", key: "risk_profiles.ci.workspace_only", want: `true`},
		{name: "profile explicit list", key: "risk_profiles.ci.allowed_commands", want: `["git"]`},
		{name: "undefined default profile", key: "risk_profiles.default.level", want: `"supervised"`},
		{name: "quoted key", key: `risk_profiles."ci".level`, want: `"full"`},
		{name: "command timeout default", key: "tools.commands.rg.timeout", want: `30`},
		{name: "free-form table", key: "tools.commands.rg.parameters.type", want: `"object"`},
		{name: "mcp default", key: "mcp.servers.gh.enabled", want: `true`},
		{name: "table", key: "tools.shell", want: `{ approval_running_notice_ms = 10000, max_output_bytes = 1048576, notify_on_exit = true, timeout_seconds = 60 }`},
		{name: "unknown key", key: "tools.optinal", wantErr: `unknown config key "tools.optinal" (did you mean "optional"?)`},
		{name: "unknown top-level", key: "serv.listen", wantErr: `(did you mean "serve"?)`},
		{name: "undefined profile", key: "risk_profiles.cj.level", wantErr: `"cj" is not set (defined: ci, default) (did you mean "ci"?)`},
		{name: "below a scalar", key: "locale.x", wantErr: `"locale" is a string, not a table`},
		{name: "bad syntax", key: "tools..optional", wantErr: "is not a dotted key"},
		{name: "empty", key: "", wantErr: "is not a dotted key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Get(c, tt.key)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.Is(err, ErrUnknownKey) {
					t.Fatalf("err = %v, want ErrUnknownKey containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s := FormatValue(got); s != tt.want {
				t.Errorf("Get(%q) = %s, want %s", tt.key, s, tt.want)
			}
		})
	}
}

func TestGetNilConfig(t *testing.T) {
	v, err := Get(nil, "serve.listen")
	if err != nil || v != DefaultListen {
		t.Errorf("Get(nil) = %v, %v", v, err)
	}
}

func TestFormatValue(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want string
	}{
		{"string", "en", `"en"`},
		{"escapes", "a\"b\\c\nd\x01", `"a\"b\\c\nd\u0001"`},
		{"unicode kept", "日本語", `"日本語"`},
		{"bool", true, `true`},
		{"int", 7, `7`},
		{"negative", int64(-3), `-3`},
		{"float", 1.0, `1.0`},
		{"float exp", 1e300, `1e+300`},
		{"strings", []string{"*"}, `["*"]`},
		{"empty list", []string{}, `[]`},
		{"nil", nil, `""`},
		{"nil pointer", (*bool)(nil), `""`},
		{"pointer", ptr(false), `false`},
		{"map sorted", map[string]any{"b": 1, "a": "x", "c d": true}, `{ a = "x", b = 1, "c d" = true }`},
		{"empty map", map[string]string{}, `{}`},
		{"struct", MCPTool{Tier: "low"}, `{ tier = "low" }`},
		{"nested", []any{[]int{1}, map[string]any{"k": []string{"v"}}}, `[[1], { k = ["v"] }]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := FormatValue(tt.in); got != tt.want {
				t.Errorf("FormatValue = %s, want %s", got, tt.want)
			}
		})
	}
}

// TestFormatValueRoundTrip checks that what FormatValue writes, SetInText
// accepts and decodes back to the same value.
func TestFormatValueRoundTrip(t *testing.T) {
	for _, key := range []string{"tools.optional", "locale", "serve.listen", "receipts.enabled", "sandbox.allow_connect_ports", "risk_profiles.default"} {
		t.Run(key, func(t *testing.T) {
			want, err := Get(Default(), key)
			if err != nil {
				t.Fatal(err)
			}
			out, err := SetInText([]byte("schema_version = 1\n"), key, FormatValue(want))
			if err != nil {
				t.Fatal(err)
			}
			c, _, err := Parse("", out)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := Get(c, key)
			if FormatValue(got) != FormatValue(want) {
				t.Errorf("round trip: %s, want %s", FormatValue(got), FormatValue(want))
			}
		})
	}
}
