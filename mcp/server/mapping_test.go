package server

import (
	"encoding/json"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/talonhq/talon/tool"
)

func TestCallResult(t *testing.T) {
	tests := []struct {
		name       string
		in         tool.Result
		isError    bool
		text       string
		structured string // JSON; "" for none
		denied     bool
	}{
		{name: "text", in: tool.Text("hi"), text: "hi"},
		{name: "object data", in: tool.Result{Success: true, Output: tool.Output{Text: "2", Data: map[string]any{"value": 2}}},
			text: "2", structured: `{"value":2}`},
		{name: "data only", in: tool.Result{Success: true, Output: tool.Output{Data: map[string]int{"n": 1}}},
			text: `{"n":1}`, structured: `{"n":1}`},
		{name: "array data stays text", in: tool.Result{Success: true, Output: tool.Output{Text: "a b", Data: []string{"a", "b"}}},
			text: "a b"},
		{name: "failure", in: tool.Failure("boom"), isError: true, text: "boom"},
		{name: "denial", in: tool.Result{Error: "Denied by user.", Denied: true}, isError: true, text: "Denied by user.", denied: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := callResult(tt.in)
			if got.IsError != tt.isError {
				t.Fatalf("isError = %v", got.IsError)
			}
			if len(got.Content) != 1 || got.Content[0].(*sdk.TextContent).Text != tt.text {
				t.Fatalf("content = %#v", got.Content)
			}
			var s string
			if got.StructuredContent != nil {
				b, _ := json.Marshal(got.StructuredContent)
				s = string(b)
			}
			if s != tt.structured {
				t.Fatalf("structuredContent = %s, want %s", s, tt.structured)
			}
			if (got.Meta[MetaDenied] == true) != tt.denied {
				t.Fatalf("meta = %v", got.Meta)
			}
			if _, err := json.Marshal(got); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestMCPTool(t *testing.T) {
	tests := []struct {
		name    string
		spec    tool.Spec
		wantErr bool
		input   string // substring
		output  bool
	}{
		{name: "object", spec: tool.Spec{Name: "a", Input: json.RawMessage(`{"type":"object","properties":{}}`)}, input: `"properties"`},
		{name: "no schema", spec: tool.Spec{Name: "b"}, input: `{"type":"object"}`},
		{name: "no type", spec: tool.Spec{Name: "c", Input: json.RawMessage(`{"properties":{"x":{"type":"string"}}}`)}, input: `"type":"object"`},
		{name: "array schema", spec: tool.Spec{Name: "d", Input: json.RawMessage(`{"type":"array"}`)}, wantErr: true},
		{name: "not json", spec: tool.Spec{Name: "e", Input: json.RawMessage(`[`)}, wantErr: true},
		{name: "output object", spec: tool.Spec{Name: "f", Output: json.RawMessage(`{"type":"object"}`)}, output: true},
		{name: "output array dropped", spec: tool.Spec{Name: "g", Output: json.RawMessage(`{"type":"array"}`)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := mcpTool(tt.spec)
			if tt.wantErr {
				if err == nil {
					t.Fatal("accepted")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(got.InputSchema)
			if !strings.Contains(string(b), tt.input) {
				t.Fatalf("input schema %s lacks %s", b, tt.input)
			}
			if (got.OutputSchema != nil) != tt.output {
				t.Fatalf("output schema = %v", got.OutputSchema)
			}
		})
	}
}

func TestResultMetaCarriesNothingOnFailure(t *testing.T) {
	if m := resultMeta(tool.Failure("x")); m != nil {
		t.Fatalf("meta = %v", m)
	}
}
