package risk

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/tool"
)

func bptr(b bool) *bool { return &b }

func mustProfile(t *testing.T, p config.RiskProfile) *Profile {
	t.Helper()
	prof, err := NewProfile("p", p)
	if err != nil {
		t.Fatal(err)
	}
	return prof
}

// TestDecisionMatrix covers every level x tier x setting of SPEC §3.
func TestDecisionMatrix(t *testing.T) {
	type setting struct {
		name string
		p    config.RiskProfile
		// allowlisted marks the call as having passed a command allowlist.
		allowlisted bool
	}
	settings := []setting{
		{name: "defaults"},
		{name: "medium without approval", p: config.RiskProfile{RequireApprovalForMediumRiskSetting: bptr(false)}},
		{name: "auto_approve tool", p: config.RiskProfile{AutoApprove: []string{"t"}}},
		{name: "high not blocked", p: config.RiskProfile{BlockHighRiskCommandsSetting: bptr(false)}},
		{name: "allowlisted call", allowlisted: true},
		{name: "always_ask tool", p: config.RiskProfile{AlwaysAsk: []string{"t"}}},
		{name: "always_ask star", p: config.RiskProfile{AlwaysAsk: []string{"*"}}},
		{name: "always_ask beats auto_approve", p: config.RiskProfile{AlwaysAsk: []string{"t"}, AutoApprove: []string{"t"}}},
	}
	// want[setting][level][tier]
	want := map[string]map[string][3]Decision{
		"defaults":                      {"read_only": {Allow, Deny, Deny}, "supervised": {Allow, Ask, Deny}, "full": {Allow, Allow, Allow}},
		"medium without approval":       {"read_only": {Allow, Deny, Deny}, "supervised": {Allow, Allow, Deny}, "full": {Allow, Allow, Allow}},
		"auto_approve tool":             {"read_only": {Allow, Deny, Deny}, "supervised": {Allow, Allow, Deny}, "full": {Allow, Allow, Allow}},
		"high not blocked":              {"read_only": {Allow, Deny, Deny}, "supervised": {Allow, Ask, Ask}, "full": {Allow, Allow, Allow}},
		"allowlisted call":              {"read_only": {Allow, Deny, Deny}, "supervised": {Allow, Ask, Ask}, "full": {Allow, Allow, Allow}},
		"always_ask tool":               {"read_only": {Ask, Deny, Deny}, "supervised": {Ask, Ask, Deny}, "full": {Ask, Ask, Ask}},
		"always_ask star":               {"read_only": {Ask, Deny, Deny}, "supervised": {Ask, Ask, Deny}, "full": {Ask, Ask, Ask}},
		"always_ask beats auto_approve": {"read_only": {Ask, Deny, Deny}, "supervised": {Ask, Ask, Deny}, "full": {Ask, Ask, Ask}},
	}
	tiers := []tool.Tier{tool.Low, tool.Medium, tool.High}
	for _, s := range settings {
		for _, level := range []string{"read_only", "supervised", "full"} {
			for i, tier := range tiers {
				name := fmt.Sprintf("%s/%s/%s", s.name, level, tier)
				t.Run(name, func(t *testing.T) {
					p := s.p
					p.Level = level
					prof := mustProfile(t, p)
					v := prof.Decide(Input{Tool: "t", Channel: tool.ChannelMCP, Assessment: tool.Assessment{Tier: tier, Allowlisted: s.allowlisted}})
					if got := v.Decision; got != want[s.name][level][i] {
						t.Fatalf("decision = %s (%s), want %s", got, v.Why, want[s.name][level][i])
					}
					if v.Why == "" {
						t.Fatal("verdict without a reason")
					}
				})
			}
		}
	}
}

func TestReadonlyAlias(t *testing.T) {
	prof := mustProfile(t, config.RiskProfile{Level: "readonly"})
	if prof.Level != ReadOnly {
		t.Fatalf("level = %v", prof.Level)
	}
}

func TestUnsetTierIsHigh(t *testing.T) {
	prof := mustProfile(t, config.RiskProfile{})
	if v := prof.Decide(Input{Tool: "t", Assessment: tool.Assessment{}}); v.Decision != Deny {
		t.Fatalf("unset tier decided %s", v.Decision)
	}
}

