// Package consolelog writes zerolog events as the lines people read on a
// terminal, "15:04:05 INF call finished duration=1.2 success=true", byte
// for byte as zerolog's ConsoleWriter writes them without colour, at a
// fraction of its cost: the event is scanned once instead of being
// decoded into a map and formatted part by part with fmt. A server logs a
// line per decision and per call, so on the MCP path that cost was larger
// than the rest of the dispatch.
//
// The smallest use:
//
//	log := zerolog.New(zerolog.SyncWriter(consolelog.Writer{Out: os.Stderr, TimeFormat: "15:04:05"}))
//
// An event the scanner does not take (a caller field, a level or message
// that is not a string, malformed JSON) is handed to ConsoleWriter, so
// the output is the same in every case.
package consolelog

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/rs/zerolog"
)

// Writer is an io.Writer for zerolog that writes each event as one
// console line, as zerolog.ConsoleWriter{NoColor: true} does.
type Writer struct {
	// Out receives the lines.
	Out io.Writer
	// TimeFormat formats the timestamp; "" means time.Kitchen, as for
	// ConsoleWriter.
	TimeFormat string
}

var bufPool = sync.Pool{New: func() any { return new(line) }}

// line is the scratch space of one event.
type line struct {
	buf    []byte
	fields []field
}

// field is one member of the event: where its name (without quotes, no
// escapes) and its raw JSON value are in the event.
type field struct {
	name, value span
}

// span is p[start:end] of the event p.
type span struct{ start, end int32 }

func (s span) of(p []byte) []byte { return p[s.start:s.end] }

// Write writes the event p as one line.
func (w Writer) Write(p []byte) (int, error) {
	if len(p) > math.MaxInt32 {
		return w.fallback().Write(p)
	}
	l := bufPool.Get().(*line)
	defer func() {
		if cap(l.buf) <= 64<<10 {
			l.buf, l.fields = l.buf[:0], l.fields[:0]
			bufPool.Put(l)
		}
	}()
	var ok bool
	l.fields, ok = scanObject(p, l.fields[:0])
	if ok {
		l.buf, ok = w.format(l.buf[:0], p, l.fields)
	}
	if !ok {
		return w.fallback().Write(p)
	}
	l.buf = append(l.buf, '\n')
	if _, err := w.Out.Write(l.buf); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (w Writer) fallback() zerolog.ConsoleWriter {
	return zerolog.ConsoleWriter{Out: w.Out, NoColor: true, TimeFormat: w.TimeFormat}
}

// format writes the parts (timestamp, level, message) and the other
// fields, sorted by name with error first. ok is false for an event that
// ConsoleWriter would format differently than this code knows.
func (w Writer) format(b, p []byte, fields []field) ([]byte, bool) {
	var ts, level, msg []byte
	hasTS, hasLevel, hasMsg := false, false, false
	rest := fields[:0]
	for _, f := range fields {
		switch name := f.name.of(p); string(name) {
		case zerolog.TimestampFieldName:
			ts, hasTS = f.value.of(p), true
		case zerolog.LevelFieldName:
			level, hasLevel = f.value.of(p), true
		case zerolog.MessageFieldName:
			msg, hasMsg = f.value.of(p), true
		case zerolog.CallerFieldName, "":
			return b, false
		default:
			rest = append(rest, f)
		}
	}

	// The parts, each after a space unless it is empty or first.
	part := func(s []byte) {
		if len(s) == 0 {
			return
		}
		if len(b) > 0 {
			b = append(b, ' ')
		}
		b = append(b, s...)
	}
	// Timestamp: "<nil>" when absent.
	t, ok := w.timestamp(ts, hasTS)
	if !ok {
		return b, false
	}
	part(t)
	// Level: "???" when absent.
	lv := "???"
	if hasLevel {
		s, ok := stringValue(level)
		if !ok {
			return b, false
		}
		lv = levelText(s)
	}
	part([]byte(lv))
	if hasMsg && string(msg) != "null" {
		s, ok := stringValue(msg)
		if !ok {
			return b, false
		}
		part(s)
	}

	if len(rest) == 0 {
		return b, true
	}
	if len(b) > 0 {
		b = append(b, ' ')
	}
	slices.SortFunc(rest, func(x, y field) int {
		xn, yn := x.name.of(p), y.name.of(p)
		xe, ye := string(xn) == zerolog.ErrorFieldName, string(yn) == zerolog.ErrorFieldName
		switch {
		case xe && ye:
			return 0
		case xe:
			return -1
		case ye:
			return 1
		}
		return bytes.Compare(xn, yn)
	})
	for i, f := range rest {
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(b, f.name.of(p)...)
		b = append(b, '=')
		var ok bool
		if b, ok = appendValue(b, f.value.of(p)); !ok {
			return b, false
		}
	}
	return b, true
}

// lastTime caches the last timestamp formatted: events of one second
// share it.
var lastTime atomic.Pointer[[2][]byte]

// timestamp formats the event's time as ConsoleWriter does.
func (w Writer) timestamp(raw []byte, present bool) ([]byte, bool) {
	format := w.TimeFormat
	if format == "" {
		format = time.Kitchen
	}
	if !present || len(raw) == 0 {
		return []byte("<nil>"), true
	}
	switch raw[0] {
	case '"':
		if c := lastTime.Load(); c != nil && bytes.Equal(c[0], raw) && string(c[1][:len(format)]) == format {
			return c[1][len(format):], true
		}
		s, ok := stringValue(raw)
		if !ok {
			return nil, false
		}
		out := s
		if ts, err := time.ParseInLocation(zerolog.TimeFieldFormat, string(s), time.Local); err == nil {
			out = []byte(ts.In(time.Local).Format(format))
		}
		lastTime.Store(&[2][]byte{bytes.Clone(raw), append([]byte(format), out...)})
		return out, true
	case 'n':
		return []byte("<nil>"), true
	}
	return nil, false
}

// levelText is the level as ConsoleWriter shows it: INF, WRN, ...
func levelText(b []byte) string {
	s := string(b)
	l, _ := zerolog.ParseLevel(s)
	if fl, ok := zerolog.FormattedLevels[l]; ok {
		return fl
	}
	if s == "" {
		return "???"
	}
	if len(s) > 3 {
		s = s[:3]
	}
	return strings.ToUpper(s)
}

// appendValue writes a field's value: strings bare, or Go-quoted when
// they hold a space, a quote, a backslash or anything outside printable
// ASCII; numbers, booleans and null as they are; objects and arrays
// re-encoded as encoding/json encodes the decoded value.
func appendValue(b, raw []byte) ([]byte, bool) {
	switch raw[0] {
	case '"':
		s, ok := stringValue(raw)
		if !ok {
			return b, false
		}
		if needsQuote(s) {
			return strconv.AppendQuote(b, string(s)), true
		}
		return append(b, s...), true
	case '{', '[':
		d := json.NewDecoder(bytes.NewReader(raw))
		d.UseNumber()
		var v any
		if d.Decode(&v) != nil {
			return b, false
		}
		out, err := zerolog.InterfaceMarshalFunc(v)
		if err != nil {
			return b, false
		}
		return append(b, out...), true
	}
	return append(b, raw...), true
}

func needsQuote(s []byte) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == ' ' || c == '\\' || c == '"' {
			return true
		}
	}
	return false
}

