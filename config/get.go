package config

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// keyDefaults holds the documented default of every key that has one, by
// schema path; "*" stands for a map key (a profile alias, a server name).
var keyDefaults = map[string]any{
	"tools.optional":                   []string{"*"},
	"tools.commands.*.timeout":         DefaultCommandTimeoutSeconds,
	"tools.file_read.max_bytes":        DefaultFileReadMaxBytes,
	"tools.shell.timeout_seconds":      DefaultShellTimeoutSeconds,
	"tools.shell.max_output_bytes":     DefaultShellMaxOutputBytes,
	"tools.content_search.max_results": DefaultContentSearchMaxResults,
	"tools.glob_search.max_results":    DefaultGlobSearchMaxResults,

	"tools.shell.notify_on_exit":             true,
	"tools.shell.approval_running_notice_ms": DefaultApprovalRunningNoticeMs,

	"tools.web_search.max_results":      DefaultWebSearchMaxResults,
	"tools.web_search.timeout_seconds":  DefaultWebSearchTimeoutSeconds,
	"tools.web_search.brave_url":        DefaultBraveURL,
	"tools.web_search.anysearch_url":    DefaultAnySearchURL,
	"tools.weather.base_url":            DefaultWeatherURL,
	"tools.weather.geocoding_url":       DefaultGeocodingURL,
	"tools.weather.units":               UnitsMetric,
	"tools.weather.timeout_seconds":     DefaultWeatherTimeoutSeconds,
	"tools.github.base_url":             DefaultGitHubURL,
	"tools.github.max_results":          DefaultGitHubMaxResults,
	"tools.github.timeout_seconds":      DefaultGitHubTimeoutSeconds,
	"tools.coding_cli.timeout_seconds":  DefaultCodingCLITimeoutSeconds,
	"tools.coding_cli.max_output_bytes": DefaultCodingCLIMaxOutputBytes,

	"risk_profiles.*.level":                            LevelSupervised,
	"risk_profiles.*.require_approval_for_medium_risk": true,
	"risk_profiles.*.block_high_risk_commands":         true,
	"risk_profiles.*.allowed_commands":                 defaultAllowedCommands,
	"risk_profiles.*.workspace_only":                   true,
	"risk_profiles.*.shell.safe_bins":                  defaultSafeBins,
	"risk_profiles.*.shell.safe_bin_trusted_dirs":      defaultSafeBinTrustedDirs,

	"approvals.timeout_seconds": DefaultApprovalTimeoutSeconds,
	"approvals.wait":            true,
	"receipts.enabled":          true,

	"serve.listen":  DefaultListen,
	"serve.profile": DefaultProfile,
	"serve.surface": SurfaceChat,

	"models.*.timeout_seconds": DefaultModelTimeoutSeconds,
	"models.*.max_retries":     DefaultModelMaxRetries,
	"models.*.max_tokens":      DefaultModelMaxTokens,

	"mcp.servers.*.enabled":                 true,
	"mcp.servers.*.startup_timeout_seconds": DefaultMCPStartupSeconds,

	"plugins.security.signature_mode": SignaturePermissive,
	"plugins.entries.enabled":         true,
	"plugins.max_plugins":             DefaultMaxPlugins,
	"plugins.max_memory_mb":           DefaultPluginMaxMemoryMB,
	"plugins.max_timeout_ms":          DefaultPluginMaxTimeoutMS,
	"plugins.max_instances":           DefaultPluginMaxInstances,
	"plugins.max_output_bytes":        DefaultPluginMaxOutputBytes,

	"sandbox.mode": SandboxAuto,
}

