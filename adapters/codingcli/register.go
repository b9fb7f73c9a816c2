package codingcli

import (
	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/tool"
	"github.com/talonhq/talon/toolfactory"
)

func init() {
	for _, v := range Vendors {
		toolfactory.Register(toolfactory.Factory{
			Name: v.Tool,
			Tier: tool.High,
			New: func(env toolfactory.Env) (tool.Tool, error) {
				return New(v, optionsFrom(v, env))
			},
		})
	}
}

// optionsFrom reads [tools.coding_cli] and the vendor's table in it; a nil
// config means the defaults.
func optionsFrom(v Vendor, env toolfactory.Env) Options {
	o := Options{Workspace: env.Workspace, Logger: env.Logger}
	if env.Config == nil {
		return o
	}
	c := env.Config.Tools.CodingCLI
	var p config.CodingCLIProgram
	switch v.Tool {
	case ClaudeCode.Tool:
		p = c.ClaudeCode
	case CodexCLI.Tool:
		p = c.CodexCLI
	case GeminiCLI.Tool:
		p = c.GeminiCLI
	}
	o.Binary, o.ExtraArgs = p.Binary, p.ExtraArgs
	o.Timeout = c.Timeout()
	o.MaxOutputBytes = c.OutputLimit()
	o.EnvPassthrough = c.EnvPassthrough
	return o
}
