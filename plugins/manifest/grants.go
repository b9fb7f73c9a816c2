package manifest

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/tool"
)

// ErrGrant is wrapped by errors about an operator's [[plugins.entries]]
// grant that cannot be applied.
var ErrGrant = errors.New("invalid plugin grant")

// ResolveGrants intersects what m requests with what entry grants:
//
//   - hosts: a requested host is granted when the operator names it, or a
//     pattern or "*" that covers it; a requested "*.suffix" pattern yields
//     the granted hosts and narrower patterns it covers, or itself when the
//     operator granted it or a wider pattern or "*". "*.example.com" covers
//     "api.example.com" and "a.b.example.com", not "example.com";
//   - fs_read and fs_write: where a granted directory and a requested one
//     are the same or one contains the other, the narrower one is granted.
//     Both are relative to workspace (a granted directory may also be
//     absolute inside it); the result is absolute, cleaned, with symbolic
//     links resolved (a directory that does not exist yet is resolved up to
//     its deepest existing parent) and must still be inside the resolved
//     workspace;
//   - secrets and config keys: the names in both lists; a config key's
//     value is entry.Config's. When m has a config_schema, entry.Config as a
//     whole must validate against it.
//
// A nil entry grants nothing. Results are sorted and free of duplicates.
//
// # Errors
//
// Errors wrap [ErrGrant] and say what to change: a malformed granted host,
// a directory outside the workspace, config values the schema rejects.
func ResolveGrants(m *Manifest, entry *config.PluginEntry, workspace string) (Grants, error) {
	var g Grants
	if entry == nil {
		return g, nil
	}
	for _, h := range entry.AllowedHosts {
		if msg := hostPatternProblem(h, true); msg != "" {
			return Grants{}, fmt.Errorf("%w: plugins.entries %q allowed_hosts has %q: %s", ErrGrant, m.Name, h, msg)
		}
	}
	g.AllowedHosts = intersectHosts(m.Permissions.HTTP.AllowedHosts, entry.AllowedHosts)
	if len(g.AllowedHosts) > 0 {
		g.AllowPrivate = append([]string(nil), entry.AllowPrivate...)
	}
	var err error
	needRoots := len(m.Permissions.FSRead) > 0 && len(entry.FSRead) > 0 ||
		len(m.Permissions.FSWrite) > 0 && len(entry.FSWrite) > 0
	if needRoots {
		ws, err := resolveDir(workspace)
		if err != nil {
			return Grants{}, fmt.Errorf("%w: workspace %s: %v", ErrGrant, workspace, err)
		}
		if g.FSRead, err = intersectRoots(m.Name, "fs_read", ws, m.Permissions.FSRead, entry.FSRead); err != nil {
			return Grants{}, err
		}
		if g.FSWrite, err = intersectRoots(m.Name, "fs_write", ws, m.Permissions.FSWrite, entry.FSWrite); err != nil {
			return Grants{}, err
		}
	}
	g.Secrets = intersectNames(m.Permissions.Secrets, entry.Secrets)
	if len(m.ConfigSchema) > 0 {
		if err = validateConfig(m, entry.Config); err != nil {
			return Grants{}, err
		}
	}
	for _, k := range m.Permissions.ConfigRead {
		if v, ok := entry.Config[k]; ok {
			if g.Config == nil {
				g.Config = map[string]any{}
			}
			g.Config[k] = v
		}
	}
	return g, nil
}

// RequestedGrants is everything m requests, as [ResolveGrants] would grant
// it to an operator who granted all of it (used by `talon plugins test`
// and install). Config values come from entry when it is not nil and are
// then checked against the config_schema; without an entry there is no
// config to check, since installing or testing a plugin needs none.
func RequestedGrants(m *Manifest, entry *config.PluginEntry, workspace string) (Grants, error) {
	all := config.PluginEntry{
		Name:         m.Name,
		AllowedHosts: m.Permissions.HTTP.AllowedHosts,
		FSRead:       m.Permissions.FSRead,
		FSWrite:      m.Permissions.FSWrite,
		Secrets:      m.Permissions.Secrets,
	}
	if entry != nil {
		all.Config = entry.Config
	} else if len(m.ConfigSchema) > 0 {
		unchecked := *m
		unchecked.ConfigSchema = nil
		m = &unchecked
	}
	return ResolveGrants(m, &all, workspace)
}

