package process_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/talonhq/talon/adapters/process"
	"github.com/talonhq/talon/adapters/shell"
	"github.com/talonhq/talon/tool"
)

func Example() {
	dir, _ := os.MkdirTemp("", "process-example")
	defer func() { _ = os.RemoveAll(dir) }()
	m := shell.NewManager(shell.ManagerOptions{})
	defer func() { _ = m.Close() }()
	t, err := process.New(process.Options{Shell: shell.Options{Workspace: dir, Jobs: m, AllowedCommands: []string{"echo"}}})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := tool.WithCall(context.Background(), tool.Call{Name: process.Name, SessionID: "example"})
	res, _ := t.Execute(ctx, json.RawMessage(`{"action":"start","command":"echo hello"}`))
	fmt.Println(res.Output.Data.(shell.Info).ID)
	res, _ = t.Execute(ctx, json.RawMessage(`{"action":"poll","id":"p1","wait_seconds":5}`))
	fmt.Print(res.Output.Data.(shell.PollData).Stdout)
	// Output:
	// p1
	// hello
}
