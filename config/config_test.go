package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

func ptr[T any](v T) *T { return &v }

// fakeEnv returns a getenv over a fixed map.
func fakeEnv(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func TestDefaultDecodes(t *testing.T) {
	c := Default()
	warnings, err := c.Validate()
	if err != nil || len(warnings) > 0 {
		t.Fatalf("embedded defaults: warnings %q, error %v", warnings, err)
	}
	if c.SchemaVersion != SchemaVersion {
		t.Errorf("SchemaVersion = %d, want %d", c.SchemaVersion, SchemaVersion)
	}
	if c.ConfigDir() != "" || c.Path() != "" {
		t.Errorf("embedded config has a path: %q", c.Path())
	}
	c.Locale = "changed"
	if Default().Locale != "" {
		t.Error("Default returned a shared value")
	}
}

// TestDefaultsAgree checks that the embedded defaults.toml, the zero Config
// seen through Get and the accessor methods say the same thing.
func TestDefaultsAgree(t *testing.T) {
	embedded, zero := Default(), &Config{}
	for key := range keyDefaults {
		if strings.Contains(key, "*") || strings.HasPrefix(key, "plugins.entries") {
			continue
		}
		t.Run(key, func(t *testing.T) {
			a, err := Get(embedded, key)
			if err != nil {
				t.Fatal(err)
			}
			b, err := Get(zero, key)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(a, b) {
				t.Errorf("defaults.toml says %s, the zero config %s", FormatValue(a), FormatValue(b))
			}
		})
	}
	for _, key := range []string{"risk_profiles.default", "serve", "tools.shell", "approvals", "receipts", "sandbox", "plugins.security"} {
		t.Run(key, func(t *testing.T) {
			a, _ := Get(embedded, key)
			b, _ := Get(zero, key)
			if !reflect.DeepEqual(a, b) {
				t.Errorf("defaults.toml says\n%s\nthe zero config\n%s", FormatValue(a), FormatValue(b))
			}
		})
	}
}

func TestAccessors(t *testing.T) {
	tests := []struct {
		name       string
		zero, want any
		got        func(c *Config) any
	}{
		{"optional", []string{"*"}, []string{"*"}, func(c *Config) any { return c.Tools.OptionalTools() }},
		{"command timeout", 30 * time.Second, 30 * time.Second, func(c *Config) any { return CommandTool{}.Timeout() }},
		{"file_read", 262144, 262144, func(c *Config) any { return c.Tools.FileRead.ByteLimit() }},
		{"shell timeout", 60 * time.Second, 60 * time.Second, func(c *Config) any { return c.Tools.Shell.Timeout() }},
		{"shell output", 1048576, 1048576, func(c *Config) any { return c.Tools.Shell.OutputLimit() }},
		{"content_search", 200, 200, func(c *Config) any { return c.Tools.ContentSearch.ResultLimit() }},
		{"glob_search", 1000, 1000, func(c *Config) any { return c.Tools.GlobSearch.ResultLimit() }},
		{"approvals", 120 * time.Second, 120 * time.Second, func(c *Config) any { return c.Approvals.Timeout() }},
		{"receipts", true, true, func(c *Config) any { return c.Receipts.Enabled() }},
		{"listen", "127.0.0.1:7357", "127.0.0.1:7357", func(c *Config) any { return c.Serve.ListenAddress() }},
		{"serve profile", "default", "default", func(c *Config) any { return c.Serve.ProfileName() }},
		{"surface", "chat", "chat", func(c *Config) any { return c.Serve.SurfaceName() }},
		{"signature mode", "permissive", "permissive", func(c *Config) any { return c.Plugins.Security.SignatureModeName() }},
		{"sandbox mode", "auto", "auto", func(c *Config) any { return c.Sandbox.ModeName() }},
		{"level", "supervised", "supervised", func(c *Config) any { p, _ := c.Profile(""); return p.LevelName() }},
		{"medium risk", true, true, func(c *Config) any { p, _ := c.Profile(""); return p.RequireApprovalForMediumRisk() }},
		{"high risk", true, true, func(c *Config) any { p, _ := c.Profile(""); return p.BlockHighRiskCommands() }},
		{"workspace only", true, true, func(c *Config) any { p, _ := c.Profile(""); return p.WorkspaceOnly() }},
		{"allowed commands", defaultAllowedCommands, defaultAllowedCommands, func(c *Config) any { p, _ := c.Profile(""); return p.AllowedCommands() }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.got(&Config{}); !reflect.DeepEqual(got, tt.zero) {
				t.Errorf("zero config: %v, want %v", got, tt.zero)
			}
			if got := tt.got(Default()); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("embedded defaults: %v, want %v", got, tt.want)
			}
		})
	}
}

