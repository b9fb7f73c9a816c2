package risk

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/workspace"
)

// ProtectedPaths returns what no tool may read or change in a run with
// config cfg and data directory dataDir ("" means cfg's): the config file,
// talon's configuration directory ($XDG_CONFIG_HOME/talon or
// ~/.config/talon), the data directory (keys, receipts, memory, cron,
// plugins, sockets), a receipts or plugins directory configured elsewhere,
// the operator's credential stores under HOME ([workspace.HomeSecrets])
// and $XDG_CONFIG_HOME, talon's own program and its sandbox helper (read,
// never changed), and the repository files no tool may change.
// getenv reads HOME and XDG_CONFIG_HOME; nil means os.Getenv.
//
// The same list protects the file tools (through [workspace.Options]) and
// the processes talon starts (through the sandbox's deny list), and is
// what `talon sandbox check` and `talon policy explain` show.
func ProtectedPaths(cfg *config.Config, dataDir string, getenv func(string) string) workspace.Protected {
	return workspace.NewProtected(ProtectedLocations(cfg, dataDir, getenv))
}

// ProtectedLocations are the locations [ProtectedPaths] protects.
func ProtectedLocations(cfg *config.Config, dataDir string, getenv func(string) string) workspace.Locations {
	if getenv == nil {
		getenv = os.Getenv
	}
	if cfg == nil {
		cfg = config.Default()
	}
	abs := func(p string) string {
		if p == "" {
			return ""
		}
		if a, err := filepath.Abs(p); err == nil {
			return a
		}
		return p
	}
	home := getenv("HOME")
	if !filepath.IsAbs(home) {
		home = ""
	}
	var loc workspace.Locations
	loc.Home = home
	configHome := getenv("XDG_CONFIG_HOME")
	if filepath.IsAbs(configHome) {
		loc.ConfigHome = configHome
		loc.ConfigDirs = append(loc.ConfigDirs, filepath.Join(configHome, "talon"))
	}
	if home != "" {
		loc.ConfigDirs = append(loc.ConfigDirs, filepath.Join(home, ".config", "talon"))
	}
	loc.ConfigFile = abs(cfg.Path())
	if dataDir == "" {
		dataDir = cfg.DataDir(getenv)
	}
	loc.DataDir = abs(dataDir)
	// Settings that place talon's state elsewhere: relative to the config
	// file's directory, ~/ for the home directory.
	place := func(p string) string {
		switch {
		case p == "":
			return ""
		case p == "~" || strings.HasPrefix(p, "~/"):
			if home == "" {
				return ""
			}
			return filepath.Join(home, strings.TrimPrefix(p, "~"))
		case filepath.IsAbs(p):
			return filepath.Clean(p)
		case cfg.ConfigDir() != "":
			return abs(filepath.Join(cfg.ConfigDir(), p))
		}
		return ""
	}
	if d := place(cfg.Plugins.Dir); d != "" {
		loc.PluginDirs = append(loc.PluginDirs, d)
	}
	if d := place(cfg.Receipts.Path); d != "" {
		loc.Extra = append(loc.Extra, d)
	}
	loc.Sockets = agentSocketDirs(getenv)
	helper := cfg.Sandbox.Helper
	if helper == "builtin" {
		helper = ""
	}
	loc.Programs = programs(place(helper))
	return loc
}

// programs are talon's executable and the sandbox helpers it may start:
// talon-sandbox next to it, and helper (from [sandbox] helper) when set.
func programs(helper string) []string {
	var out []string
	if exe, err := os.Executable(); err == nil {
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			exe = real
		}
		out = append(out, exe, filepath.Join(filepath.Dir(exe), "talon-sandbox"))
	}
	if helper != "" {
		out = append(out, helper)
	}
	return out
}

