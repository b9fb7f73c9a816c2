package client

import (
	"encoding/json"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/tool"
)

// FuzzWrap feeds tool definitions as a server could send them: any name,
// any schema. Wrapping never panics, and a wrapped tool always has a valid
// name, an object schema and the server's attribution.
func FuzzWrap(f *testing.F) {
	for _, seed := range []struct{ name, schema string }{
		{"echo", `{"type":"object","properties":{"text":{"type":"string"}}}`},
		{"dotted.name", `{}`},
		{"ünïcode tool", `{"type":"object"}`},
		{"", `null`},
		{"x", `{"type":"array"}`},
		{"y", `[1,2]`},
		{"a/b\\c", `{"type":"object","required":["q"]}`},
	} {
		f.Add(seed.name, []byte(seed.schema))
	}
	r := &remote{name: "srv", cfg: config.MCPServer{Tools: map[string]config.MCPTool{"echo": {Tier: "low"}}}}
	f.Fuzz(func(t *testing.T, name string, schema []byte) {
		var in any
		if json.Unmarshal(schema, &in) != nil {
			in = nil
		}
		rt, err := r.wrap(&sdk.Tool{Name: name, InputSchema: in})
		if err != nil {
			return
		}
		s := rt.Spec()
		if verr := tool.ValidateName(s.Name); verr != nil {
			t.Fatalf("wrapped %q as invalid name %q: %v", name, s.Name, verr)
		}
		if s.Attribution != (tool.Attribution{Kind: tool.KindMCP, Alias: "srv"}) {
			t.Fatalf("attribution %v", s.Attribution)
		}
		var m map[string]any
		if err := json.Unmarshal(s.Input, &m); err != nil || m == nil {
			t.Fatalf("schema %s is not an object", s.Input)
		}
		if typ, ok := m["type"]; ok && typ != "object" {
			t.Fatalf("schema type %v", typ)
		}
	})
}
