package shellparse

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/talonhq/talon/tool"
)

// lookup resolves a command name the way execvp would with the analyzer's
// PATH, except that empty and relative PATH entries are skipped. viaPATH
// reports a bare name (searched in PATH) rather than a path.
func (a *Analyzer) lookup(name string) (bin string, viaPATH bool) {
	if name == "" {
		return "", true
	}
	if strings.ContainsRune(name, '/') {
		p := name
		if !filepath.IsAbs(p) {
			p = filepath.Join(a.dir, p)
		}
		p = filepath.Clean(p)
		if isExecutable(p) {
			return p, false
		}
		return "", false
	}
	if bin, ok := a.cache.get(name); ok {
		return bin, true
	}
	for _, dir := range filepath.SplitList(a.path) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		p := filepath.Join(dir, name)
		if isExecutable(p) {
			a.cache.put(name, p)
			return p, true
		}
	}
	a.cache.put(name, "")
	return "", true
}

// lookupTTL is how long a PATH lookup is reused. A hit is checked with one
// stat of the cached binary; a binary that appears earlier in PATH is seen
// once the entry expires. What runs is always the absolute path of the
// plan, so the cache can only make a plan stale, never run something else.
const lookupTTL = 2 * time.Second

// lookupCache remembers recent PATH lookups, which otherwise cost one stat
// per PATH entry per command.
type lookupCache struct {
	mu      sync.Mutex
	ttl     time.Duration
	entries map[string]lookupEntry
}

type lookupEntry struct {
	bin  string
	when time.Time
}

func (c *lookupCache) get(name string) (string, bool) {
	if c.ttl <= 0 {
		return "", false
	}
	c.mu.Lock()
	e, ok := c.entries[name]
	c.mu.Unlock()
	if !ok || time.Since(e.when) > c.ttl {
		return "", false
	}
	if e.bin != "" && !isExecutable(e.bin) {
		return "", false
	}
	return e.bin, true
}

func (c *lookupCache) put(name, bin string) {
	if c.ttl <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil || len(c.entries) >= 1024 {
		c.entries = make(map[string]lookupEntry)
	}
	c.entries[name] = lookupEntry{bin: bin, when: time.Now()}
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
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

// judge resolves a command and decides its allowlist verdict and tier. The
// allowlist gate comes first: a command outside it is refused whatever its
// tier.
func (a *Analyzer) judge(c *Command) {
	name := c.Argv[0]
	bin, viaPATH := a.lookup(name)
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
		c.SafeBin = viaPATH && a.safeBin(c)
		if !c.SafeBin && !a.allowlisted(name, bin, viaPATH) {
			allowed = false
			reasons = append(reasons, fmt.Sprintf("%q is not allowed by policy", name))
		}
	}
	refused := false
	for _, kv := range c.Assign {
		n, _, _ := strings.Cut(kv, "=")
		if a.forbiddenName(n) {
			refused = true
			reasons = append(reasons, fmt.Sprintf("setting %s is refused: it changes which programs run or what code they load", n))
		}
	}
	tier := tool.High
	switch {
	case bin == "":
	case c.SafeBin:
		tier = tool.Low
		reasons = append(reasons, fmt.Sprintf("%q is low risk (safe stdin filter)", name))
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
	}
	c.Tier, c.Allowed, c.Reasons = tier, allowed, reasons
}
