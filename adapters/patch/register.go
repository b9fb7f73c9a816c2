package patch

import (
	"os"

	"github.com/talonhq/talon/risk"
	"github.com/talonhq/talon/tool"
	"github.com/talonhq/talon/toolfactory"
	"github.com/talonhq/talon/workspace"
)

func init() {
	toolfactory.Register(toolfactory.Factory{
		Name: Name,
		Tier: tool.Medium,
		New: func(env toolfactory.Env) (tool.Tool, error) {
			prot := env.Protected
			if prot.IsZero() {
				prot = risk.ProtectedPaths(env.Config, env.DataDir, os.Getenv)
			}
			root, err := workspace.Open(env.Workspace, workspace.Options{Protected: prot})
			if err != nil {
				return nil, err
			}
			return New(root, Options{Logger: env.Logger}), nil
		},
	})
}
