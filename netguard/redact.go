package netguard

import (
	"encoding/base64"
	"encoding/hex"
	"slices"
	"strings"
)

// Secret is a value a server must not be able to show back: a token sent
// in a header, or a part of one. Name appears in the replacement.
type Secret struct {
	Name  string
	Value string
}

// MinEncodedSecret is the shortest value whose encoded forms (reversed,
// hex, base64) are hidden; a shorter value is hidden in its literal form
// only, since the encoded forms of a few bytes are short enough to occur
// in ordinary text by chance.
const MinEncodedSecret = 8

// maxRedactPasses bounds the passes over a text whose replacements keep
// producing new matches (a secret that contains its own replacement text).
const maxRedactPasses = 4

// Withheld replaces a whole text in which a secret could not be cut out
// (see [Redactor.String]).
const Withheld = "[withheld: it contains a configured secret]"

// formKind says how a form of a secret is matched.
type formKind uint8

const (
	// formLiteral matches the value (or the value reversed) byte by byte,
	// where each byte may also be written percent-encoded (%41, either
	// case), as '+' for a space, as a JSON escape (\u0041, \" \\ \/).
	formLiteral formKind = iota
	// formHex matches hex digits in either case.
	formHex
	// formBase64 matches base64 characters exactly, allowing line breaks
	// (raw or JSON-escaped) between them, as MIME and PEM wrap lines.
	formBase64
)

// form is one pattern of one secret.
type form struct {
	kind   formKind
	pat    []byte
	secret int
}

// Redactor replaces the secrets it was built with wherever they occur in a
// text: the value itself, reversed, hex-encoded (either case),
// percent-encoded or JSON-escaped, and base64-encoded in the standard and
// URL alphabets, padded or not, also when it is part of a longer base64
// string (where its encoding depends on its offset modulo 3, so each of
// the three alignments is searched; the characters an alignment shares
// with the neighbouring bytes are left, so at most a few bits of the
// secret's first and last byte survive). Values shorter than
// [MinEncodedSecret] bytes are matched in their literal form only.
//
// Each matched stretch becomes "[secret NAME]"; overlapping matches become
// one. A Redactor compiles every form once and scans a text once (again
// only if it replaced something, to make sure the result is clean). It is
// immutable and safe for concurrent use; the zero value and nil hide
// nothing.
//
// Bodies are redacted whole, after they were read, so a secret split
// across the chunks a server sent is found like any other.
type Redactor struct {
	names []string
	forms []form
	// first lists, for each byte, the forms whose match can start with it.
	first [256][]int32
}

// NewRedactor compiles the forms of every non-empty secret value.
func NewRedactor(secrets ...Secret) *Redactor {
	r := &Redactor{}
	seen := map[string]bool{}
	add := func(kind formKind, pat string, secret int) {
		key := string(rune('0'+kind)) + pat
		if pat == "" || seen[key] {
			return
		}
		seen[key] = true
		r.forms = append(r.forms, form{kind: kind, pat: []byte(pat), secret: secret})
	}
	// Longer values first, so a value that contains another is named as
	// itself when both match at one place.
	ordered := slices.Clone(secrets)
	slices.SortStableFunc(ordered, func(a, b Secret) int { return len(b.Value) - len(a.Value) })
	for _, s := range ordered {
		if s.Value == "" {
			continue
		}
		idx := len(r.names)
		r.names = append(r.names, s.Name)
		add(formLiteral, s.Value, idx)
		if len(s.Value) < MinEncodedSecret {
			continue
		}
		add(formLiteral, reverse(s.Value), idx)
		add(formHex, hex.EncodeToString([]byte(s.Value)), idx)
		for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
			for align := range 3 {
				add(formBase64, base64Core(enc, s.Value, align), idx)
			}
		}
	}
	for i, f := range r.forms {
		starts := f.starts()
		slices.Sort(starts)
		for _, b := range slices.Compact(starts) {
			r.first[b] = append(r.first[b], int32(i))
		}
	}
	return r
}

