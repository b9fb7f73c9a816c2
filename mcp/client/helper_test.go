package client

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"
)

// helperEnv makes the test binary act as an MCP server; its value is the
// mode (see runHelper).
const helperEnv = "TALON_MCP_TEST_HELPER"

func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		os.Exit(runHelper(mode))
	}
	goleak.VerifyTestMain(m)
}

type echoArgs struct {
	Text string `json:"text"`
}

type waitArgs struct {
	Seconds float64 `json:"seconds"`
}

// runHelper is an MCP server built with the official SDK, over stdio.
// Modes: "serve" (tools below), "exit" (dies at once, like a server that
// fails to start), "hang" (never answers).
func runHelper(mode string) int {
	switch mode {
	case "exit":
		fmt.Fprintln(os.Stderr, "helper: cannot start: missing credentials")
		return 3
	case "hang":
		time.Sleep(time.Minute)
		return 0
	}
	s := sdk.NewServer(&sdk.Implementation{Name: "helper", Version: "v0"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "echo", Description: "Echo the text back."},
		func(_ context.Context, _ *sdk.CallToolRequest, in echoArgs) (*sdk.CallToolResult, echoArgs, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: in.Text}}}, in, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "fail", Description: "Always fails."},
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			return nil, nil, fmt.Errorf("the helper failed on purpose")
		})
	sdk.AddTool(s, &sdk.Tool{Name: "env", Description: "Print the environment."},
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			env := os.Environ()
			sort.Strings(env)
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: strings.Join(env, "\n")}}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "wait", Description: "Wait, or until cancelled."},
		func(ctx context.Context, _ *sdk.CallToolRequest, in waitArgs) (*sdk.CallToolResult, any, error) {
			select {
			case <-time.After(time.Duration(in.Seconds * float64(time.Second))):
				return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "waited"}}}, nil, nil
			case <-ctx.Done():
				fmt.Fprintln(os.Stderr, "helper: wait cancelled")
				return nil, nil, ctx.Err()
			}
		})
	sdk.AddTool(s, &sdk.Tool{Name: "crash", Description: "Exit the process."},
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			os.Exit(7)
			return nil, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "grow", Description: "Add a tool named added."},
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			sdk.AddTool(s, &sdk.Tool{Name: "added", Description: "Added at run time."},
				func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
					return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "new"}}}, nil, nil
				})
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "grown"}}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "dotted.name", Description: "A name that needs sanitizing."},
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "dotted"}}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: strings.Repeat("x", 60), Description: "Too long once prefixed."},
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{}, nil, nil
		})
	fmt.Fprintln(os.Stderr, "helper: ready")
	if err := s.Run(context.Background(), &sdk.StdioTransport{}); err != nil {
		return 1
	}
	return 0
}
