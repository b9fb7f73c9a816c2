package weather

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/netguard"
	"github.com/talonhq/talon/tool"
)

// Name is the tool's name.
const Name = "weather"

// Limits of a call.
const (
	// DefaultDays is the forecast length when a call gives none.
	DefaultDays = 3
	// MaxDays is the longest forecast a call can ask for.
	MaxDays = 16
	// maxLocation bounds the location argument, in bytes.
	maxLocation = 200
	// maxResponseBytes bounds one answer of either service.
	maxResponseBytes = 1 << 20
)

// Unit systems.
const (
	Metric   = config.UnitsMetric
	Imperial = config.UnitsImperial
)

// ErrUnknownUnits is returned by [New] for a unit system it does not know.
var ErrUnknownUnits = errors.New("unknown unit system")

// Options configures [Weather]. The zero value is the default: Open-Meteo,
// metric units, netguard's timeout.
type Options struct {
	// ForecastURL serves /v1/forecast; "" means Open-Meteo.
	ForecastURL string
	// GeocodingURL serves /v1/search; "" means Open-Meteo's geocoder.
	GeocodingURL string
	// Units is Metric or Imperial; "" means Metric.
	Units string
	// Timeout bounds each request; zero means netguard's default.
	Timeout time.Duration
	// AllowPrivate lets requests reach services on private or loopback
	// addresses; see [netguard.Options].
	AllowPrivate []string
	// Resolver looks up host names; nil means the system's.
	Resolver netguard.Resolver
	// Logger receives one debug line per request.
	Logger zerolog.Logger
}

// Weather is the weather tool. It is immutable and safe for concurrent use.
type Weather struct {
	forecast, geocoding *url.URL
	units               string
	guard               *netguard.Guard
	log                 zerolog.Logger
}

var (
	_ tool.Tool     = (*Weather)(nil)
	_ tool.Assessor = (*Weather)(nil)
)

// New returns the weather tool.
//
// # Errors
//
// A URL that is not http or https, unknown units (wrapping
// [ErrUnknownUnits]) or an invalid AllowPrivate rule (wrapping
// [netguard.ErrInvalidRule]).
func New(opts Options) (*Weather, error) {
	t := &Weather{units: opts.Units, log: opts.Logger}
	if t.units == "" {
		t.units = Metric
	}
	if t.units != Metric && t.units != Imperial {
		return nil, fmt.Errorf("weather: %w %q: use %q or %q", ErrUnknownUnits, opts.Units, Metric, Imperial)
	}
	var err error
	if t.forecast, err = baseURL(opts.ForecastURL, config.DefaultWeatherURL); err != nil {
		return nil, fmt.Errorf("weather: forecast %w", err)
	}
	if t.geocoding, err = baseURL(opts.GeocodingURL, config.DefaultGeocodingURL); err != nil {
		return nil, fmt.Errorf("weather: geocoding %w", err)
	}
	t.guard, err = netguard.New(netguard.Options{
		AllowedHosts: []string{t.forecast.Hostname(), t.geocoding.Hostname()},
		AllowPrivate: opts.AllowPrivate,
		Timeout:      opts.Timeout,
		MaxBytes:     maxResponseBytes,
		MaxRedirects: 3,
		Resolver:     opts.Resolver,
		Logger:       opts.Logger,
	})
	if err != nil {
		return nil, fmt.Errorf("weather: %w", err)
	}
	return t, nil
}

