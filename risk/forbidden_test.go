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
	for _, tt := range tests {
		v := prof.Decide(Input{Tool: "shell", Assessment: tool.Assessment{Tier: tool.Low, Paths: []string{tt.path}}})
		if v.Decision != tt.want {
			t.Errorf("%s: %s (%s), want %s", tt.path, v.Decision, v.Why, tt.want)
		}
		if tt.want == Deny && !strings.Contains(v.Why, "forbidden path") {
			t.Errorf("%s: reason %q does not say the path is forbidden", tt.path, v.Why)
		}
	}
}
