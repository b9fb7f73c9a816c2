package runtime_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/runtime"
	"github.com/talonhq/talon/tool"
)

// greet is a tool from a source other than the compiled-in registry.
type greet struct{}

func (greet) Spec() tool.Spec {
	return tool.Spec{
		Name:        "tool__greet",
		Description: "Say hello.",
		Input:       json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`),
		Tier:        tool.Low,
		Attribution: tool.Attribution{Kind: tool.KindCommand, Alias: "greet"},
	}
}

func (greet) Execute(_ context.Context, args json.RawMessage) (tool.Result, error) {
	var a struct{ Name string }
	if err := json.Unmarshal(args, &a); err != nil {
		return tool.Result{}, err
	}
	return tool.Text("hello, " + a.Name), nil
}

func ExampleRuntime_Call() {
	ws, _ := os.MkdirTemp("", "ws")
	defer os.RemoveAll(ws)
	minimal := []string{}
	cfg := &config.Config{Tools: config.Tools{Optional: &minimal}}

	rt, err := runtime.New(runtime.Options{Config: cfg, Workspace: ws, Tools: []tool.Tool{greet{}}})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := rt.Call(context.Background(), tool.Call{Name: "tool__greet", Args: json.RawMessage(`{"name":"talon"}`)})
	fmt.Println(res.Success, res.Output.Text, err)

	// A schema failure is a result for the model, not a Go error.
	res, err = rt.Call(context.Background(), tool.Call{Name: "tool__greet", Args: json.RawMessage(`{}`)})
	fmt.Println(res.Success, err)

	// An unknown tool is a hard error.
	_, err = rt.Call(context.Background(), tool.Call{Name: "tool__gret"})
	fmt.Println(err)
	// Output:
	// true hello, talon <nil>
	// false <nil>
	// unknown tool "tool__gret" (did you mean "tool__greet"?); run `talon tools list` to see the catalog
}

func ExampleRuntime_Explain() {
	ws, _ := os.MkdirTemp("", "ws")
	defer os.RemoveAll(ws)
	minimal := []string{}
	cfg := &config.Config{Tools: config.Tools{Optional: &minimal}}
	rt, _ := runtime.New(runtime.Options{Config: cfg, Workspace: ws, Tools: []tool.Tool{greet{}}})
	ex, _, _ := rt.Explain(context.Background(), tool.Call{Name: "tool__greet", Args: json.RawMessage(`{"name":"x"}`)})
	fmt.Println(ex.Tier, ex.Decision, ex.Why)
	// Output: low allow low risk
}
