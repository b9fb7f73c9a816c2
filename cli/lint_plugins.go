package cli

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/internal/spelling"
	"github.com/talonhq/talon/plugins"
	"github.com/talonhq/talon/plugins/manifest"
	"github.com/talonhq/talon/tool"
	"github.com/talonhq/talon/toolfactory"
)

// plugins reports, as warnings, every plugin the loader would skip: it
// runs the loader's checks (manifest, entry hash, signature, consent,
// grants, host) without starting any plugin. It also flags what an
// operator wrote in [[plugins.entries]] that no plugin will see: config
// keys the installed plugin never requests, and renames to names a tool
// cannot take.
func (l *linter) plugins(cfg *config.Config, ws, dataDir string) {
	l.pluginEntries(cfg, dataDir)
	if !cfg.Plugins.Enabled {
		return
	}
	_, warnings := plugins.Check(plugins.Options{Config: cfg, Workspace: ws, DataDir: dataDir})
	for _, w := range warnings {
		l.add(lintWarning, []string{"plugins"}, 0, w)
	}
}

// pluginEntries checks each [[plugins.entries]] table against the
// installed plugin's manifest.
func (l *linter) pluginEntries(cfg *config.Config, dataDir string) {
	dir := plugins.Dir(cfg, dataDir)
	for _, e := range cfg.Plugins.Entries {
		key := []string{"plugins", "entries"}
		for _, from := range sortedKeys(e.Rename) {
			to := e.Rename[from]
			switch {
			case tool.ValidateName(to) != nil:
				l.add(lintWarning, key, 0, fmt.Sprintf("plugins.entries %q renames %q to %q, which is not a tool name: %v", e.Name, from, to, tool.ValidateName(to)))
			case strings.Contains(to, "__"):
				l.add(lintWarning, key, 0, fmt.Sprintf("plugins.entries %q renames %q to %q, which contains \"__\", reserved for command and MCP tools; choose another name", e.Name, from, to))
			default:
				if _, builtin := toolfactory.Lookup(to); builtin {
					l.add(lintWarning, key, 0, fmt.Sprintf("plugins.entries %q renames %q to %q, the name of a built-in tool; choose another name", e.Name, from, to))
				}
			}
		}
		if len(e.Config) == 0 {
			continue
		}
		m, _, err := manifest.Read(filepath.Join(dir, e.Name))
		if err != nil {
			continue // not installed, or broken: the loader's checks say so
		}
		for _, k := range sortedKeys(e.Config) {
			if slices.Contains(m.Permissions.ConfigRead, k) {
				continue
			}
			hint := ""
			if s := spelling.Closest(k, m.Permissions.ConfigRead); s != "" {
				hint = fmt.Sprintf(" (did you mean %q?)", s)
			}
			reads := "reads no config"
			if len(m.Permissions.ConfigRead) > 0 {
				reads = "reads only " + strings.Join(m.Permissions.ConfigRead, ", ")
			}
			l.add(lintWarning, key, 0, fmt.Sprintf("plugins.entries %q sets config key %q%s, which plugin %s never requests (it %s in permissions.config_read), so the plugin never sees it: remove it or fix its name",
				e.Name, k, hint, e.Name, reads))
		}
	}
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
