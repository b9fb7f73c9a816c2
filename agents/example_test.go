package agents_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/talonhq/talon/agents"
	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/models/modeltest"
	"github.com/talonhq/talon/runtime"
	"github.com/talonhq/talon/tool"
)

// An agent that reads a file through the runtime, then answers; the model
// is a scripted server.
func ExampleLoad() {
	srv := modeltest.New(modeltest.OpenAI)
	defer srv.Close()
	srv.Script("qwen2.5:7b",
		modeltest.Turn{Calls: []modeltest.Call{{Name: "file_read", Args: `{"path":"notes.txt"}`}}},
		modeltest.Turn{Text: "The launch is on Tuesday."},
	)

	dir, _ := os.MkdirTemp("", "agents-example")
	defer os.RemoveAll(dir)
	_ = os.MkdirAll(filepath.Join(dir, "agents"), 0o755)
	_ = os.WriteFile(filepath.Join(dir, "agents", "researcher.md"), []byte(`---
description: Answers questions from the workspace.
tools: [file_read]
---
Answer from the files of the workspace: {{ input }}
`), 0o644)
	_ = os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("launch: Tuesday\n"), 0o644)
	cfg, _, err := config.Parse(filepath.Join(dir, "talon.toml"), []byte(`
[models.local]
provider = "openai"
base_url = "`+srv.URL+`"
model = "qwen2.5:7b"
[agents]
dir = "agents"
model = "local"
`))
	if err != nil {
		fmt.Println(err)
		return
	}

	set, err := agents.Load(cfg, agents.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	rt, err := runtime.New(runtime.Options{Config: cfg, Workspace: dir, DataDir: dir, Tools: set.Tools})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := rt.Call(context.Background(), tool.Call{Name: "agent__researcher", Args: json.RawMessage(`{"input":"When is the launch?"}`)})
	if err != nil {
		fmt.Println(err)
		return
	}
	rep := res.Output.Data.(agents.Report)
	fmt.Println(res.Output.Text)
	fmt.Println(rep.Model, rep.Rounds, "rounds,", rep.Calls, "call")
	// Output:
	// The launch is on Tuesday.
	// local/qwen2.5:7b 2 rounds, 1 call
}
