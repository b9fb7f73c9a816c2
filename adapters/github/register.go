package github

import (
	"github.com/talonhq/talon/tool"
	"github.com/talonhq/talon/toolfactory"
)

func init() {
	toolfactory.Register(toolfactory.Factory{
		Name:    Name,
		Tier:    tool.Low, // every call is assessed: writes are high
		PerCall: true,
		New: func(env toolfactory.Env) (tool.Tool, error) {
			return New(optionsFrom(env))
		},
	})
}

// optionsFrom reads [tools.github]; a nil config means the defaults.
func optionsFrom(env toolfactory.Env) Options {
	o := Options{Logger: env.Logger}
	if env.Config == nil {
		return o
	}
	g := env.Config.Tools.GitHub
	o.BaseURL = g.APIBase()
	o.Token = g.Token
	o.Owner, o.Repo = g.Owner, g.Repo
	o.Limit = g.ResultLimit()
	o.Timeout = g.Timeout()
	o.AllowPrivate = g.AllowPrivate
	return o
}
