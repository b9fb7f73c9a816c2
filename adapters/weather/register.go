package weather

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

// optionsFrom reads [tools.weather]; a nil config means the defaults.
func optionsFrom(env toolfactory.Env) Options {
	o := Options{Logger: env.Logger}
	if env.Config == nil {
		return o
	}
	w := env.Config.Tools.Weather
	o.ForecastURL = w.ForecastBase()
	o.GeocodingURL = w.GeocodingBase()
	o.Units = w.UnitSystem()
	o.Timeout = w.Timeout()
	o.AllowPrivate = w.AllowPrivate
	return o
}
