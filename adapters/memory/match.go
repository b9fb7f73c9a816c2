package memory

import (
	"fmt"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Limits of a keyword query.
const (
	// MaxQueryBytes is the longest query text accepted.
	MaxQueryBytes = 1024
	// MaxQueryWords is the most distinct words a query may hold.
	MaxQueryWords = 32
)

// queryWords splits text into the distinct words a keyword search looks
// for, in order of first appearance. A word is a run of letters, digits and
// combining marks; everything else separates words, so FTS5 syntax in the
// text (quotes, *, ^, parentheses, column filters like content:x) has no
// effect beyond the words it contains. Text is NFKC-normalized first, so
// full-width letters and half-width katakana match their usual forms.
func queryWords(text string) []string {
	text = norm.NFKC.String(text)
	var words []string
	seen := map[string]bool{}
	for _, w := range strings.FieldsFunc(text, func(r rune) bool { return !isWordRune(r) }) {
		if !strings.ContainsFunc(w, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) }) {
			continue // marks alone index as nothing
		}
		k := strings.ToLower(w)
		if seen[k] {
			continue
		}
		seen[k] = true
		words = append(words, w)
	}
	return words
}

func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r)
}

// phrase is one query word and the FTS5 string that searches for it.
type phrase struct {
	word string
	expr string
}

// queryPhrases turns keywords into FTS5 strings. User text never reaches
// FTS5 as syntax: each word is segmented like indexed text (see
// [indexText]) and wrapped in double quotes, with any quote inside doubled.
//
// # Errors
//
// [ErrNoKeywords] when text holds no word; [ErrQueryTooLong] when it is
// longer than [MaxQueryBytes] or holds more than [MaxQueryWords] words.
func queryPhrases(text string) ([]phrase, error) {
	if len(text) > MaxQueryBytes {
		return nil, fmt.Errorf("%w: the query is %d bytes and the limit is %d; use a few distinctive keywords", ErrQueryTooLong, len(text), MaxQueryBytes)
	}
	words := queryWords(text)
	if len(words) == 0 {
		return nil, fmt.Errorf("%w: %q holds no letters or digits; give keywords, or leave query out to list the most recent memories", ErrNoKeywords, text)
	}
	if len(words) > MaxQueryWords {
		return nil, fmt.Errorf("%w: the query has %d distinct words and the limit is %d; keep the most distinctive ones", ErrQueryTooLong, len(words), MaxQueryWords)
	}
	out := make([]phrase, len(words))
	for i, w := range words {
		out[i] = phrase{word: w, expr: `"` + strings.ReplaceAll(segment(w), `"`, `""`) + `"`}
	}
	return out, nil
}

// orExpression joins phrases with OR: a memory matches when it holds any of
// them, and bm25 ranks those holding more (and rarer) words first.
func orExpression(ps []phrase) string {
	var b strings.Builder
	for i, p := range ps {
		if i > 0 {
			b.WriteString(" OR ")
		}
		b.WriteString(p.expr)
	}
	return b.String()
}

// indexText is text as the full-text index sees it: NFKC-normalized, with
// every character of a script written without spaces between words
// (Chinese characters, hiragana, katakana, hangul) standing alone. FTS5's
// unicode61 tokenizer would otherwise read a whole Japanese sentence as one
// token; as single characters, a quoted query word becomes a phrase that
// matches wherever its characters appear in a row.
func indexText(text string) string {
	return segment(norm.NFKC.String(text))
}

// segment surrounds every unspaced-script character with spaces.
func segment(s string) string {
	n := 0
	for _, r := range s {
		if unspaced(r) {
			n++
		}
	}
	if n == 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 2*n)
	for _, r := range s {
		if unspaced(r) {
			b.WriteByte(' ')
			b.WriteRune(r)
			b.WriteByte(' ')
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// unspaced reports a character of a script written without spaces between
// words.
func unspaced(r rune) bool {
	if r < 0x1100 {
		return false
	}
	// U+30FC, the prolonged sound mark, is in the Common script but only
	// ever follows kana.
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) || r == 0x30FC
}
