//go:build unix

package shell_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/rs/zerolog"

	"github.com/talonhq/talon/approval"
	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/internal/proctest"
	"github.com/talonhq/talon/risk"
	"github.com/talonhq/talon/runtime"
	"github.com/talonhq/talon/tool"
)

// answerer answers every request with ans and remembers what it saw.
type answerer struct {
	ans  approval.Answer
	mu   sync.Mutex
	seen []approval.Request
}

func (a *answerer) Approve(_ context.Context, req approval.Request) (approval.Answer, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.seen = append(a.seen, req)
	return a.ans, nil
}

// TestSavedRules: a [p]ermanently answer saves the plan; after a restart
// the same call runs without asking, and a changed plan (arguments,
// directory, variables) asks again; inline code is never saved; a broken
// file is ignored and named with its line; always_ask wins.
func TestSavedRules(t *testing.T) {
	proctest.NeedBins(t, "touch", "python3")
	ws := t.TempDir()
	if err := os.Mkdir(filepath.Join(ws, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	rulesPath := filepath.Join(t.TempDir(), "talon", approval.RulesFile)
	cfg, _, err := config.Parse("talon.toml", []byte(`
[risk_profiles.default]
allowed_commands = ["touch", "python3"]
[risk_profiles.py]
allowed_commands = ["python3"]
shell.mode = "ask"
[risk_profiles.careful]
allowed_commands = ["touch"]
always_ask = ["shell"]
`))
	if err != nil {
		t.Fatal(err)
	}
	start := func(a approval.Approver) *runtime.Runtime {
		t.Helper()
		rt, err := runtime.New(runtime.Options{Config: cfg, Workspace: ws, DataDir: t.TempDir(), Logger: zerolog.Nop(),
			Approver: a, Rules: approval.OpenRules(rulesPath, nil)})
		if err != nil {
			t.Fatal(err)
		}
		return rt
	}
	call := func(rt *runtime.Runtime, profile string, args map[string]any) tool.Result {
		t.Helper()
		b, _ := json.Marshal(args)
		res, err := rt.Call(context.Background(), tool.Call{Name: "shell", Args: b, Channel: tool.ChannelMCP, Profile: profile, SessionID: "s"})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	touch := map[string]any{"command": "touch marker", "workdir": "sub"}

	first := &answerer{ans: approval.Permanent}
	if res := call(start(first), "default", touch); !res.Success {
		t.Fatalf("approved call = %+v", res)
	}
	if len(first.seen) != 1 || !first.seen[0].Saveable {
		t.Fatalf("requests = %+v, want one saveable", first.seen)
	}
	rules, err := approval.OpenRules(rulesPath, nil).List()
	if err != nil || len(rules) != 1 || rules[0].Summary != "touch marker" || rules[0].Commands[0].Dir != filepath.Join(realDir(t, ws), "sub") {
		t.Fatalf("saved = %+v, %v", rules, err)
	}

	// talon restarts: nobody can answer now.
	nobody := &answerer{ans: approval.No}
	rt := start(nobody)
	if res := call(rt, "default", touch); !res.Success {
		t.Fatalf("the saved call after a restart = %+v", res)
	}
	b, _ := json.Marshal(touch)
	ex, _, err := rt.Explain(context.Background(), tool.Call{Name: "shell", Args: b, Profile: "default"})
	if err != nil || ex.Decision != risk.Allow || !strings.Contains(ex.Why, "saved approval rule "+rules[0].ID) || ex.Rule == "" {
		t.Fatalf("explain = %+v, %v", ex, err)
	}
	for _, changed := range []map[string]any{
		{"command": "touch other", "workdir": "sub"},
		{"command": "touch marker"},
		{"command": "touch marker", "workdir": "sub", "env": map[string]string{"TZ": "UTC"}},
		{"command": "touch marker marker", "workdir": "sub"},
	} {
		if res := call(rt, "default", changed); res.Success || !res.Denied {
			t.Fatalf("changed plan %v = %+v, want the question again (denied: nobody answered)", changed, res)
		}
	}
	if len(nobody.seen) != 4 {
		t.Fatalf("asked %d times, want once per changed plan", len(nobody.seen))
	}
	if res := call(rt, "careful", touch); res.Success {
		t.Fatalf("always_ask was overridden by a rule: %+v", res)
	}

	py := &answerer{ans: approval.Permanent}
	if res := call(start(py), "py", map[string]any{"command": "python3 -c 'print(1)'"}); !res.Success {
		t.Fatalf("inline code approved once = %+v", res)
	}
	if len(py.seen) != 1 || py.seen[0].Saveable {
		t.Fatalf("inline code was offered to be saved: %+v", py.seen)
	}
	if rules, _ := approval.OpenRules(rulesPath, nil).List(); len(rules) != 1 {
		t.Fatalf("inline code was saved: %+v", rules)
	}

	if err := os.WriteFile(rulesPath, []byte("[[rule]]\nid = \"r-x\"\ntool = shell\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var warned []error
	broken := approval.OpenRules(rulesPath, func(err error) { warned = append(warned, err) })
	if _, err := broken.List(); err == nil || !strings.Contains(err.Error(), "approvals.toml:3") {
		t.Fatalf("broken file error = %v, want its line", err)
	}
	rt, err = runtime.New(runtime.Options{Config: cfg, Workspace: ws, DataDir: t.TempDir(), Logger: zerolog.Nop(), Approver: nobody, Rules: broken})
	if err != nil {
		t.Fatal(err)
	}
	if len(warned) != 1 {
		t.Fatalf("warnings at start = %v", warned)
	}
	if res := call(rt, "default", touch); res.Success {
		t.Fatalf("a broken file still allowed the call: %+v", res)
	}
}

func realDir(t *testing.T, p string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
