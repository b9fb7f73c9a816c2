package git

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/talonhq/talon/adapters/shell"
	"github.com/talonhq/talon/sandbox"
)

// TestSafetyIsTheSandboxTable checks that git_operations passes every
// setting the spawner gives git, from the one table of them.
func TestSafetyIsTheSandboxTable(t *testing.T) {
	for _, kv := range sandbox.GitOverrides() {
		i := slices.Index(safety, kv)
		if i < 1 || safety[i-1] != "-c" {
			t.Errorf("git_operations does not pass -c %s", kv)
		}
	}
}

// plantedRepo is a repository whose config names a program for the file
// system monitor and for the textconv of a diff driver every .txt file
// uses, with a.txt changed so that diff has something to show. The
// program creates the returned marker.
func plantedRepo(t *testing.T) (dir, marker string) {
	t.Helper()
	dir = newRepo(t)
	outside := t.TempDir()
	marker = filepath.Join(outside, "PWNED")
	evil := filepath.Join(outside, "evil")
	writeFile(t, evil, "#!/bin/sh\ntouch '"+marker+"'\n[ -f \"$1\" ] && cat \"$1\"\nexit 0\n")
	if err := os.Chmod(evil, 0o755); err != nil {
		t.Fatal(err)
	}
	gitIn(t, dir, "config", "core.fsmonitor", evil)
	gitIn(t, dir, "config", "diff.x.textconv", evil)
	writeFile(t, filepath.Join(dir, ".git", "info", "attributes"), "*.txt diff=x\n")
	writeFile(t, filepath.Join(dir, "a.txt"), "alpha\nchanged\n")
	return dir, marker
}

func pwned(marker string) bool {
	_, err := os.Stat(marker)
	return err == nil
}

// TestShellGitRunsNoRepositoryProgram is the regression test of the
// shell tool's git: `git status` ran the repository's core.fsmonitor and
// `git diff` its diff driver's textconv. Plain git runs them (so the test
// proves what stops them); the shell tool's and git_operations' do not.
func TestShellGitRunsNoRepositoryProgram(t *testing.T) {
	needGit(t)
	for _, line := range []string{"git status", "git diff"} {
		t.Run(line, func(t *testing.T) {
			dir, marker := plantedRepo(t)
			cmd := exec.Command("git", line[4:])
			cmd.Dir, cmd.Env = dir, hermetic
			_ = cmd.Run()
			if !pwned(marker) {
				t.Fatalf("plain %s did not run the planted program, so this test proves nothing", line)
			}

			dir, marker = plantedRepo(t)
			sh, err := shell.New(shell.Options{Workspace: dir})
			if err != nil {
				t.Fatal(err)
			}
			raw, _ := json.Marshal(map[string]string{"command": line})
			res, err := sh.Execute(context.Background(), raw)
			if err != nil {
				t.Fatal(err)
			}
			if pwned(marker) {
				t.Errorf("the shell tool's %s ran the repository's program: %+v", line, res)
			}
		})
	}
	for _, op := range []string{"status", "diff"} {
		t.Run("git_operations "+op, func(t *testing.T) {
			dir, marker := plantedRepo(t)
			res := run(t, newTool(t, dir, Options{}), `{"operation":"`+op+`"}`)
			if pwned(marker) {
				t.Errorf("git_operations %s ran the repository's program: %+v", op, res)
			}
		})
	}
}
