package workspace

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
)

// Access is what tools may do with a protected path.
type Access int

const (
	// NoAccess: a tool may neither read nor change the path.
	NoAccess Access = iota
	// ReadOnly: a tool may read the path but never change it.
	ReadOnly
)

func (a Access) String() string {
	if a == ReadOnly {
		return "read-only"
	}
	return "no access"
}

// Rule is one protected location, with the reason it is protected.
type Rule struct {
	// Name identifies the rule in listings: "home-secrets", "config",
	// "data", "plugins", "extra" or "git".
	Name string `json:"name"`
	// Path is the protected file or directory, absolute; everything below
	// it is covered. Empty for rules that apply inside every repository.
	Path string `json:"path,omitempty"`
	// Pattern describes a rule without a Path, relative to any directory
	// that holds a repository: ".git/hooks/**".
	Pattern string `json:"pattern,omitempty"`
	// Access is what tools may do there.
	Access Access `json:"-"`
	// Why says in words what lives there and why no tool may touch it.
	Why string `json:"why"`
}

// AccessName is Access as text, for JSON listings.
func (r Rule) AccessName() string { return r.Access.String() }

// Where is the rule's path, or its pattern for repository rules.
func (r Rule) Where() string {
	if r.Path != "" {
		return r.Path
	}
	return r.Pattern
}

// Locations are the places a [Protected] list is built from. Empty fields
// are left out. Paths should be absolute; relative ones are skipped.
type Locations struct {
	// Home is the operator's home directory: its credential stores
	// (~/.ssh, ~/.aws, ~/.config, ...) are protected.
	Home string
	// ConfigHome is $XDG_CONFIG_HOME when set: protected whole, like
	// ~/.config.
	ConfigHome string
	// ConfigFile is the loaded talon.toml, wherever it lies.
	ConfigFile string
	// ConfigDirs are talon's own configuration directories, such as
	// ~/.config/talon.
	ConfigDirs []string
	// DataDir is talon's data directory: keys, receipts, memory, cron,
	// plugins, sockets.
	DataDir string
	// PluginDirs hold installed plugins and their message files, when
	// they live outside DataDir.
	PluginDirs []string
	// Extra are more places talon keeps state, such as a receipts
	// directory outside DataDir.
	Extra []string
	// Sockets are directories of the operator's agents: the session's
	// runtime directory ($XDG_RUNTIME_DIR, /run/user/<uid>) with the
	// gpg-agent, ssh-agent and session bus sockets, and the directory of
	// $SSH_AUTH_SOCK. A process that reaches them can sign or log in as
	// the operator without holding a key.
	Sockets []string
	// Programs are talon's own executable and its sandbox helper: a tool
	// may read them but never change them, since what replaced them would
	// run as talon the next time.
	Programs []string
}

// HomeSecrets are the credential stores under the home directory that no
// tool may read or change. Tools run in the workspace, so these matter
// when the workspace is the home directory or holds it, and to processes
// in the sandbox.
var HomeSecrets = []string{
	".ssh", ".aws", ".config", ".gnupg", ".kube", ".docker", ".netrc",
	".git-credentials", ".password-store", ".azure", ".terraform.d",
	".npmrc", ".pypirc", ".pgpass", ".vault-token", ".cargo/credentials",
	".cargo/credentials.toml", ".gem/credentials", ".local/share/keyrings",
}

// gitWriteRules are the files of a repository that git reads as program
// settings: a hook, a filter or fsmonitor command planted there runs later,
// outside the sandbox, when the operator runs git.
var gitWriteRules = []string{
	".git (a gitdir: file)",
	".git/config",
	".git/config.worktree",
	".git/commondir",
	".git/hooks/**",
	".git/info/attributes",
	".git/modules/**/config",
	".git/worktrees/*/config",
}

const gitWhy = "git runs programs named there outside the sandbox the next time you use git"

// protPath is one form of a rule's path: as given, or with its links
// resolved.
type protPath struct {
	path string
	rule int
}

// Protected is the list of places no tool may read or change, and of the
// repository files no tool may change. The zero value protects nothing.
// It is immutable and safe for concurrent use.
type Protected struct {
	rules []Rule
	paths []protPath
	git   bool
	home  string
}