// Get returns the value of a dotted key (such as "tools.optional" or
// "risk_profiles.default.level") with defaults applied: a key the file does
// not set reports its documented default. A table returns a
// map[string]any of its keys. The "default" risk profile always exists.
//
// # Errors
//
// A key outside the schema wraps [ErrUnknownKey] and suggests the closest
// known key; a map entry the config does not define (a profile alias, a
// command tool) says which ones it does define.
func Get(c *Config, key string) (any, error) {
	path, err := parseKeyArg(key)
	if err != nil {
		return nil, err
	}
	if c == nil {
		c = &Config{}
	}
	v := reflect.ValueOf(c).Elem()
	pattern := make([]string, 0, len(path))
	for i, part := range path {
		for v.Kind() == reflect.Pointer {
			if v.IsNil() {
				v = reflect.Zero(v.Type().Elem())
				break
			}
			v = v.Elem()
		}
		switch v.Kind() {
		case reflect.Struct:
			f, ok := fieldByName(v.Type(), part)
			if !ok {
				return nil, fmt.Errorf("%w %s%s; check the spelling",
					ErrUnknownKey, quoteString(formatKey(path[:i+1])), didYouMean(part, fieldNames(v.Type())))
			}
			v = v.Field(f.index)
			pattern = append(pattern, part)
		case reflect.Map:
			elem := v.MapIndex(reflect.ValueOf(part))
			if !elem.IsValid() {
				if v.Type() == reflect.TypeFor[map[string]RiskProfile]() && part == DefaultProfile {
					elem = reflect.ValueOf(RiskProfile{})
				} else {
					var keys []string
					for _, k := range v.MapKeys() {
						keys = append(keys, k.String())
					}
					if v.Type() == reflect.TypeFor[map[string]RiskProfile]() && !slices.Contains(keys, DefaultProfile) {
						keys = append(keys, DefaultProfile)
					}
					slices.Sort(keys)
					defined := "none are defined"
					if len(keys) > 0 {
						defined = "defined: " + strings.Join(keys, ", ")
					}
					return nil, fmt.Errorf("%w %s: %s is not set (%s)%s; check the name",
						ErrUnknownKey, quoteString(formatKey(path[:i+1])), quoteString(part), defined, didYouMean(part, keys))
				}
			}
			v = elem
			if v.Type().Kind() == reflect.Interface {
				pattern = append(pattern, part)
			} else {
				pattern = append(pattern, "*")
			}
		case reflect.Interface:
			if v.IsNil() {
				return nil, fmt.Errorf("%w %s: not set; check the name", ErrUnknownKey, quoteString(formatKey(path[:i+1])))
			}
			v = v.Elem()
			if v.Kind() != reflect.Map {
				return nil, fmt.Errorf("%w %s: %s is not a table", ErrUnknownKey, quoteString(formatKey(path[:i+1])), quoteString(formatKey(path[:i])))
			}
			elem := v.MapIndex(reflect.ValueOf(part))
			if !elem.IsValid() {
				return nil, fmt.Errorf("%w %s: not set; check the name", ErrUnknownKey, quoteString(formatKey(path[:i+1])))
			}
			v = elem
			pattern = append(pattern, part)
		default:
			return nil, fmt.Errorf("%w %s: %s is %s, not a table; get %s instead",
				ErrUnknownKey, quoteString(formatKey(path[:i+1])), quoteString(formatKey(path[:i])),
				describeType(v.Type()), quoteString(formatKey(path[:i])))
		}
	}
	return exportValue(v, pattern), nil
}

// exportValue converts v into plain Go values (string, int, bool, []string,
// []int, []any, map[string]any), applying keyDefaults where v is unset.
func exportValue(v reflect.Value, pattern []string) any {
	if def, ok := keyDefaults[strings.Join(pattern, ".")]; ok && isUnset(v) {
		if s, ok := def.([]string); ok {
			return slices.Clone(s)
		}
		return def
	}
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			if v.Kind() == reflect.Pointer {
				return exportValue(reflect.Zero(v.Type().Elem()), pattern)
			}
			return nil
		}
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.Struct:
		out := map[string]any{}
		for _, f := range tomlFields(v.Type()) {
			out[f.name] = exportValue(v.Field(f.index), append(slices.Clip(pattern), f.name))
		}
		return out
	case reflect.Map:
		out := map[string]any{}
		elemPattern := "*"
		if v.Type().Elem().Kind() == reflect.Interface {
			elemPattern = ""
		}
		iter := v.MapRange()
		for iter.Next() {
			k := iter.Key().String()
			p := elemPattern
			if p == "" {
				p = k
			}
			out[k] = exportValue(iter.Value(), append(slices.Clip(pattern), p))
		}
		return out
	case reflect.Slice, reflect.Array:
		switch v.Type().Elem().Kind() {
		case reflect.String:
			out := make([]string, v.Len())
			for i := range out {
				out[i] = v.Index(i).String()
			}
			return out
		case reflect.Int:
			out := make([]int, v.Len())
			for i := range out {
				out[i] = int(v.Index(i).Int())
			}
			return out
		}
		out := make([]any, v.Len())
		for i := range out {
			out[i] = exportValue(v.Index(i), pattern)
		}
		return out
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32:
		return int(v.Int())
	default:
		return v.Interface()
	}
}

