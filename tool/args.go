package tool

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// ErrArgumentsNotObject is returned by [NormalizeArgs] for arguments that are
// valid JSON but not an object. The call is refused and nothing runs.
var ErrArgumentsNotObject = errors.New("tool arguments must be a JSON object")

// ErrArgumentsMalformed is returned by [NormalizeArgs] for arguments that are
// not JSON at all.
var ErrArgumentsMalformed = errors.New("tool arguments are not valid JSON")

// NormalizeArgs applies the argument rules every call follows: empty input
// and JSON null become {}, an object passes through (compacted), and anything
// else is an error wrapping [ErrArgumentsNotObject] or [ErrArgumentsMalformed].
func NormalizeArgs(raw json.RawMessage) (json.RawMessage, error) {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || string(trimmed) == "null" {
		return json.RawMessage(`{}`), nil
	}
	if !json.Valid(trimmed) {
		return nil, fmt.Errorf("%w: pass an object such as {\"path\": \"README.md\"}", ErrArgumentsMalformed)
	}
	if trimmed[0] != '{' {
		return nil, fmt.Errorf("%w, got %s: wrap the values in an object keyed by parameter name", ErrArgumentsNotObject, jsonKind(trimmed[0]))
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, trimmed); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrArgumentsMalformed, err)
	}
	return buf.Bytes(), nil
}

func jsonKind(first byte) string {
	switch first {
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	default:
		return "a number"
	}
}

// Schema is a compiled JSON Schema for a tool's arguments. It is safe for
// concurrent use.
type Schema struct {
	rs *jsonschema.Resolved
}

// CompileSchema compiles a tool's input schema. The schema must describe an
// object; an empty schema means "any object".
//
// Schemas are validated as draft 2020-12, or draft-07 when their $schema
// says so; a $schema naming another draft is validated as 2020-12. The
// format and content keywords are annotations, as 2020-12 has them by
// default.
func CompileSchema(name string, raw json.RawMessage) (*Schema, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		raw = json.RawMessage(`{"type":"object"}`)
	}
	if !json.Valid(raw) {
		return nil, fmt.Errorf("input schema of %s is not valid JSON", name)
	}
	if raw[0] != '{' {
		return nil, fmt.Errorf("input schema of %s must be a JSON object", name)
	}
	var doc any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("input schema of %s is not valid JSON", name)
	}
	if hideFoldedKeywords(doc) {
		// encoding/json matches names regardless of case, JSON Schema
		// does not: "Properties" is no keyword, and must not act as one.
		var err error
		if raw, err = json.Marshal(doc); err != nil {
			return nil, fmt.Errorf("input schema of %s: %w", name, err)
		}
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("input schema of %s does not compile: %w", name, err)
	}
	if s.Types != nil || (s.Type != "" && s.Type != "object") {
		t := any(s.Type)
		if s.Types != nil {
			t = s.Types
		}
		return nil, fmt.Errorf("input schema of %s must have \"type\": \"object\", got %v", name, t)
	}
	switch s.Schema {
	case "", draft7, draft7Secure, draft202012:
	default:
		s.Schema = ""
	}
	if err := checkSchema(&s, doc, ""); err != nil {
		return nil, fmt.Errorf("input schema of %s does not compile: %w", name, err)
	}
	rs, err := s.Resolve(&jsonschema.ResolveOptions{BaseURI: "https://talon.invalid/tools/" + url.PathEscape(name) + ".json"})
	if err != nil {
		return nil, fmt.Errorf("input schema of %s does not compile: %w", name, err)
	}
	return &Schema{rs: rs}, nil
}

// jsonTypes are the names "type" may use.
var jsonTypes = map[string]bool{"null": true, "boolean": true, "object": true, "array": true, "number": true, "string": true, "integer": true}