// NewProtected builds the list for the given locations, plus the
// repository rules (.git/config, .git/hooks/**, ...), which always apply.
// Every path is protected both as given and with its symbolic links
// resolved, so a location reached through a link is still recognised.
func NewProtected(loc Locations) Protected {
	p := Protected{home: loc.Home}
	add := func(name, path string, why string) {
		if path == "" || !filepath.IsAbs(path) {
			return
		}
		path = filepath.Clean(path)
		for _, r := range p.rules {
			if r.Path == path {
				return
			}
		}
		p.rules = append(p.rules, Rule{Name: name, Path: path, Access: NoAccess, Why: why})
	}
	tilde := func(path string) string { return tildePath(loc.Home, path) }
	add("config", loc.ConfigFile, "talon's configuration file: a tool that changes it changes its own policy")
	for _, d := range loc.ConfigDirs {
		add("config", d, "talon's configuration")
	}
	add("data", loc.DataDir, "talon's data: signing keys, receipts, memory, schedules, plugins and sockets")
	for _, d := range loc.PluginDirs {
		add("plugins", d, "installed plugins and their message files")
	}
	for _, d := range loc.Extra {
		add("extra", d, "talon's state")
	}
	for _, d := range loc.Sockets {
		add("agent-sockets", d, "the operator's agent sockets (ssh-agent, gpg-agent, the session bus) in "+tilde(d))
	}
	if loc.ConfigHome != "" {
		add("home-secrets", loc.ConfigHome, "the operator's configuration and credentials under "+tilde(loc.ConfigHome))
	}
	if loc.Home != "" && filepath.IsAbs(loc.Home) {
		for _, s := range HomeSecrets {
			path := filepath.Join(loc.Home, filepath.FromSlash(s))
			add("home-secrets", path, "operator secrets under "+tilde(path))
		}
	}
	for _, prog := range loc.Programs {
		if prog != "" && filepath.IsAbs(prog) && !slices.ContainsFunc(p.rules, func(r Rule) bool { return r.Path == filepath.Clean(prog) }) {
			p.rules = append(p.rules, Rule{Name: "program", Path: filepath.Clean(prog), Access: ReadOnly,
				Why: "talon's own program: what replaced it would run as talon the next time"})
		}
	}
	for i, r := range p.rules {
		p.paths = append(p.paths, protPath{path: r.Path, rule: i})
		if real := resolveLoosely(r.Path); real != r.Path {
			p.paths = append(p.paths, protPath{path: real, rule: i})
		}
	}
	for _, g := range gitWriteRules {
		p.rules = append(p.rules, Rule{Name: "git", Pattern: g, Access: ReadOnly, Why: gitWhy})
	}
	p.git = true
	return p
}

// Home is the home directory the list was built for, "" when unknown.
func (p Protected) Home() string { return p.home }

// IsZero reports whether p protects nothing.
func (p Protected) IsZero() bool { return len(p.rules) == 0 }

// Rules returns the rules, paths first in the order they were added, then
// the repository rules, for `talon sandbox check` and `talon policy
// explain`.
func (p Protected) Rules() []Rule { return slices.Clone(p.rules) }

// Deny returns every path no process may reach: the paths of the
// NoAccess rules, as given and with links resolved, sorted. This is what
// a sandbox carves out.
func (p Protected) Deny() []string {
	var out []string
	for _, pp := range p.paths {
		if p.rules[pp.rule].Access == NoAccess && !slices.Contains(out, pp.path) {
			out = append(out, pp.path)
		}
	}
	slices.Sort(out)
	return out
}

// ReadOnlyIn returns the existing files and directories under dir (the
// workspace) that read-only rules cover, for a sandbox to make read-only:
// talon's program when it lies there, and the repository rules'
// dir/.git/config, dir/.git/hooks and the like, matched in dir's own .git
// directory and in the gitdirs of its submodules and worktrees.
func (p Protected) ReadOnlyIn(dir string) []string {
	if dir == "" {
		return nil
	}
	var out []string
	add := func(path string) {
		if _, err := os.Lstat(path); err == nil && !slices.Contains(out, path) {
			out = append(out, path)
		}
	}
	for _, pp := range p.paths {
		if p.rules[pp.rule].Access == ReadOnly && underPath(pp.path, dir) {
			add(pp.path)
		}
	}
	if !p.git {
		slices.Sort(out)
		return out
	}
	add(filepath.Join(dir, ".git"))
	gitdirs := []string{filepath.Join(dir, ".git")}
	for _, pat := range []string{"modules/*", "modules/*/modules/*", "worktrees/*"} {
		m, _ := filepath.Glob(filepath.Join(dir, ".git", filepath.FromSlash(pat)))
		gitdirs = append(gitdirs, m...)
	}
	for _, g := range gitdirs {
		for _, f := range []string{"config", "config.worktree", "commondir", "hooks", filepath.Join("info", "attributes")} {
			add(filepath.Join(g, f))
		}
	}
	// .git itself is listed only when it is a file (a gitdir: pointer).
	if fi, err := os.Lstat(filepath.Join(dir, ".git")); err == nil && fi.IsDir() {
		out = slices.DeleteFunc(out, func(s string) bool { return s == filepath.Join(dir, ".git") })
	}
	slices.Sort(out)
	return out
}

