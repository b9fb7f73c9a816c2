package config

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// document is the statement-level layout of a TOML text: every table header
// and every key/value with the byte spans an editor needs. It understands
// quoted and dotted keys and values that span several lines; it does not
// check everything TOML forbids (the edited text is decoded strictly before
// it is used), but it never reads past the end of the text.
type document struct {
	src     []byte
	entries []entry
}

type entryKind int

const (
	entryKeyval entryKind = iota
	entryTable
	entryArrayTable
)

// entry is one statement of a document.
type entry struct {
	kind entryKind
	// path is the full dotted path: the header's path, or the section's path
	// followed by the key for a key/value.
	path []string
	// rel is the key as written, relative to its section (key/values only).
	rel []string
	// section is the index of the header owning a key/value, -1 for the root.
	section int
	// inArray is true inside an array of tables, where paths are not unique.
	inArray bool
	// lineStart is the offset of the start of the statement's first line.
	lineStart int
	// keyStart is the offset of the key (or of '[' for a header).
	keyStart int
	// valStart and valEnd delimit the value of a key/value.
	valStart, valEnd int
	// end is the offset just after the statement's last line.
	end int
}

// maxNesting bounds how deep arrays and inline tables may nest.
const maxNesting = 100

type scanError struct {
	off int
	msg string
}

func (e *scanError) Error() string { return e.msg }

type scanner struct {
	src   []byte
	pos   int
	depth int
}

// scanDocument splits src into statements.
func scanDocument(src []byte) (*document, error) {
	s := &scanner{src: src}
	doc := &document{src: src}
	section := -1
	var sectionPath []string
	sectionInArray := false
	var arrays [][]string
	for {
		s.skipBlank()
		if s.eof() {
			return doc, nil
		}
		lineStart := bytes.LastIndexByte(src[:s.pos], '\n') + 1
		start := s.pos
		if s.peek() == '[' {
			kind := entryTable
			s.pos++
			if s.peek() == '[' {
				kind = entryArrayTable
				s.pos++
			}
			path, err := s.key()
			if err != nil {
				return nil, err
			}
			s.skipSpace()
			if !s.consume("]") || (kind == entryArrayTable && !s.consume("]")) {
				return nil, s.errorf("expected ']' to close the table header")
			}
			if err := s.endOfLine(); err != nil {
				return nil, err
			}
			inArray := kind == entryArrayTable
			for _, a := range arrays {
				if hasPrefix(path, a) {
					inArray = true
				}
			}
			if kind == entryArrayTable {
				arrays = append(arrays, path)
			}
			doc.entries = append(doc.entries, entry{
				kind: kind, path: path, section: -1, inArray: inArray,
				lineStart: lineStart, keyStart: start, end: s.pos,
			})
			section = len(doc.entries) - 1
			sectionPath = path
			sectionInArray = inArray
			continue
		}
		rel, err := s.key()
		if err != nil {
			return nil, err
		}
		s.skipSpace()
		if !s.consume("=") {
			return nil, s.errorf("expected '=' after the key")
		}
		s.skipSpace()
		valStart := s.pos
		if err := s.value(); err != nil {
			return nil, err
		}
		valEnd := s.pos
		if err := s.endOfLine(); err != nil {
			return nil, err
		}
		doc.entries = append(doc.entries, entry{
			kind: entryKeyval, path: concat(sectionPath, rel), rel: rel,
			section: section, inArray: sectionInArray,
			lineStart: lineStart, keyStart: start, valStart: valStart, valEnd: valEnd, end: s.pos,
		})
	}
}

func (s *scanner) eof() bool { return s.pos >= len(s.src) }

func (s *scanner) peek() byte {
	if s.eof() {
		return 0
	}
	return s.src[s.pos]
}

func (s *scanner) consume(lit string) bool {
	if bytes.HasPrefix(s.src[s.pos:], []byte(lit)) {
		s.pos += len(lit)
		return true
	}
	return false
}

func (s *scanner) errorf(format string, args ...any) error {
	return &scanError{off: s.pos, msg: fmt.Sprintf(format, args...)}
}

// skipSpace skips spaces and tabs.
func (s *scanner) skipSpace() {
	for !s.eof() && (s.src[s.pos] == ' ' || s.src[s.pos] == '\t') {
		s.pos++
	}
}

// skipBlank skips whitespace, newlines and comments.
func (s *scanner) skipBlank() {
	for !s.eof() {
		switch s.src[s.pos] {
		case ' ', '\t', '\r', '\n':
			s.pos++
		case '#':
			s.skipComment()
		default:
			return
		}
	}
}

