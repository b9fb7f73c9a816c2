package web

import (
	"sort"
	"strings"
)

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
