package config

import (
	"errors"
	"fmt"
	"strings"

	"github.com/talonhq/talon/secret"
)

// ExpandVars replaces every ${VAR} in s, a setting that may name secrets
// ("Bearer ${API_TOKEN}"), with the variable's value from lookup, and
// returns the values it inserted too, so a caller can redact them. A
// variable that is not set is an error naming it; the text of s never
// appears in an error, since it may hold a literal secret.
//
// A nil lookup means [secret.Lookup]. A variable lookup does not find but
// that [secret.Protect] took out of the process environment is read from
// the copy secret keeps, so ${GITHUB_TOKEN} still expands after talon hid
// its environment, with the value talon started with.
func ExpandVars(s string, lookup func(string) (string, bool)) (string, []string, error) {
	if lookup == nil {
		lookup = secret.Lookup
	}
	var b strings.Builder
	var parts []string
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String(), parts, nil
		}
		b.WriteString(s[:i])
		end := strings.IndexByte(s[i+2:], '}')
		if end < 0 {
			return "", nil, errors.New("a ${ has no closing }")
		}
		name := s[i+2 : i+2+end]
		if !EnvName(name) {
			return "", nil, errors.New("${...} must hold an environment variable name made of letters, digits and _")
		}
		v, ok := lookup(name)
		if !ok {
			v, ok = secret.Taken(name)
		}
		if !ok {
			return "", nil, fmt.Errorf("environment variable %s is not set", name)
		}
		b.WriteString(v)
		parts = append(parts, v)
		s = s[i+2+end+1:]
	}
}

// EnvName reports whether s can name an environment variable: letters,
// digits and _, not starting with a digit.
func EnvName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_', c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z':
		case c >= '0' && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}
