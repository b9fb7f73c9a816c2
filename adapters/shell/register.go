package shell

import (
	"github.com/talonhq/talon/tool"
	"github.com/talonhq/talon/toolfactory"
)

func init() {
	toolfactory.Register(toolfactory.Factory{
		Name:    Name,
		Tier:    tool.Low, // every call is assessed; unanalysable lines are high
		PerCall: true,
		New:     newFromEnv,
	})
}

// newFromEnv builds the tool for the workspace, with [tools.shell] limits
// and the default risk profile's allowed_commands and
// shell_env_passthrough. Other profiles use [Shell.ForProfile].
func newFromEnv(env toolfactory.Env) (tool.Tool, error) {
	opts := Options{Workspace: env.Workspace, Logger: env.Logger}
	if cfg := env.Config; cfg != nil {
		opts.DefaultTimeout = cfg.Tools.Shell.Timeout()
		opts.MaxOutputBytes = cfg.Tools.Shell.OutputLimit()
		p := cfg.RiskProfiles["default"]
		opts.AllowedCommands = p.AllowedCommands()
		opts.ShellEnvPassthrough = p.ShellEnvPassthrough
	}
	return New(opts)
}
