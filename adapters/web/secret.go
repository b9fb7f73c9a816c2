package web

import (
	"fmt"
	"sort"
	"strings"
)

// expandVars replaces every ${VAR} in s with the variable's value, and
// returns the values it inserted too. A variable that is not set is an
// error naming it; the text of s never appears in an error, since it may
// hold a literal secret.
func expandVars(s string, lookup func(string) (string, bool)) (string, []string, error) {
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
			return "", nil, fmt.Errorf("a ${ has no closing }")
		}
		name := s[i+2 : i+2+end]
		if !validVarName(name) {
			return "", nil, fmt.Errorf("${...} must hold an environment variable name made of letters, digits and _")
		}
		v, ok := lookup(name)
		if !ok {
			return "", nil, fmt.Errorf("environment variable %s is not set", name)
		}
		b.WriteString(v)
		parts = append(parts, v)
		s = s[i+2+end+1:]
	}
}

func validVarName(s string) bool {
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

// redactor replaces secret values with a placeholder naming the secret.
type redactor struct {
	r *strings.Replacer
}

// newRedactor replaces each value of secrets (name -> the values to hide:
// the whole header value and each variable inserted into it) with
// "[secret NAME]". Longer values are replaced first, so a value that
// contains another is hidden whole.
func newRedactor(secrets map[string][]string) redactor {
	type pair struct{ name, value string }
	var pairs []pair
	for n, vs := range secrets {
		for _, v := range vs {
			if v != "" {
				pairs = append(pairs, pair{n, v})
			}
		}
	}
	if len(pairs) == 0 {
		return redactor{}
	}
	sort.Slice(pairs, func(i, j int) bool {
		if len(pairs[i].value) != len(pairs[j].value) {
			return len(pairs[i].value) > len(pairs[j].value)
		}
		return pairs[i].name < pairs[j].name
	})
	args := make([]string, 0, 2*len(pairs))
	for _, p := range pairs {
		args = append(args, p.value, "[secret "+p.name+"]")
	}
	return redactor{r: strings.NewReplacer(args...)}
}

// apply hides every secret value in s.
func (r redactor) apply(s string) string {
	if r.r == nil {
		return s
	}
	return r.r.Replace(s)
}
