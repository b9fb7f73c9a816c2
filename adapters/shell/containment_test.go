//go:build unix

package shell

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/talonhq/talon/internal/proctest"
	"github.com/talonhq/talon/tool"
)

// TestContainment runs the lines of the containment review against a real
// repository: the ones that would run a program or write a file are
// refused before anything runs, or assessed high so that policy asks.
func TestContainment(t *testing.T) {
	proctest.NeedBins(t, "git", "sort", "uniq")
	dir := t.TempDir()
	git := exec.Command("git", "init", "-q", dir)
	if out, err := git.CombinedOutput(); err != nil {
		t.Skipf("git init: %v: %s", err, out)
	}
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("b\na\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := newShell(t, Options{Workspace: dir, AllowedCommands: []string{"git", "sort", "uniq"}})
	pwned := filepath.Join(dir, "PWNED")

	refused := []struct {
		name, line, reason string
	}{
		{name: "git config from the environment", line: "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0='touch PWNED' git status",
			reason: "assigning GIT_CONFIG_COUNT is not allowed"},
		{name: "external diff from the environment", line: `GIT_EXTERNAL_DIFF='sh -c "id > PWNED"' git diff`, reason: "assigning GIT_EXTERNAL_DIFF is not allowed"},
		{name: "git trace file", line: "GIT_TRACE=PWNED git status", reason: "assigning GIT_TRACE is not allowed"},
		{name: "talon itself", line: "talon approvals approve x", reason: "runs talon itself"},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			a, err := s.Assess(call(tt.line))
			if err != nil {
				t.Fatal(err)
			}
			if !a.Denied || a.Tier != tool.High || !strings.Contains(strings.Join(a.Reasons, "\n"), tt.reason) {
				t.Fatalf("Assess(%q) = %+v, want denied naming %q", tt.line, a, tt.reason)
			}
			res, err := s.Execute(context.Background(), call(tt.line))
			if err != nil {
				t.Fatal(err)
			}
			if res.Success || !strings.Contains(res.Error, "so nothing ran") {
				t.Fatalf("Execute(%q) = %+v, want a refusal", tt.line, res)
			}
			if _, err := os.Stat(pwned); err == nil {
				t.Fatalf("%q ran: %s exists", tt.line, pwned)
			}
		})
	}

	high := []struct {
		name, line, reason string
	}{
		{name: "sort abbreviated compress-program", line: "sort -S 1k --com=sh a.txt", reason: "--compress-program"},
		{name: "sort abbreviated output", line: "sort --outp=PWNED a.txt", reason: "writes a file"},
		{name: "sort planting git config", line: "LC_ALL=C sort --outp=.git/config <<'EOF'\n[core]\n\tfsmonitor = touch PWNED\nEOF\n", reason: "writes a file"},
		{name: "uniq output after double dash", line: "uniq -- a.txt -out", reason: "writes a file"},
		{name: "git push force", line: "git push --force", reason: "changes a remote repository"},
		{name: "git reset hard", line: "git reset --hard", reason: "discards uncommitted changes"},
		{name: "git clean", line: "git clean -fdx", reason: "deletes untracked files"},
	}
	for _, tt := range high {
		t.Run(tt.name, func(t *testing.T) {
			a, err := s.Assess(call(tt.line))
			if err != nil {
				t.Fatal(err)
			}
			if a.Tier != tool.High || !strings.Contains(strings.Join(a.Reasons, "\n"), tt.reason) {
				t.Fatalf("Assess(%q) = %+v, want high naming %q", tt.line, a, tt.reason)
			}
		})
	}
}
