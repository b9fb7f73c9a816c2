//go:build wasip1

// Command bench-echo is the benchmark plugin: one tool that decodes its
// JSON arguments and returns them as structured content.
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o bench-echo.wasm .
package main

import (
	"encoding/json"

	"github.com/talonhq/talon/plugins/pdk"
)

func init() {
	pdk.Register(pdk.Tool{
		Name:        "echo",
		Description: "Return the arguments.",
		Tier:        pdk.Low,
		Handler: func(args json.RawMessage) (pdk.Result, error) {
			var v map[string]any
			if err := json.Unmarshal(args, &v); err != nil {
				return pdk.Result{}, err
			}
			return pdk.JSON(v)
		},
	})
}

func main() {}