func TestFilters(t *testing.T) {
	low := tool.Assessment{Tier: tool.Low}
	tests := []struct {
		name    string
		p       config.RiskProfile
		tool    string
		channel string
		caller  []string
		want    Decision
	}{
		{name: "allowed_tools omitted is unrestricted", tool: "file_read", want: Allow},
		{name: "allowed_tools empty is unrestricted", p: config.RiskProfile{AllowedTools: []string{}}, tool: "file_read", want: Allow},
		{name: "allowed_tools closed for built-ins", p: config.RiskProfile{AllowedTools: []string{"glob_search"}}, tool: "file_read", want: Deny},
		{name: "allowed_tools listed", p: config.RiskProfile{AllowedTools: []string{"file_read"}}, tool: "file_read", want: Allow},
		{name: "allowed_tools admits mcp names", p: config.RiskProfile{AllowedTools: []string{"glob_search"}}, tool: "github__list_issues", want: Allow},
		{name: "allowed_tools admits command tools", p: config.RiskProfile{AllowedTools: []string{"glob_search"}}, tool: "tool__rg", want: Allow},
		{name: "excluded blocks mcp name", p: config.RiskProfile{AllowedTools: []string{"x"}, ExcludedTools: []string{"github__list_issues"}}, tool: "github__list_issues", channel: tool.ChannelMCP, want: Deny},
		{name: "excluded on mcp channel", p: config.RiskProfile{ExcludedTools: []string{"file_read"}}, tool: "file_read", channel: tool.ChannelMCP, want: Deny},
		{name: "excluded on cron channel", p: config.RiskProfile{ExcludedTools: []string{"file_read"}}, tool: "file_read", channel: tool.ChannelCron, want: Deny},
		{name: "excluded not on local cli", p: config.RiskProfile{ExcludedTools: []string{"file_read"}}, tool: "file_read", channel: tool.ChannelCLI, want: Allow},
		{name: "deny_all denies everything", p: config.RiskProfile{DenyAllTools: true}, tool: "file_read", channel: tool.ChannelCLI, want: Deny},
		{name: "deny_all denies mcp names", p: config.RiskProfile{DenyAllTools: true}, tool: "a__b", want: Deny},
		{name: "caller allowlist intersection", caller: []string{"glob_search"}, tool: "file_read", want: Deny},
		{name: "caller allowlist listed", caller: []string{"file_read"}, tool: "file_read", want: Allow},
		{name: "caller allowlist has no __ exception", caller: []string{"file_read"}, tool: "a__b", want: Deny},
		{name: "caller allowlist minus excluded", p: config.RiskProfile{ExcludedTools: []string{"file_read"}}, caller: []string{"file_read"}, tool: "file_read", channel: tool.ChannelCLI, want: Deny},
		{name: "empty caller allowlist allows nothing", caller: []string{}, tool: "file_read", want: Deny},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prof := mustProfile(t, tt.p)
			ch := tt.channel
			if ch == "" {
				ch = tool.ChannelMCP
			}
			v := prof.Decide(Input{Tool: tt.tool, Channel: ch, CallerAllowlist: tt.caller, Assessment: low})
			if v.Decision != tt.want {
				t.Fatalf("decision = %s (%s), want %s", v.Decision, v.Why, tt.want)
			}
			if v.Decision == Deny && !strings.HasPrefix(v.Why, "denied by policy") {
				t.Fatalf("deny reason %q must say it was policy", v.Why)
			}
		})
	}
}

func TestDenyAllWithAllowedToolsIsLoadError(t *testing.T) {
	_, err := NewProfile("x", config.RiskProfile{DenyAllTools: true, AllowedTools: []string{"a"}})
	if !errors.Is(err, ErrInvalidProfile) || !strings.Contains(err.Error(), "x") {
		t.Fatalf("err = %v", err)
	}
}

func TestBadAllowlistPatternIsLoadError(t *testing.T) {
	bad := []string{"[abc"}
	_, err := NewProfile("x", config.RiskProfile{AllowedCommandsSetting: &bad})
	if !errors.Is(err, ErrInvalidProfile) {
		t.Fatalf("err = %v", err)
	}
}

func TestForbiddenPaths(t *testing.T) {
	prof := mustProfile(t, config.RiskProfile{Level: "full", ForbiddenPaths: []string{"/ws/secrets", "/ws/**/*.pem"}})
	tests := []struct {
		path string
		want Decision
	}{
		{"/ws/secrets", Deny},
		{"/ws/secrets/a.txt", Deny},
		{"/ws/secretsx", Allow},
		{"/ws/certs/site.pem", Deny},
		{"/ws/readme.md", Allow},
	}
	for _, tt := range tests {
		v := prof.Decide(Input{Tool: "file_write", Assessment: tool.Assessment{Tier: tool.Medium, Paths: []string{tt.path}}})
		if v.Decision != tt.want {
			t.Errorf("%s: %s (%s), want %s", tt.path, v.Decision, v.Why, tt.want)
		}
	}
}

func TestAnalysisDenialWinsUnderFull(t *testing.T) {
	prof := mustProfile(t, config.RiskProfile{Level: "full"})
	v := prof.Decide(Input{Tool: "shell", Assessment: tool.Assessment{Tier: tool.High, Denied: true, Reasons: []string{`"rm" is not allowed by policy`}}})
	if v.Decision != Deny || !strings.Contains(v.Why, "rm") {
		t.Fatalf("got %s (%s)", v.Decision, v.Why)
	}
}

func TestCanEverRun(t *testing.T) {
	ro := mustProfile(t, config.RiskProfile{Level: "read_only"})
	if ro.CanEverRun(tool.Spec{Name: "file_write", Tier: tool.Medium}, tool.ChannelMCP) {
		t.Error("read_only profile lists a medium tool")
	}
	if !ro.CanEverRun(tool.Spec{Name: "file_read", Tier: tool.Low}, tool.ChannelMCP) {
		t.Error("read_only profile hides a low tool")
	}
	ex := mustProfile(t, config.RiskProfile{ExcludedTools: []string{"shell"}})
	if ex.CanEverRun(tool.Spec{Name: "shell", Tier: tool.Low}, tool.ChannelMCP) {
		t.Error("excluded tool listed on mcp")
	}
	if !ex.CanEverRun(tool.Spec{Name: "shell", Tier: tool.Low}, tool.ChannelCLI) {
		t.Error("excluded tool hidden on the local cli")
	}
}

func TestPolicyProfiles(t *testing.T) {
	pol, err := NewPolicy(&config.Config{RiskProfiles: map[string]config.RiskProfile{"ci": {Level: "full"}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pol.Profile(""); err != nil {
		t.Fatal("default profile must always exist")
	}
	if p, _ := pol.Profile("ci"); p.Level != Full {
		t.Fatal("ci profile not compiled")
	}
	_, err = pol.Profile("nope")
	if !errors.Is(err, ErrUnknownProfile) || !strings.Contains(err.Error(), "ci, default") {
		t.Fatalf("err = %v", err)
	}
}
