package wasm

import (
	"testing"

	"github.com/talonhq/talon/internal/pluginbuild"
	"github.com/talonhq/talon/plugins"
)

func TestPoolSize(t *testing.T) {
	l, _ := mustLoad(t, New(Options{}), fixture{name: "wat-echo", wasm: pluginbuild.WAT(t, "../examples/wat-echo/echo.wat")})
	p, ok := l.(plugins.Pooled)
	if !ok {
		t.Fatal("a WASM plugin does not report its pool")
	}
	if res := call(t, l, "echo_args", `{}`); !res.Success {
		t.Fatal(res.Error)
	}
	if idle, inUse := p.PoolSize(); idle != 1 || inUse != 0 {
		t.Fatalf("after one call: %d idle, %d in use; want 1 and 0", idle, inUse)
	}
}