// base64Core is the part of the base64 encoding of v, written align bytes
// into a longer string, that depends on v alone: the characters whose six
// bits all come from v.
func base64Core(enc *base64.Encoding, v string, align int) string {
	buf := make([]byte, align+len(v))
	copy(buf[align:], v)
	s := enc.EncodeToString(buf)
	from := (8*align + 5) / 6
	to := 8 * (align + len(v)) / 6
	if to <= from {
		return ""
	}
	return s[from:to]
}

func reverse(s string) string {
	b := []byte(s)
	slices.Reverse(b)
	return string(b)
}

// starts lists the bytes a match of f can start with.
func (f form) starts() []byte {
	c := f.pat[0]
	switch f.kind {
	case formHex:
		return []byte{lower(c), upper(c)}
	case formBase64:
		return []byte{c}
	}
	out := []byte{c, '%', '\\'}
	if c == ' ' {
		out = append(out, '+')
	}
	return out
}

// Empty reports whether r hides nothing.
func (r *Redactor) Empty() bool { return r == nil || len(r.forms) == 0 }

// String returns s with every form of every secret replaced. Forms that
// occur inside the replacement text it wrote (a secret that happens to be
// part of "[secret NAME]") are left, since that text says nothing about
// the secret; when replacing keeps producing new matches across that text
// and what surrounds it, the whole text is [Withheld].
func (r *Redactor) String(s string) string {
	out, _ := r.redact(s)
	return out
}

// Bytes is [Redactor.String] for a byte slice; b is returned unchanged
// when it holds no secret.
func (r *Redactor) Bytes(b []byte) []byte {
	if r.Empty() {
		return b
	}
	s := string(b)
	out := r.String(s)
	if out == s {
		return b
	}
	return []byte(out)
}

// span is a stretch of text, [from, to).
type span struct{ from, to int }

// cut is a stretch to replace and the secret it shows.
type cut struct {
	span
	secret int
}

// redact returns s redacted and where its replacements are.
func (r *Redactor) redact(s string) (string, []span) {
	if r.Empty() {
		return s, nil
	}
	var marks []span
	for range maxRedactPasses {
		cuts := r.find(s, marks)
		if len(cuts) == 0 {
			return s, marks
		}
		s, marks = r.replace(s, cuts, marks)
	}
	if len(r.find(s, marks)) > 0 {
		return Withheld, nil
	}
	return s, marks
}

// find returns the stretches of s that show a secret, merged where they
// overlap or touch and widened to the replacements (marks) they reach
// into; a match that lies inside a mark is not one.
func (r *Redactor) find(s string, marks []span) []cut {
	var cuts []cut
	for i := 0; i < len(s); i++ {
		for _, fi := range r.first[s[i]] {
			f := r.forms[fi]
			e := f.match(s, i)
			if e <= i || within(marks, i, e) {
				continue
			}
			if n := len(cuts); n > 0 && i <= cuts[n-1].to {
				cuts[n-1].to = max(cuts[n-1].to, e)
				continue
			}
			cuts = append(cuts, cut{span{i, e}, f.secret})
		}
	}
	if len(cuts) == 0 || len(marks) == 0 {
		return cuts
	}
	for k := range cuts {
		for _, m := range marks {
			if m.from < cuts[k].to && m.to > cuts[k].from {
				cuts[k].from, cuts[k].to = min(cuts[k].from, m.from), max(cuts[k].to, m.to)
			}
		}
	}
	merged := cuts[:1]
	for _, c := range cuts[1:] {
		if last := &merged[len(merged)-1]; c.from <= last.to {
			last.to = max(last.to, c.to)
			continue
		}
		merged = append(merged, c)
	}
	return merged
}

func within(marks []span, from, to int) bool {
	for _, m := range marks {
		if m.from <= from && to <= m.to {
			return true
		}
	}
	return false
}

