package locales

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxFileSize is the largest message file ParseFTL accepts, in bytes.
const MaxFileSize = 1 << 20

// Resource is the content of one Fluent file.
type Resource struct {
	Messages []Message // in file order; ids are unique
}

// Message is one Fluent message.
//
// Value and the attribute values are patterns in canonical inline form: plain
// text (newlines included) in which a variable is written {$name}, a literal
// "{" is written {"{"} and a literal "}" is written {"}"}. Nothing else in a
// pattern is special, so the form converts back to Fluent without loss.
type Message struct {
	ID         string
	Value      string            // empty when the message has only attributes
	Attributes map[string]string // attribute name (without the dot) -> pattern; nil when none
	Vars       []string          // variables used by Value, sorted, without "$"
	Comment    string            // the "#" comment lines directly above the message, joined by "\n"
	Line       int               // 1-based line of the message id

	attrLines map[string]int
}

// Entry is one lookup key of a resource: a message value, or an attribute as
// "id.attr".
type Entry struct {
	Key          string
	Pattern      string   // canonical inline form (see Message)
	Vars         []string // sorted
	Line         int
	Untranslated bool // the message carries a "# untranslated" comment
}

// untranslatedMarker is the comment that `xtask fluent fill` writes above a
// message it copied from English.
const untranslatedMarker = "untranslated"

// Untranslated reports whether the message carries the "# untranslated"
// comment that marks English text copied into another locale.
func (m Message) Untranslated() bool {
	for line := range strings.SplitSeq(m.Comment, "\n") {
		if strings.EqualFold(strings.TrimSpace(line), untranslatedMarker) {
			return true
		}
	}
	return false
}

// Entries lists the lookup keys of r in file order, each message's value
// before its attributes (sorted by name).
func (r *Resource) Entries() []Entry {
	var out []Entry
	for _, m := range r.Messages {
		un := m.Untranslated()
		if m.Value != "" {
			out = append(out, Entry{Key: m.ID, Pattern: m.Value, Vars: patternVars(m.Value), Line: m.Line, Untranslated: un})
		}
		for _, name := range sortedKeys(m.Attributes) {
			line := m.attrLines[name]
			if line == 0 {
				line = m.Line
			}
			p := m.Attributes[name]
			out = append(out, Entry{Key: m.ID + "." + name, Pattern: p, Vars: patternVars(p), Line: line, Untranslated: un})
		}
	}
	return out
}

