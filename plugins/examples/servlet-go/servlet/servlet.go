//go:build wasip1

// Package servlet makes a Go program an MCP servlet: it registers tools
// and answers the two exports an Extism host calls, describe (the tools,
// as MCP's ListToolsResult) and call (a CallToolRequest in, a
// CallToolResult out). The program's main package exports them:
//
//	//go:wasmexport describe
//	func describe() int32 { return servlet.Describe() }
//
//	//go:wasmexport call
//	func call() int32 { return servlet.Call() }
package servlet

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/talonhq/talon/plugins/examples/servlet-go/kernel"
)

// Tool is one tool of the servlet.
type Tool struct {
	Name        string
	Description string
	// InputSchema is the JSON Schema of the arguments; nil means an object.
	InputSchema json.RawMessage
	// Run answers one call with the tool's arguments. An error is a failed
	// result the model reads.
	Run func(args json.RawMessage) (Result, error)
}

// Result is MCP's CallToolResult.
type Result struct {
	Content           []Content `json:"content"`
	StructuredContent any       `json:"structuredContent,omitempty"`
	IsError           bool      `json:"isError,omitempty"`
}

// Content is one item of a result.
type Content struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// Text is a successful result carrying text.
func Text(s string) Result { return Result{Content: []Content{{Type: "text", Text: s}}} }

// Errorf is a failed result.
func Errorf(format string, a ...any) Result {
	return Result{Content: []Content{{Type: "text", Text: fmt.Sprintf(format, a...)}}, IsError: true}
}

var tools = map[string]Tool{}

// Register adds a tool; call it from init.
func Register(t Tool) { tools[t.Name] = t }

type toolDoc struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

// Describe is the describe export: every tool, sorted by name.
func Describe() int32 {
	doc := struct {
		Tools []toolDoc `json:"tools"`
	}{Tools: []toolDoc{}}
	for _, t := range tools {
		schema := t.InputSchema
		if schema == nil {
			schema = json.RawMessage(`{"type":"object"}`)
		}
		doc.Tools = append(doc.Tools, toolDoc{Name: t.Name, Description: t.Description, InputSchema: schema})
	}
	sort.Slice(doc.Tools, func(i, j int) bool { return doc.Tools[i].Name < doc.Tools[j].Name })
	return output(doc)
}

// Call is the call export. A tool's failure is a result with isError; a
// request the servlet cannot read is an error (error_set), as for any
// Extism function that fails.
func Call() int32 {
	var req struct {
		Params struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"params"`
	}
	if err := json.Unmarshal(kernel.Input(), &req); err != nil {
		kernel.SetError("the call is not a CallToolRequest: " + err.Error())
		return 1
	}
	t, ok := tools[req.Params.Name]
	if !ok {
		return output(Errorf("unknown tool %q", req.Params.Name))
	}
	res, err := t.Run(req.Params.Arguments)
	if err != nil {
		res = Errorf("%v", err)
	}
	if res.Content == nil {
		res.Content = []Content{}
	}
	return output(res)
}

func output(v any) int32 {
	b, err := json.Marshal(v)
	if err != nil {
		kernel.SetError(err.Error())
		return 1
	}
	kernel.Output(b)
	return 0
}