// isUnset reports whether v is the zero value that stands for "absent".
func isUnset(v reflect.Value) bool {
	if !v.IsValid() {
		return true
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface, reflect.Map:
		return v.IsNil()
	case reflect.Slice:
		return v.IsNil()
	default:
		return v.IsZero()
	}
}

// FormatValue renders v in TOML inline form: "en" (quoted), 7, true,
// ["*"], { level = "full" }. Table keys are sorted. Nil renders as "".
func FormatValue(v any) string {
	var b strings.Builder
	formatValue(&b, reflect.ValueOf(v), 0)
	return b.String()
}

func formatValue(b *strings.Builder, v reflect.Value, depth int) {
	if depth > maxNesting {
		b.WriteString(`""`)
		return
	}
	for v.IsValid() && (v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface) {
		if v.IsNil() {
			v = reflect.Value{}
			break
		}
		v = v.Elem()
	}
	if !v.IsValid() {
		b.WriteString(`""`)
		return
	}
	switch v.Kind() {
	case reflect.String:
		b.WriteString(quoteString(v.String()))
	case reflect.Bool:
		b.WriteString(strconv.FormatBool(v.Bool()))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		b.WriteString(strconv.FormatInt(v.Int(), 10))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		b.WriteString(strconv.FormatUint(v.Uint(), 10))
	case reflect.Float32, reflect.Float64:
		b.WriteString(formatFloat(v.Float()))
	case reflect.Slice, reflect.Array:
		b.WriteByte('[')
		for i := range v.Len() {
			if i > 0 {
				b.WriteString(", ")
			}
			formatValue(b, v.Index(i), depth+1)
		}
		b.WriteByte(']')
	case reflect.Map:
		keys := make([]string, 0, v.Len())
		vals := map[string]reflect.Value{}
		iter := v.MapRange()
		for iter.Next() {
			k := fmt.Sprint(iter.Key().Interface())
			keys = append(keys, k)
			vals[k] = iter.Value()
		}
		slices.Sort(keys)
		writeInlineTable(b, keys, func(k string) reflect.Value { return vals[k] }, depth)
	case reflect.Struct:
		fields := tomlFields(v.Type())
		keys := make([]string, len(fields))
		byName := map[string]reflect.Value{}
		for i, f := range fields {
			keys[i] = f.name
			byName[f.name] = v.Field(f.index)
		}
		writeInlineTable(b, keys, func(k string) reflect.Value { return byName[k] }, depth)
	default:
		b.WriteString(quoteString(fmt.Sprint(v.Interface())))
	}
}

func writeInlineTable(b *strings.Builder, keys []string, get func(string) reflect.Value, depth int) {
	if len(keys) == 0 {
		b.WriteString("{}")
		return
	}
	b.WriteString("{ ")
	for i, k := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(formatKey([]string{k}))
		b.WriteString(" = ")
		formatValue(b, get(k), depth+1)
	}
	b.WriteString(" }")
}

func formatFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eEn") {
		s += ".0"
	}
	return s
}

// quoteString writes s as a TOML basic string.
func quoteString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\t':
			b.WriteString(`\t`)
		case '\n':
			b.WriteString(`\n`)
		case '\f':
			b.WriteString(`\f`)
		case '\r':
			b.WriteString(`\r`)
		default:
			if r < 0x20 || r == 0x7f {
				fmt.Fprintf(&b, `\u%04X`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}
