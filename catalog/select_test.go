package catalog

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/talonhq/talon/tool"
	"github.com/talonhq/talon/toolfactory"
)

// fixture: every core name compiled in, two extras compiled in, one extra
// that exists only in builds with a tag.
var (
	fixtureKnown = func() []toolfactory.Entry {
		var k []toolfactory.Entry
		for _, n := range Core(SurfaceChat) {
			k = append(k, toolfactory.Entry{Name: n, Feature: toolfactory.FeatureCore})
		}
		return append(k,
			toolfactory.Entry{Name: "calculator", Feature: toolfactory.FeatureCore},
			toolfactory.Entry{Name: "cron_list", Feature: toolfactory.FeatureCore},
			toolfactory.Entry{Name: "web_search", Feature: "tools-external", Tag: "talon_tools_external"},
		)
	}()
	fixtureRegistered = func() []toolfactory.Factory {
		var r []toolfactory.Factory
		for _, e := range fixtureKnown {
			if e.Tag != "" {
				continue // compiled out
			}
			f := toolfactory.Factory{Name: e.Name, Tier: tool.Low, New: newNop(e.Name)}
			if slices.Contains(memoryTools, e.Name) {
				f.Surfaces = []string{SurfaceChat}
			}
			r = append(r, f)
		}
		return r
	}()
)

type nop struct{ name string }

func (n nop) Spec() tool.Spec {
	return tool.Spec{Name: n.name, Tier: tool.Low, Input: json.RawMessage(`{"type":"object"}`),
		Attribution: tool.Attribution{Kind: tool.KindBuiltin, Alias: n.name}}
}
func (n nop) Execute(context.Context, json.RawMessage) (tool.Result, error) {
	return tool.Text("ok"), nil
}

func newNop(name string) func(toolfactory.Env) (tool.Tool, error) {
	return func(toolfactory.Env) (tool.Tool, error) { return nop{name}, nil }
}

func list(s ...string) *[]string { return &s }

func TestSelect(t *testing.T) {
	chat := Core(SurfaceChat)
	code := Core(SurfaceCode)
	full := []string{"calculator", "content_search", "cron_list", "file_edit", "file_read", "file_write",
		"git_operations", "glob_search", "memory_forget", "memory_recall", "memory_store", "shell", "web_fetch"}
	fullCode := slices.DeleteFunc(slices.Clone(full), func(n string) bool { return slices.Contains(memoryTools, n) })
	plus := func(base []string, extra ...string) []string {
		out := append(slices.Clone(base), extra...)
		slices.Sort(out)
		return slices.Compact(out)
	}

	tests := []struct {
		name     string
		optional *[]string
		surface  string
		want     []string
		wantFull bool
		wantDiag []string // names with a diagnostic
		wantErr  string
	}{
		{name: "missing key is full", optional: nil, want: full, wantFull: true},
		{name: "star is full", optional: list("*"), want: full, wantFull: true},
		{name: "empty is minimal chat", optional: list(), want: chat},
		{name: "empty is minimal code", optional: list(), surface: SurfaceCode, want: code},
		{name: "names add to minimal", optional: list("calculator", "cron_list"), want: plus(chat, "calculator", "cron_list")},
		{name: "core name listed is not duplicated", optional: list("shell", "calculator", "calculator"), want: plus(chat, "calculator")},
		{name: "star with names is star", optional: list("calculator", "*"), want: full, wantFull: true},
		{name: "star on code has no memory", optional: list("*"), surface: SurfaceCode, want: fullCode, wantFull: true},
		{name: "missing key on code has no memory", optional: nil, surface: SurfaceCode, want: fullCode, wantFull: true},
		{name: "memory named on code is left out with a note", optional: list("memory_store"), surface: SurfaceCode, want: code, wantDiag: []string{"memory_store"}},
		{name: "compiled out name warns once", optional: list("web_search", "web_search"), want: chat, wantDiag: []string{"web_search"}},
		{name: "star is silent about compiled out", optional: list("*"), want: full, wantFull: true},
		{name: "star plus compiled out warns", optional: list("*", "web_search"), want: full, wantFull: true, wantDiag: []string{"web_search"}},
		{name: "unknown name with suggestion", optional: list("calculater"), wantErr: `"calculater" (did you mean "calculator"?)`},
		{name: "unknown name without suggestion", optional: list("teleport"), wantErr: `"teleport"`},
		{name: "empty name", optional: list(""), wantErr: "empty name"},
		{name: "bad surface", optional: nil, surface: "ide", wantErr: "unknown surface"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sel, err := Select(SelectOptions{Optional: tt.optional, Surface: tt.surface, Known: fixtureKnown, Registered: fixtureRegistered})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := sel.Names(); !slices.Equal(got, tt.want) {
				t.Errorf("names = %v\nwant    %v", got, tt.want)
			}
			if sel.Full != tt.wantFull {
				t.Errorf("Full = %v, want %v", sel.Full, tt.wantFull)
			}
			var diag []string
			for _, d := range sel.Diagnostics {
				diag = append(diag, d.Name)
			}
			if !slices.Equal(diag, tt.wantDiag) {
				t.Errorf("diagnostics for %v, want %v (%v)", diag, tt.wantDiag, sel.Diagnostics)
			}
		})
	}
}

func TestSelectUnknownIsErrUnknownTool(t *testing.T) {
	_, err := Select(SelectOptions{Optional: list("nope"), Known: fixtureKnown, Registered: fixtureRegistered})
	if !errors.Is(err, ErrUnknownTool) {
		t.Fatalf("err = %v", err)
	}
}

func TestCompiledOutDiagnosticSaysHowToBuild(t *testing.T) {
	sel, err := Select(SelectOptions{Optional: list("web_search"), Known: fixtureKnown, Registered: fixtureRegistered})
	if err != nil {
		t.Fatal(err)
	}
	msg := sel.Diagnostics[0].Message
	for _, want := range []string{"web_search", `"tools-external" feature`, "build tag talon_tools_external", "`go build $(go run ./xtask generate features --add tools-external --format flags) ./cmd/talon`"} {
		if !strings.Contains(msg, want) {
			t.Errorf("diagnostic %q does not mention %q", msg, want)
		}
	}
}

func TestCoreSets(t *testing.T) {
	if n := len(Core(SurfaceChat)); n != 11 {
		t.Errorf("chat core has %d tools, want 11", n)
	}
	code := Core(SurfaceCode)
	if len(code) != 8 {
		t.Errorf("code core has %d tools, want 8", len(code))
	}
	for _, m := range memoryTools {
		if slices.Contains(code, m) {
			t.Errorf("code core contains %s", m)
		}
	}
}
