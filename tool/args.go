package tool

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

var englishPrinter = message.NewPrinter(language.English)

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
	s *jsonschema.Schema
}

// CompileSchema compiles a tool's input schema. The schema must describe an
// object; an empty schema means "any object".
func CompileSchema(name string, raw json.RawMessage) (*Schema, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = json.RawMessage(`{"type":"object"}`)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("input schema of %s is not valid JSON: %w", name, err)
	}
	if m, ok := doc.(map[string]any); !ok {
		return nil, fmt.Errorf("input schema of %s must be a JSON object", name)
	} else if t, ok := m["type"]; ok && t != "object" {
		return nil, fmt.Errorf("input schema of %s must have \"type\": \"object\", got %v", name, t)
	}
	c := jsonschema.NewCompiler()
	url := "talon:/tools/" + name + ".json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("input schema of %s: %w", name, err)
	}
	s, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("input schema of %s does not compile: %w", name, err)
	}
	return &Schema{s: s}, nil
}

// Validate checks normalized arguments against the schema. The error names
// every failing field by its JSON pointer, e.g.
// `/offset: got string, want integer`.
func (s *Schema) Validate(args json.RawMessage) error {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		return fmt.Errorf("%w: %v", ErrArgumentsMalformed, err)
	}
	err = s.s.Validate(inst)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err
	}
	return &ArgumentError{Problems: leafProblems(ve)}
}

// ArgumentError lists the fields that failed schema validation.
type ArgumentError struct {
	Problems []string
}

func (e *ArgumentError) Error() string {
	return "invalid arguments: " + strings.Join(e.Problems, "; ")
}

func leafProblems(ve *jsonschema.ValidationError) []string {
	var out []string
	seen := map[string]bool{}
	var walk func(*jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		loc := "/" + strings.Join(e.InstanceLocation, "/")
		if loc == "/" {
			loc = "(arguments)"
		}
		msg := loc + ": " + e.ErrorKind.LocalizedString(englishPrinter)
		if !seen[msg] {
			seen[msg] = true
			out = append(out, msg)
		}
	}
	walk(ve)
	sort.Strings(out)
	return out
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