// replace writes s with each cut replaced by "[secret NAME]" and returns
// where every replacement, old and new, now is.
func (r *Redactor) replace(s string, cuts []cut, marks []span) (string, []span) {
	var b strings.Builder
	var out []span
	pos, mi := 0, 0
	for _, c := range cuts {
		base := b.Len() - pos
		for ; mi < len(marks) && marks[mi].from < c.from; mi++ {
			if marks[mi].to <= c.from {
				out = append(out, span{marks[mi].from + base, marks[mi].to + base})
			}
		}
		for mi < len(marks) && marks[mi].from < c.to {
			mi++ // absorbed by the cut
		}
		b.WriteString(s[pos:c.from])
		rep := "[secret " + r.names[c.secret] + "]"
		out = append(out, span{b.Len(), b.Len() + len(rep)})
		b.WriteString(rep)
		pos = c.to
	}
	base := b.Len() - pos
	for ; mi < len(marks); mi++ {
		out = append(out, span{marks[mi].from + base, marks[mi].to + base})
	}
	b.WriteString(s[pos:])
	return b.String(), out
}

// match returns the end of a match of f at s[i:], or -1.
func (f form) match(s string, i int) int {
	switch f.kind {
	case formHex:
		if len(s)-i < len(f.pat) {
			return -1
		}
		for k, c := range f.pat {
			if lower(s[i+k]) != c {
				return -1
			}
		}
		return i + len(f.pat)
	case formBase64:
		j := i
		for k, c := range f.pat {
			if k > 0 {
				j = skipBreaks(s, j)
			}
			if j >= len(s) || s[j] != c {
				return -1
			}
			j++
		}
		return j
	}
	j := i
	for k, c := range f.pat {
		if j >= len(s) {
			return -1
		}
		if d := s[j]; d != '%' && d != '+' && d != '\\' {
			// Only a byte that starts an escape can spell another.
			if d != c {
				return -1
			}
			j++
			continue
		}
		sp := literalByte(s, j, c)
		switch {
		case sp[0] == 0 && sp[1] == 0:
			return -1
		case sp[0] != 0 && sp[1] != 0:
			return f.matchEither(s, j, k)
		}
		j += sp[0] + sp[1]
	}
	return j
}

// matchEither continues a literal match from pattern byte k at s[j:], where
// the byte may be spelled more than one way ('%' raw or as %25): it
// follows every spelling at once, ends holding the positions the pattern
// so far can end at, and returns the furthest end, or -1.
func (f form) matchEither(s string, j, k int) int {
	var a, b [8]int
	ends, next := append(a[:0], j), b[:0]
	for _, c := range f.pat[k:] {
		next = next[:0]
		for _, j := range ends {
			for _, n := range literalByte(s, j, c) {
				if n > 0 && !slices.Contains(next, j+n) {
					next = append(next, j+n)
				}
			}
		}
		if len(next) == 0 {
			return -1
		}
		ends, next = next, ends
	}
	return slices.Max(ends)
}

// literalByte returns the lengths of the spellings of byte c at s[j:]:
// raw, percent-encoded, '+' for a space, JSON-escaped. A zero length means
// none.
func literalByte(s string, j int, c byte) [2]int {
	var out [2]int
	if j >= len(s) {
		return out
	}
	if s[j] == c {
		out[0] = 1
	}
	switch s[j] {
	case '%':
		if j+2 < len(s) && hexPair(s[j+1], s[j+2]) == int(c) {
			out[1] = 3
		}
	case '+':
		if c == ' ' {
			out[1] = 1
		}
	case '\\':
		if j+1 >= len(s) {
			break
		}
		if s[j+1] == c && (c == '"' || c == '\\' || c == '/') {
			out[1] = 2
		}
		if s[j+1] == 'u' && j+5 < len(s) && s[j+2] == '0' && s[j+3] == '0' && hexPair(s[j+4], s[j+5]) == int(c) {
			out[1] = 6
		}
	}
	return out
}

// skipBreaks skips line breaks, raw or JSON-escaped, at s[j:].
func skipBreaks(s string, j int) int {
	for j < len(s) {
		switch {
		case s[j] == '\n' || s[j] == '\r':
			j++
		case s[j] == '\\' && j+1 < len(s) && (s[j+1] == 'n' || s[j+1] == 'r'):
			j += 2
		default:
			return j
		}
	}
	return j
}

func hexPair(a, b byte) int {
	h, l := hexDigit(a), hexDigit(b)
	if h < 0 || l < 0 {
		return -1
	}
	return h<<4 | l
}

func hexDigit(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func upper(c byte) byte {
	if c >= 'a' && c <= 'z' {
		return c - ('a' - 'A')
	}
	return c
}
