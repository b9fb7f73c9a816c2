package telemetry

import (
	"context"
	"testing"

	"github.com/talonhq/talon/tool"
)

// BenchmarkMetricsOnly is a call of a no-op tool, receipts off, with the
// metrics talon serve keeps for /metrics when no OTEL_* variable is set
// (no span), against the same call without telemetry, taking turns.
func BenchmarkMetricsOnly(b *testing.B) {
	tel, err := New(context.Background(), Options{Getenv: func(string) string { return "" }})
	if err != nil {
		b.Fatal(err)
	}
	defer tel.Shutdown(context.Background())
	on := newRuntime(b, tel)
	off := newRuntime(b, nil)
	call := tool.Call{Name: "t_low"}
	b.Run("on", func(b *testing.B) {
		for range b.N {
			_, _ = on.Call(context.Background(), call)
		}
	})
	b.Run("off", func(b *testing.B) {
		for range b.N {
			_, _ = off.Call(context.Background(), call)
		}
	})
}