// ParseFTL parses the Fluent file data; name is used in errors only.
//
// # Errors
//
// A syntax problem is a [*ParseError] naming the line; a file over
// [MaxFileSize] wraps [ErrTooLarge].
func ParseFTL(name string, data []byte) (*Resource, error) {
	if len(data) > MaxFileSize {
		return nil, fmt.Errorf("%s: %w (%d bytes, limit %d); split it into several files", name, ErrTooLarge, len(data), MaxFileSize)
	}
	data = bytes.TrimPrefix(data, []byte("\uFEFF"))
	lines := strings.Split(string(data), "\n")
	for i, l := range lines {
		if !utf8.ValidString(l) {
			return nil, &ParseError{File: name, Line: i + 1, Msg: "invalid UTF-8; save the file as UTF-8"}
		}
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	p := &parser{name: name, lines: lines, seen: map[string]int{}}
	return p.parse()
}

type parser struct {
	name  string
	lines []string
	i     int // index of the next unread line
	seen  map[string]int
}

func (p *parser) errorf(line int, format string, args ...any) error {
	return &ParseError{File: p.name, Line: line, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) parse() (*Resource, error) {
	res := &Resource{}
	var comment []string
	for p.i < len(p.lines) {
		line, n := p.lines[p.i], p.i+1
		switch {
		case isBlank(line):
			comment = nil
			p.i++
		case line[0] == '#':
			level, text, err := p.comment(line, n)
			if err != nil {
				return nil, err
			}
			if level == 1 {
				comment = append(comment, text)
			} else {
				comment = nil
			}
			p.i++
		case line[0] == '-':
			return nil, p.errorf(n, "terms (-name) are not supported; define a message instead")
		case line[0] == ' ':
			return nil, p.errorf(n, "indented line outside a message; start each message in the first column")
		case line[0] == '\t':
			return nil, p.errorf(n, "line starts with a tab; indent continuation lines with spaces")
		case isIDStart(line[0]):
			m, err := p.message(strings.Join(comment, "\n"))
			if err != nil {
				return nil, err
			}
			comment = nil
			res.Messages = append(res.Messages, m)
		default:
			return nil, p.errorf(n, "expected a message like \"id = text\", found %q", clip(line))
		}
	}
	return res, nil
}

func (p *parser) comment(line string, n int) (level int, text string, err error) {
	for level < len(line) && line[level] == '#' {
		level++
	}
	if level > 3 {
		return 0, "", p.errorf(n, "too many #; comments start with #, ## or ###")
	}
	rest := line[level:]
	switch {
	case rest == "":
		return level, "", nil
	case rest[0] == ' ':
		// A lone CR cannot survive a round trip through a file, so a
		// comment never ends in one.
		return level, strings.TrimRight(rest[1:], "\r"), nil
	default:
		return 0, "", p.errorf(n, "put a space after %s to start a comment", line[:level])
	}
}

func (p *parser) message(comment string) (Message, error) {
	n := p.i + 1
	line := p.lines[p.i]
	id := identifier(line)
	rest := strings.TrimLeft(line[len(id):], " ")
	if !strings.HasPrefix(rest, "=") {
		return Message{}, p.errorf(n, "expected \"=\" after message id %q; message ids use only letters, digits, \"_\" and \"-\"", id)
	}
	if first, dup := p.seen[id]; dup {
		return Message{}, p.errorf(n, "message %q is already defined on line %d; remove one of them", id, first)
	}
	p.seen[id] = n
	p.i++
	value, err := p.pattern(rest[1:], n)
	if err != nil {
		return Message{}, err
	}
	m := Message{ID: id, Comment: comment, Line: n}
	for {
		k := p.i
		for k < len(p.lines) && isBlank(p.lines[k]) {
			k++
		}
		if k == len(p.lines) || p.lines[k][0] != ' ' {
			break
		}
		// Only an attribute can follow here: pattern() consumed every
		// other indented line.
		p.i = k
		name, pat, err := p.attribute()
		if err != nil {
			return Message{}, err
		}
		if m.Attributes == nil {
			m.Attributes, m.attrLines = map[string]string{}, map[string]int{}
		}
		if first, dup := m.attrLines[name]; dup {
			return Message{}, p.errorf(k+1, "attribute .%s of %q is already defined on line %d; remove one of them", name, id, first)
		}
		m.Attributes[name], m.attrLines[name] = canonical(pat), k+1
	}
	if value == nil && m.Attributes == nil {
		return Message{}, p.errorf(n, "message %q has no value; write its text after \"=\"", id)
	}
	if value != nil && len(value) == 0 {
		return Message{}, p.errorf(n, "message %q has an empty value; write its text after \"=\"", id)
	}
	m.Value = canonical(value)
	m.Vars = elementVars(value)
	return m, nil
}

func (p *parser) attribute() (string, []element, error) {
	n := p.i + 1
	t := strings.TrimLeft(p.lines[p.i], " ")
	if t[0] != '.' {
		return "", nil, p.errorf(n, "expected an attribute (.name = text) or a line in the first column")
	}
	name := identifier(t[1:])
	if name == "" {
		return "", nil, p.errorf(n, "expected an attribute name after \".\"; names start with a letter")
	}
	rest := strings.TrimLeft(t[1+len(name):], " ")
	if !strings.HasPrefix(rest, "=") {
		return "", nil, p.errorf(n, "expected \"=\" after attribute .%s", name)
	}
	p.i++
	pat, err := p.pattern(rest[1:], n)
	if err != nil {
		return "", nil, err
	}
	if len(pat) == 0 {
		return "", nil, p.errorf(n, "attribute .%s has no value; write its text after \"=\"", name)
	}
	return name, pat, nil
}

// pattern reads a value that starts with inline (the text after "=" on line
// n) and continues on the indented lines that follow. It returns nil when
// there is no text at all and an empty, non-nil slice when the text resolves
// to nothing (for example {""}).
func (p *parser) pattern(inline string, n int) ([]element, error) {
	type srcLine struct {
		text   string
		line   int
		indent int // -1 for the inline part and blank lines
	}
	var src []srcLine
	if t := strings.TrimLeft(inline, " "); t != "" {
		src = append(src, srcLine{text: t, line: n, indent: -1})
	}
	common := -1
	for k := p.i; k < len(p.lines); k++ {
		l := p.lines[k]
		if isBlank(l) {
			continue
		}
		if l[0] != ' ' {
			break
		}
		t := strings.TrimLeft(l, " ")
		if t[0] == '.' {
			break // an attribute
		}
		if t[0] == '[' || t[0] == '*' {
			return nil, p.errorf(k+1, "a continuation line cannot start with %q (variants are not supported); write {\"%c\"} instead", string(t[0]), t[0])
		}
		if len(src) > 0 {
			// Blank lines between text lines are part of the value.
			for b := p.i; b < k; b++ {
				src = append(src, srcLine{line: b + 1, indent: -1})
			}
		}
		indent := len(l) - len(t)
		src = append(src, srcLine{text: l, line: k + 1, indent: indent})
		if common < 0 || indent < common {
			common = indent
		}
		p.i = k + 1
	}
	if len(src) == 0 {
		return nil, nil
	}
	var b patternBuilder
	for i, s := range src {
		text := s.text
		if s.indent >= 0 {
			text = text[common:]
		}
		text = strings.TrimRight(text, " ")
		if i > 0 {
			b.addText("\n")
		}
		if err := p.line(&b, text, s.line); err != nil {
			return nil, err
		}
	}
	return b.elements(), nil
}

// line parses the text and placeables of one source line into b.
func (p *parser) line(b *patternBuilder, s string, n int) error {
	start := 0
	for i := 0; i < len(s); {
		switch s[i] {
		case '}':
			return p.errorf(n, "unexpected \"}\"; write {\"}\"} for a literal brace")
		case '{':
			b.addText(s[start:i])
			el, size, err := p.placeable(s[i:], n)
			if err != nil {
				return err
			}
			if el.variable != "" {
				b.addVar(el.variable)
			} else {
				b.addText(el.text)
			}
			i += size
			start = i
		default:
			i++
		}
	}
	b.addText(s[start:])
	return nil
}

// placeable parses "{ ... }" at the start of s and returns its size in bytes.
func (p *parser) placeable(s string, n int) (element, int, error) {
	const onlyThese = "only { $variable } and string literals such as {\"{\"} may appear inside braces"
	j := skipSpaces(s, 1)
	if j == len(s) {
		return element{}, 0, p.errorf(n, "unclosed \"{\"; close it with \"}\" on the same line, or write {\"{\"} for a literal brace")
	}
	var el element
	switch c := s[j]; {
	case c == '$':
		name := identifier(s[j+1:])
		if name == "" {
			return element{}, 0, p.errorf(n, "expected a variable name after \"$\"; names start with a letter")
		}
		el.variable = name
		j += 1 + len(name)
	case c == '"':
		text, size, err := p.stringLiteral(s[j:], n)
		if err != nil {
			return element{}, 0, err
		}
		el.text = text
		j += size
	case c == '-':
		return element{}, 0, p.errorf(n, "terms ({ -name }) are not supported; %s", onlyThese)
	case isIDStart(c):
		return element{}, 0, p.errorf(n, "message references and functions ({ %s }) are not supported; %s", identifier(s[j:]), onlyThese)
	default:
		return element{}, 0, p.errorf(n, "unexpected %q inside braces; %s", clip(s[j:]), onlyThese)
	}
	j = skipSpaces(s, j)
	if strings.HasPrefix(s[j:], "->") {
		return element{}, 0, p.errorf(n, "select expressions are not supported; write one message per case")
	}
	if j == len(s) || s[j] != '}' {
		return element{}, 0, p.errorf(n, "expected \"}\" to close the placeable; %s", onlyThese)
	}
	return el, j + 1, nil
}

// stringLiteral decodes the quoted literal at the start of s.
func (p *parser) stringLiteral(s string, n int) (string, int, error) {
	var b strings.Builder
	for i := 1; i < len(s); {
		switch c := s[i]; c {
		case '"':
			return b.String(), i + 1, nil
		case '\\':
			if i+1 == len(s) {
				return "", 0, p.errorf(n, "unterminated string literal; close it with \"")
			}
			switch e := s[i+1]; e {
			case '"', '\\':
				b.WriteByte(e)
				i += 2
			case 'u', 'U':
				digits := 4
				if e == 'U' {
					digits = 6
				}
				if i+2+digits > len(s) {
					return "", 0, p.errorf(n, "\\%c needs %d hex digits", e, digits)
				}
				hex := s[i+2 : i+2+digits]
				v, err := strconv.ParseUint(hex, 16, 32)
				if err != nil {
					return "", 0, p.errorf(n, "\\%c%s: %q is not %d hex digits", e, hex, hex, digits)
				}
				r := rune(v)
				if !utf8.ValidRune(r) {
					return "", 0, p.errorf(n, "\\%c%s is not a valid Unicode character", e, hex)
				}
				b.WriteRune(r)
				i += 2 + digits
			default:
				return "", 0, p.errorf(n, "unknown escape \\%s in string literal; use \\\", \\\\, \\uHHHH or \\UHHHHHH", clip(s[i+1:]))
			}
		default:
			b.WriteByte(c)
			i++
		}
	}
	return "", 0, p.errorf(n, "unterminated string literal; close it with \" before the end of the line")
}

// element is a piece of a pattern: literal text, or a variable when
// variable is set.
type element struct {
	text     string
	variable string
}

// patternBuilder collects elements, merging adjacent text in one buffer so
// that building a pattern stays linear in its size.
type patternBuilder struct {
	els  []element
	text strings.Builder
}

func (b *patternBuilder) addText(s string) { b.text.WriteString(s) }

func (b *patternBuilder) addVar(name string) {
	b.flush()
	b.els = append(b.els, element{variable: name})
}

func (b *patternBuilder) flush() {
	if b.text.Len() > 0 {
		b.els = append(b.els, element{text: b.text.String()})
		b.text.Reset()
	}
}

// elements returns what was built; never nil.
func (b *patternBuilder) elements() []element {
	b.flush()
	if b.els == nil {
		return []element{}
	}
	return b.els
}

// canonical writes elements in canonical inline form.
func canonical(els []element) string {
	var b strings.Builder
	for _, el := range els {
		if el.variable != "" {
			b.WriteString("{$" + el.variable + "}")
			continue
		}
		for _, r := range el.text {
			switch r {
			case '{':
				b.WriteString(`{"{"}`)
			case '}':
				b.WriteString(`{"}"}`)
			default:
				b.WriteRune(r)
			}
		}
	}
	return b.String()
}

// parseCanonical splits a canonical pattern into elements. It never fails:
// anything that is not one of the three placeholder forms is literal text.
func parseCanonical(s string) []element {
	var b patternBuilder
	start := 0
	for i := 0; i < len(s); {
		if s[i] != '{' {
			i++
			continue
		}
		rest := s[i:]
		switch {
		case strings.HasPrefix(rest, `{"{"}`), strings.HasPrefix(rest, `{"}"}`):
			b.addText(s[start:i])
			b.addText(rest[2:3])
			i += 5
			start = i
		case strings.HasPrefix(rest, "{$"):
			name := identifier(rest[2:])
			if name != "" && strings.HasPrefix(rest[2+len(name):], "}") {
				b.addText(s[start:i])
				b.addVar(name)
				i += 3 + len(name)
				start = i
				continue
			}
			i++
		default:
			i++
		}
	}
	b.addText(s[start:])
	b.flush()
	return b.els
}

func elementVars(els []element) []string {
	var vars []string
	seen := map[string]bool{}
	for _, el := range els {
		if el.variable != "" && !seen[el.variable] {
			seen[el.variable] = true
			vars = append(vars, el.variable)
		}
	}
	sort.Strings(vars)
	return vars
}

func patternVars(pattern string) []string { return elementVars(parseCanonical(pattern)) }

// identifier returns the longest prefix of s matching [a-zA-Z][a-zA-Z0-9_-]*.
func identifier(s string) string {
	if s == "" || !isIDStart(s[0]) {
		return ""
	}
	i := 1
	for i < len(s) && (isIDStart(s[i]) || s[i] >= '0' && s[i] <= '9' || s[i] == '_' || s[i] == '-') {
		i++
	}
	return s[:i]
}

// ValidID reports whether s is a valid message id: [a-zA-Z][a-zA-Z0-9_-]*.
func ValidID(s string) bool { return s != "" && identifier(s) == s }

func isIDStart(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isBlank(s string) bool { return strings.TrimLeft(s, " ") == "" }

func skipSpaces(s string, i int) int {
	for i < len(s) && s[i] == ' ' {
		i++
	}
	return i
}

// clip shortens s for an error message.
func clip(s string) string {
	const limit = 24
	if len(s) <= limit {
		return s
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