// checkSchema checks what the meta-schema requires of the validation
// keywords beyond their JSON types, which decoding checked: type names,
// counts that are not negative, a positive multipleOf, unique required
// names, non-empty lists of subschemas. raw is the schema as decoded into
// any, for what the decoded form does not keep (an empty type); at is
// the schema's location, for the error.
func checkSchema(s *jsonSchema, raw any, at string) error {
	if s == nil {
		return nil
	}
	where := func() string {
		if at == "" {
			return "the root"
		}
		return at
	}
	m, _ := raw.(map[string]any)
	switch t := m["type"].(type) {
	case nil:
	case string:
		if !jsonTypes[t] {
			return fmt.Errorf("at %s: type %q is not a JSON type", where(), t)
		}
	case []any:
		seen := map[string]bool{}
		for _, e := range t {
			n, _ := e.(string)
			if !jsonTypes[n] || seen[n] {
				return fmt.Errorf("at %s: type %v names something that is not a JSON type, or one twice", where(), t)
			}
			seen[n] = true
		}
		if len(t) == 0 {
			return fmt.Errorf("at %s: type is an empty list", where())
		}
	}
	for _, n := range []*int{s.MinLength, s.MaxLength, s.MinItems, s.MaxItems, s.MinProperties, s.MaxProperties, s.MinContains, s.MaxContains} {
		if n != nil && *n < 0 {
			return fmt.Errorf("at %s: a count is negative (%d)", where(), *n)
		}
	}
	if s.MultipleOf != nil && !(*s.MultipleOf > 0) {
		return fmt.Errorf("at %s: multipleOf must be greater than 0", where())
	}
	if dup, ok := duplicate(s.Required); ok {
		return fmt.Errorf("at %s: required lists %q twice", where(), dup)
	}
	for k, names := range s.DependentRequired {
		if dup, ok := duplicate(names); ok {
			return fmt.Errorf("at %s/dependentRequired/%s: %q is listed twice", at, k, dup)
		}
	}
	for k, c := range s.DependencyStrings {
		if dup, ok := duplicate(c); ok {
			return fmt.Errorf("at %s/dependencies/%s: %q is listed twice", at, k, dup)
		}
	}
	one := func(name string, c *jsonSchema) error { return checkSchema(c, m[name], at+"/"+name) }
	many := func(name string, cs []*jsonSchema) error {
		if cs != nil && len(cs) == 0 {
			return fmt.Errorf("at %s/%s: an empty list", at, name)
		}
		list, _ := m[name].([]any)
		for i, c := range cs {
			if c == nil {
				return fmt.Errorf("at %s/%s/%d: not a schema", at, name, i)
			}
			var r any
			if i < len(list) {
				r = list[i]
			}
			if err := checkSchema(c, r, fmt.Sprintf("%s/%s/%d", at, name, i)); err != nil {
				return err
			}
		}
		return nil
	}
	byName := func(name string, cs map[string]*jsonSchema) error {
		sub, _ := m[name].(map[string]any)
		for k, c := range cs {
			if c == nil {
				return fmt.Errorf("at %s/%s/%s: not a schema", at, name, k)
			}
			if err := checkSchema(c, sub[k], at+"/"+name+"/"+k); err != nil {
				return err
			}
		}
		return nil
	}
	return errors.Join(
		byName("$defs", s.Defs), byName("definitions", s.Definitions), byName("dependencies", s.DependencySchemas),
		many("prefixItems", s.PrefixItems), one("items", s.Items), many("items", s.ItemsArray), one("additionalItems", s.AdditionalItems),
		one("contains", s.Contains), one("unevaluatedItems", s.UnevaluatedItems), byName("properties", s.Properties),
		byName("patternProperties", s.PatternProperties), one("additionalProperties", s.AdditionalProperties),
		one("propertyNames", s.PropertyNames), one("unevaluatedProperties", s.UnevaluatedProperties),
		many("allOf", s.AllOf), many("anyOf", s.AnyOf), many("oneOf", s.OneOf), one("not", s.Not),
		one("if", s.If), one("then", s.Then), one("else", s.Else), byName("dependentSchemas", s.DependentSchemas),
		one("contentSchema", s.ContentSchema),
	)
}

