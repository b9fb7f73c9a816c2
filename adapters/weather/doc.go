// Package weather provides the weather tool: current conditions and a
// daily forecast for a place, by name or by coordinates.
//
// It speaks the Open-Meteo API, which needs no key: a place name is turned
// into coordinates by the geocoding service (/v1/search), then the
// forecast service (/v1/forecast) answers for those coordinates. Both base
// URLs are configurable in [tools.weather], so an operator can point the
// tool at a self-hosted instance; units are metric unless the operator or
// the call says imperial.
//
//	w, err := weather.New(weather.Options{})
//	if err != nil {
//		return err
//	}
//	res, err := w.Execute(ctx, json.RawMessage(`{"location": "Osaka", "days": 3}`))
//
// Requests go through a [netguard.Guard] that reaches only the two
// configured hosts. The tier is low: the tool reads and changes nothing.
// The package registers the tool with toolfactory in init; the binary
// includes it with the build tag talon_tools_external.
package weather
