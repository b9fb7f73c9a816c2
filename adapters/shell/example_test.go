//go:build unix

package shell_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/talonhq/talon/adapters/shell"
	"github.com/talonhq/talon/tool"
)

func ExampleShell_Execute() {
	dir, err := os.MkdirTemp("", "talon-shell-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	sh, err := shell.New(shell.Options{Workspace: dir})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := sh.Execute(context.Background(), json.RawMessage(`{"command": "echo hello | wc -c"}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(res.Output.Text)
	// Output:
	// 6
}

func ExampleShell_Assess() {
	sh, err := shell.New(shell.Options{Workspace: os.TempDir()})
	if err != nil {
		fmt.Println(err)
		return
	}
	a, err := sh.Assess(json.RawMessage(`{"command": "ls; curl https://example.com"}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(a.Tier, a.Denied)
	fmt.Println(a.Reasons[1])
	fmt.Println(a.Plan.Summary)
	// Output:
	// high true
	// "curl" is not allowed by policy
	// ls; curl https://example.com
}

func ExampleShell_ExecutePlan() {
	sh, err := shell.New(shell.Options{Workspace: os.TempDir()})
	if err != nil {
		fmt.Println(err)
		return
	}
	args := json.RawMessage(`{"command": "echo approved"}`)
	a, _ := sh.Assess(args)
	tampered := &tool.Plan{Summary: "echo other", Commands: a.Plan.Commands}
	res, _ := sh.ExecutePlan(context.Background(), args, tampered)
	fmt.Println(res.Success)
	res, _ = sh.ExecutePlan(context.Background(), args, a.Plan)
	fmt.Print(res.Output.Text)
	// Output:
	// false
	// approved
}