// stringValue decodes a JSON string; ok is false for anything else.
func stringValue(raw []byte) ([]byte, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return nil, false
	}
	inner := raw[1 : len(raw)-1]
	plain := true
	for _, c := range inner {
		if c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			plain = false
			break
		}
	}
	if plain {
		return inner, true
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return nil, false
	}
	return []byte(s), true
}

// scanObject splits a JSON object into its members, the later of two
// members with one name replacing the earlier, as decoding into a map
// does. ok is false when p is not exactly one JSON object.
func scanObject(p []byte, out []field) ([]field, bool) {
	i := skipSpace(p, 0)
	if i >= len(p) || p[i] != '{' {
		return out, false
	}
	i = skipSpace(p, i+1)
	if i < len(p) && p[i] == '}' {
		return out, skipSpace(p, i+1) == len(p)
	}
	for {
		end, ok := scanValue(p, i)
		if !ok || p[i] != '"' {
			return out, false
		}
		name := span{int32(i + 1), int32(end - 1)}
		for _, c := range name.of(p) {
			if c == '\\' || c >= utf8.RuneSelf {
				// An escaped or non-ASCII name: left to ConsoleWriter.
				return out, false
			}
		}
		i = skipSpace(p, end)
		if i >= len(p) || p[i] != ':' {
			return out, false
		}
		i = skipSpace(p, i+1)
		end, ok = scanValue(p, i)
		if !ok {
			return out, false
		}
		f := field{name: name, value: span{int32(i), int32(end)}}
		if j := slices.IndexFunc(out, func(g field) bool { return bytes.Equal(g.name.of(p), name.of(p)) }); j >= 0 {
			out = slices.Delete(out, j, j+1)
		}
		out = append(out, f)
		i = skipSpace(p, end)
		if i >= len(p) {
			return out, false
		}
		switch p[i] {
		case ',':
			i = skipSpace(p, i+1)
		case '}':
			return out, skipSpace(p, i+1) == len(p)
		default:
			return out, false
		}
	}
}

func skipSpace(p []byte, i int) int {
	for i < len(p) && (p[i] == ' ' || p[i] == '\t' || p[i] == '\n' || p[i] == '\r') {
		i++
	}
	return i
}

// scanValue returns the end of the JSON value starting at i. Nested
// values are checked with json.Valid.
func scanValue(p []byte, i int) (int, bool) {
	if i >= len(p) {
		return i, false
	}
	switch c := p[i]; {
	case c == '"':
		for j := i + 1; j < len(p); j++ {
			switch b := p[j]; {
			case b == '"':
				return j + 1, true
			case b < 0x20:
				return i, false
			case b == '\\':
				if j+1 >= len(p) {
					return i, false
				}
				switch p[j+1] {
				case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
					j++
				case 'u':
					if j+5 >= len(p) || !isHex(p[j+2]) || !isHex(p[j+3]) || !isHex(p[j+4]) || !isHex(p[j+5]) {
						return i, false
					}
					j += 5
				default:
					return i, false
				}
			}
		}
		return i, false
	case c == '{' || c == '[':
		depth, inString := 0, false
		for j := i; j < len(p); j++ {
			switch b := p[j]; {
			case inString:
				if b == '\\' {
					j++
				} else if b == '"' {
					inString = false
				}
			case b == '"':
				inString = true
			case b == '{' || b == '[':
				depth++
			case b == '}' || b == ']':
				if depth--; depth == 0 {
					return j + 1, json.Valid(p[i : j+1])
				}
			}
		}
		return i, false
	default:
		j := i
		for j < len(p) && p[j] != ',' && p[j] != '}' && p[j] != ']' && p[j] != ' ' && p[j] != '\n' && p[j] != '\t' && p[j] != '\r' {
			j++
		}
		if j == i || !json.Valid(p[i:j]) {
			return i, false
		}
		return j, true
	}
}

func isHex(c byte) bool {
	return ('0' <= c && c <= '9') || ('a' <= c && c <= 'f') || ('A' <= c && c <= 'F')
}
