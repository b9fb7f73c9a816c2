package risk

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/tool"
	"github.com/talonhq/talon/workspace"
)

// Level is an autonomy level.
type Level int

// Autonomy levels. The zero value is Supervised.
const (
	Supervised Level = iota
	ReadOnly
	Full
)

func (l Level) String() string {
	switch l {
	case ReadOnly:
		return config.LevelReadOnly
	case Full:
		return config.LevelFull
	default:
		return config.LevelSupervised
	}
}

// ParseLevel accepts read_only (alias readonly), supervised and full.
func ParseLevel(s string) (Level, error) {
	switch s {
	case "", config.LevelSupervised:
		return Supervised, nil
	case config.LevelReadOnly, config.LevelReadOnlyAlias:
		return ReadOnly, nil
	case config.LevelFull:
		return Full, nil
	}
	return 0, fmt.Errorf("unknown autonomy level %q: use read_only, supervised or full", s)
}

// Decision is the outcome of a policy check.
type Decision int

// Decisions. The zero value is Deny, so an unset decision fails closed.
const (
	Deny Decision = iota
	Ask
	Allow
)

func (d Decision) String() string {
	switch d {
	case Allow:
		return "allow"
	case Ask:
		return "ask"
	default:
		return "deny"
	}
}

// MarshalText encodes the decision by name.
func (d Decision) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// Verdict is a decision with its reason.
type Verdict struct {
	Decision Decision `json:"decision"`
	// Why is one sentence for people and logs. It never names the setting
	// that would change the outcome.
	Why string `json:"why"`
	// AlwaysAsk is set when the ask comes from always_ask, which an earlier
	// "always" answer must not override.
	AlwaysAsk bool `json:"always_ask,omitempty"`
	// Saved names the saved approval rule that allowed a call policy
	// would have asked about.
	Saved string `json:"saved,omitempty"`
}

var (
	// ErrUnknownProfile is returned for a profile name the config does not define.
	ErrUnknownProfile = errors.New("unknown risk profile")
	// ErrInvalidProfile wraps contradictory or malformed profile settings.
	ErrInvalidProfile = errors.New("invalid risk profile")
)

// DefaultProfile is the profile used where none is named.
const DefaultProfile = "default"

// Profile is a compiled `[risk_profiles.<alias>]`. It is immutable.
type Profile struct {
	Name            string
	Level           Level
	AutoApprove     []string
	AlwaysAsk       []string
	AllowedTools    []string
	ExcludedTools   []string
	DenyAllTools    bool
	RequireMedium   bool
	BlockHighRisk   bool
	AllowedCommands []string
	// ForbiddenPaths are the forbidden_paths patterns as configured; tools
	// anchor them at their own workspace (see [workspace.CompilePattern]).
	ForbiddenPaths      []string
	WorkspaceOnly       bool
	ShellEnvPassthrough []string
	// ShellMode is the shell table's mode ("" when unset): it decides
	// the calls of the shell tools (see [ShellCall]).
	ShellMode string

	// Workspace is the directory relative patterns and relative paths
	// of an assessment are taken from.
	Workspace string
	forbidden []workspace.Pattern
}

// PolicyOptions say where a policy applies. The zero value means the
// working directory and the user's home directory.
type PolicyOptions struct {
	// Workspace anchors relative forbidden_paths patterns, and relative
	// paths in an assessment; "" means the working directory.
	Workspace string
	// Home expands a leading ~/ in patterns; "" means the user's home
	// directory.
	Home string
}

// withDefaults fills in the working directory and resolves the
// workspace's links, so that patterns compare with the real paths tools
// report.
func (o PolicyOptions) withDefaults() PolicyOptions {
	if o.Workspace == "" {
		if cwd, err := os.Getwd(); err == nil {
			o.Workspace = cwd
		}
	}
	if o.Workspace != "" {
		if abs, err := filepath.Abs(o.Workspace); err == nil {
			o.Workspace = abs
		}
		if real, err := filepath.EvalSymlinks(o.Workspace); err == nil {
			o.Workspace = real
		}
	}
	return o
}