// keywords are the names the decoder of schemas reads.
var keywords = []string{
	"$id", "$schema", "$ref", "$comment", "$defs", "definitions", "dependencies", "$anchor", "$dynamicAnchor",
	"$dynamicRef", "$vocabulary", "title", "description", "default", "deprecated", "readOnly", "writeOnly", "examples",
	"type", "enum", "const", "multipleOf", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength",
	"maxLength", "pattern", "prefixItems", "items", "minItems", "maxItems", "additionalItems", "uniqueItems", "contains",
	"minContains", "maxContains", "unevaluatedItems", "minProperties", "maxProperties", "required", "dependentRequired",
	"properties", "patternProperties", "additionalProperties", "propertyNames", "unevaluatedProperties", "allOf",
	"anyOf", "oneOf", "not", "if", "then", "else", "dependentSchemas", "contentEncoding", "contentMediaType",
	"contentSchema", "format",
}

// hideFoldedKeywords renames, in every schema of doc, the members whose
// names are a keyword's in another case, so that the case-blind decoder
// does not take them for it. It reports whether it renamed any.
func hideFoldedKeywords(doc any) bool {
	m, ok := doc.(map[string]any)
	if !ok {
		return false
	}
	changed := false
	for k, v := range m {
		if slices.Contains(keywords, k) {
			continue
		}
		if slices.ContainsFunc(keywords, func(kw string) bool { return strings.EqualFold(kw, k) }) {
			delete(m, k)
			m["talon-not-a-keyword:"+k] = v
			changed = true
		}
	}
	each := func(v any) {
		if hideFoldedKeywords(v) {
			changed = true
		}
	}
	for _, k := range []string{"additionalProperties", "not", "if", "then", "else", "contains", "propertyNames",
		"unevaluatedItems", "unevaluatedProperties", "additionalItems", "contentSchema", "items"} {
		each(m[k])
	}
	for _, k := range []string{"items", "prefixItems", "allOf", "anyOf", "oneOf"} {
		if list, ok := m[k].([]any); ok {
			for _, v := range list {
				each(v)
			}
		}
	}
	for _, k := range []string{"properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"} {
		if sub, ok := m[k].(map[string]any); ok {
			for _, v := range sub {
				each(v)
			}
		}
	}
	return changed
}

// duplicate returns a name listed twice.
func duplicate(names []string) (string, bool) {
	seen := make(map[string]bool, len(names))
	for _, n := range names {
		if seen[n] {
			return n, true
		}
		seen[n] = true
	}
	return "", false
}

// jsonSchema is the decoded form of a JSON Schema.
type jsonSchema = jsonschema.Schema

// The $schema values validated as what they name.
const (
	draft7       = "http://json-schema.org/draft-07/schema#"
	draft7Secure = "https://json-schema.org/draft-07/schema#"
	draft202012  = "https://json-schema.org/draft/2020-12/schema"
)

// Validate checks normalized arguments against the schema. The error names
// the first failing field by its JSON pointer and the rule it broke, e.g.
// `/offset: got string, want integer`.
func (s *Schema) Validate(args json.RawMessage) error {
	var inst any
	if err := json.Unmarshal(args, &inst); err != nil {
		return fmt.Errorf("%w: %v", ErrArgumentsMalformed, err)
	}
	err := s.rs.Validate(inst)
	if err == nil {
		return nil
	}
	return &ArgumentError{Problems: []string{problem(err.Error())}}
}

// ArgumentError lists the fields that failed schema validation.
type ArgumentError struct {
	Problems []string
}

func (e *ArgumentError) Error() string {
	return "invalid arguments: " + strings.Join(e.Problems, "; ")
}

// problem turns the validator's message, a chain of "validating <schema
// location>: " around what failed, into "<argument pointer>: <what
// failed>". The pointer follows properties and items; other keywords
// (allOf, $ref, ...) name no argument of their own.
func problem(msg string) string {
	loc := "root"
	for {
		rest, ok := strings.CutPrefix(msg, "validating ")
		if !ok {
			break
		}
		at, tail, ok := strings.Cut(rest, ": ")
		if !ok || (at != "root" && !strings.HasPrefix(at, "/")) {
			break
		}
		loc, msg = at, tail
	}
	return argumentPointer(loc) + ": " + plainBounds(plainType(msg))
}

