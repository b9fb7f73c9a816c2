//go:build talon_testtools

// Package echo is a no-op tool for tests and benchmarks: it returns its
// arguments. It is compiled in only with the talon_testtools build tag
// (feature "testtools"), which no release selection includes.
package echo

import (
	"context"
	"encoding/json"

	"github.com/talonhq/talon/tool"
	"github.com/talonhq/talon/toolfactory"
)

// Echo returns its arguments as text.
type Echo struct{}

var _ tool.Tool = Echo{}

func init() {
	toolfactory.Register(toolfactory.Factory{
		Name: "echo",
		Tier: tool.Low,
		New:  func(toolfactory.Env) (tool.Tool, error) { return Echo{}, nil },
	})
}

// Spec describes echo.
func (Echo) Spec() tool.Spec {
	return tool.Spec{
		Name:        "echo",
		Description: "Return the arguments unchanged.",
		Input:       json.RawMessage(`{"type":"object"}`),
		Tier:        tool.Low,
		Attribution: tool.Attribution{Kind: tool.KindBuiltin, Alias: "echo"},
	}
}

// Execute returns args as the result text.
func (Echo) Execute(_ context.Context, args json.RawMessage) (tool.Result, error) {
	return tool.Text(string(args)), nil
}
