package commandtool

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// segKind is what one piece of a template element renders.
type segKind int

const (
	segText      segKind = iota // literal text (after ${VAR} expansion)
	segQuoted                   // {{ "literal" }}: verbatim, never expanded
	segInput                    // {{ input.NAME }}
	segJSONInput                // {{ json input }}
	segJSONParam                // {{ json input.NAME }}
)

// segment is one piece of an element.
type segment struct {
	kind segKind
	// text is the literal of segText and segQuoted, the parameter name of
	// segInput and segJSONParam.
	text string
}

// element is one argv element: its segments render to exactly one string,
// whatever the values contain.
type element []segment

// maxTemplateBytes bounds one element's source.
const maxTemplateBytes = 64 << 10

// templateError is a problem with one element's source.
type templateError struct {
	msg string
}

func (e *templateError) Error() string { return e.msg }

func templateErrorf(format string, a ...any) error {
	return &templateError{msg: fmt.Sprintf(format, a...)}
}

// parseElement parses one argv element. Placeholders are
//
//	{{ input.NAME }}       the parameter NAME: a string as is, a number or
//	                       boolean as its JSON text
//	{{ json input }}       the whole arguments object as JSON
//	{{ json input.NAME }}  the parameter NAME as JSON
//	{{ "text" }}           the JSON string literal's text, verbatim (to
//	                       write "{{" in an argument)
//
// with optional spaces inside the braces. Anything else between {{ and }}
// is an unknown variable; "{{" always opens a placeholder, while a "}}"
// outside one is plain text.
func parseElement(src string) (element, error) {
	if len(src) > maxTemplateBytes {
		return nil, templateErrorf("is %d bytes long; the limit is %d", len(src), maxTemplateBytes)
	}
	var el element
	for src != "" {
		i := strings.Index(src, "{{")
		if i < 0 {
			el = el.appendText(src)
			break
		}
		el = el.appendText(src[:i])
		seg, rest, err := parsePlaceholder(src[i+2:])
		if err != nil {
			return nil, err
		}
		el = append(el, seg)
		src = rest
	}
	return el, nil
}

func (el element) appendText(s string) element {
	if s == "" {
		return el
	}
	if n := len(el); n > 0 && el[n-1].kind == segText {
		el[n-1].text += s
		return el
	}
	return append(el, segment{kind: segText, text: s})
}

const placeholderHelp = `use {{ input.NAME }}, {{ json input }}, {{ json input.NAME }} or {{ "literal text" }}`

// parsePlaceholder parses what follows "{{" up to and including "}}".
func parsePlaceholder(s string) (segment, string, error) {
	body := strings.TrimLeft(s, " \t")
	if strings.HasPrefix(body, `"`) {
		lit, n, err := scanJSONString(body)
		if err != nil {
			return segment{}, "", templateErrorf("has a bad quoted literal in {{ }}: %v", err)
		}
		rest := strings.TrimLeft(body[n:], " \t")
		if !strings.HasPrefix(rest, "}}") {
			return segment{}, "", templateErrorf(`has a quoted literal not followed by "}}": close it as {{ "text" }}`)
		}
		return segment{kind: segQuoted, text: lit}, rest[2:], nil
	}
	end := strings.Index(s, "}}")
	if end < 0 {
		return segment{}, "", templateErrorf(`has a "{{" without "}}": close the placeholder, or write a literal "{{" as {{ "{{" }}`)
	}
	expr := strings.Fields(s[:end])
	rest := s[end+2:]
	switch {
	case len(expr) == 1:
		if name, ok := strings.CutPrefix(expr[0], "input."); ok && validParam(name) {
			return segment{kind: segInput, text: name}, rest, nil
		}
	case len(expr) == 2 && expr[0] == "json":
		if expr[1] == "input" {
			return segment{kind: segJSONInput}, rest, nil
		}
		if name, ok := strings.CutPrefix(expr[1], "input."); ok && validParam(name) {
			return segment{kind: segJSONParam, text: name}, rest, nil
		}
	}
	v := strings.Join(expr, " ")
	if v == "" {
		return segment{}, "", templateErrorf("has an empty placeholder {{ }}: %s", placeholderHelp)
	}
	return segment{}, "", templateErrorf("uses the unknown variable %q: %s", v, placeholderHelp)
}