// boundMessages rewrite the validator's messages about a bound into what
// the value must be, with numbers as people write them and without
// echoing a string value (which may be long, or a secret).
var boundMessages = []struct {
	re   *regexp.Regexp
	repl string
}{
	{regexp.MustCompile(`^minimum: (\S+) is less than (\S+)$`), "must be at least $2, got $1"},
	{regexp.MustCompile(`^maximum: (\S+) is greater than (\S+)$`), "must be at most $2, got $1"},
	{regexp.MustCompile(`^exclusiveMinimum: (\S+) is less than or equal to (\S+)$`), "must be greater than $2, got $1"},
	{regexp.MustCompile(`^exclusiveMaximum: (\S+) is greater than or equal to (\S+)$`), "must be less than $2, got $1"},
	{regexp.MustCompile(`^multipleOf: (\S+) is not a multiple of (\S+)$`), "must be a multiple of $2, got $1"},
	{regexp.MustCompile(`(?s)^minLength: .* contains (\d+) Unicode code points, fewer than (\d+)$`), "must be at least $2 characters long, got $1"},
	{regexp.MustCompile(`(?s)^maxLength: .* contains (\d+) Unicode code points, more than (\d+)$`), "must be at most $2 characters long, got $1"},
	{regexp.MustCompile(`(?s)^pattern: .* does not match regular expression (".*")$`), "must match the regular expression $1"},
}

// validatorNumber is how the validator prints numbers: a fraction (500/1,
// 3/2) for the value, %f (100.000000) for the bound.
var validatorNumber = regexp.MustCompile(`-?\b\d+(?:/\d+|\.\d+)\b`)

func plainBounds(msg string) string {
	for _, b := range boundMessages {
		if b.re.MatchString(msg) {
			msg = b.re.ReplaceAllString(msg, b.repl)
			return validatorNumber.ReplaceAllStringFunc(msg, plainNumber)
		}
	}
	return msg
}

// plainNumber writes a number of the validator's the shortest way: 500,
// 1.5.
func plainNumber(n string) string {
	r, ok := new(big.Rat).SetString(n)
	if !ok {
		return n
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// plainType says a type mismatch the short way, "got string, want
// integer", without echoing the value.
func plainType(msg string) string {
	rest, ok := strings.CutPrefix(msg, "type: ")
	if !ok {
		return msg
	}
	i := strings.LastIndex(rest, " has type ")
	if i < 0 {
		return msg
	}
	got, want, ok := strings.Cut(rest[i+len(" has type "):], ", want ")
	if !ok {
		return msg
	}
	want = strings.TrimPrefix(want, "one of ")
	return "got " + strings.Trim(got, `"`) + ", want " + strings.ReplaceAll(strings.Trim(want, `"`), ", ", " or ")
}

// argumentPointer maps a schema location to the arguments it applies to.
func argumentPointer(loc string) string {
	if loc == "root" {
		return "(arguments)"
	}
	parts := strings.Split(strings.TrimPrefix(loc, "/"), "/")
	var out []string
	for i := 0; i < len(parts); i++ {
		switch parts[i] {
		case "properties", "prefixItems":
			if i+1 < len(parts) {
				out = append(out, parts[i+1])
				i++
			}
		case "items", "additionalItems", "additionalProperties", "unevaluatedProperties", "unevaluatedItems", "contains":
			out = append(out, "*")
		case "patternProperties", "dependentSchemas", "$defs", "definitions":
			i++ // the key names a pattern or a definition, not an argument
		}
	}
	if len(out) == 0 {
		return "(arguments)"
	}
	return "/" + strings.Join(out, "/")
}

// DecodeArgs decodes a call's arguments into v strictly, the way every
// built-in tool reads them: unknown fields and trailing data are errors, and
// empty arguments or null mean {}.
func DecodeArgs(raw json.RawMessage, v any) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		raw = []byte("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("unexpected data after the arguments object")
	}
	return nil
}
