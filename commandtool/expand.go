package commandtool

import (
	"fmt"
	"strings"
)

// expandVars expands every ${NAME} in s with lookup, at load time. "$${"
// stands for a literal "${"; any other "$" is itself. It returns the names
// lookup did not find (s is then incomplete) and an error for a malformed
// reference.
func expandVars(s string, lookup func(string) (string, bool)) (string, []string, error) {
	if !strings.Contains(s, "$") {
		return s, nil, nil
	}
	var b strings.Builder
	var missing []string
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '$' {
			b.WriteByte(c)
			continue
		}
		switch {
		case strings.HasPrefix(s[i:], "$${"):
			b.WriteString("${")
			i += 2
		case strings.HasPrefix(s[i:], "${"):
			end := strings.IndexByte(s[i+2:], '}')
			if end < 0 {
				return "", nil, fmt.Errorf("%q has a \"${\" without \"}\": write ${NAME}, or $${ for a literal ${", s)
			}
			name := s[i+2 : i+2+end]
			if !validVarName(name) {
				return "", nil, fmt.Errorf("%q refers to ${%s}, which is not a variable name: use letters, digits and '_'", s, name)
			}
			v, ok := lookup(name)
			if !ok {
				missing = append(missing, name)
			}
			b.WriteString(v)
			i += 2 + end
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), missing, nil
}

func validVarName(name string) bool {
	if name == "" {
		return false
	}
	for i, r := range name {
		switch {
		case r == '_', r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z':
		case r >= '0' && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}
