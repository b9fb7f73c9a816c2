package plugins

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/talonhq/talon/plugins/manifest"
	"github.com/talonhq/talon/tool"
)

// BenchmarkExecute measures what the loader's wrapper adds to a call:
// calling a plugin tool directly (raw) and through the wrapper that gives
// it its final name and tier (talon).
func BenchmarkExecute(b *testing.B) {
	inner := fakeTool{tool.Spec{Name: "t", Tier: tool.Low, Input: json.RawMessage(`{"type":"object"}`)}}
	r := &Report{Name: "p", Manifest: &manifest.Manifest{Kind: manifest.KindWASM}, TierFloor: tool.Medium}
	wrapped := wrap(inner, "p_t", r)
	ctx := context.Background()
	args := json.RawMessage(`{}`)
	for _, c := range []struct {
		name string
		t    tool.Tool
	}{{"raw", inner}, {"talon", wrapped}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.t.Execute(ctx, args); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
