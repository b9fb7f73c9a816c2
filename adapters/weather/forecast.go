package weather

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// forecastDoc is the part of a /v1/forecast answer the tool reads.
type forecastDoc struct {
	Latitude     *float64          `json:"latitude"`
	Longitude    *float64          `json:"longitude"`
	Timezone     string            `json:"timezone"`
	CurrentUnits map[string]string `json:"current_units"`
	Current      *struct {
		Time        string   `json:"time"`
		Temperature *float64 `json:"temperature_2m"`
		Humidity    *float64 `json:"relative_humidity_2m"`
		FeelsLike   *float64 `json:"apparent_temperature"`
		Rain        *float64 `json:"precipitation"`
		Code        *float64 `json:"weather_code"`
		Wind        *float64 `json:"wind_speed_10m"`
	} `json:"current"`
	DailyUnits map[string]string `json:"daily_units"`
	Daily      *struct {
		Time       []string   `json:"time"`
		Code       []*float64 `json:"weather_code"`
		Max        []*float64 `json:"temperature_2m_max"`
		Min        []*float64 `json:"temperature_2m_min"`
		Rain       []*float64 `json:"precipitation_sum"`
		RainChance []*float64 `json:"precipitation_probability_max"`
	} `json:"daily"`
}

// maxDaysParsed bounds the days read from an answer, whatever it holds.
const maxDaysParsed = MaxDays

// parseForecast reads a /v1/forecast answer. Missing values stay nil;
// an answer without coordinates is not a forecast.
func parseForecast(body []byte) (Data, error) {
	var doc forecastDoc
	if err := json.Unmarshal(body, &doc); err != nil {
		return Data{}, errors.New("the answer is not a JSON object")
	}
	if doc.Latitude == nil || doc.Longitude == nil {
		return Data{}, errors.New("the answer has no latitude and longitude")
	}
	d := Data{
		Place: Place{Latitude: *doc.Latitude, Longitude: *doc.Longitude, Timezone: doc.Timezone},
		Units: map[string]string{},
	}
	for k, unit := range map[string]string{
		"temperature":   first(doc.CurrentUnits["temperature_2m"], doc.DailyUnits["temperature_2m_max"]),
		"wind_speed":    doc.CurrentUnits["wind_speed_10m"],
		"precipitation": first(doc.CurrentUnits["precipitation"], doc.DailyUnits["precipitation_sum"]),
	} {
		if unit != "" {
			d.Units[k] = clipUnit(unit)
		}
	}
	if c := doc.Current; c != nil {
		d.Current = &Current{Time: c.Time, Temperature: c.Temperature, FeelsLike: c.FeelsLike, Humidity: c.Humidity,
			Wind: c.Wind, Rain: c.Rain, Conditions: conditions(c.Code)}
	}
	if dl := doc.Daily; dl != nil {
		for i, date := range dl.Time {
			if i >= maxDaysParsed {
				break
			}
			d.Days = append(d.Days, Day{Date: date, Conditions: conditions(at(dl.Code, i)), Min: at(dl.Min, i), Max: at(dl.Max, i),
				Precipitation: at(dl.Rain, i), RainChance: at(dl.RainChance, i)})
		}
	}
	return d, nil
}

func at(xs []*float64, i int) *float64 {
	if i < len(xs) {
		return xs[i]
	}
	return nil
}

func first(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func clipUnit(s string) string {
	if len(s) > 16 {
		return "" // a unit that long is not a unit
	}
	return s
}

// wmo names the WMO weather interpretation codes the services use.
var wmo = map[int]string{
	0: "clear sky", 1: "mainly clear", 2: "partly cloudy", 3: "overcast",
	45: "fog", 48: "depositing rime fog",
	51: "light drizzle", 53: "moderate drizzle", 55: "dense drizzle",
	56: "light freezing drizzle", 57: "dense freezing drizzle",
	61: "slight rain", 63: "moderate rain", 65: "heavy rain",
	66: "light freezing rain", 67: "heavy freezing rain",
	71: "slight snowfall", 73: "moderate snowfall", 75: "heavy snowfall", 77: "snow grains",
	80: "slight rain showers", 81: "moderate rain showers", 82: "violent rain showers",
	85: "slight snow showers", 86: "heavy snow showers",
	95: "thunderstorm", 96: "thunderstorm with slight hail", 99: "thunderstorm with heavy hail",
}

func conditions(code *float64) string {
	if code == nil {
		return ""
	}
	if s, ok := wmo[int(*code)]; ok && float64(int(*code)) == *code {
		return s
	}
	return fmt.Sprintf("weather code %s", strconv.FormatFloat(*code, 'f', -1, 64))
}

// render writes the forecast for the model.
func render(d Data) string {
	var b strings.Builder
	where := d.Place.Name
	if where == "" {
		where = coords(d.Place.Latitude, d.Place.Longitude)
	} else {
		where += " (" + coords(d.Place.Latitude, d.Place.Longitude) + ")"
	}
	fmt.Fprintf(&b, "Weather for %s", where)
	if d.Place.Timezone != "" {
		fmt.Fprintf(&b, ", times in %s", d.Place.Timezone)
	}
	b.WriteString("\n")
	t, w, p := d.Units["temperature"], d.Units["wind_speed"], d.Units["precipitation"]
	if c := d.Current; c != nil {
		fmt.Fprintf(&b, "\nNow (%s):", c.Time)
		if c.Conditions != "" {
			fmt.Fprintf(&b, " %s,", c.Conditions)
		}
		var parts []string
		add := func(label string, v *float64, unit string) {
			if v != nil {
				parts = append(parts, label+" "+num(*v)+unit)
			}
		}
		add("temperature", c.Temperature, t)
		add("feels like", c.FeelsLike, t)
		add("humidity", c.Humidity, "%")
		add("wind", c.Wind, " "+w)
		add("precipitation", c.Rain, " "+p)
		fmt.Fprintf(&b, " %s\n", strings.Join(parts, ", "))
	}
	if len(d.Days) > 0 {
		b.WriteString("\nForecast:\n")
	}
	for _, day := range d.Days {
		fmt.Fprintf(&b, "- %s:", day.Date)
		if day.Conditions != "" {
			fmt.Fprintf(&b, " %s,", day.Conditions)
		}
		if day.Min != nil && day.Max != nil {
			fmt.Fprintf(&b, " %s to %s%s", num(*day.Min), num(*day.Max), t)
		}
		if day.Precipitation != nil {
			fmt.Fprintf(&b, ", precipitation %s %s", num(*day.Precipitation), p)
		}
		if day.RainChance != nil {
			fmt.Fprintf(&b, " (%s%% chance)", num(*day.RainChance))
		}
		b.WriteString("\n")
	}
	return b.String()
}

func num(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
