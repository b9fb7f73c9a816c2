package runtime

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/tool"
)

// BenchmarkDispatch measures the pipeline's overhead: a no-op tool called
// through Runtime.Call (lookup, arguments, schema, assessment, policy) against
// the same tool's Execute called directly. Compare the two with benchstat;
// the budget is < 20 µs per call of overhead.
func BenchmarkDispatch(b *testing.B) {
	f := &fake{name: "t_nop", tier: tool.Low}
	cfg := &config.Config{}
	none := []string{}
	cfg.Tools.Optional = &none
	rt, err := New(Options{Config: cfg, Workspace: b.TempDir(), DataDir: b.TempDir(), Tools: []tool.Tool{f}})
	if err != nil {
		b.Fatal(err)
	}
	args := json.RawMessage(`{"n":1}`)
	ctx := context.Background()
	b.Run("direct", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := f.Execute(ctx, args); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("runtime", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			res, err := rt.Call(ctx, tool.Call{Name: "t_nop", Args: args})
			if err != nil || !res.Success {
				b.Fatal(err, res)
			}
		}
	})
}