// NewProfile compiles a profile from its config table. Relative
// forbidden_paths patterns are relative to the working directory; see
// [NewProfileWith].
func NewProfile(name string, p config.RiskProfile) (*Profile, error) {
	return NewProfileWith(name, p, PolicyOptions{})
}

// NewProfileWith compiles a profile from its config table for a
// workspace: relative forbidden_paths patterns are relative to
// opts.Workspace.
func NewProfileWith(name string, p config.RiskProfile, opts PolicyOptions) (*Profile, error) {
	opts = opts.withDefaults()
	lvl, err := ParseLevel(p.Level)
	if err != nil {
		return nil, fmt.Errorf("%w %s: %v", ErrInvalidProfile, name, err)
	}
	if p.DenyAllTools && len(p.AllowedTools) > 0 {
		return nil, fmt.Errorf("%w %s: deny_all_tools = true contradicts a non-empty allowed_tools; keep one of them", ErrInvalidProfile, name)
	}
	for _, pat := range p.AllowedCommands() {
		if !doublestar.ValidatePattern(pat) {
			return nil, fmt.Errorf("%w %s: allowed_commands pattern %q does not compile; fix its brackets or braces", ErrInvalidProfile, name, pat)
		}
	}
	if err := checkShell(name, p); err != nil {
		return nil, err
	}
	var forbidden []workspace.Pattern
	for _, fp := range p.ForbiddenPaths {
		cp, err := workspace.CompilePattern(fp, opts.Workspace, opts.Home)
		if err != nil {
			return nil, fmt.Errorf("%w %s: %v", ErrInvalidProfile, name, err)
		}
		forbidden = append(forbidden, cp)
	}
	return &Profile{
		Name:                name,
		Level:               lvl,
		AutoApprove:         slices.Clone(p.AutoApprove),
		AlwaysAsk:           slices.Clone(p.AlwaysAsk),
		AllowedTools:        slices.Clone(p.AllowedTools),
		ExcludedTools:       slices.Clone(p.ExcludedTools),
		DenyAllTools:        p.DenyAllTools,
		RequireMedium:       p.RequireApprovalForMediumRisk(),
		BlockHighRisk:       p.BlockHighRiskCommands(),
		AllowedCommands:     p.AllowedCommands(),
		ForbiddenPaths:      slices.Clone(p.ForbiddenPaths),
		WorkspaceOnly:       p.WorkspaceOnly(),
		ShellEnvPassthrough: slices.Clone(p.ShellEnvPassthrough),
		ShellMode:           p.Shell.Mode,
		Workspace:           opts.Workspace,
		forbidden:           forbidden,
	}, nil
}

// Policy holds every compiled profile of a config. It is immutable.
type Policy struct {
	profiles map[string]*Profile
}

// NewPolicy compiles every profile of cfg for the configured workspace
// (see [config.Config.WorkspaceDir]) or the working directory. A profile
// named "default" always exists (the zero config table when the file
// defines none).
func NewPolicy(cfg *config.Config) (*Policy, error) {
	var opts PolicyOptions
	if cfg != nil {
		if cwd, err := os.Getwd(); err == nil {
			opts.Workspace, _ = cfg.WorkspaceDir(cwd)
		}
	}
	return NewPolicyWith(cfg, opts)
}

// NewPolicyWith compiles every profile of cfg for the workspace and home
// directory opts name.
func NewPolicyWith(cfg *config.Config, opts PolicyOptions) (*Policy, error) {
	opts = opts.withDefaults()
	pol := &Policy{profiles: map[string]*Profile{}}
	if cfg != nil {
		for name, p := range cfg.RiskProfiles {
			prof, err := NewProfileWith(name, p, opts)
			if err != nil {
				return nil, err
			}
			pol.profiles[name] = prof
		}
	}
	if _, ok := pol.profiles[DefaultProfile]; !ok {
		prof, err := NewProfileWith(DefaultProfile, config.RiskProfile{}, opts)
		if err != nil {
			return nil, err
		}
		pol.profiles[DefaultProfile] = prof
	}
	return pol, nil
}