// TierFloor is the lowest tier a plugin's tools may run at, given what it
// was granted: writing files is high (the plugin can change anything under
// its roots, unseen by the shell's analysis); network access or secrets are
// medium (data can leave the machine); reading files or config, or nothing
// at all, is low. A tool's declared tier is raised to this floor, never
// lowered.
func (g Grants) TierFloor() tool.Tier {
	switch {
	case len(g.FSWrite) > 0:
		return tool.High
	case len(g.AllowedHosts) > 0 || len(g.Secrets) > 0:
		return tool.Medium
	default:
		return tool.Low
	}
}

// covers reports whether host pattern p matches host or narrower pattern h.
func covers(p, h string) bool {
	switch {
	case p == "*":
		return true
	case p == h:
		return true
	case strings.HasPrefix(p, "*."):
		return strings.HasSuffix(h, p[1:]) && len(h) > len(p)-1
	}
	return false
}

func intersectHosts(requested, granted []string) []string {
	set := map[string]bool{}
	for _, r := range requested {
		for _, g := range granted {
			switch {
			case covers(g, r):
				set[r] = true
			case covers(r, g):
				set[g] = true
			}
		}
	}
	return sortedSet(set)
}

func intersectNames(requested, granted []string) []string {
	want := map[string]bool{}
	for _, r := range requested {
		want[r] = true
	}
	set := map[string]bool{}
	for _, g := range granted {
		if want[g] {
			set[g] = true
		}
	}
	return sortedSet(set)
}

func intersectRoots(plugin, key, ws string, requested, granted []string) ([]string, error) {
	set := map[string]bool{}
	for _, g := range granted {
		ga, err := grantedRoot(ws, g)
		if err != nil {
			return nil, fmt.Errorf("%w: plugins.entries %q %s has %q: %v", ErrGrant, plugin, key, g, err)
		}
		for _, r := range requested {
			ra := filepath.Join(ws, filepath.FromSlash(r))
			var narrow string
			switch {
			case within(ga, ra):
				narrow = ra
			case within(ra, ga):
				narrow = ga
			default:
				continue
			}
			res, err := resolveExisting(narrow)
			if err != nil {
				return nil, fmt.Errorf("%w: plugin %s %s %s: %v", ErrGrant, plugin, key, narrow, err)
			}
			if !within(ws, res) {
				return nil, fmt.Errorf("%w: plugin %s %s: %s resolves to %s, outside the workspace %s; grant a directory inside the workspace",
					ErrGrant, plugin, key, narrow, res, ws)
			}
			set[res] = true
		}
	}
	return sortedSet(set), nil
}

// grantedRoot makes an operator's directory absolute under ws (lexically).
func grantedRoot(ws, g string) (string, error) {
	if g == "" {
		return "", errors.New("empty directory; use \".\" for the whole workspace")
	}
	if filepath.IsAbs(g) {
		c := filepath.Clean(g)
		if !within(ws, c) {
			if res, err := resolveExisting(c); err == nil && within(ws, res) {
				return res, nil
			}
			return "", fmt.Errorf("outside the workspace %s; grant a directory inside it", ws)
		}
		return c, nil
	}
	if msg := relativePathProblem(filepath.ToSlash(g)); msg != "" {
		return "", errors.New(msg)
	}
	return filepath.Join(ws, g), nil
}

// resolveExisting resolves symbolic links in p up to its deepest existing
// ancestor and appends the rest unchanged.
func resolveExisting(p string) (string, error) {
	rest := ""
	cur := p
	for {
		res, err := filepath.EvalSymlinks(cur)
		if err == nil {
			return filepath.Join(res, rest), nil
		}
		if !os.IsNotExist(err) {
			return "", err
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return "", err
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}

func validateConfig(m *Manifest, values map[string]any) error {
	raw, err := json.Marshal(m.ConfigSchema)
	if err == nil {
		var s *tool.Schema
		if s, err = tool.CompileSchema("plugin-"+m.Name+"-config", raw); err == nil {
			if values == nil {
				values = map[string]any{}
			}
			var doc []byte
			if doc, err = json.Marshal(values); err == nil {
				if verr := s.Validate(doc); verr != nil {
					return fmt.Errorf("%w: the config of plugin %s does not match its config_schema: %v; set it with `talon plugins config %s KEY VALUE`",
						ErrGrant, m.Name, verr, m.Name)
				}
				return nil
			}
		}
	}
	return fmt.Errorf("%w: plugin %s has a config_schema talon cannot use: %v; ask its author for a fixed build", ErrGrant, m.Name, err)
}

func sortedSet(set map[string]bool) []string {
	if len(set) == 0 {
		return nil
	}
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
