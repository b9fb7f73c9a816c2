package config

import (
	"reflect"
	"slices"
	"strings"

	"github.com/talonhq/talon/internal/spelling"
)

var configType = reflect.TypeFor[Config]()

// tomlField is one decoded field of a struct.
type tomlField struct {
	name  string
	index int
}

// tomlFields lists the fields of a struct type that carry a toml tag.
func tomlFields(t reflect.Type) []tomlField {
	var out []tomlField
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
		if !f.IsExported() || name == "" || name == "-" {
			continue
		}
		out = append(out, tomlField{name: name, index: i})
	}
	return out
}

func fieldNames(t reflect.Type) []string {
	var names []string
	for _, f := range tomlFields(t) {
		names = append(names, f.name)
	}
	return names
}

func fieldByName(t reflect.Type, name string) (tomlField, bool) {
	for _, f := range tomlFields(t) {
		if f.name == name {
			return f, true
		}
	}
	return tomlField{}, false
}

// schemaMiss describes where a key path leaves the schema.
type schemaMiss struct {
	// at is the index of the first part the schema does not know.
	at int
	// candidates are the keys allowed at that place.
	candidates []string
	// throughArray is set when the path descends into an array of tables.
	throughArray bool
}

// schemaType returns the Go type the schema gives to path. Map keys match any
// part; the elements of an array of tables are entered without an index.
func schemaType(path []string) (reflect.Type, *schemaMiss) {
	t := configType
	through := false
	for i, part := range path {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Struct {
			t = t.Elem()
			through = true
		}
		switch t.Kind() {
		case reflect.Struct:
			f, ok := fieldByName(t, part)
			if !ok {
				return nil, &schemaMiss{at: i, candidates: fieldNames(t), throughArray: through}
			}
			t = t.Field(f.index).Type
		case reflect.Map:
			t = t.Elem()
		case reflect.Interface:
			// Free-form tables (JSON Schema, plugin config) accept any key.
			return t, nil
		default:
			return nil, &schemaMiss{at: i, throughArray: through}
		}
	}
	if through {
		return t, &schemaMiss{at: len(path), throughArray: true}
	}
	return t, nil
}

// describeType says in words what a TOML value for t must look like.
func describeType(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean (true or false)"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		e := t.Elem()
		if e.Kind() == reflect.Struct {
			return "an array of tables"
		}
		return "an array of " + plural(describeType(e))
	case reflect.Map:
		if t.Elem().Kind() == reflect.Interface {
			return "a table"
		}
		return "a table of " + plural(describeType(t.Elem()))
	case reflect.Struct:
		return "a table"
	default:
		return "a value"
	}
}

func plural(desc string) string {
	desc = strings.TrimPrefix(strings.TrimPrefix(desc, "an "), "a ")
	switch {
	case strings.HasPrefix(desc, "boolean"):
		return "booleans"
	case strings.HasPrefix(desc, "array of"), strings.HasPrefix(desc, "table of"):
		return strings.Replace(desc, " of", "s of", 1)
	default:
		return desc + "s"
	}
}

// didYouMean renders a suggestion clause, or "" when there is none.
func didYouMean(name string, candidates []string) string {
	if s := spelling.Closest(name, candidates); s != "" {
		return " (did you mean " + quoteString(s) + "?)"
	}
	return ""
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
