package risk

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/tool"
)

// TestRelativeForbiddenPaths: a relative pattern, like the documented
// "secrets/**", is relative to the workspace, and a call is denied when
// any path it names, absolute or relative to the workspace (a shell
// operand), matches. Before, relative patterns never matched the
// absolute paths tools report.
func TestRelativeForbiddenPaths(t *testing.T) {
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(ws)
	prof := mustProfile(t, config.RiskProfile{Level: "full", ForbiddenPaths: []string{"secrets/**", "*.key", "~/.kube"}})
	tests := []struct {
		path string
		want Decision
	}{
		{filepath.Join(ws, "secrets", "db.txt"), Deny},
		{filepath.Join(ws, "secrets", "a", "b"), Deny},
		{"secrets/db.txt", Deny},
		{"./secrets/../secrets/db.txt", Deny},
		{filepath.Join(ws, "server.key"), Deny},
		{filepath.Join(ws, "sub", "server.key"), Allow},
		{filepath.Join(ws, "notes.txt"), Allow},
		{filepath.Join(ws, "other", "secrets", "x"), Allow},
	}
	v := prof.Decide(Input{Tool: "file_read", Assessment: tool.Assessment{Tier: tool.Low, Paths: []string{filepath.Join(ws, "secrets", "db.txt")}}})
	if want := `denied by policy: secrets/db.txt is a forbidden path (pattern "secrets/**")`; v.Why != want {
		t.Errorf("reason %q, want %q", v.Why, want)
	}
	for _, tt := range tests {
		v := prof.Decide(Input{Tool: "shell", Assessment: tool.Assessment{Tier: tool.Low, Paths: []string{tt.path}}})
		if v.Decision != tt.want {
			t.Errorf("%s: %s (%s), want %s", tt.path, v.Decision, v.Why, tt.want)
		}
		if tt.want == Deny && !strings.Contains(v.Why, "is a forbidden path (pattern ") {
			t.Errorf("%s: reason %q does not say the path is forbidden by which pattern", tt.path, v.Why)
		}
	}
}

// TestCheckForbiddenPatterns: lint and config validate warn about every
// forbidden_paths pattern that cannot match what it seems to name, and
// about nothing else. Before, only "..", "~user" and backslashes were
// flagged: "$HOME/.ssh", " secrets/**" and "C:/keys" passed silently and
// never matched.
func TestCheckForbiddenPatterns(t *testing.T) {
	tests := []struct {
		pattern string
		want    string // a part of the message, "" for none
	}{
		{"secrets/**", ""},
		{"**/*.pem", ""},
		{"/etc/ssl/private", ""},
		{"~/.kube", ""},
		{"~", ""},
		{"./build/keys", ""},
		{"a/../b", ""},
		{"", "is empty"},
		{"   ", "is empty"},
		{"../shared/keys", "leads out of the workspace with .."},
		{"~bob/.ssh", "only ~/ means the home directory"},
		{`secrets\db.txt`, "contains a backslash"},
		{" secrets/**", "starts or ends with a space"},
		{"secrets/** ", "starts or ends with a space"},
		{"$HOME/.ssh", "environment variables are not expanded"},
		{"${XDG_CONFIG_HOME}/gh", "environment variables are not expanded"},
		{"keys/$KEY", "environment variables are not expanded"},
		{"C:/Users/me/.ssh", "a Windows drive"},
		{"**.pem", `"**" inside a name, where "**" matches like "*"`},
		{"secrets/**.txt", `"**" inside a name, where "**" matches like "*"`},
	}
	for _, tt := range tests {
		got := CheckForbiddenPatterns([]string{tt.pattern})
		if tt.want == "" {
			if len(got) != 0 {
				t.Errorf("%q: unexpected warning %v", tt.pattern, got)
			}
			continue
		}
		if len(got) != 1 || !strings.Contains(got[0].Message, tt.want) {
			t.Errorf("%q: %v, want one warning containing %q", tt.pattern, got, tt.want)
		}
	}
	cfg := config.Default()
	cfg.RiskProfiles = map[string]config.RiskProfile{
		"b": {Level: "full", ForbiddenPaths: []string{"$HOME/.ssh"}},
		"a": {Level: "full", ForbiddenPaths: []string{"secrets/**", "../x"}},
	}
	got := CheckPolicy(cfg)
	if len(got) != 2 || got[0].Profile != "a" || got[1].Profile != "b" ||
		!strings.HasPrefix(got[0].String(), "risk_profiles.a: forbidden_paths pattern \"../x\"") {
		t.Errorf("CheckPolicy = %v", got)
	}
}
