package config

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// Error is one problem in a config file: a syntax error, an unknown key, a
// value of the wrong type or a value Validate rejects. Line and Col are
// 1-based and 0 when the place is unknown; Key is the dotted key ("" for a
// syntax error).
//
// Where one file has several problems, the error returned is an
// [errors.Join] of *Error values in file order; errors.As finds the first.
type Error struct {
	File string
	Line int
	Col  int
	Key  string
	Msg  string
}

// Error renders the problem as "file:line:col: msg".
func (e *Error) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
	}
	if e.Line > 0 {
		if b.Len() > 0 {
			b.WriteByte(':')
		}
		b.WriteString(strconv.Itoa(e.Line))
		if e.Col > 0 {
			b.WriteByte(':')
			b.WriteString(strconv.Itoa(e.Col))
		}
	}
	if b.Len() > 0 {
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// joinErrors returns nil, the only error, or an errors.Join of all of them.
func joinErrors(errs []*Error) error {
	switch len(errs) {
	case 0:
		return nil
	case 1:
		return errs[0]
	}
	all := make([]error, len(errs))
	for i, e := range errs {
		all[i] = e
	}
	return errors.Join(all...)
}

var mismatchFound = regexp.MustCompile(`cannot decode TOML (\w+(?: \w+)?) into`)

// decodeErrors turns what go-toml reports into *Error values.
func decodeErrors(file string, err error) error {
	var strict *toml.StrictMissingError
	if errors.As(err, &strict) {
		errs := make([]*Error, 0, len(strict.Errors))
		for i := range strict.Errors {
			errs = append(errs, unknownKeyError(file, &strict.Errors[i]))
		}
		return joinErrors(errs)
	}
	var de *toml.DecodeError
	if errors.As(err, &de) {
		line, col := de.Position()
		key := []string(de.Key())
		msg := strings.TrimPrefix(de.Error(), "toml: ")
		if m := mismatchFound.FindStringSubmatch(msg); m != nil && len(key) > 0 {
			want := "a different type"
			if t, miss := schemaType(key); t != nil && (miss == nil || miss.throughArray) {
				want = describeType(t)
			}
			return &Error{File: file, Line: line, Col: col, Key: formatKey(key), Msg: fmt.Sprintf(
				"wrong type for %s: expected %s, found %s; fix the value",
				quoteString(formatKey(key)), want, article(m[1]))}
		}
		e := &Error{File: file, Line: line, Col: col, Key: formatKey(key)}
		e.Msg = "invalid TOML: " + msg + "; fix the syntax"
		return e
	}
	return &Error{File: file, Msg: "cannot decode: " + err.Error() + "; fix the file"}
}

// unknownKeyError explains a key the schema does not have.
func unknownKeyError(file string, de *toml.DecodeError) *Error {
	line, col := de.Position()
	key := []string(de.Key())
	kind := "key"
	if strings.Contains(de.Error(), "table") {
		kind = "table"
	}
	hint := ""
	if _, miss := schemaType(key); miss != nil && miss.at < len(key) {
		hint = didYouMean(key[miss.at], miss.candidates)
	}
	return &Error{File: file, Line: line, Col: col, Key: formatKey(key), Msg: fmt.Sprintf(
		"unknown %s %s%s; remove it or fix the spelling", kind, quoteString(formatKey(key)), hint)}
}

// article prefixes a TOML type name with "a" or "an".
func article(s string) string {
	if s == "" {
		return "a value"
	}
	switch s[0] {
	case 'a', 'e', 'i', 'o', 'u':
		return "an " + s
	}
	return "a " + s
}
