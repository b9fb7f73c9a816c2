package risk

import (
	"fmt"
	"slices"

	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/risk/shellparse"
	"github.com/talonhq/talon/tool"
)

// shellTools are the tools whose calls are command lines: a profile's
// shell table (mode, rules) decides their calls that carry a plan.
var shellTools = []string{"shell", "process"}

// ShellCall reports whether a call of the named tool with this assessment
// is a command line that a profile's shell table governs.
func ShellCall(name string, a tool.Assessment) bool {
	return a.Plan != nil && slices.Contains(shellTools, name)
}

// checkShell validates a profile's shell table: the mode and the
// patterns of its rules.
func checkShell(name string, p config.RiskProfile) error {
	s := p.Shell
	switch s.Mode {
	case "", config.ShellModeDeny, config.ShellModeAllowlist, config.ShellModeAsk, config.ShellModeFull:
	default:
		return fmt.Errorf("%w %s: shell.mode %q: use deny, allowlist, ask or full", ErrInvalidProfile, name, s.Mode)
	}
	if s.Mode != "" && p.BlockHighRiskCommandsSetting != nil {
		return fmt.Errorf("%w %s: shell.mode = %q decides block_high_risk_commands; remove one of them", ErrInvalidProfile, name, s.Mode)
	}
	if (s.Mode == config.ShellModeDeny || s.Mode == config.ShellModeFull) && p.AllowedCommandsSetting != nil {
		return fmt.Errorf("%w %s: shell.mode = %q decides allowed_commands; remove one of them", ErrInvalidProfile, name, s.Mode)
	}
	if _, err := shellparse.NewRules(s.Allow, s.Ask, s.Deny); err != nil {
		return fmt.Errorf("%w %s: %v", ErrInvalidProfile, name, err)
	}
	return nil
}

// decideShell is the decision for a command line under the profile's
// shell mode and the rule its analysis matched, before always_ask. It
// reports false when neither applies.
func (p *Profile) decideShell(in Input, tier tool.Tier) (Verdict, bool) {
	a := in.Assessment
	mode := ""
	if ShellCall(in.Tool, a) {
		mode = p.ShellMode
	}
	if mode == "" && a.Rule == nil {
		return Verdict{}, false
	}
	if mode == config.ShellModeDeny {
		return Verdict{Decision: Deny, Why: "denied by policy: shell commands are denied for this profile"}, true
	}
	level, block := p.Level, p.BlockHighRisk
	switch mode {
	case config.ShellModeAllowlist:
		block = true
	case config.ShellModeAsk:
		block = false
	case config.ShellModeFull:
		if level != ReadOnly {
			level = Full
		}
	}
	q := *p
	q.Level, q.BlockHighRisk = level, block
	v := q.byLevel(in.Tool, tier, a.Allowlisted)
	if mode == config.ShellModeAsk && !a.Allowlisted && v.Decision == Allow {
		v = Verdict{Decision: Ask, Why: "a command off the allowlist needs approval"}
	}
	if a.Rule != nil {
		switch a.Rule.Action {
		case shellparse.RuleAllow:
			if level != ReadOnly || tier == tool.Low {
				v = Verdict{Decision: Allow, Why: fmt.Sprintf("allowed by rule %s", a.Rule)}
			}
		case shellparse.RuleAsk:
			if v.Decision == Allow {
				v = Verdict{Decision: Ask, Why: fmt.Sprintf("rule %s needs approval", a.Rule)}
			} else if v.Decision == Ask {
				v.Why = fmt.Sprintf("rule %s needs approval", a.Rule)
			}
		}
	}
	return v, true
}
