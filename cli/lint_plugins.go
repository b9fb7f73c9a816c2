package cli

import (
	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/plugins"
)

// plugins reports, as warnings, every plugin the loader would skip: it
// runs the loader's checks (manifest, entry hash, signature, consent,
// grants, host) without starting any plugin.
func (l *linter) plugins(cfg *config.Config, ws, dataDir string) {
	if !cfg.Plugins.Enabled {
		return
	}
	_, warnings := plugins.Check(plugins.Options{Config: cfg, Workspace: ws, DataDir: dataDir})
	for _, w := range warnings {
		l.add(lintWarning, []string{"plugins"}, 0, w)
	}
}
