package agents

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Template is an agent's prompt: text with placeholders.
//
//	{{ input }}            the whole input: a string as it is, anything else as JSON
//	{{ input.a.b }}        one field of an object input, the same way; "" when absent
//	{{ "text" }}           literal text, e.g. {{ "{{" }} for a literal "{{"
//
// Anything else between {{ and }} is an error when the file loads.
type Template struct {
	parts []part
}

// part is literal text (path nil) or a placeholder (path non-nil; empty
// for the whole input).
type part struct {
	text string
	path []string
	ph   bool
}

// ParseTemplate parses a prompt body. Line numbers in errors count from
// firstLine, the body's first line in its file.
func ParseTemplate(src string, firstLine int) (*Template, error) {
	t := &Template{}
	rest := src
	for {
		i := strings.Index(rest, "{{")
		if i < 0 {
			t.text(rest)
			return t, nil
		}
		t.text(rest[:i])
		line := firstLine + strings.Count(src[:len(src)-len(rest)+i], "\n")
		end := closing(rest[i+2:])
		if end < 0 {
			return nil, &lineError{line: line, msg: "a {{ has no closing }}; write {{ \"{{\" }} for a literal {{"}
		}
		expr := strings.TrimSpace(rest[i+2 : i+2+end])
		rest = rest[i+2+end+2:]
		switch {
		case expr == "input":
			t.parts = append(t.parts, part{ph: true})
		case strings.HasPrefix(expr, "input."):
			fields := strings.Split(expr[len("input."):], ".")
			for _, f := range fields {
				if !fieldName(f) {
					return nil, &lineError{line: line, msg: fmt.Sprintf("{{ %s }}: %q is not a field name; use letters, digits, _ and -", expr, f)}
				}
			}
			t.parts = append(t.parts, part{ph: true, path: fields})
		case strings.HasPrefix(expr, `"`):
			s, err := strconv.Unquote(expr)
			if err != nil {
				return nil, &lineError{line: line, msg: fmt.Sprintf("{{ %s }} is not a quoted string", expr)}
			}
			t.text(s)
		default:
			return nil, &lineError{line: line, msg: fmt.Sprintf("{{ %s }} is not a placeholder; use {{ input }}, {{ input.FIELD }} or {{ \"text\" }}", expr)}
		}
	}
}

// closing finds the }} that ends a placeholder, skipping a quoted string.
func closing(s string) int {
	inQuote := false
	for i := 0; i < len(s); i++ {
		switch {
		case inQuote && s[i] == '\\':
			i++
		case s[i] == '"':
			inQuote = !inQuote
		case !inQuote && strings.HasPrefix(s[i:], "}}"):
			return i
		case s[i] == '\n' && inQuote:
			return -1
		}
	}
	return -1
}

func (t *Template) text(s string) {
	if s == "" {
		return
	}
	if n := len(t.parts); n > 0 && !t.parts[n-1].ph {
		t.parts[n-1].text += s
		return
	}
	t.parts = append(t.parts, part{text: s})
}

func fieldName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// Fields returns the top-level input fields the template reads.
func (t *Template) Fields() []string {
	var out []string
	for _, p := range t.parts {
		if p.ph && len(p.path) > 0 {
			out = append(out, p.path[0])
		}
	}
	return out
}

// Render fills the placeholders from input, a decoded JSON value.
func (t *Template) Render(input any) string {
	var b strings.Builder
	for _, p := range t.parts {
		if !p.ph {
			b.WriteString(p.text)
			continue
		}
		v := input
		for _, f := range p.path {
			m, ok := v.(map[string]any)
			if !ok {
				v = nil
				break
			}
			v = m[f]
		}
		b.WriteString(textOf(v))
	}
	return b.String()
}

// textOf renders a value: a string as it is, nothing as "", anything else
// as compact JSON.
func textOf(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	}
	out, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(out)
}

// lineError is a problem at a line of an agent file.
type lineError struct {
	line int
	msg  string
}

func (e *lineError) Error() string { return fmt.Sprintf("line %d: %s", e.line, e.msg) }
