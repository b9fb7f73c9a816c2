//go:build unix

package shell

import (
	"strings"
	"testing"

	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/internal/proctest"
	"github.com/talonhq/talon/risk"
	"github.com/talonhq/talon/tool"
)

// decide assesses a line with the shell a profile gets and decides it with
// that profile, as the runtime does.
func decide(t *testing.T, cfg *config.Config, profile, line string) (risk.Verdict, tool.Assessment) {
	t.Helper()
	base := newShell(t, Options{Config: cfg, AllowedCommands: nil})
	pol, err := risk.NewPolicyWith(cfg, risk.PolicyOptions{Workspace: base.opts.Workspace})
	if err != nil {
		t.Fatal(err)
	}
	prof, err := pol.Profile(profile)
	if err != nil {
		t.Fatal(err)
	}
	tl, err := base.ForProfile(tool.ProfileSettings{Name: profile, AllowedCommands: prof.AllowedCommands})
	if err != nil {
		t.Fatal(err)
	}
	a, err := tl.(*Shell).Assess(call(line))
	if err != nil {
		t.Fatal(err)
	}
	return prof.Decide(risk.Input{Tool: Name, Channel: tool.ChannelMCP, Assessment: a}), a
}

func parseConfig(t *testing.T, text string) *config.Config {
	t.Helper()
	cfg, _, err := config.Parse("talon.toml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// TestModeTable is the table of docs/policy.md: each mode against
// commands on and off the allowlist, of every tier, and lines that are
// refused whatever the mode.
func TestModeTable(t *testing.T) {
	proctest.NeedBins(t, "ls", "mkdir", "git", "nproc", "cp", "rm")
	cfg := parseConfig(t, `
[risk_profiles.plain]
allowed_commands = ["ls", "mkdir", "git"]
[risk_profiles.deny.shell]
mode = "deny"
[risk_profiles.allowlist]
allowed_commands = ["ls", "mkdir", "git"]
shell.mode = "allowlist"
[risk_profiles.ask]
allowed_commands = ["ls", "mkdir", "git"]
shell.mode = "ask"
[risk_profiles.full.shell]
mode = "full"
[risk_profiles.fullasks]
always_ask = ["shell"]
shell.mode = "full"
`)
	lines := []string{"ls", "mkdir x", "git push", "nproc", "cp a b", "rm -rf x", "echo $(id)", "FOO=1 ls"}
	want := map[string][]risk.Decision{
		"plain":     {risk.Allow, risk.Ask, risk.Ask, risk.Deny, risk.Deny, risk.Deny, risk.Deny, risk.Deny},
		"deny":      {risk.Deny, risk.Deny, risk.Deny, risk.Deny, risk.Deny, risk.Deny, risk.Deny, risk.Deny},
		"allowlist": {risk.Allow, risk.Ask, risk.Ask, risk.Deny, risk.Deny, risk.Deny, risk.Deny, risk.Deny},
		"ask":       {risk.Allow, risk.Ask, risk.Ask, risk.Ask, risk.Ask, risk.Ask, risk.Deny, risk.Deny},
		"full":      {risk.Allow, risk.Allow, risk.Allow, risk.Allow, risk.Allow, risk.Allow, risk.Deny, risk.Deny},
		"fullasks":  {risk.Ask, risk.Ask, risk.Ask, risk.Ask, risk.Ask, risk.Ask, risk.Deny, risk.Deny},
	}
	for profile, decisions := range want {
		for i, line := range lines {
			t.Run(profile+"/"+line, func(t *testing.T) {
				v, a := decide(t, cfg, profile, line)
				if v.Decision != decisions[i] {
					t.Fatalf("decision = %s (%s), want %s; assessment %+v", v.Decision, v.Why, decisions[i], a)
				}
			})
		}
	}
}

func TestModeConflicts(t *testing.T) {
	for _, tt := range []struct{ name, text, want string }{
		{name: "mode and block_high_risk_commands", text: "[risk_profiles.p]\nblock_high_risk_commands = false\nshell.mode = \"ask\"\n", want: "remove block_high_risk_commands"},
		{name: "full and allowed_commands", text: "[risk_profiles.p]\nallowed_commands = [\"ls\"]\nshell.mode = \"full\"\n", want: "remove allowed_commands"},
		{name: "deny and safe_bins", text: "[risk_profiles.p.shell]\nmode = \"deny\"\nsafe_bins = []\n", want: "remove safe_bins"},
		{name: "unknown mode", text: "[risk_profiles.p.shell]\nmode = \"auto\"\n", want: "mode"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := config.Parse("talon.toml", []byte(tt.text))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Parse error = %v, want %q", err, tt.want)
			}
		})
	}
}

