package cli

import (
	"errors"
	"path/filepath"
	"strings"

	"github.com/talonhq/talon/config"
)

// errWorkspace refuses a workspace chosen only by where talon started.
var errWorkspace = errors.New("refusing the working directory as the workspace")

// checkWorkspace refuses a workspace that talon would use only because it
// was started there (no --workspace, no workspace in the config) when that
// directory is the file system root, the home directory, or holds talon's
// data directory or the user config directory: every tool would reach far
// more than a project. A talon.toml written into a project with `config
// init --here` is fine: it is a protected path there. An
// explicit choice is the operator's; the protected paths still keep tools
// away from talon's state inside it.
func (e *env) checkWorkspace(cfg *config.Config, ws string) error {
	if e.g.workspace != "" || cfg.Workspace != "" {
		return nil
	}
	ws = resolvedDir(ws)
	why := ""
	home := e.io.getenv("HOME")
	switch {
	case ws == string(filepath.Separator) || filepath.Dir(ws) == ws:
		why = "it is the root of the file system"
	case home != "" && ws == resolvedDir(home):
		why = "it is your home directory"
	default:
		for _, d := range []struct{ what, dir string }{
			{"talon's data directory", e.dataDir(cfg)},
			{"talon's config directory", talonConfigHome(e.io.getenv)},
		} {
			if d.dir != "" && within(resolvedDir(d.dir), ws) {
				why = "it holds " + d.what + " (" + d.dir + ")"
				break
			}
		}
	}
	if why == "" {
		return nil
	}
	return usageErrorf("%w %s: %s, so every tool could reach it. Start talon in a project directory, or name the workspace with --workspace DIR or workspace = \"DIR\" in the config",
		errWorkspace, ws, why)
}

// talonConfigHome is $XDG_CONFIG_HOME/talon (~/.config/talon when unset).
func talonConfigHome(getenv func(string) string) string {
	base := getenv("XDG_CONFIG_HOME")
	if !filepath.IsAbs(base) {
		home := getenv("HOME")
		if home == "" {
			return ""
		}
		base = filepath.Join(home, ".config")
	}
	return filepath.Join(base, "talon")
}

// resolvedDir is dir made absolute, clean and, where it exists, with its
// symbolic links resolved.
func resolvedDir(dir string) string {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		return real
	}
	return filepath.Clean(dir)
}

// within reports whether p is dir or below it.
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
