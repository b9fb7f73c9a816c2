package process

import (
	"github.com/talonhq/talon/tool"
	"github.com/talonhq/talon/toolfactory"
)

func init() {
	toolfactory.Register(toolfactory.Factory{
		Name:    Name,
		Tier:    tool.Low, // every call is assessed; start as the shell would be
		PerCall: true,
		New:     newFromEnv,
	})
}

// newFromEnv builds the tool for the workspace with the default profile's
// allowed_commands and shell_env_passthrough, on the process-wide
// [Manager]; other profiles use [Tool.ForProfile].
func newFromEnv(env toolfactory.Env) (tool.Tool, error) {
	opts := Options{Workspace: env.Workspace, Logger: env.Logger, Manager: sharedManager()}
	if cfg := env.Config; cfg != nil {
		p := cfg.RiskProfiles["default"]
		opts.AllowedCommands = p.AllowedCommands()
		opts.ShellEnvPassthrough = p.ShellEnvPassthrough
	}
	return New(opts)
}
