package runtime

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/tool"
)

type builtinFake struct{ *fake }

func (b builtinFake) Spec() tool.Spec {
	s := b.fake.Spec()
	s.Attribution.Kind = tool.KindBuiltin
	s.Description = "Does " + b.name + ". More text."
	return s
}

func names(specs []tool.Spec) []string {
	var out []string
	for _, s := range specs {
		out = append(out, s.Name)
	}
	return out
}

func TestDeferredDiscovery(t *testing.T) {
	cfg := &config.Config{}
	cfg.Runtime.DeferredBuiltinTools = true
	rt, _ := newRT(t, cfg, nil,
		builtinFake{&fake{name: "shell", tier: tool.Low}},
		builtinFake{&fake{name: "tool_search", tier: tool.Low}},
		builtinFake{&fake{name: "cron_add", tier: tool.Medium}},
		builtinFake{&fake{name: "weather_now", tier: tool.Low}},
		&fake{name: "mcp__thing", tier: tool.Low},
	)
	view, err := rt.View(ViewOptions{Channel: tool.ChannelMCP, Session: "s1"})
	if err != nil {
		t.Fatal(err)
	}
	if got := names(view); !slices.Equal(got, []string{"mcp__thing", "shell", "tool_search"}) {
		t.Fatalf("deferred view = %v", got)
	}
	ts := view[slices.IndexFunc(view, func(s tool.Spec) bool { return s.Name == "tool_search" })]
	if !strings.Contains(ts.Description, "\n- cron_add: ") || !strings.Contains(ts.Description, "\n- weather_now: ") {
		t.Fatalf("compact list missing: %q", ts.Description)
	}

	found, err := rt.Search(context.Background(), tool.Call{SessionID: "s1", Channel: tool.ChannelMCP}, "weather", 5)
	if err != nil || !slices.Equal(names(found), []string{"weather_now"}) {
		t.Fatalf("search = %v %v", names(found), err)
	}
	view, _ = rt.View(ViewOptions{Channel: tool.ChannelMCP, Session: "s1"})
	if !slices.Contains(names(view), "weather_now") {
		t.Fatal("activated tool not in the session's view")
	}
	other, _ := rt.View(ViewOptions{Channel: tool.ChannelMCP, Session: "s2"})
	if slices.Contains(names(other), "weather_now") {
		t.Fatal("activation leaked into another session")
	}
	shared, _ := rt.View(ViewOptions{Channel: tool.ChannelMCP, AnyActivated: true})
	if !slices.Contains(names(shared), "weather_now") {
		t.Fatal("shared view lacks an activated tool")
	}

	found, _ = rt.Search(context.Background(), tool.Call{SessionID: "s2"}, "select:cron_add, nope", 5)
	if !slices.Equal(names(found), []string{"cron_add"}) {
		t.Fatalf("select = %v", names(found))
	}
}

func TestDiscoveryNeverGrantsAndFallsBackToEager(t *testing.T) {
	// Under read_only the medium tool is neither listed nor found.
	cfg := profile("read_only")
	cfg.Runtime.DeferredBuiltinTools = true
	rt, _ := newRT(t, cfg, nil,
		builtinFake{&fake{name: "tool_search", tier: tool.Low}},
		builtinFake{&fake{name: "cron_add", tier: tool.Medium}},
		builtinFake{&fake{name: "weather_now", tier: tool.Low}},
	)
	found, _ := rt.Search(context.Background(), tool.Call{SessionID: "s"}, "select:cron_add,weather_now", 5)
	if !slices.Equal(names(found), []string{"weather_now"}) {
		t.Fatalf("search under read_only = %v", names(found))
	}

	// When policy does not allow tool_search, everything loads eagerly.
	cfg2 := profile("supervised", func(p *config.RiskProfile) { p.ExcludedTools = []string{"tool_search"} })
	cfg2.Runtime.DeferredBuiltinTools = true
	rt2, _ := newRT(t, cfg2, nil,
		builtinFake{&fake{name: "tool_search", tier: tool.Low}},
		builtinFake{&fake{name: "weather_now", tier: tool.Low}},
	)
	view, _ := rt2.View(ViewOptions{Channel: tool.ChannelMCP})
	if !slices.Equal(names(view), []string{"weather_now"}) {
		t.Fatalf("eager view = %v", names(view))
	}
}
