package process

import (
	"github.com/talonhq/talon/adapters/shell"
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

// newFromEnv builds the tool on the shell the registered shell tool is
// built with, sharing its process-wide processes; other profiles use
// [Tool.ForProfile].
func newFromEnv(env toolfactory.Env) (tool.Tool, error) {
	opts, err := shell.OptionsFromEnv(env)
	if err != nil {
		return nil, err
	}
	return New(Options{Shell: opts, Logger: env.Logger})
}

// Shutdown kills the background processes of the process-wide manager
// that the registered shell and process tools use. Hosts call it when
// they exit.
func Shutdown() error { return shell.Shutdown() }