func (s *scanner) skipComment() {
	if i := bytes.IndexByte(s.src[s.pos:], '\n'); i >= 0 {
		s.pos += i
	} else {
		s.pos = len(s.src)
	}
}

// endOfLine accepts trailing spaces, a comment and the newline (or the end).
func (s *scanner) endOfLine() error {
	s.skipSpace()
	if s.peek() == '#' {
		s.skipComment()
	}
	switch {
	case s.eof():
		return nil
	case s.consume("\n"), s.consume("\r\n"):
		return nil
	default:
		return s.errorf("unexpected text after the value")
	}
}

func isBareKeyChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// key reads a possibly dotted, possibly quoted key.
func (s *scanner) key() ([]string, error) {
	var parts []string
	for {
		s.skipSpace()
		switch c := s.peek(); {
		case c == '"':
			raw, err := s.basicString()
			if err != nil {
				return nil, err
			}
			part, err := unquoteBasic(raw)
			if err != nil {
				return nil, &scanError{off: s.pos, msg: err.Error()}
			}
			parts = append(parts, part)
		case c == '\'':
			raw, err := s.literalString()
			if err != nil {
				return nil, err
			}
			parts = append(parts, string(raw[1:len(raw)-1]))
		case isBareKeyChar(c):
			start := s.pos
			for !s.eof() && isBareKeyChar(s.src[s.pos]) {
				s.pos++
			}
			parts = append(parts, string(s.src[start:s.pos]))
		default:
			return nil, s.errorf("expected a key")
		}
		s.skipSpace()
		if !s.consume(".") {
			return parts, nil
		}
	}
}

// basicString reads a single-line "..." string and returns it with quotes.
func (s *scanner) basicString() ([]byte, error) {
	start := s.pos
	for i := s.pos + 1; i < len(s.src); i++ {
		switch s.src[i] {
		case '\\':
			i++
		case '"':
			s.pos = i + 1
			return s.src[start:s.pos], nil
		case '\n':
			return nil, &scanError{off: i, msg: "unterminated string"}
		}
	}
	return nil, &scanError{off: start, msg: "unterminated string"}
}

// literalString reads a single-line '...' string and returns it with quotes.
func (s *scanner) literalString() ([]byte, error) {
	start := s.pos
	for i := s.pos + 1; i < len(s.src); i++ {
		switch s.src[i] {
		case '\'':
			s.pos = i + 1
			return s.src[start:s.pos], nil
		case '\n':
			return nil, &scanError{off: i, msg: "unterminated string"}
		}
	}
	return nil, &scanError{off: start, msg: "unterminated string"}
}

// multiline reads a """ or ”' string. Up to two extra quotes may end it.
func (s *scanner) multiline(delim string, escapes bool) error {
	start := s.pos
	s.pos += 3
	for s.pos < len(s.src) {
		if escapes && s.src[s.pos] == '\\' {
			s.pos += 2
			continue
		}
		if s.consume(delim) {
			for range 2 {
				if s.peek() != delim[0] {
					break
				}
				s.pos++
			}
			return nil
		}
		s.pos++
	}
	s.pos = start
	return s.errorf("unterminated multi-line string")
}

// value skips one value of any kind.
func (s *scanner) value() error {
	switch s.peek() {
	case '"':
		if bytes.HasPrefix(s.src[s.pos:], []byte(`"""`)) {
			return s.multiline(`"""`, true)
		}
		_, err := s.basicString()
		return err
	case '\'':
		if bytes.HasPrefix(s.src[s.pos:], []byte(`'''`)) {
			return s.multiline(`'''`, false)
		}
		_, err := s.literalString()
		return err
	case '[':
		return s.container(']', s.value)
	case '{':
		return s.container('}', s.inlineKeyval)
	default:
		return s.scalar()
	}
}

func (s *scanner) inlineKeyval() error {
	if _, err := s.key(); err != nil {
		return err
	}
	s.skipSpace()
	if !s.consume("=") {
		return s.errorf("expected '=' in the inline table")
	}
	s.skipSpace()
	return s.value()
}

// container skips an array or inline table whose elements item reads.
func (s *scanner) container(closing byte, item func() error) error {
	s.depth++
	defer func() { s.depth-- }()
	if s.depth > maxNesting {
		return s.errorf("values nested too deeply")
	}
	s.pos++ // the opening bracket
	for {
		s.skipBlank()
		if s.eof() {
			return s.errorf("expected '%c' before the end of the file", closing)
		}
		if s.consume(string(closing)) {
			return nil
		}
		if err := item(); err != nil {
			return err
		}
		s.skipBlank()
		if s.consume(",") {
			continue
		}
		if s.consume(string(closing)) {
			return nil
		}
		return s.errorf("expected ',' or '%c'", closing)
	}
}

