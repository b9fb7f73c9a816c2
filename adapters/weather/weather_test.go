package weather

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/locales"
	"github.com/talonhq/talon/tool"
	"github.com/talonhq/talon/toolfactory"
)

const forecastBody = `{"latitude":34.69,"longitude":135.5,"timezone":"Asia/Tokyo",
"current_units":{"time":"iso8601","temperature_2m":"°C","relative_humidity_2m":"%","precipitation":"mm","wind_speed_10m":"km/h"},
"current":{"time":"2026-11-30T10:00","temperature_2m":14.2,"relative_humidity_2m":61,"apparent_temperature":12.9,"precipitation":0,"weather_code":3,"wind_speed_10m":8.4},
"daily_units":{"temperature_2m_max":"°C","precipitation_sum":"mm"},
"daily":{"time":["2026-11-30","2026-12-01"],"weather_code":[3,61],"temperature_2m_max":[16.1,13],"temperature_2m_min":[8.5,7.2],"precipitation_sum":[0,4.2],"precipitation_probability_max":[10,80]}}`

const geocodeBody = `{"results":[{"name":"Osaka","latitude":34.69,"longitude":135.5,"country":"Japan","admin1":"Osaka","timezone":"Asia/Tokyo"}]}`

// fakeAPI serves the geocoding and forecast endpoints and records queries.
type fakeAPI struct {
	srv      *httptest.Server
	mu       sync.Mutex
	paths    []string
	forecast http.HandlerFunc
	geocode  http.HandlerFunc
}

func newAPI(t *testing.T) *fakeAPI {
	f := &fakeAPI{
		forecast: func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, forecastBody) },
		geocode:  func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, geocodeBody) },
	}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.paths = append(f.paths, r.URL.Path+"?"+r.URL.RawQuery)
		f.mu.Unlock()
		switch r.URL.Path {
		case "/geo/v1/search":
			f.geocode(w, r)
		case "/fc/v1/forecast":
			f.forecast(w, r)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeAPI) seen() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.paths...)
}

func (f *fakeAPI) tool(t *testing.T, units string) *Weather {
	t.Helper()
	w, err := New(Options{ForecastURL: f.srv.URL + "/fc/", GeocodingURL: f.srv.URL + "/geo", Units: units, AllowPrivate: []string{"127.0.0.1"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Close() })
	return w
}

func TestForecast(t *testing.T) {
	tests := []struct {
		name      string
		units     string
		args      string
		wantText  []string
		wantQuery []string
		requests  int
	}{
		{name: "by name", args: `{"location":"Osaka","days":2}`, requests: 2,
			wantText:  []string{"Weather for Osaka, Japan (34.69,135.5), times in Asia/Tokyo", "overcast", "temperature 14.2°C", "humidity 61%", "- 2026-12-01: slight rain, 7.2 to 13°C, precipitation 4.2 mm (80% chance)"},
			wantQuery: []string{"name=Osaka", "forecast_days=2", "latitude=34.69", "longitude=135.5"}},
		{name: "by coordinates", args: `{"latitude":34.69,"longitude":135.5}`, requests: 1,
			wantText:  []string{"Weather for 34.69,135.5"},
			wantQuery: []string{"forecast_days=3"}},
		{name: "imperial from the operator", units: Imperial, args: `{"latitude":1,"longitude":2}`, requests: 1,
			wantQuery: []string{"temperature_unit=fahrenheit", "wind_speed_unit=mph", "precipitation_unit=inch"}},
		{name: "imperial from the call", args: `{"latitude":1,"longitude":2,"units":"imperial"}`, requests: 1,
			wantQuery: []string{"temperature_unit=fahrenheit"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := newAPI(t)
			res, err := api.tool(t, tt.units).Execute(context.Background(), json.RawMessage(tt.args))
			if err != nil || !res.Success {
				t.Fatalf("Execute = %+v, %v", res, err)
			}
			for _, w := range tt.wantText {
				if !strings.Contains(res.Output.Text, w) {
					t.Errorf("text lacks %q:\n%s", w, res.Output.Text)
				}
			}
			seen := api.seen()
			if len(seen) != tt.requests {
				t.Fatalf("requests %q, want %d", seen, tt.requests)
			}
			all := strings.Join(seen, " ")
			for _, w := range tt.wantQuery {
				if !strings.Contains(all, w) {
					t.Errorf("requests %q lack %q", seen, w)
				}
			}
			if tt.units == "" && !strings.Contains(tt.args, "imperial") && strings.Contains(all, "fahrenheit") {
				t.Error("metric call asked for fahrenheit")
			}
			if d := res.Output.Data.(Data); len(d.Days) != 2 || d.Current == nil || d.Units["temperature"] != "°C" {
				t.Errorf("data = %+v", d)
			}
		})
	}
}

func TestFailures(t *testing.T) {
	tests := []struct {
		name     string
		forecast http.HandlerFunc
		geocode  http.HandlerFunc
		args     string
		want     string
		requests int
	}{
		{name: "nowhere", args: `{}`, want: "pass location"},
		{name: "both", args: `{"location":"x","latitude":1,"longitude":2}`, want: "not both"},
		{name: "half coordinates", args: `{"latitude":1}`, want: "go together"},
		{name: "too many days", args: `{"latitude":1,"longitude":2,"days":30}`, want: "days must be"},
		{name: "unknown place", args: `{"location":"Nowhereville"}`, geocode: func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, `{"generationtime_ms":0.1}`) },
			want: "no place called \"Nowhereville\"", requests: 1},
		{name: "bad request", args: `{"latitude":1,"longitude":2}`, forecast: func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(400)
			fmt.Fprint(w, `{"error":true,"reason":"Parameter 'forecast_days' is out of allowed range"}`)
		}, want: "out of allowed range", requests: 1},
		{name: "rate limited", args: `{"latitude":1,"longitude":2}`, forecast: func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(429) },
			want: "wait a minute", requests: 1},
		{name: "server error", args: `{"latitude":1,"longitude":2}`, forecast: func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(503) },
			want: "try again later", requests: 1},
		{name: "not a forecast", args: `{"latitude":1,"longitude":2}`, forecast: func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, `{"hello":1}`) },
			want: "Open-Meteo compatible", requests: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := newAPI(t)
			if tt.forecast != nil {
				api.forecast = tt.forecast
			}
			if tt.geocode != nil {
				api.geocode = tt.geocode
			}
			res, err := api.tool(t, "").Execute(context.Background(), json.RawMessage(tt.args))
			if err != nil || res.Success || !strings.Contains(res.Error, tt.want) {
				t.Fatalf("Execute = %+v, %v; want a failure with %q", res, err, tt.want)
			}
			if n := len(api.seen()); n != tt.requests {
				t.Errorf("%d requests, want %d", n, tt.requests)
			}
		})
	}
}