// Refuse returns the [*RefusedError] with which a tool that reaches files
// by other means than a [Root] (a plugin's granted directory) refuses
// path, whose clean absolute form is abs, or nil when no rule covers it.
// write asks about changing the path. It does not touch the disk: links
// are the caller's to resolve (a Root does).
func (p Protected) Refuse(path, abs string, write bool) error {
	if rule := p.check(filepath.Clean(abs), write); rule != nil {
		return &RefusedError{Path: path, Write: write, Rule: rule}
	}
	return nil
}

// check returns the rule that refuses abs (clean and absolute), or nil.
// Reading is refused by NoAccess rules; writing by every rule.
func (p Protected) check(abs string, write bool) *Rule {
	for _, pp := range p.paths {
		if underPath(abs, pp.path) && (write || p.rules[pp.rule].Access == NoAccess) {
			return &p.rules[pp.rule]
		}
	}
	if write && p.git {
		if pat := gitProtected(abs); pat != "" {
			for i := range p.rules {
				if p.rules[i].Pattern == pat {
					return &p.rules[i]
				}
			}
		}
	}
	return nil
}

// foldCase is true where the usual file systems ignore case, so that
// ~/.SSH names ~/.ssh.
var foldCase = runtime.GOOS == "darwin" || runtime.GOOS == "ios" || runtime.GOOS == "windows"

// underPath reports whether abs is dir or lies below it.
func underPath(abs, dir string) bool {
	if len(abs) < len(dir) {
		return false
	}
	head := abs[:len(dir)]
	if head != dir && !(foldCase && strings.EqualFold(head, dir)) {
		return false
	}
	if len(abs) == len(dir) {
		return true
	}
	return abs[len(dir)] == filepath.Separator || strings.HasSuffix(dir, string(filepath.Separator))
}

// gitProtected returns the repository rule that abs falls under, or "".
// It looks at every .git component of the path, so a repository nested in
// the workspace is covered too.
func gitProtected(abs string) string {
	parts := strings.Split(filepath.ToSlash(abs), "/")
	for i, part := range parts {
		if !strings.EqualFold(part, ".git") {
			continue
		}
		rest := parts[i+1:]
		if len(rest) == 0 {
			return gitWriteRules[0]
		}
		switch {
		case len(rest) == 1 && strings.EqualFold(rest[0], "config"):
			return ".git/config"
		case len(rest) == 1 && strings.EqualFold(rest[0], "config.worktree"):
			return ".git/config.worktree"
		case len(rest) == 1 && strings.EqualFold(rest[0], "commondir"):
			return ".git/commondir"
		case strings.EqualFold(rest[0], "hooks"):
			return ".git/hooks/**"
		case len(rest) == 2 && strings.EqualFold(rest[0], "info") && strings.EqualFold(rest[1], "attributes"):
			return ".git/info/attributes"
		case strings.EqualFold(rest[0], "modules") && len(rest) >= 3:
			return gitdirRule(rest, ".git/modules/**/config")
		case strings.EqualFold(rest[0], "worktrees") && len(rest) >= 3:
			return gitdirRule(rest, ".git/worktrees/*/config")
		}
	}
	return ""
}

// gitdirRule checks a path inside the gitdir of a submodule or worktree
// (.git/modules/<name>/... or .git/worktrees/<name>/...), which holds its
// own config, hooks and attributes.
func gitdirRule(rest []string, rule string) string {
	last := rest[len(rest)-1]
	for _, f := range []string{"config", "config.worktree", "commondir"} {
		if strings.EqualFold(last, f) {
			return rule
		}
	}
	for i, part := range rest[2:] {
		if strings.EqualFold(part, "hooks") {
			return rule
		}
		if strings.EqualFold(part, "info") && i+3 < len(rest) && strings.EqualFold(rest[i+3], "attributes") {
			return rule
		}
	}
	return ""
}

// resolveLoosely resolves the links of the longest existing prefix of
// path and appends the rest; it returns path itself when nothing
// resolves.
func resolveLoosely(path string) string {
	anc, err := deepestExisting(path)
	if err != nil {
		return path
	}
	real, err := filepath.EvalSymlinks(anc)
	if err != nil {
		return path
	}
	rest, err := filepath.Rel(anc, path)
	if err != nil {
		return path
	}
	return filepath.Join(real, rest)
}

// tildePath shows path with a leading home directory as ~.
func tildePath(home, path string) string {
	if home != "" && underPath(path, home) {
		if path == home {
			return "~"
		}
		return "~/" + filepath.ToSlash(strings.TrimPrefix(path[len(home):], string(filepath.Separator)))
	}
	return path
}
