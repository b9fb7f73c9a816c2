package risk

import (
	"testing"

	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/tool"
)

// BenchmarkDecide measures the decision step alone (profile filters, paths,
// tier table, always_ask) for a typical medium call.
func BenchmarkDecide(b *testing.B) {
	prof, err := NewProfile("p", config.RiskProfile{
		AutoApprove: []string{"memory_store"}, AlwaysAsk: []string{"file_edit"},
		ExcludedTools: []string{"shell"}, ForbiddenPaths: []string{"/ws/secrets", "/ws/**/*.pem"},
	})
	if err != nil {
		b.Fatal(err)
	}
	in := Input{Tool: "file_write", Channel: tool.ChannelMCP, Assessment: tool.Assessment{Tier: tool.Medium, Paths: []string{"/ws/notes/today.md"}}}
	b.ReportAllocs()
	for b.Loop() {
		if v := prof.Decide(in); v.Decision != Ask {
			b.Fatal(v)
		}
	}
}
