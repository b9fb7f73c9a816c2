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
		{name: "escapes", in: tool.Text("a \"quote\"\n\tand \x01 <b>&\u2028\xff"), text: "a \"quote\"\n\tand \x01 <b>&\u2028\ufffd"},
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
			raw := appendCallResult(nil, tt.in)
			// What the official client reads.
			var got sdk.CallToolResult
			if err := json.Unmarshal(raw, &got); err != nil {
				t.Fatalf("%s: %v", raw, err)
			}
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
		})
	}
}

func TestToolJSON(t *testing.T) {
	tests := []struct {
		name    string
		spec    tool.Spec
		wantErr bool
		input   string // substring
		output  bool
	}{
		{name: "object", spec: tool.Spec{Name: "a", Input: json.RawMessage(`{"type": "object", "properties": {}}`)}, input: `"properties":{}`},
		{name: "no schema", spec: tool.Spec{Name: "b"}, input: `{"type":"object"}`},
		{name: "no type", spec: tool.Spec{Name: "c", Input: json.RawMessage(`{"properties":{"x":{"type":"string"}}}`)}, input: `"type":"object"`},
		{name: "array schema", spec: tool.Spec{Name: "d", Input: json.RawMessage(`{"type":"array"}`)}, wantErr: true},
		{name: "not json", spec: tool.Spec{Name: "e", Input: json.RawMessage(`[`)}, wantErr: true},
		{name: "output object", spec: tool.Spec{Name: "f", Output: json.RawMessage(`{"type":"object"}`)}, output: true},
		{name: "output array dropped", spec: tool.Spec{Name: "g", Output: json.RawMessage(`{"type":"array"}`)}},
		{name: "bad name", spec: tool.Spec{Name: "h i"}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.spec.Description = "Does \"things\"."
			tt.spec.Tier = tool.Medium
			tt.spec.Attribution = tool.Attribution{Kind: tool.KindWASM, Alias: "x"}
			raw, err := toolJSON(tt.spec)
			if tt.wantErr {
				if err == nil {
					t.Fatalf("accepted: %s", raw)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got sdk.Tool
			if err := json.Unmarshal(raw, &got); err != nil {
				t.Fatalf("%s: %v", raw, err)
			}
			if got.Name != tt.spec.Name || got.Description != tt.spec.Description {
				t.Fatalf("tool = %+v", got)
			}
			if got.Meta[MetaTier] != "medium" || got.Meta[MetaAttribution] != "wasm.x" {
				t.Fatalf("meta = %v", got.Meta)
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

func TestFailedResultCarriesNoReceipt(t *testing.T) {
	if raw := appendCallResult(nil, tool.Failure("x")); strings.Contains(string(raw), MetaReceipt) {
		t.Fatalf("result = %s", raw)
	}
}
