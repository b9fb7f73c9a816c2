package approval

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/talonhq/talon/tool"
)

func plan(summary, dir string, argv ...string) *tool.Plan {
	return &tool.Plan{Summary: summary, Commands: []tool.PlannedCommand{{Argv: argv, Binary: "/usr/bin/" + argv[0], Dir: dir, Env: []string{"HOME", "PATH"}}}}
}

func TestTerminalPermanent(t *testing.T) {
	for _, tt := range []struct {
		name     string
		saveable bool
		input    string
		want     Answer
		prompt   string
	}{
		{name: "offered", saveable: true, input: "p\n", want: Permanent, prompt: "[p]ermanently"},
		{name: "word", saveable: true, input: "permanently\n", want: Permanent, prompt: "[p]ermanently"},
		{name: "not offered is unclear", input: "p\nn\n", want: No, prompt: "[a]lways for this session: "},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out strings.Builder
			got, err := (&Terminal{In: strings.NewReader(tt.input), Out: &out}).Approve(context.Background(), Request{Tool: "shell", Saveable: tt.saveable})
			if err != nil || got != tt.want || !strings.Contains(out.String(), tt.prompt) {
				t.Fatalf("answer %s, %v; prompt %q", got, err, out.String())
			}
		})
	}
}

func TestRuleFromPlan(t *testing.T) {
	for _, tt := range []struct {
		name string
		plan *tool.Plan
		ok   bool
	}{
		{name: "plain", plan: plan("make test", "/ws", "make", "test"), ok: true},
		{name: "no plan", plan: nil},
		{name: "python -c", plan: plan("python3 -c x", "/ws", "python3", "-c", "x")},
		{name: "node -e", plan: plan("node -e x", "/ws", "node", "-e", "x")},
		{name: "sh -c", plan: plan("sh -c x", "/ws", "sh", "-c", "x")},
		{name: "bash -lc", plan: plan("bash -lc x", "/ws", "bash", "-lc", "x")},
		{name: "awk", plan: plan("awk 1", "/ws", "awk", "1")},
		{name: "find -exec", plan: plan("find . -exec rm {} ;", "/ws", "find", ".", "-exec", "rm", "{}", ";")},
		{name: "xargs", plan: plan("xargs rm", "/ws", "xargs", "rm")},
		{name: "git -c", plan: plan("git -c core.pager=x log", "/ws", "git", "-c", "core.pager=x", "log")},
		{name: "python script", plan: plan("python3 build.py", "/ws", "python3", "build.py"), ok: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := RuleFromPlan("shell", "default", tt.plan)
			if tt.ok != (err == nil) || err != nil && !errors.Is(err, ErrNotSaveable) {
				t.Fatalf("RuleFromPlan error = %v, want ok %v", err, tt.ok)
			}
		})
	}
}

func TestRulesStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "talon", RulesFile)
	r := OpenRules(path, nil)
	if got, err := r.List(); err != nil || len(got) != 0 {
		t.Fatalf("empty store = %v, %v", got, err)
	}
	rule, _ := RuleFromPlan("shell", "default", plan("make test", "/ws/sub", "make", "test"))
	saved, err := r.Add(rule)
	if err != nil || !strings.HasPrefix(saved.ID, "r-") {
		t.Fatalf("Add = %+v, %v", saved, err)
	}
	again, err := r.Add(rule)
	if err != nil || again.ID != saved.ID {
		t.Fatalf("adding the same rule again = %+v, %v", again, err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("file = %v, %v", fi, err)
	}
	other := OpenRules(path, nil) // another talon sees it
	for _, tt := range []struct {
		name          string
		tool, profile string
		plan          *tool.Plan
		want          bool
	}{
		{name: "same", tool: "shell", profile: "default", plan: plan("make test", "/ws/sub", "make", "test"), want: true},
		{name: "other directory", tool: "shell", profile: "default", plan: plan("make test", "/ws", "make", "test")},
		{name: "other arguments", tool: "shell", profile: "default", plan: plan("make test", "/ws/sub", "make", "install")},
		{name: "other line", tool: "shell", profile: "default", plan: plan("TZ=UTC make test", "/ws/sub", "make", "test")},
		{name: "other profile", tool: "shell", profile: "ci", plan: plan("make test", "/ws/sub", "make", "test")},
		{name: "other tool", tool: "process", profile: "default", plan: plan("make test", "/ws/sub", "make", "test")},
		{name: "no plan", tool: "shell", profile: "default"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, got := other.Match(tt.tool, tt.profile, tt.plan); got != tt.want {
				t.Fatalf("Match = %v, want %v", got, tt.want)
			}
		})
	}
	pat, _ := RuleFromPlan("shell", "default", plan("", "/ws", "go", "test", "**"))
	pat.Pattern, pat.Summary = true, ""
	if _, err := r.Add(pat); err != nil {
		t.Fatal(err)
	}
	if _, ok := other.Match("shell", "default", plan("go test ./... -race", "/ws", "go", "test", "./...", "-race")); !ok {
		t.Fatal("pattern rule does not match")
	}
	if _, ok := other.Match("shell", "default", plan("go vet", "/ws", "go", "vet")); ok {
		t.Fatal("pattern rule matches another subcommand")
	}
	if err := r.Remove(saved.ID); err != nil {
		t.Fatal(err)
	}
	if err := r.Remove(saved.ID); !errors.Is(err, ErrNoRule) {
		t.Fatalf("removing twice = %v", err)
	}
	if _, ok := other.Match("shell", "default", plan("make test", "/ws/sub", "make", "test")); ok {
		t.Fatal("a removed rule still matches")
	}
	if _, err := r.Add(SavedRule{Tool: "shell", Profile: "default", Commands: []SavedCommand{{Argv: []string{"sh", "-c", "x"}}}}); !errors.Is(err, ErrNotSaveable) {
		t.Fatalf("adding inline code = %v", err)
	}
}

func TestRulesConcurrentAdds(t *testing.T) {
	path := filepath.Join(t.TempDir(), RulesFile)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			rule, _ := RuleFromPlan("shell", "default", plan("", "/ws", "make", string(rune('a'+i))))
			if _, err := OpenRules(path, nil).Add(rule); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if got, err := OpenRules(path, nil).List(); err != nil || len(got) != 8 {
		t.Fatalf("after 8 concurrent adds: %d rules, %v", len(got), err)
	}
}

func TestRulesFileErrors(t *testing.T) {
	for _, tt := range []struct{ name, text, want string }{
		{name: "syntax", text: "[[rule]]\nid = \"r\"\ntool = \n", want: ":3:"},
		{name: "unknown key", text: "[[rule]]\nid = \"r\"\ntool = \"shell\"\nfoo = 1\n", want: ":4: unknown key rule.foo"},
		{name: "no command", text: "[[rule]]\nid = \"r\"\ntool = \"shell\"\n", want: "needs id, tool and at least one"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), RulesFile)
			if err := os.WriteFile(path, []byte(tt.text), 0o600); err != nil {
				t.Fatal(err)
			}
			var warned []error
			r := OpenRules(path, func(err error) { warned = append(warned, err) })
			_, err := r.List()
			if !errors.Is(err, ErrRulesFile) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("List error = %v, want %q", err, tt.want)
			}
			_, _ = r.List()
			if _, ok := r.Match("shell", "default", plan("x", "/ws", "x")); ok || len(warned) != 1 {
				t.Fatalf("a broken file matched, or warned %d times", len(warned))
			}
			if _, err := r.Add(SavedRule{Tool: "shell", Commands: []SavedCommand{{Argv: []string{"ls"}}}}); !errors.Is(err, ErrRulesFile) {
				t.Fatalf("Add over a broken file = %v, want it left alone", err)
			}
		})
	}
}

func FuzzRulesFile(f *testing.F) {
	f.Add([]byte("[[rule]]\nid = \"r-1\"\ntool = \"shell\"\nprofile = \"default\"\n[[rule.command]]\nbinary = \"/bin/ls\"\nargv = [\"ls\"]\ndir = \"/\"\nenv = []\n"))
	f.Add([]byte("x = "))
	f.Fuzz(func(t *testing.T, b []byte) {
		list, err := parseRules("approvals.toml", b)
		if err == nil {
			for _, r := range list {
				_ = r.Matches("shell", "default", plan("ls", "/", "ls"))
			}
		}
	})
}
