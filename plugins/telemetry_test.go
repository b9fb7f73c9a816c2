package plugins

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/talonhq/talon/plugins/manifest"
	"github.com/talonhq/talon/tool"
)

type stubTool struct{ fail bool }

func (stubTool) Spec() tool.Spec {
	return tool.Spec{Name: "greet", Input: json.RawMessage(`{"type":"object"}`), Attribution: tool.Attribution{Kind: tool.KindWASM, Alias: "hello"}}
}

func (s stubTool) Execute(context.Context, json.RawMessage) (tool.Result, error) {
	if s.fail {
		return tool.Result{}, errors.New("trap")
	}
	return tool.Text("hi"), nil
}

func TestPluginCallSpans(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	defer tp.Shutdown(context.Background())
	prev := otel.GetTracerProvider()
	otel.SetTracerProvider(tp)
	defer otel.SetTracerProvider(prev)

	r := &Report{Name: "hello", Manifest: &manifest.Manifest{Kind: manifest.KindWASM}}
	tests := []struct {
		name   string
		traced bool
		fail   bool
		spans  int
	}{
		{"untraced call", false, false, 0},
		{"traced call", true, false, 1},
		{"traced failure", true, true, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(rec.Ended())
			ctx := context.Background()
			w := wrap(stubTool{fail: tt.fail}, "greet", r)
			if tt.traced {
				c, span := tp.Tracer("test").Start(ctx, "execute_tool greet")
				_, _ = w.Execute(c, nil)
				span.End()
			} else {
				_, _ = w.Execute(ctx, nil)
			}
			var plugin []sdktrace.ReadOnlySpan
			for _, s := range rec.Ended()[before:] {
				if s.Name() == "plugin_call greet" {
					plugin = append(plugin, s)
				}
			}
			if len(plugin) != tt.spans {
				t.Fatalf("%d plugin spans, want %d", len(plugin), tt.spans)
			}
			if tt.spans == 1 {
				s := plugin[0]
				if !s.Parent().IsValid() {
					t.Error("the plugin span has no parent")
				}
				attrs := map[string]string{}
				for _, kv := range s.Attributes() {
					attrs[string(kv.Key)] = kv.Value.Emit()
				}
				if attrs["talon.attribution"] != "wasm.hello" || attrs["talon.tool"] != "greet" {
					t.Errorf("attributes %v", attrs)
				}
				if got := s.Status().Code.String(); (got == "Error") != tt.fail {
					t.Errorf("status %s for a call that failed=%v", got, tt.fail)
				}
			}
		})
	}
}

type pooled struct{ idle, inUse int }

func (pooled) Tools() []tool.Tool            { return nil }
func (pooled) Close(context.Context) error   { return nil }
func (p pooled) PoolSize() (idle, inUse int) { return p.idle, p.inUse }

type unpooled struct{}

func (unpooled) Tools() []tool.Tool          { return nil }
func (unpooled) Close(context.Context) error { return nil }

func TestPools(t *testing.T) {
	s := &Set{
		loaded:  []Loaded{pooled{2, 1}, unpooled{}, pooled{0, 0}},
		Plugins: []*Report{{Name: "zeta", Manifest: &manifest.Manifest{Kind: manifest.KindWASM}}, {Name: "proc", Manifest: &manifest.Manifest{Kind: manifest.KindProcess}}, {Name: "alpha", Manifest: &manifest.Manifest{Kind: manifest.KindWASM}}},
	}
	got := s.Pools()
	want := []Pool{{"wasm.alpha", 0, 0}, {"wasm.zeta", 2, 1}}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("Pools = %+v, want %+v", got, want)
	}
}