// TestRules: deny wins, then ask, then allow; the verdict names the
// rule; an allow rule covers a line only when every command that is not
// low on its own matches one.
func TestRules(t *testing.T) {
	proctest.NeedBins(t, "make", "git", "tail", "mkdir", "ls", "rm")
	cfg := parseConfig(t, `
[risk_profiles.default.shell]
allow = ["make test", "make build **", "rm -rf build"]
ask = ["git status", "make build --all"]
deny = ["git push **", "rm -rf /**"]
[risk_profiles.ro]
level = "read_only"
shell.allow = ["make test"]
[risk_profiles.full]
level = "full"
allowed_commands = ["*"]
shell.deny = ["git push **"]
`)
	tests := []struct {
		profile, line string
		want          risk.Decision
		why           string
	}{
		{line: "make test", want: risk.Allow, why: `allowed by rule allow "make test"`},
		{line: "make test | tail -5", want: risk.Allow, why: `allowed by rule allow "make test"`},
		{line: "make build -j4 all", want: risk.Allow, why: `allowed by rule allow "make build **"`},
		{line: "make test && mkdir out", want: risk.Ask, why: "needs approval"},
		{line: "make install", want: risk.Deny},
		{line: "git status", want: risk.Ask, why: `rule ask "git status" needs approval`},
		{line: "make build --all", want: risk.Ask, why: `rule ask "make build --all"`},
		{line: "git push origin main", want: risk.Deny, why: `rule deny "git push **"`},
		{line: "rm -rf build", want: risk.Allow},
		{line: "rm -rf /tmp/x", want: risk.Deny, why: `rule deny "rm -rf /**"`},
		{line: "./make test", want: risk.Deny},
		{profile: "ro", line: "make test", want: risk.Deny},
		{profile: "full", line: "git push origin", want: risk.Deny, why: `"git push origin" matches rule deny "git push **"`},
		{profile: "full", line: "git pull", want: risk.Allow},
	}
	for _, tt := range tests {
		if tt.profile == "" {
			tt.profile = "default"
		}
		t.Run(tt.profile+"/"+tt.line, func(t *testing.T) {
			v, a := decide(t, cfg, tt.profile, tt.line)
			if v.Decision != tt.want || !strings.Contains(v.Why, tt.why) {
				t.Fatalf("decision = %s (%s), want %s naming %q; assessment %+v", v.Decision, v.Why, tt.want, tt.why, a)
			}
		})
	}
}

func TestSafeBinSettings(t *testing.T) {
	proctest.NeedBins(t, "git", "head", "sort", "jq")
	cfg := parseConfig(t, `
[risk_profiles.default]
allowed_commands = ["git"]
[risk_profiles.default.shell]
safe_bins = ["head", "jq"]
[risk_profiles.default.shell.safe_bin_profiles.jq]
max_positional = 1
allowed_value_flags = ["--indent"]
denied_flags = ["-f", "--from-file", "--rawfile", "--slurpfile"]
[risk_profiles.untrusted]
allowed_commands = ["git"]
shell.safe_bin_trusted_dirs = ["/nonexistent"]
`)
	tests := []struct {
		profile, line string
		want          risk.Decision
	}{
		{line: "git log | head -5", want: risk.Allow},
		{line: "git log | jq .x", want: risk.Allow},
		{line: "git log | jq --indent 2 .x", want: risk.Allow},
		{line: "git log | jq --arg n v .x", want: risk.Deny}, // --arg takes two values: v is an operand too many
		{line: "git log | jq -f prog", want: risk.Deny},
		{line: "git log | jq .x .y", want: risk.Deny},
		{line: "git log | tail -5", want: risk.Deny}, // tail is no longer a safe bin
		{profile: "untrusted", line: "git log | head -5", want: risk.Deny},
	}
	for _, tt := range tests {
		if tt.profile == "" {
			tt.profile = "default"
		}
		t.Run(tt.profile+"/"+tt.line, func(t *testing.T) {
			if v, a := decide(t, cfg, tt.profile, tt.line); v.Decision != tt.want {
				t.Fatalf("decision = %s (%s), want %s; %+v", v.Decision, v.Why, tt.want, a)
			}
		})
	}
	if _, _, err := config.Parse("talon.toml", []byte("[risk_profiles.p.shell]\nsafe_bins = [\"jq\"]\nsafe_bin_profiles.sed = {}\n")); err == nil {
		t.Fatal("a profile for a bin outside safe_bins was accepted")
	}
	s := newShell(t, Options{})
	if _, err := s.ForProfile(tool.ProfileSettings{Name: "p"}); err != nil {
		t.Fatal(err)
	}
	bad := parseConfig(t, "[risk_profiles.p.shell]\nsafe_bins = [\"python3\"]\nsafe_bin_profiles.python3 = {}\n")
	s = newShell(t, Options{Config: bad})
	if _, err := s.ForProfile(tool.ProfileSettings{Name: "p"}); err == nil || !strings.Contains(err.Error(), "interpreter") {
		t.Fatalf("python3 as a safe bin: %v", err)
	}
}

func TestPathPrepend(t *testing.T) {
	proctest.NeedBins(t, "sh")
	dir := t.TempDir()
	bin := proctest.Script(t, dir, "hello-talon", "echo prepended\n")
	cfg := parseConfig(t, "[risk_profiles.default]\nallowed_commands = [\"hello-talon\", \"printenv\"]\nshell.path_prepend = [\""+dir+"\"]\n")
	v, a := decide(t, cfg, "default", "hello-talon")
	if v.Decision == risk.Deny || a.Plan.Commands[0].Binary != bin {
		t.Fatalf("decision %s, plan %+v", v.Decision, a.Plan)
	}
	if _, _, err := config.Parse("talon.toml", []byte("[risk_profiles.p.shell]\npath_prepend = [\"bin\"]\n")); err == nil {
		t.Fatal("a relative path_prepend was accepted")
	}
}