func TestApprovedPlan(t *testing.T) {
	api := newAPI(t)
	w := api.tool(t, "")
	as, err := w.Assess(json.RawMessage(`{"location":"Osaka"}`))
	if err != nil || as.Plan == nil || !strings.Contains(as.Plan.Summary, `"Osaka", 3 days, metric`) {
		t.Fatalf("Assess = %+v, %v", as, err)
	}
	ctx := tool.WithApprovedPlan(context.Background(), as.Plan)
	if res, _ := w.Execute(ctx, json.RawMessage(`{"location":"Kyoto"}`)); res.Success || !strings.Contains(res.Error, "not the one that was approved") || len(api.seen()) != 0 {
		t.Fatalf("another place ran under the approval: %+v", res)
	}
	if res, _ := w.Execute(ctx, json.RawMessage(`{"location":"Osaka"}`)); !res.Success {
		t.Fatalf("approved call failed: %+v", res)
	}
}

func TestGuard(t *testing.T) {
	api := newAPI(t)
	w, err := New(Options{ForecastURL: api.srv.URL, GeocodingURL: api.srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	res, _ := w.Execute(context.Background(), json.RawMessage(`{"latitude":1,"longitude":2}`))
	if res.Success || !strings.Contains(res.Error, "allow_private") || len(api.seen()) != 0 {
		t.Fatalf("loopback reached without allow_private: %+v", res)
	}
	for _, o := range []Options{{Units: "kelvin"}, {ForecastURL: "file:///etc"}, {AllowPrivate: []string{"10.0.0.0/99"}}} {
		if _, err := New(o); err == nil {
			t.Errorf("New(%+v) succeeded", o)
		}
	}
}

func TestRegisteredAndMessages(t *testing.T) {
	fac, ok := toolfactory.Get(Name)
	if !ok || fac.Tier != tool.Low {
		t.Fatalf("factory %+v, %v", fac, ok)
	}
	cfg, _, err := config.Parse("talon.toml", []byte("[tools.weather]\nunits = \"imperial\"\nbase_url = \"https://weather.internal\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	o := optionsFrom(toolfactory.Env{Config: cfg})
	if o.Units != Imperial || o.ForecastURL != "https://weather.internal" || o.GeocodingURL != config.DefaultGeocodingURL {
		t.Errorf("options = %+v", o)
	}
	for _, env := range []toolfactory.Env{{}, {Config: config.Default()}, {Config: cfg}} {
		tl, err := fac.New(env)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tool.CompileSchema(Name, tl.Spec().Input); err != nil {
			t.Fatal(err)
		}
		as, err := tl.(tool.Assessor).Assess(json.RawMessage(`{"location":"Kyoto"}`))
		if err != nil || as.Tier != tool.Low || as.Plan == nil {
			t.Errorf("Assess = %+v, %v", as, err)
		}
	}
	spec := (&Weather{}).Spec()
	for _, lang := range []string{"en", "ja"} {
		files, err := locales.ReadLocale(locales.Embedded(), lang)
		if err != nil {
			t.Fatal(err)
		}
		have := map[string]bool{}
		for _, f := range files {
			for _, e := range f.Resource.Entries() {
				have[e.Key] = true
			}
		}
		var schema struct {
			Properties map[string]json.RawMessage `json:"properties"`
		}
		_ = json.Unmarshal(spec.Input, &schema)
		ids := []string{locales.ToolID(Name)}
		for p := range schema.Properties {
			ids = append(ids, locales.ParamID(Name, p))
		}
		for _, id := range ids {
			if !have[id] {
				t.Errorf("%s: no message %s", lang, id)
			}
		}
	}
}

// FuzzParseForecast feeds answers to the forecast parser: it must never
// panic, and never keep more days than a forecast can have.
func FuzzParseForecast(f *testing.F) {
	f.Add([]byte(forecastBody))
	f.Add([]byte(`{"latitude":1,"longitude":2,"daily":{"time":["a","b"],"weather_code":[1e300]}}`))
	f.Add([]byte(`{"latitude":1,"longitude":2,"current":{"weather_code":-1}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		d, err := parseForecast(body)
		if err != nil {
			return
		}
		if len(d.Days) > MaxDays {
			t.Fatalf("%d days", len(d.Days))
		}
		_ = render(d)
	})
}
