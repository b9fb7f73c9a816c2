//go:build unix

package shellparse

import (
	"strings"
	"testing"

	"github.com/talonhq/talon/tool"
)

// TestContainmentFindings holds one case per finding of the containment
// review: each line ran something, wrote a file or changed the system while
// rated low (or medium for git's remote and destructive commands).
func TestContainmentFindings(t *testing.T) {
	env := newTestEnv(t)
	def := env.analyzer(t, nil)
	all := env.analyzer(t, []string{"*"})
	tests := []struct {
		name    string
		line    string
		a       *Analyzer
		tier    tool.Tier
		allowed bool
		reason  string
	}{
		{name: "git config through the environment", line: "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0='touch PWNED' git status",
			a: def, tier: tool.High, reason: "assigning GIT_CONFIG_COUNT is not allowed"},
		{name: "git external diff through the environment", line: `GIT_EXTERNAL_DIFF='sh -c "id > PWNED"' git diff`,
			a: def, tier: tool.High, reason: "assigning GIT_EXTERNAL_DIFF is not allowed"},
		{name: "git trace file", line: "GIT_TRACE=FILE git status", a: def, tier: tool.High, reason: "assigning GIT_TRACE is not allowed"},
		{name: "environment variable through env", line: "env GIT_DIR=/tmp/x git status", a: def, tier: tool.High, reason: "assigning GIT_DIR is not allowed"},
		{name: "sort abbreviated compress-program", line: "sort -S 1k --com=sh", a: def, tier: tool.High, allowed: true, reason: "--compress-program"},
		{name: "sort abbreviated output", line: "sort --outp=FILE", a: def, tier: tool.High, allowed: true, reason: "writes a file"},
		{name: "date abbreviated set", line: "date --se=2020-01-01", a: def, tier: tool.High, allowed: true, reason: "--set"},
		{name: "hostname abbreviated file", line: "hostname --fi=FILE", a: def, tier: tool.High, allowed: true, reason: "--file"},
		{name: "sort planting git config", line: "LC_ALL=C sort --outp=.git/config <<'EOF'\n[core]\n\tfsmonitor = touch PWNED\nEOF\n", a: def, tier: tool.High, allowed: true, reason: "writes a file"},
		{name: "uniq output after double dash", line: "uniq -- a.txt -out", a: def, tier: tool.High, allowed: true, reason: "writes a file"},
		{name: "git push force", line: "git push --force", a: def, tier: tool.High, allowed: true, reason: `"git push`},
		{name: "git pull", line: "git pull", a: def, tier: tool.High, allowed: true, reason: `"git pull"`},
		{name: "git fetch", line: "git fetch", a: def, tier: tool.High, allowed: true, reason: `"git fetch"`},
		{name: "git reset hard", line: "git reset --hard", a: def, tier: tool.High, allowed: true, reason: "--hard"},
		{name: "git clean", line: "git clean -fdx", a: def, tier: tool.High, allowed: true, reason: `"git clean`},
		{name: "talon by name", line: "talon approvals approve 01J", a: all, tier: tool.High, reason: "runs talon itself"},
		{name: "talon through a wrapper", line: "env nice talon approvals approve 01J", a: all, tier: tool.High, reason: "runs talon itself"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.a.Analyze(tt.line)
			reasons := strings.Join(got.Reasons, "\n")
			if got.Tier != tt.tier || got.Allowed != tt.allowed {
				t.Errorf("Analyze(%q) = %v allowed=%v, want %v allowed=%v\n%s", tt.line, got.Tier, got.Allowed, tt.tier, tt.allowed, reasons)
			}
			if !strings.Contains(reasons, tt.reason) {
				t.Errorf("Analyze(%q) reasons lack %q:\n%s", tt.line, tt.reason, reasons)
			}
		})
	}
}
