package weather_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/talonhq/talon/adapters/weather"
)

func ExampleWeather_Execute() {
	// A stand-in for the Open-Meteo forecast service.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"latitude":35.69,"longitude":139.69,"timezone":"Asia/Tokyo",
"daily_units":{"temperature_2m_max":"°C","precipitation_sum":"mm"},
"daily":{"time":["2026-12-01"],"weather_code":[1],"temperature_2m_max":[12.5],"temperature_2m_min":[4.1],"precipitation_sum":[0]}}`)
	}))
	defer srv.Close()
	w, err := weather.New(weather.Options{ForecastURL: srv.URL, GeocodingURL: srv.URL, AllowPrivate: []string{"127.0.0.1"}})
	if err != nil {
		panic(err)
	}
	res, _ := w.Execute(context.Background(), json.RawMessage(`{"latitude":35.69,"longitude":139.69,"days":1}`))
	fmt.Print(res.Output.Text)
	// Output:
	// Weather for 35.69,139.69, times in Asia/Tokyo
	//
	// Forecast:
	// - 2026-12-01: mainly clear, 4.1 to 12.5°C, precipitation 0 mm
}