// agentSocketDirs are the directories of the operator's agent sockets:
// $XDG_RUNTIME_DIR (else /run/user/<uid> when it exists) and the directory
// of $SSH_AUTH_SOCK, unless that is a shared directory such as /tmp. A
// runtime directory that holds talon's own temporary directory is left
// out: tool processes work in a private directory below it.
func agentSocketDirs(getenv func(string) string) []string {
	var dirs []string
	runtimeDir := getenv("XDG_RUNTIME_DIR")
	if !filepath.IsAbs(runtimeDir) && runtime.GOOS == "linux" {
		runtimeDir = filepath.Join("/run/user", strconv.Itoa(os.Getuid()))
		if fi, err := os.Stat(runtimeDir); err != nil || !fi.IsDir() {
			runtimeDir = ""
		}
	}
	if runtimeDir != "" {
		runtimeDir = filepath.Clean(runtimeDir)
		if rel, err := filepath.Rel(runtimeDir, os.TempDir()); err != nil || strings.HasPrefix(rel, "..") {
			dirs = append(dirs, runtimeDir)
		}
	}
	if sock := getenv("SSH_AUTH_SOCK"); filepath.IsAbs(sock) {
		d := filepath.Dir(filepath.Clean(sock))
		if d != os.TempDir() && d != "/tmp" && d != "/" && !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	return dirs
}

// Problem is a forbidden_paths pattern that cannot do what it seems to.
type Problem struct {
	// Profile is the risk profile that holds the pattern ("" when checked
	// alone).
	Profile string
	Pattern string
	Message string
}

func (p Problem) String() string {
	if p.Profile == "" {
		return p.Message
	}
	return fmt.Sprintf("risk_profiles.%s: %s", p.Profile, p.Message)
}

// CheckForbiddenPatterns reports forbidden_paths patterns that can never
// match what their author meant: an empty pattern, one that starts or
// ends with a space, a relative pattern that climbs out of the workspace
// with "..", "~user/" (only "~/" is expanded), "$VAR" (environment
// variables are not expanded), a Windows drive or a backslash used as a
// separator on other systems, and "**" inside a name, which matches like
// "*" and never crosses a directory. Patterns that do not compile are
// load errors ([NewProfile]) and are not repeated here; a pattern naming
// a file that does not exist yet is fine.
func CheckForbiddenPatterns(patterns []string) []Problem {
	var out []Problem
	add := func(p, format string, args ...any) {
		out = append(out, Problem{Pattern: p, Message: fmt.Sprintf("forbidden_paths pattern %q ", p) + fmt.Sprintf(format, args...)})
	}
	windows := runtime.GOOS == "windows"
	for _, p := range patterns {
		switch {
		case strings.TrimSpace(p) == "":
			add(p, "is empty and matches nothing: remove it")
			continue
		case strings.TrimSpace(p) != p:
			add(p, "starts or ends with a space, so it matches only names that do: remove the spaces")
			continue
		case strings.HasPrefix(p, "~") && p != "~" && !strings.HasPrefix(p, "~/"):
			add(p, "starts with ~ but not ~/: only ~/ means the home directory, so this is a path relative to the workspace; write ~/... or an absolute path")
			continue
		case strings.Contains(p, "$"):
			add(p, "contains $: environment variables are not expanded in forbidden_paths, so it matches only a name with a literal $; write ~/... or an absolute path")
			continue
		case !windows && len(p) >= 3 && p[1] == ':' && (p[2] == '/' || p[2] == '\\') && isLetter(p[0]):
			add(p, "starts with a Windows drive, which is a directory name relative to the workspace here: write an absolute path")
			continue
		case !windows && strings.Contains(p, `\`):
			add(p, `contains a backslash, which escapes the next character in a pattern and never separates directories: use /`)
			continue
		}
		for _, seg := range strings.Split(filepath.ToSlash(p), "/") {
			if seg != "**" && strings.Contains(seg, "**") {
				add(p, `has "**" inside a name, where "**" matches like "*" and never crosses a directory: write **/ as a whole segment, as in **/*.pem`)
				break
			}
		}
		if p == "~" || strings.HasPrefix(p, "~/") || filepath.IsAbs(p) {
			continue
		}
		if c := filepath.ToSlash(filepath.Clean(p)); c == ".." || strings.HasPrefix(c, "../") {
			add(p, "leads out of the workspace with ..: relative patterns are relative to the workspace; write it absolute or with ~/")
		}
	}
	return out
}

func isLetter(b byte) bool { return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' }

// CheckPolicy runs [CheckForbiddenPatterns] on every profile of cfg, in
// the order of their names.
func CheckPolicy(cfg *config.Config) []Problem {
	if cfg == nil {
		return nil
	}
	names := make([]string, 0, len(cfg.RiskProfiles))
	for n := range cfg.RiskProfiles {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []Problem
	for _, n := range names {
		for _, pr := range CheckForbiddenPatterns(cfg.RiskProfiles[n].ForbiddenPaths) {
			pr.Profile = n
			out = append(out, pr)
		}
	}
	return out
}
