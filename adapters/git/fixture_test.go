package git

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/talonhq/talon/tool"
	"github.com/talonhq/talon/workspace"
)

// needGit skips the test when no git binary is installed.
func needGit(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	return p
}

// hermetic is the environment of the fixtures' own git commands: no
// system or global config, so the machine's settings cannot leak in.
var hermetic = []string{"PATH=" + os.Getenv("PATH"), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "LC_ALL=C"}

// gitIn runs git in dir for a fixture and returns its output.
func gitIn(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = hermetic
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// writeFile writes a fixture file, creating its directory.
func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// template is a repository made once per test binary; newRepo copies it.
var template struct {
	once sync.Once
	dir  string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if template.dir != "" {
		_ = os.RemoveAll(template.dir)
	}
	os.Exit(code)
}

// newRepo makes a repository on branch main with an identity in its own
// config and two commits touching a.txt and b.txt.
func newRepo(t testing.TB) string {
	t.Helper()
	needGit(t)
	template.once.Do(func() {
		template.dir, template.err = os.MkdirTemp("", "talon-git-template-")
		if template.err != nil {
			return
		}
		dir := template.dir
		for _, step := range [][]string{
			{"init", "-q", "-b", "main"},
			{"config", "user.name", "Test Author"},
			{"config", "user.email", "author@example.com"},
			{"add", "a.txt", "b.txt"},
			{"commit", "-q", "-m", "first"},
			{"commit", "-q", "-am", "second"},
		} {
			switch step[0] {
			case "add":
				_ = os.WriteFile(filepath.Join(dir, "a.txt"), []byte("alpha\n"), 0o644)
				_ = os.WriteFile(filepath.Join(dir, "b.txt"), []byte("beta\n"), 0o644)
			case "commit":
				if step[len(step)-1] == "second" {
					_ = os.WriteFile(filepath.Join(dir, "a.txt"), []byte("alpha\nalpha two\n"), 0o644)
				}
			}
			cmd := exec.Command("git", step...)
			cmd.Dir, cmd.Env = dir, hermetic
			if out, err := cmd.CombinedOutput(); err != nil {
				template.err = fmt.Errorf("git %s: %v\n%s", strings.Join(step, " "), err, out)
				return
			}
		}
	})
	if template.err != nil {
		t.Fatal(template.err)
	}
	dir := t.TempDir()
	if err := copyTree(template.dir, dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

// copyTree copies the regular files and directories under src to dst,
// keeping their modes.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		if d.IsDir() {
			return os.MkdirAll(target, info.Mode().Perm())
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, info.Mode().Perm())
	})
}

// newTool returns the tool for dir.
func newTool(t testing.TB, dir string, opts Options) *Operations {
	t.Helper()
	root, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	return New(root, opts)
}

// run runs Execute with args.
func run(t testing.TB, op *Operations, args string) tool.Result {
	t.Helper()
	res, err := op.Execute(context.Background(), json.RawMessage(args))
	if err != nil {
		t.Fatalf("Execute(%s): %v", args, err)
	}
	return res
}