// validParam reports a parameter name a template may reference: letters,
// digits, '_' and '-'.
func validParam(name string) bool {
	if name == "" {
		return false
	}
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
		default:
			return false
		}
	}
	return true
}

// scanJSONString decodes the JSON string literal at the start of s and
// returns its value and length.
func scanJSONString(s string) (string, int, error) {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			var v string
			if err := json.Unmarshal([]byte(s[:i+1]), &v); err != nil {
				return "", 0, err
			}
			return v, i + 1, nil
		}
	}
	return "", 0, fmt.Errorf("unterminated string")
}

// params returns the parameter names the element references.
func (el element) params() []string {
	var out []string
	for _, s := range el {
		if s.kind == segInput || s.kind == segJSONParam {
			out = append(out, s.text)
		}
	}
	return out
}

// fixed reports whether the element renders the same for every call.
func (el element) fixed() bool {
	for _, s := range el {
		if s.kind != segText && s.kind != segQuoted {
			return false
		}
	}
	return true
}

// String renders the element back to template source; parsing it again
// gives the same element.
func (el element) String() string {
	var b strings.Builder
	for _, s := range el {
		switch s.kind {
		case segText:
			if strings.Contains(s.text, "{{") {
				// Quote text that would open a placeholder.
				q, _ := json.Marshal(s.text)
				b.WriteString("{{ ")
				b.Write(q)
				b.WriteString(" }}")
				continue
			}
			b.WriteString(s.text)
		case segQuoted:
			q, _ := json.Marshal(s.text)
			b.WriteString("{{ ")
			b.Write(q)
			b.WriteString(" }}")
		case segInput:
			b.WriteString("{{ input." + s.text + " }}")
		case segJSONInput:
			b.WriteString("{{ json input }}")
		case segJSONParam:
			b.WriteString("{{ json input." + s.text + " }}")
		}
	}
	return b.String()
}

// args are the decoded arguments of one call: the compact object, and each
// top-level value's compact JSON.
type args struct {
	raw    json.RawMessage
	fields map[string]json.RawMessage
}

// decodeArgs decodes a JSON object of arguments.
func decodeArgs(raw json.RawMessage) (args, error) {
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return args{}, fmt.Errorf("arguments are not valid JSON: %w", err)
	}
	a := args{raw: buf.Bytes()}
	if err := json.Unmarshal(a.raw, &a.fields); err != nil || a.fields == nil {
		return args{}, fmt.Errorf("arguments must be a JSON object")
	}
	return a, nil
}

// renderError is a call whose arguments the template cannot render.
type renderError struct {
	msg string
}

func (e *renderError) Error() string { return e.msg }

// render renders the element to one argv element.
func (el element) render(a args) (string, error) {
	var b strings.Builder
	for _, s := range el {
		switch s.kind {
		case segText, segQuoted:
			b.WriteString(s.text)
		case segJSONInput:
			b.Write(a.raw)
		case segInput, segJSONParam:
			v, ok := a.fields[s.text]
			if !ok {
				return "", &renderError{msg: fmt.Sprintf("parameter %q is missing from the arguments; pass it", s.text)}
			}
			if s.kind == segJSONParam {
				b.Write(v)
				continue
			}
			text, err := scalarText(s.text, v)
			if err != nil {
				return "", err
			}
			b.WriteString(text)
		}
	}
	return b.String(), nil
}

// scalarText renders a string as its text and a number or boolean as its
// JSON text. null, objects and arrays are refused.
func scalarText(name string, v json.RawMessage) (string, error) {
	if len(v) == 0 {
		return "", &renderError{msg: fmt.Sprintf("parameter %q has no value; pass it", name)}
	}
	switch v[0] {
	case '"':
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return "", &renderError{msg: fmt.Sprintf("parameter %q is not a valid string", name)}
		}
		return s, nil
	case 't', 'f':
		return string(v), nil
	case 'n':
		return "", &renderError{msg: fmt.Sprintf("parameter %q is null; pass a value", name)}
	case '{', '[':
		return "", &renderError{msg: fmt.Sprintf("parameter %q is %s, which has no single text form; the operator can render it with {{ json input.%s }}", name, kindOf(v[0]), name)}
	default: // a number: the arguments were decoded as JSON
		return string(v), nil
	}
}

func kindOf(first byte) string {
	if first == '{' {
		return "an object"
	}
	return "an array"
}
