package git_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/talonhq/talon/adapters/git"
	"github.com/talonhq/talon/workspace"
)

// exampleRepo makes a repository with one commit and one new file.
func exampleRepo() (string, func()) {
	dir, err := os.MkdirTemp("", "talon-git-example-")
	if err != nil {
		panic(err)
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null"}
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"},
		{"config", "user.name", "Example"},
		{"config", "user.email", "example@example.com"},
		{"commit", "-q", "--allow-empty", "-m", "start"},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = dir, env
		if out, err := cmd.CombinedOutput(); err != nil {
			panic(fmt.Sprintf("git %v: %v\n%s", args, err, out))
		}
	}
	_ = os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("hello\n"), 0o644)
	return dir, func() { os.RemoveAll(dir) }
}

func ExampleOperations_Execute() {
	dir, cleanup := exampleRepo()
	defer cleanup()
	root, err := workspace.New(dir)
	if err != nil {
		panic(err)
	}
	ops := git.New(root, git.Options{})
	ctx := context.Background()

	res, _ := ops.Execute(ctx, json.RawMessage(`{"operation":"status"}`))
	fmt.Print(res.Output.Text)
	res, _ = ops.Execute(ctx, json.RawMessage(`{"operation":"add","paths":["notes.txt"]}`))
	fmt.Println(res.Output.Text)
	// Output:
	// ## main
	// ?? notes.txt
	// done: git add -- notes.txt
}

func ExampleOperations_Assess() {
	dir, cleanup := exampleRepo()
	defer cleanup()
	root, _ := workspace.New(dir)
	ops := git.New(root, git.Options{})

	as, _ := ops.Assess(json.RawMessage(`{"operation":"commit","message":"add notes"}`))
	fmt.Println(as.Tier)
	fmt.Println(as.Plan.Summary)
	as, _ = ops.Assess(json.RawMessage(`{"operation":"log","ref":"--output=/tmp/x"}`))
	fmt.Println(as.Denied)
	// Output:
	// medium
	// git commit --no-verify --no-gpg-sign '--message=add notes'
	// true
}
