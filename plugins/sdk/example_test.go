package sdk_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/talonhq/talon/plugins/sdk"
)

// A plugin's main serves its tools; this shows the tool on its own.
func ExampleTool() {
	greet := sdk.Tool{
		Name:        "greet",
		Description: "Greets someone by name.",
		Input:       json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`),
		Tier:        "low",
		Run: func(_ context.Context, c sdk.Call) (sdk.Result, error) {
			var in struct{ Name string }
			if err := c.Bind(&in); err != nil {
				return sdk.Result{}, err
			}
			return sdk.Text("hello, " + in.Name), nil
		},
	}
	// In main: sdk.Serve(greet)
	r, _ := greet.Run(context.Background(), sdk.Call{Tool: "greet", Args: json.RawMessage(`{"name":"Ada"}`)})
	fmt.Println(r.Text)
	// Output: hello, Ada
}