func TestAccessorsExplicit(t *testing.T) {
	src := `schema_version = 1
[tools]
optional = []
[tools.commands.rg]
command = ["rg"]
timeout = 5
[tools.shell]
timeout_seconds = 9
[risk_profiles.default]
level = "readonly"
require_approval_for_medium_risk = false
block_high_risk_commands = false
workspace_only = false
allowed_commands = []
[receipts]
enabled = false
[mcp.servers.gh]
url = "https://example.com/mcp"
enabled = false
startup_timeout_seconds = 3
[[plugins.entries]]
name = "weather"
enabled = false
`
	c, _, err := Parse("talon.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	p, err := c.Profile("default")
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"optional", c.Tools.OptionalTools(), []string{}},
		{"command timeout", c.Tools.Commands["rg"].Timeout(), 5 * time.Second},
		{"shell timeout", c.Tools.Shell.Timeout(), 9 * time.Second},
		{"level alias", p.LevelName(), LevelReadOnly},
		{"medium risk", p.RequireApprovalForMediumRisk(), false},
		{"high risk", p.BlockHighRiskCommands(), false},
		{"workspace only", p.WorkspaceOnly(), false},
		{"allowed commands", p.AllowedCommands(), []string{}},
		{"receipts", c.Receipts.Enabled(), false},
		{"mcp enabled", c.MCP.Servers["gh"].Enabled(), false},
		{"mcp startup", c.MCP.Servers["gh"].StartupTimeout(), 3 * time.Second},
		{"plugin entry", c.Plugins.Entries[0].Enabled(), false},
	}
	for _, tt := range checks {
		t.Run(tt.name, func(t *testing.T) {
			if !reflect.DeepEqual(tt.got, tt.want) {
				t.Errorf("got %#v, want %#v", tt.got, tt.want)
			}
		})
	}
	if c.Tools.Optional == nil || len(*c.Tools.Optional) != 0 {
		t.Errorf("optional = [] decoded as %v, want an empty non-nil list", c.Tools.Optional)
	}
}

