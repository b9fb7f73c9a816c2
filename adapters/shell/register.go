package shell

import (
	"fmt"
	"os"

	"github.com/talonhq/talon/risk"
	"github.com/talonhq/talon/tool"
	"github.com/talonhq/talon/toolfactory"
	"github.com/talonhq/talon/workspace"
)

func init() {
	toolfactory.Register(toolfactory.Factory{
		Name:    Name,
		Tier:    tool.Low, // every call is assessed; unanalysable lines are high
		PerCall: true,
		New:     newFromEnv,
	})
}

// newFromEnv builds the tool for the workspace, with [tools.shell] limits,
// the default risk profile's allowed_commands, shell_env_passthrough,
// forbidden_paths and shell table, and the process-wide background
// processes. Other profiles use [Shell.ForProfile].
func newFromEnv(env toolfactory.Env) (tool.Tool, error) {
	opts, err := OptionsFromEnv(env)
	if err != nil {
		return nil, err
	}
	return New(opts)
}

// OptionsFromEnv are the options the registered tool is built with; the
// process tool builds its shell from them too.
func OptionsFromEnv(env toolfactory.Env) (Options, error) {
	opts := Options{Workspace: env.Workspace, Logger: env.Logger, Jobs: SharedManager(), Protected: protectedFor(env)}
	if cfg := env.Config; cfg != nil {
		opts.Config = cfg
		opts.DefaultTimeout = cfg.Tools.Shell.Timeout()
		opts.MaxOutputBytes = cfg.Tools.Shell.OutputLimit()
		opts.NoExitNotice = !cfg.Tools.Shell.NotifyOnExit()
		p := cfg.RiskProfiles["default"]
		opts.AllowedCommands = p.AllowedCommands()
		opts.ShellEnvPassthrough = p.ShellEnvPassthrough
		opts.ForbiddenPaths = p.ForbiddenPaths
		if err := opts.apply(p.Shell); err != nil {
			return Options{}, fmt.Errorf("risk profile default: %w", err)
		}
	}
	return opts, nil
}

// protectedFor is env.Protected, or, when that is empty, the list
// [risk.ProtectedPaths] derives from env's config and data directory: a
// workdir is confined as the file tools' paths are.
func protectedFor(env toolfactory.Env) workspace.Protected {
	if !env.Protected.IsZero() {
		return env.Protected
	}
	return risk.ProtectedPaths(env.Config, env.DataDir, os.Getenv)
}
