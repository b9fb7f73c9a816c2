package shellparse

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/talonhq/talon/internal/dirwatch"
	"github.com/talonhq/talon/tool"
)

// lookup resolves a command name the way execvp would with the analyzer's
// PATH, except that empty and relative PATH entries are skipped. viaPATH
// reports a bare name (searched in PATH) rather than a path; fi is the
// binary's file information when it was found.
func (a *Analyzer) lookup(name string) (bin string, fi os.FileInfo, viaPATH bool) {
	if name == "" {
		return "", nil, true
	}
	if strings.ContainsRune(name, '/') {
		p := name
		if !filepath.IsAbs(p) {
			p = filepath.Join(a.dir, p)
		}
		p = filepath.Clean(p)
		if fi := statExecutable(p); fi != nil {
			return p, fi, false
		}
		return "", nil, false
	}
	if bin, fi, ok := a.cache.get(name); ok {
		return bin, fi, true
	}
	// Watch before looking, so that a change made while we look moves
	// the generation the entry is filed under.
	dirs := filepath.SplitList(a.path)
	watched := a.cache.ttl > 0 && dirwatch.Add(dirs...)
	gen, _ := dirwatch.Generation()
	for _, dir := range dirs {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		p := filepath.Join(dir, name)
		if fi := statExecutable(p); fi != nil {
			a.cache.put(name, lookupEntry{bin: p, fi: fi, gen: gen, watched: watched && !isSymlink(p)})
			return p, fi, true
		}
	}
	a.cache.put(name, lookupEntry{gen: gen, watched: watched})
	return "", nil, true
}

// lookupTTL is how long a PATH lookup is reused. Within it, a hit is
// trusted without a stat while the PATH directories are watched and have
// not changed (internal/dirwatch: an entry made, removed, replaced or
// chmodded in any of them, or a missing one made, drops every entry); a
// binary reached through a symlink, or a PATH that cannot be watched, is
// checked with one stat of the cached binary, and a binary that appears
// earlier in PATH is then seen once the entry expires. What runs is always
// the absolute path of the plan, so the cache can only make a plan stale,
// never run something else.
const lookupTTL = 2 * time.Second

// lookupCache remembers recent PATH lookups, which otherwise cost one stat
// per PATH entry per command.
type lookupCache struct {
	mu      sync.Mutex
	ttl     time.Duration
	entries map[string]lookupEntry
}

type lookupEntry struct {
	bin  string      // "" when not found
	fi   os.FileInfo // of bin
	when time.Time
	// gen is the directories' generation when the entry was made;
	// watched says it can be trusted while that holds.
	gen     uint64
	watched bool
}

func (c *lookupCache) get(name string) (string, os.FileInfo, bool) {
	if c.ttl <= 0 {
		return "", nil, false
	}
	c.mu.Lock()
	e, ok := c.entries[name]
	c.mu.Unlock()
	if !ok || time.Since(e.when) > c.ttl {
		return "", nil, false
	}
	if e.watched {
		if gen, ok := dirwatch.Generation(); ok && gen == e.gen {
			return e.bin, e.fi, true
		}
		return "", nil, false
	}
	if e.bin == "" {
		return "", nil, true
	}
	fi := statExecutable(e.bin)
	if fi == nil {
		return "", nil, false
	}
	return e.bin, fi, true
}

func (c *lookupCache) put(name string, e lookupEntry) {
	if c.ttl <= 0 {
		return
	}
	e.when = time.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil || len(c.entries) >= 1024 {
		c.entries = make(map[string]lookupEntry)
	}
	c.entries[name] = e
}

// isSymlink reports a path that is itself a symbolic link: its target
// can change without its directory changing.
func isSymlink(p string) bool {
	fi, err := os.Lstat(p)
	return err != nil || fi.Mode()&os.ModeSymlink != 0
}

// statExecutable returns the file information of an executable regular
// file, or nil.
func statExecutable(p string) os.FileInfo {
	fi, err := os.Stat(p)
	if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
		return nil
	}
	return fi
}

