package git

import (
	"os"

	"github.com/talonhq/talon/risk"
	"github.com/talonhq/talon/tool"
	"github.com/talonhq/talon/toolfactory"
	"github.com/talonhq/talon/workspace"
)

func init() {
	toolfactory.Register(toolfactory.Factory{
		Name:    Name,
		Tier:    tool.Low, // every call is assessed; writes are medium
		PerCall: true,
		New: func(env toolfactory.Env) (tool.Tool, error) {
			protected := env.Protected
			if protected.IsZero() {
				protected = risk.ProtectedPaths(env.Config, env.DataDir, os.Getenv)
			}
			root, err := workspace.Open(env.Workspace, workspace.Options{Protected: protected})
			if err != nil {
				return nil, err
			}
			return New(root, Options{Logger: env.Logger}), nil
		},
	})
}
