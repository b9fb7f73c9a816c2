package search

import (
	"github.com/talonhq/talon/tool"
	"github.com/talonhq/talon/toolfactory"
)

func init() {
	toolfactory.Register(toolfactory.Factory{
		Name: Name,
		Tier: tool.Low,
		New: func(env toolfactory.Env) (tool.Tool, error) {
			return New(optionsFrom(env))
		},
	})
}

// optionsFrom reads [tools.web_search]; a nil config means no provider.
func optionsFrom(env toolfactory.Env) Options {
	o := Options{Logger: env.Logger}
	if env.Config == nil {
		return o
	}
	w := env.Config.Tools.WebSearch
	o.Provider = w.Provider
	o.SearXNGURL = w.SearXNGURL
	o.BraveURL = w.BraveEndpoint()
	o.BraveAPIKey = w.BraveAPIKey
	o.AnySearchURL = w.AnySearchEndpoint()
	o.AnySearchAPIKey = w.AnySearchAPIKey
	o.MaxResults = w.ResultLimit()
	o.Timeout = w.Timeout()
	o.AllowPrivate = w.AllowPrivate
	return o
}