// allowlisted applies the allowed_commands patterns. A bare pattern
// matches only a name found through PATH lookup. A path pattern matches the
// symlink-resolved binary (what the kernel runs), and matches the path PATH
// lookup found only when that symlink resolves within its own directory
// (python3 -> python3.11): a link that leaves its directory is matched by
// where it leads.
func (a *Analyzer) allowlisted(name, bin string, viaPATH bool) bool {
	if a.allowAll {
		return true
	}
	if viaPATH {
		if a.bareExact[name] {
			return true
		}
		for _, p := range a.bare {
			if ok, _ := doublestar.Match(p, name); ok {
				return true
			}
		}
	}
	if len(a.paths) == 0 || bin == "" {
		return false
	}
	real, err := filepath.EvalSymlinks(bin)
	if err != nil {
		return false
	}
	sameDir := false
	if dir, err := filepath.EvalSymlinks(filepath.Dir(bin)); err == nil {
		sameDir = dir == filepath.Dir(real)
	}
	for _, p := range a.paths {
		if ok, _ := doublestar.Match(p, filepath.ToSlash(real)); ok {
			return true
		}
		if sameDir {
			if ok, _ := doublestar.Match(p, filepath.ToSlash(bin)); ok {
				return true
			}
		}
	}
	return false
}

// RefuseVar says why a command may not be given the variable name, the
// rule for inline assignments, env NAME=value and every other place a
// model names variables (the shell's env argument); "" means it may.
// Only inert variables ([InertVar]) pass, and not those
// [Options.ForbiddenEnv] names.
func (a *Analyzer) RefuseVar(name string) string {
	switch {
	case !InertVar(name):
		return fmt.Sprintf("assigning %s is not allowed: talon passes only inert variables (%s) to commands", name, inertList())
	case a.forbiddenName(name):
		return fmt.Sprintf("assigning %s is refused by policy", name)
	}
	return ""
}

// forbiddenName reports a variable the line may not set.
func (a *Analyzer) forbiddenName(name string) bool {
	for _, f := range a.forbidden {
		if prefix, ok := strings.CutSuffix(f, "*"); ok {
			if strings.HasPrefix(name, prefix) {
				return true
			}
		} else if name == f {
			return true
		}
	}
	return false
}

// isSelf reports a command that runs talon: its name is talon, or its
// binary is the same file as one of [Options.Self].
func (a *Analyzer) isSelf(name string, fi os.FileInfo) bool {
	if filepath.Base(name) == selfName {
		return true
	}
	if fi == nil {
		return false
	}
	for _, s := range a.self {
		if os.SameFile(fi, s) {
			return true
		}
	}
	return false
}

// selfName is the name talon's binary is installed under.
const selfName = "talon"

// judge resolves a command and decides its allowlist verdict and tier. The
// allowlist gate comes first: a command outside it is refused whatever its
// tier. Assigning a variable that is not inert and running talon itself
// are refused whatever the allowlist says.
func (a *Analyzer) judge(c *Command) {
	name := c.Argv[0]
	bin, fi, viaPATH := a.lookup(name)
	c.Binary = bin
	var reasons []string
	allowed := true
	if bin == "" {
		allowed = false
		if viaPATH {
			reasons = append(reasons, fmt.Sprintf("%q was not found in PATH", name))
		} else {
			reasons = append(reasons, fmt.Sprintf("%q is not an executable file", name))
		}
	} else {
		c.SafeBin = viaPATH && a.trustedSafeDir(bin) && a.safeBin(c)
		if !c.SafeBin && !a.allowlisted(name, bin, viaPATH) {
			allowed = false
			c.OffList = true
			reasons = append(reasons, fmt.Sprintf("%q is not allowed by policy", name))
		}
	}
	refused := false
	if a.isSelf(name, fi) {
		refused = true
		reasons = append(reasons, fmt.Sprintf("%q runs talon itself: approvals and policy are for people, not for the tools they govern", name))
	}
	for _, kv := range c.Assign {
		n, _, _ := strings.Cut(kv, "=")
		if why := a.RefuseVar(n); why != "" {
			refused = true
			reasons = append(reasons, why)
		}
	}
	for _, n := range c.Unset {
		if !InertVar(n) {
			refused = true
			reasons = append(reasons, fmt.Sprintf("unsetting %s is not allowed: talon lets a command line change only inert variables (%s)", n, inertList()))
		}
	}
	tier := tool.High
	switch {
	case bin == "":
	case c.SafeBin:
		tier = tool.Low
		reasons = append(reasons, strconv.Quote(name)+" is low risk (safe stdin filter)")
	default:
		var why string
		tier, why = a.classify(c.Argv, bin)
		reasons = append(reasons, why)
	}
	for _, r := range c.Redirects {
		if (r.Op == ">" || r.Op == ">>") && r.Target != devNull {
			tier = tool.High
			reasons = append(reasons, fmt.Sprintf("output redirection writes to the file %q", r.Target))
		}
	}
	if refused {
		tier = tool.High
		allowed = false
		c.OffList = false
	}
	c.Tier, c.Allowed, c.Reasons = tier, allowed, reasons
}