func TestOptionalMissingIsFull(t *testing.T) {
	for _, src := range []string{"", "[tools]\n", "[tools.shell]\ntimeout_seconds = 1\n"} {
		c, _, err := Parse("talon.toml", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		if c.Tools.Optional != nil {
			t.Errorf("%q: Optional = %v, want nil (missing)", src, *c.Tools.Optional)
		}
		if got := c.Tools.OptionalTools(); !slices.Equal(got, []string{"*"}) {
			t.Errorf("%q: OptionalTools() = %q, want [*]", src, got)
		}
	}
}

func TestProfile(t *testing.T) {
	c, _, err := Parse("talon.toml", []byte("[risk_profiles.ci]\nlevel = \"full\"\n[risk_profiles.review]\nlevel = \"read_only\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		profile   string
		wantLevel string
		wantErr   string
	}{
		{name: "empty name is default", profile: "", wantLevel: LevelSupervised},
		{name: "default always exists", profile: "default", wantLevel: LevelSupervised},
		{name: "defined", profile: "ci", wantLevel: LevelFull},
		{name: "unknown lists profiles", profile: "reveiw", wantErr: `unknown risk profile "reveiw" (did you mean "review"?); defined profiles: default, ci, review`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := c.Profile(tt.profile)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr || !errors.Is(err, ErrUnknownProfile) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.LevelName() != tt.wantLevel {
				t.Errorf("level = %q, want %q", p.LevelName(), tt.wantLevel)
			}
		})
	}
}

func TestDataDir(t *testing.T) {
	tests := []struct {
		name    string
		dataDir string
		path    string
		env     map[string]string
		want    string
	}{
		{name: "xdg", env: map[string]string{"XDG_DATA_HOME": "/xdg", "HOME": "/home/u"}, want: "/xdg/talon"},
		{name: "home fallback", env: map[string]string{"HOME": "/home/u"}, want: "/home/u/.local/share/talon"},
		{name: "relative xdg ignored", env: map[string]string{"XDG_DATA_HOME": "rel", "HOME": "/home/u"}, want: "/home/u/.local/share/talon"},
		{name: "no home", env: map[string]string{}, want: ""},
		{name: "explicit", dataDir: "/srv/talon/", env: map[string]string{"XDG_DATA_HOME": "/xdg"}, want: "/srv/talon"},
		{name: "tilde", dataDir: "~/talon-data", env: map[string]string{"HOME": "/home/u"}, want: "/home/u/talon-data"},
		{name: "relative to config", dataDir: "data", path: "/etc/talon/talon.toml", want: "/etc/talon/data"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &Config{DataDirPath: tt.dataDir, path: tt.path}
			if got := c.DataDir(fakeEnv(tt.env)); got != filepath.FromSlash(tt.want) {
				t.Errorf("DataDir = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestWorkspaceDir(t *testing.T) {
	tests := []struct {
		name      string
		workspace string
		path      string
		cwd       string
		want      string
		wantErr   bool
	}{
		{name: "cwd", cwd: "/work/proj/", want: "/work/proj"},
		{name: "absolute", workspace: "/srv/ws/../ws2", cwd: "/x", want: "/srv/ws2"},
		{name: "relative to config dir", workspace: "src", path: "/work/proj/talon.toml", cwd: "/elsewhere", want: "/work/proj/src"},
		{name: "dot", workspace: ".", path: "/work/proj/talon.toml", cwd: "/elsewhere", want: "/work/proj"},
		{name: "relative without config dir", workspace: "src", cwd: "/work", want: "/work/src"},
		{name: "relative config name", workspace: "src", path: "talon.toml", cwd: "/work", want: "/work/src"},
		{name: "unknown cwd", cwd: "", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &Config{Workspace: tt.workspace, path: tt.path}
			got, err := c.WorkspaceDir(tt.cwd)
			if tt.wantErr {
				if err == nil {
					t.Fatalf("got %q, want an error", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != filepath.FromSlash(tt.want) {
				t.Errorf("WorkspaceDir = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestDiscover(t *testing.T) {
	root := t.TempDir()
	mk := func(rel, content string) string {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	upward := mk("proj/talon.toml", "")
	explicit := mk("explicit.toml", "")
	envFile := mk("env.toml", "")
	xdg := mk("xdg/talon/config.toml", "")
	homeXDG := mk("home/.config/talon/config.toml", "")
	deep := filepath.Join(root, "proj", "a", "b")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	// A directory named talon.toml is not a config file.
	if err := os.MkdirAll(filepath.Join(root, "other", "talon.toml"), 0o755); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(root, "other")

	tests := []struct {
		name       string
		flag, cwd  string
		env        map[string]string
		want       Source
		wantErr    error
		errContain string
	}{
		{name: "flag wins", flag: explicit, cwd: deep, env: map[string]string{"TALON_CONFIG": envFile}, want: Source{explicit, OriginFlag}},
		{name: "relative flag", flag: "../../talon.toml", cwd: deep, want: Source{upward, OriginFlag}},
		{name: "env before upward", cwd: deep, env: map[string]string{"TALON_CONFIG": envFile}, want: Source{envFile, OriginEnv}},
		{name: "upward from a subdirectory", cwd: deep, env: map[string]string{"XDG_CONFIG_HOME": filepath.Join(root, "xdg")}, want: Source{upward, OriginUpward}},
		{name: "upward in cwd", cwd: filepath.Join(root, "proj"), want: Source{upward, OriginUpward}},
		{name: "xdg", cwd: outside, env: map[string]string{"XDG_CONFIG_HOME": filepath.Join(root, "xdg")}, want: Source{xdg, OriginXDG}},
		{name: "home .config", cwd: outside, env: map[string]string{"HOME": filepath.Join(root, "home")}, want: Source{homeXDG, OriginXDG}},
		{name: "embedded", cwd: outside, env: map[string]string{"XDG_CONFIG_HOME": filepath.Join(root, "none")}, want: Source{"", OriginEmbedded}},
		{name: "missing flag", flag: filepath.Join(root, "nope.toml"), cwd: deep, wantErr: ErrNotFound, errContain: "(from --config) does not exist"},
		{name: "missing env", cwd: deep, env: map[string]string{"TALON_CONFIG": filepath.Join(root, "nope.toml")}, wantErr: ErrNotFound, errContain: "(from $TALON_CONFIG) does not exist"},
		{name: "flag is a directory", flag: root, cwd: deep, wantErr: ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Discover(tt.flag, tt.cwd, fakeEnv(tt.env))
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) || !strings.Contains(err.Error(), tt.errContain) {
					t.Fatalf("err = %v, want %v containing %q", err, tt.wantErr, tt.errContain)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("Discover = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "talon.toml")
	if err := os.WriteFile(p, []byte("schema_version = 1\nworkspace = \"ws\"\n[tools]\noptional = []\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, warnings, err := Load(Source{Path: p, Origin: OriginFlag})
	if err != nil || len(warnings) != 0 {
		t.Fatalf("Load: %v %q", err, warnings)
	}
	if c.ConfigDir() != dir {
		t.Errorf("ConfigDir = %q, want %q", c.ConfigDir(), dir)
	}
	if ws, _ := c.WorkspaceDir("/elsewhere"); ws != filepath.Join(dir, "ws") {
		t.Errorf("WorkspaceDir = %q", ws)
	}

	c, _, err = Load(Source{Origin: OriginEmbedded})
	if err != nil || !reflect.DeepEqual(c, Default()) {
		t.Errorf("embedded Load = %+v, %v; want Default()", c, err)
	}

	bad := filepath.Join(dir, "bad.toml")
	if err := os.WriteFile(bad, []byte("\n\nlocal = 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, _, err = Load(Source{Path: bad})
	var ce *Error
	if !errors.As(err, &ce) || ce.File != bad || ce.Line != 3 {
		t.Errorf("Load(bad) = %v, want an *Error at %s:3", err, bad)
	}
	if _, _, err := Load(Source{Path: filepath.Join(dir, "missing.toml")}); err == nil {
		t.Error("Load of a missing file succeeded")
	}
}
