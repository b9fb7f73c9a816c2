package git

import (
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
			root, err := workspace.New(env.Workspace)
			if err != nil {
				return nil, err
			}
			return New(root, Options{Logger: env.Logger}), nil
		},
	})
}