// scalar skips a number, boolean or date-time. A space inside a date-time
// ("1979-05-27 07:32:00") is part of the value.
func (s *scanner) scalar() error {
	start := s.pos
	for !s.eof() {
		c := s.src[s.pos]
		if c == ' ' && s.pos-start == 10 && s.src[start+4] == '-' && s.src[start+7] == '-' &&
			s.pos+1 < len(s.src) && s.src[s.pos+1] >= '0' && s.src[s.pos+1] <= '9' {
			s.pos++
			continue
		}
		if strings.IndexByte(" \t\r\n,]}#", c) >= 0 {
			break
		}
		s.pos++
	}
	if s.pos == start {
		return s.errorf("expected a value")
	}
	return nil
}

// unquoteBasic decodes a quoted TOML basic string (quotes included).
func unquoteBasic(raw []byte) (string, error) {
	body := raw[1 : len(raw)-1]
	var b strings.Builder
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		i++
		if i >= len(body) {
			return "", fmt.Errorf("bad escape at the end of a string")
		}
		switch body[i] {
		case 'b':
			b.WriteByte('\b')
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'f':
			b.WriteByte('\f')
		case 'r':
			b.WriteByte('\r')
		case 'e':
			b.WriteByte(0x1b)
		case '"':
			b.WriteByte('"')
		case '\\':
			b.WriteByte('\\')
		case 'x', 'u', 'U':
			n := 2 // \xHH
			if body[i] == 'u' {
				n = 4
			} else if body[i] == 'U' {
				n = 8
			}
			if i+n >= len(body) {
				return "", fmt.Errorf("short \\%c escape", body[i])
			}
			v, err := strconv.ParseUint(string(body[i+1:i+1+n]), 16, 32)
			if err != nil || !utf8.ValidRune(rune(v)) {
				return "", fmt.Errorf("bad \\%c escape", body[i])
			}
			b.WriteRune(rune(v))
			i += n
		default:
			return "", fmt.Errorf("bad escape \\%c", body[i])
		}
	}
	return b.String(), nil
}

// parseKeyArg parses a dotted key given on a command line, such as
// risk_profiles."my.profile".level.
func parseKeyArg(key string) ([]string, error) {
	s := &scanner{src: []byte(key)}
	parts, err := s.key()
	if err == nil {
		s.skipSpace()
		if !s.eof() {
			err = s.errorf("unexpected %q", key[s.pos:])
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %q is not a dotted key (%v); write it like tools.optional", ErrUnknownKey, key, err)
	}
	return parts, nil
}

// formatKey writes a key path, quoting the parts that are not bare.
func formatKey(path []string) string {
	parts := make([]string, len(path))
	for i, p := range path {
		bare := p != ""
		for j := 0; j < len(p); j++ {
			if !isBareKeyChar(p[j]) {
				bare = false
				break
			}
		}
		if bare {
			parts[i] = p
		} else {
			parts[i] = quoteString(p)
		}
	}
	return strings.Join(parts, ".")
}

// lineCol returns the 1-based line and column of an offset.
func lineCol(src []byte, off int) (line, col int) {
	off = min(max(off, 0), len(src))
	line = bytes.Count(src[:off], []byte("\n")) + 1
	col = off - (bytes.LastIndexByte(src[:off], '\n') + 1) + 1
	return line, col
}

// find returns the key/value outside arrays of tables whose path is path.
func (d *document) find(path []string) (entry, bool) {
	for _, e := range d.entries {
		if e.kind == entryKeyval && !e.inArray && slices.Equal(e.path, path) {
			return e, true
		}
	}
	return entry{}, false
}

// position returns where the statement that best matches path starts: the
// key/value or header with that path, else the one with the longest prefix.
func (d *document) position(path []string) (line, col int, ok bool) {
	best, bestLen := -1, 0
	for i, e := range d.entries {
		n := commonPrefix(e.path, path)
		if n == len(e.path) && n > bestLen {
			best, bestLen = i, n
		}
	}
	if best < 0 {
		return 0, 0, false
	}
	line, col = lineCol(d.src, d.entries[best].keyStart)
	return line, col, true
}

func hasPrefix(path, prefix []string) bool {
	return len(path) >= len(prefix) && slices.Equal(path[:len(prefix)], prefix)
}

func commonPrefix(a, b []string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

func concat(a, b []string) []string {
	out := make([]string, 0, len(a)+len(b))
	return append(append(out, a...), b...)
}
