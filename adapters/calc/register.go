package calc

import (
	"github.com/talonhq/talon/tool"
	"github.com/talonhq/talon/toolfactory"
)

func init() {
	toolfactory.Register(toolfactory.Factory{
		Name: Name,
		Tier: tool.Low,
		New: func(toolfactory.Env) (tool.Tool, error) {
			return NewCalculator(Options{}), nil
		},
	})
}
