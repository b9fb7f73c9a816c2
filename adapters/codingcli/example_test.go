package codingcli_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/talonhq/talon/adapters/codingcli"
)

func ExampleCLI_Execute_notInstalled() {
	workspace, _ := os.MkdirTemp("", "talon-codingcli-example-")
	defer os.RemoveAll(workspace)
	cli, err := codingcli.New(codingcli.ClaudeCode, codingcli.Options{Workspace: workspace, PATH: "/nonexistent"})
	if err != nil {
		panic(err)
	}
	res, _ := cli.Execute(context.Background(), json.RawMessage(`{"prompt":"Explain main.go"}`))
	fmt.Println(res.Error)
	// Output:
	// claude_code: the Claude Code CLI is not installed: claude is not in PATH; install it (npm install -g @anthropic-ai/claude-code), or the operator sets [tools.coding_cli.claude_code] binary to its full path; nothing ran
}
