//go:build unix

package commandtool_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/talonhq/talon/approval"
	"github.com/talonhq/talon/commandtool"
	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/runtime"
	"github.com/talonhq/talon/tool"
)

// recorder approves every request and keeps it.
type recorder struct {
	mu   sync.Mutex
	reqs []approval.Request
}

func (r *recorder) Approve(_ context.Context, req approval.Request) (approval.Answer, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reqs = append(r.reqs, req)
	return approval.Yes, nil
}

// TestThroughRuntime runs a command tool through the whole pipeline: the
// runtime validates, the profile decides, the approver sees the rendered
// plan, and the tool runs exactly that plan.
func TestThroughRuntime(t *testing.T) {
	ws := t.TempDir()
	cfg, _, err := config.Parse("talon.toml", []byte(`
schema_version = 1
[tools]
optional = []
[tools.commands.greet]
description = "Greet someone"
command = ["echo", "hello", "{{ input.who }}"]
parameters = { type = "object", properties = { who = { type = "string" } }, required = ["who"] }
[risk_profiles.full]
level = "full"
`))
	if err != nil {
		t.Fatal(err)
	}
	set, err := commandtool.Load(cfg, commandtool.Options{Workspace: ws})
	if err != nil || len(set.Tools) != 1 {
		t.Fatalf("Load = %+v, %v", set, err)
	}
	rec := &recorder{}
	rt, err := runtime.New(runtime.Options{Config: cfg, Workspace: ws, DataDir: t.TempDir(), Tools: set.Tools, Approver: rec})
	if err != nil {
		t.Fatal(err)
	}
	specs, err := rt.View(runtime.ViewOptions{})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, s := range specs {
		if s.Name == "tool__greet" {
			found = s.Attribution.String() == "command.greet" && s.Description == "Greet someone" && s.Tier == tool.High
		}
	}
	if !found {
		t.Fatalf("tool__greet missing or wrong in the view: %+v", specs)
	}
	ctx := context.Background()
	tests := []struct {
		name    string
		profile string
		args    string
		want    string
		asks    int
		success bool
	}{
		{name: "full runs without asking", profile: "full", args: `{"who":"a b"}`, want: "hello a b\n", success: true},
		{name: "supervised asks with the plan", profile: "", args: `{"who":"c"}`, want: "hello c\n", asks: 1, success: true},
		{name: "schema failure is a result", profile: "full", args: `{"who":1}`, want: "/who"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec.mu.Lock()
			before := len(rec.reqs)
			rec.mu.Unlock()
			res, err := rt.Call(ctx, tool.Call{Name: "tool__greet", Args: json.RawMessage(tt.args), Profile: tt.profile})
			if err != nil {
				t.Fatal(err)
			}
			text := res.Output.Text
			if !res.Success {
				text = res.Error
			}
			if res.Success != tt.success || !strings.Contains(text, tt.want) {
				t.Fatalf("result = %+v", res)
			}
			rec.mu.Lock()
			asked := rec.reqs[before:]
			rec.mu.Unlock()
			if len(asked) != tt.asks {
				t.Fatalf("asked %d times, want %d", len(asked), tt.asks)
			}
			for _, req := range asked {
				c := req.Plan.Commands[0]
				if c.Binary == "" || !filepath.IsAbs(c.Binary) || c.Argv[2] != "c" || c.Dir == "" {
					t.Fatalf("approver saw plan %+v", req.Plan)
				}
			}
		})
	}
}