// Profile returns the named profile; "" means "default".
func (p *Policy) Profile(name string) (*Profile, error) {
	if name == "" {
		name = DefaultProfile
	}
	if prof, ok := p.profiles[name]; ok {
		return prof, nil
	}
	return nil, fmt.Errorf("%w %q: define [risk_profiles.%s] in talon.toml or use one of: %s", ErrUnknownProfile, name, name, strings.Join(p.Names(), ", "))
}

// Names returns the profile names, sorted.
func (p *Policy) Names() []string {
	out := make([]string, 0, len(p.profiles))
	for n := range p.profiles {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Input is what [Profile.Decide] looks at.
type Input struct {
	Tool       string
	Channel    string
	Assessment tool.Assessment
	// CallerAllowlist, when non-nil, is a strict set of exact names.
	CallerAllowlist []string
	// Saved are the approvals people kept for good; nil means none.
	Saved SavedRules
}

// SavedRules are approvals kept for good, such as the approvals file
// ([approval.Rules]): a call policy would ask about that one covers is
// allowed, except for a tool in always_ask.
type SavedRules interface {
	// Covers describes the saved rule that covers a call of toolName
	// under profile with plan; false when none does.
	Covers(toolName, profile string, plan *tool.Plan) (string, bool)
}

// Reason texts. They say what happened, never which setting would allow it.
const (
	whyDenyAll      = "denied by policy: this profile allows no tools"
	whyNotAllowed   = "denied by policy: tool %s is not allowed for this profile"
	whyNotForCaller = "denied by policy: tool %s is not allowed for this caller"
	whyForbidden    = "denied by policy: %s is a forbidden path (pattern %q)"
	whyReadOnly     = "denied by policy: %s risk calls cannot run under the read_only level"
	whyHighBlocked  = "denied by policy: high risk calls are blocked under the supervised level"
)

// Visible reports whether the tool can appear for this profile on channel at
// all: deny_all_tools hides everything; a non-empty allowed_tools is a closed
// set for built-ins, admitting names that contain "__" (MCP and command
// tools); excluded_tools removes tools on every channel but the local CLI.
func (p *Profile) Visible(name, channel string) bool {
	if p.DenyAllTools {
		return false
	}
	if len(p.AllowedTools) > 0 && !slices.Contains(p.AllowedTools, name) && !strings.Contains(name, "__") {
		return false
	}
	if channel != tool.ChannelCLI && slices.Contains(p.ExcludedTools, name) {
		return false
	}
	return true
}

// CanEverRun reports whether a tool with this spec can be allowed or asked
// for under the profile, whatever its arguments: a catalog view hides the
// tools for which it is false, so the list an agent sees matches what it may
// call.
func (p *Profile) CanEverRun(spec tool.Spec, channel string) bool {
	if !p.Visible(spec.Name, channel) {
		return false
	}
	floor := spec.Tier.Effective()
	if p.Level == ReadOnly && floor > tool.Low {
		return false
	}
	return true
}

// Decide applies the profile to one call. Any doubt resolves to Deny.
func (p *Profile) Decide(in Input) Verdict {
	if p.DenyAllTools {
		return Verdict{Decision: Deny, Why: whyDenyAll}
	}
	if !p.Visible(in.Tool, in.Channel) {
		return Verdict{Decision: Deny, Why: fmt.Sprintf(whyNotAllowed, in.Tool)}
	}
	if in.CallerAllowlist != nil && (!slices.Contains(in.CallerAllowlist, in.Tool) || slices.Contains(p.ExcludedTools, in.Tool)) {
		return Verdict{Decision: Deny, Why: fmt.Sprintf(whyNotForCaller, in.Tool)}
	}
	a := in.Assessment
	for _, path := range a.Paths {
		if pat, ok := p.forbiddenPath(path); ok {
			return Verdict{Decision: Deny, Why: fmt.Sprintf(whyForbidden, p.show(path), pat)}
		}
	}
	if a.Denied {
		why := "denied by policy: the call could not be cleared"
		if len(a.Reasons) > 0 {
			why = "denied by policy: " + strings.Join(a.Reasons, "; ")
		}
		return Verdict{Decision: Deny, Why: why}
	}

	tier := a.Tier.Effective()
	v, ok := p.decideShell(in, tier)
	if !ok {
		v = p.byLevel(in.Tool, tier, a.Allowlisted)
	}
	if v.Decision == Ask && in.Saved != nil && !matches(p.AlwaysAsk, in.Tool) {
		if rule, ok := in.Saved.Covers(in.Tool, p.Name, a.Plan); ok {
			return Verdict{Decision: Allow, Why: "allowed by saved approval rule " + rule, Saved: rule}
		}
	}
	if v.Decision == Allow && matches(p.AlwaysAsk, in.Tool) {
		return Verdict{Decision: Ask, Why: fmt.Sprintf("tool %s always asks for approval", in.Tool), AlwaysAsk: true}
	}
	if v.Decision == Ask && matches(p.AlwaysAsk, in.Tool) {
		v.AlwaysAsk = true
	}
	return v
}

func (p *Profile) byLevel(name string, tier tool.Tier, allowlisted bool) Verdict {
	if tier == tool.Low {
		return Verdict{Decision: Allow, Why: "low risk"}
	}
	switch p.Level {
	case Full:
		return Verdict{Decision: Allow, Why: fmt.Sprintf("%s risk allowed under the full level", tier)}
	case ReadOnly:
		return Verdict{Decision: Deny, Why: fmt.Sprintf(whyReadOnly, tier)}
	case Supervised:
	}
	if tier == tool.Medium {
		if !p.RequireMedium {
			return Verdict{Decision: Allow, Why: "medium risk allowed without approval"}
		}
		if matches(p.AutoApprove, name) {
			return Verdict{Decision: Allow, Why: fmt.Sprintf("tool %s is approved automatically", name)}
		}
		return Verdict{Decision: Ask, Why: "medium risk needs approval"}
	}
	if allowlisted {
		return Verdict{Decision: Ask, Why: "high risk needs approval"}
	}
	if p.BlockHighRisk {
		return Verdict{Decision: Deny, Why: whyHighBlocked}
	}
	return Verdict{Decision: Ask, Why: "high risk needs approval"}
}

// forbiddenPath returns the forbidden_paths pattern, as configured, that
// path, absolute or relative to the workspace, matches.
func (p *Profile) forbiddenPath(path string) (string, bool) {
	if len(p.forbidden) == 0 {
		return "", false
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(p.Workspace, path)
	}
	path = filepath.Clean(path)
	for _, fp := range p.forbidden {
		if fp.Match(path) {
			return fp.Text, true
		}
	}
	return "", false
}

// show renders a path for a reason: relative to the workspace inside it.
func (p *Profile) show(path string) string {
	if p.Workspace == "" || !filepath.IsAbs(path) {
		return path
	}
	rel, err := filepath.Rel(p.Workspace, filepath.Clean(path))
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return path
	}
	return filepath.ToSlash(rel)
}

// matches reports whether list names the tool or contains "*".
func matches(list []string, name string) bool {
	return slices.Contains(list, name) || slices.Contains(list, "*")
}

// ApprovalKey identifies what an "always for this session" answer covers:
// the tool, and for calls with a plan, exactly that plan: its line and
// the directory of every command, so that an answer for a line in one
// directory does not cover it in another.
func ApprovalKey(name string, a tool.Assessment) string {
	if a.Plan == nil || a.Plan.Summary == "" {
		return name
	}
	key := name + "\x00" + a.Plan.Summary
	for _, c := range a.Plan.Commands {
		key += "\x00" + c.Dir
	}
	return key
}