func baseURL(raw, def string) (*url.URL, error) {
	if raw == "" {
		raw = def
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return nil, fmt.Errorf("URL %q is not an http or https URL: fix it in [tools.weather]", raw)
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	return u, nil
}

const schema = `{"type":"object","properties":{` +
	`"location":{"type":"string","minLength":1,"maxLength":200},` +
	`"latitude":{"type":"number","minimum":-90,"maximum":90},` +
	`"longitude":{"type":"number","minimum":-180,"maximum":180},` +
	`"days":{"type":"integer","minimum":1,"maximum":16},` +
	`"units":{"type":"string","enum":["metric","imperial"]}},` +
	`"additionalProperties":false}`

// Spec describes weather.
func (t *Weather) Spec() tool.Spec {
	return tool.Spec{
		Name:        Name,
		Input:       json.RawMessage(schema),
		Tier:        tool.Low,
		Attribution: tool.Attribution{Kind: tool.KindBuiltin, Alias: Name},
	}
}

// Close closes idle connections.
func (t *Weather) Close() error {
	t.guard.CloseIdleConnections()
	return nil
}

type args struct {
	Location  string   `json:"location"`
	Latitude  *float64 `json:"latitude"`
	Longitude *float64 `json:"longitude"`
	Days      int      `json:"days"`
	Units     string   `json:"units"`
}

func decode(raw json.RawMessage) (args, error) {
	var a args
	if err := tool.DecodeArgs(raw, &a); err != nil {
		return a, fmt.Errorf("invalid arguments: %v: pass an object like {\"location\": \"Tokyo\"} or {\"latitude\": 35.68, \"longitude\": 139.69}", err)
	}
	a.Location = strings.TrimSpace(a.Location)
	hasCoords := a.Latitude != nil || a.Longitude != nil
	switch {
	case a.Location == "" && !hasCoords:
		return a, errors.New("say where: pass location (a place name such as \"Tokyo\") or latitude and longitude")
	case a.Location != "" && hasCoords:
		return a, errors.New("pass either location or latitude and longitude, not both")
	case hasCoords && (a.Latitude == nil || a.Longitude == nil):
		return a, errors.New("latitude and longitude go together: pass both")
	case hasCoords && (math.Abs(*a.Latitude) > 90 || math.Abs(*a.Longitude) > 180):
		return a, errors.New("latitude must be within -90..90 and longitude within -180..180")
	case len(a.Location) > maxLocation:
		return a, fmt.Errorf("location is %d bytes long; the limit is %d: give just the place name", len(a.Location), maxLocation)
	case a.Days < 0 || a.Days > MaxDays:
		return a, fmt.Errorf("days must be from 1 to %d", MaxDays)
	case a.Units != "" && a.Units != Metric && a.Units != Imperial:
		return a, fmt.Errorf("units must be %q or %q", Metric, Imperial)
	}
	if a.Days == 0 {
		a.Days = DefaultDays
	}
	return a, nil
}

// Assess reports a low-tier read.
func (t *Weather) Assess(raw json.RawMessage) (tool.Assessment, error) {
	a, err := decode(raw)
	if err != nil {
		return tool.Assessment{}, fmt.Errorf("decode weather arguments: %w", err)
	}
	return tool.Assessment{
		Tier:    tool.Low,
		Reasons: []string{fmt.Sprintf("reads the forecast for %s from %s (read-only)", a.where(), t.forecast.Host)},
		Plan:    &tool.Plan{Summary: summary(a, t.units)},
	}, nil
}

func (a args) where() string {
	if a.Location != "" {
		return a.Location
	}
	return coords(*a.Latitude, *a.Longitude)
}

// summary is the plan an approver sees.
func summary(a args, units string) string {
	if a.Units != "" {
		units = a.Units
	}
	return fmt.Sprintf("weather for %q, %d days, %s", a.where(), a.Days, units)
}

// Place is where a forecast is for.
type Place struct {
	Name      string  `json:"name,omitempty"`
	Latitude  float64 `json:"latitude"`
	Longitude float64 `json:"longitude"`
	Timezone  string  `json:"timezone,omitempty"`
}

// Current is the weather now.
type Current struct {
	Time        string   `json:"time"`
	Temperature *float64 `json:"temperature,omitempty"`
	FeelsLike   *float64 `json:"feels_like,omitempty"`
	Humidity    *float64 `json:"humidity_percent,omitempty"`
	Wind        *float64 `json:"wind_speed,omitempty"`
	Rain        *float64 `json:"precipitation,omitempty"`
	Conditions  string   `json:"conditions,omitempty"`
}

// Day is one day of the forecast.
type Day struct {
	Date          string   `json:"date"`
	Conditions    string   `json:"conditions,omitempty"`
	Min           *float64 `json:"temperature_min,omitempty"`
	Max           *float64 `json:"temperature_max,omitempty"`
	Precipitation *float64 `json:"precipitation,omitempty"`
	RainChance    *float64 `json:"precipitation_probability,omitempty"`
}

// Data is weather's Output.Data.
type Data struct {
	Place   Place             `json:"place"`
	Units   map[string]string `json:"units"`
	Current *Current          `json:"current,omitempty"`
	Days    []Day             `json:"days"`
}

// Execute looks the place up if needed and reads its forecast.
func (t *Weather) Execute(ctx context.Context, raw json.RawMessage) (tool.Result, error) {
	a, err := decode(raw)
	if err != nil {
		return tool.Failure("%v", err), nil
	}
	if approved := tool.ApprovedPlan(ctx); approved != nil && approved.Summary != summary(a, t.units) {
		return tool.Failure("this request (%s) is not the one that was approved (%s); nothing was sent: ask for approval again", summary(a, t.units), approved.Summary), nil
	}
	units := t.units
	if a.Units != "" {
		units = a.Units
	}
	var place Place
	if a.Location != "" {
		p, res, err := t.geocode(ctx, a.Location)
		if res != nil || err != nil {
			return derefResult(res), err
		}
		place = p
	} else {
		place = Place{Latitude: *a.Latitude, Longitude: *a.Longitude}
	}
	u := *t.forecast
	u.Path += "/v1/forecast"
	q := url.Values{}
	q.Set("latitude", strconv.FormatFloat(place.Latitude, 'f', -1, 64))
	q.Set("longitude", strconv.FormatFloat(place.Longitude, 'f', -1, 64))
	q.Set("current", "temperature_2m,relative_humidity_2m,apparent_temperature,precipitation,weather_code,wind_speed_10m")
	q.Set("daily", "weather_code,temperature_2m_max,temperature_2m_min,precipitation_sum,precipitation_probability_max")
	q.Set("timezone", "auto")
	q.Set("forecast_days", strconv.Itoa(a.Days))
	if units == Imperial {
		q.Set("temperature_unit", "fahrenheit")
		q.Set("wind_speed_unit", "mph")
		q.Set("precipitation_unit", "inch")
	}
	u.RawQuery = q.Encode()
	body, res, err := t.get(ctx, &u, "forecast")
	if res != nil || err != nil {
		return derefResult(res), err
	}
	data, err := parseForecast(body)
	if err != nil {
		return tool.Failure("the forecast service answered in a form the weather tool does not understand (%v): the operator checks that base_url in [tools.weather] points at an Open-Meteo compatible API", err), nil
	}
	if place.Name != "" {
		data.Place.Name = place.Name
	}
	return tool.Result{Success: true, Output: tool.Output{Text: render(data), Data: data}}, nil
}

func derefResult(r *tool.Result) tool.Result {
	if r == nil {
		return tool.Result{}
	}
	return *r
}

// geocode finds the best match for a place name.
func (t *Weather) geocode(ctx context.Context, name string) (Place, *tool.Result, error) {
	u := *t.geocoding
	u.Path += "/v1/search"
	q := url.Values{}
	q.Set("name", name)
	q.Set("count", "1")
	q.Set("format", "json")
	u.RawQuery = q.Encode()
	body, res, err := t.get(ctx, &u, "geocoding")
	if res != nil || err != nil {
		return Place{}, res, err
	}
	var doc struct {
		Results []struct {
			Name      string  `json:"name"`
			Latitude  float64 `json:"latitude"`
			Longitude float64 `json:"longitude"`
			Country   string  `json:"country"`
			Admin1    string  `json:"admin1"`
			Timezone  string  `json:"timezone"`
		} `json:"results"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		r := tool.Failure("the geocoding service answered in a form the weather tool does not understand: the operator checks geocoding_url in [tools.weather]")
		return Place{}, &r, nil
	}
	if len(doc.Results) == 0 {
		r := tool.Failure("no place called %q was found: check the spelling, use the city name alone (\"Springfield\" rather than an address), or pass latitude and longitude", name)
		return Place{}, &r, nil
	}
	g := doc.Results[0]
	parts := []string{g.Name}
	for _, p := range []string{g.Admin1, g.Country} {
		if p != "" && p != g.Name {
			parts = append(parts, p)
		}
	}
	return Place{Name: strings.Join(parts, ", "), Latitude: g.Latitude, Longitude: g.Longitude, Timezone: g.Timezone}, nil, nil
}

// get sends one GET and returns a 200 body, or the failure to report.
func (t *Weather) get(ctx context.Context, u *url.URL, service string) ([]byte, *tool.Result, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		r := tool.Failure("the weather tool could not build the %s request: %v; the operator checks [tools.weather]", service, err)
		return nil, &r, nil
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "talon-weather/1")
	resp, err := t.guard.Do(req, 0)
	if err != nil {
		if cerr := ctx.Err(); cerr != nil && !errors.Is(cerr, context.DeadlineExceeded) {
			return nil, nil, cerr
		}
		r := tool.Failure("the weather tool could not reach the %s service: %v; try again later, or the operator checks the URLs and allow_private in [tools.weather]", service, err)
		return nil, &r, nil
	}
	t.log.Debug().Str("service", service).Int("status", resp.StatusCode).Int("bytes", len(resp.Body)).Msg("weather")
	switch {
	case resp.StatusCode == http.StatusOK && resp.Truncated:
		r := tool.Failure("the %s service answered with more than %d bytes; ask for fewer days", service, maxResponseBytes)
		return nil, &r, nil
	case resp.StatusCode == http.StatusOK:
		return resp.Body, nil, nil
	case resp.StatusCode == http.StatusBadRequest:
		var e struct {
			Reason string `json:"reason"`
		}
		_ = json.Unmarshal(resp.Body, &e)
		r := tool.Failure("the %s service refused the request: %s; check the arguments", service, orText(e.Reason, resp.Status))
		return nil, &r, nil
	case resp.StatusCode == http.StatusTooManyRequests:
		r := tool.Failure("the %s service is rate limiting this client (429 Too Many Requests): wait a minute and try again", service)
		return nil, &r, nil
	}
	r := tool.Failure("the %s service answered %s: try again later", service, resp.Status)
	return nil, &r, nil
}

func orText(s, def string) string {
	if strings.TrimSpace(s) == "" {
		return def
	}
	return s
}

func coords(lat, lon float64) string {
	return strconv.FormatFloat(lat, 'f', -1, 64) + "," + strconv.FormatFloat(lon, 'f', -1, 64)
}
