package commandtool

import (
	"encoding/json"
	"slices"
	"testing"
)

// FuzzTemplate parses arbitrary element sources and renders them with
// arbitrary arguments. Parsing never panics; what parses prints back to
// source that parses to the same element; rendering never panics and a
// {{ input.s }} placeholder renders a string argument verbatim.
func FuzzTemplate(f *testing.F) {
	for _, s := range []string{
		"", "--json", "{{ input.pattern }}", "{{input.a}}{{ input.b }}", "{{ json input }}",
		"{{ json input.x }}", `{{ "{{" }}.Name{{ "}}" }}`, "{{", "}}", "{{ foo }}", `{{ "\u0000" }}`,
		"${HOME}/{{ input.p }}", "{{ json input x }}", `{{ "a\"}}" }}`,
	} {
		f.Add(s, `{"pattern":"x","a":1,"b":true,"x":{"k":[1]},"s":"{{ input.s }}"}`)
	}
	f.Fuzz(func(t *testing.T, src, rawArgs string) {
		el, err := parseElement(src)
		if err != nil {
			return
		}
		again, err := parseElement(el.String())
		if err != nil {
			t.Fatalf("String() of %q = %q does not parse: %v", src, el.String(), err)
		}
		if !slices.Equal(el, again) {
			t.Fatalf("round trip of %q changed the element: %#v -> %#v", src, el, again)
		}
		if !json.Valid([]byte(rawArgs)) {
			return
		}
		a, err := decodeArgs(json.RawMessage(rawArgs))
		if err != nil {
			return
		}
		_, _ = el.render(a)
		if v, ok := a.fields["s"]; ok && len(v) > 0 && v[0] == '"' {
			var want string
			if json.Unmarshal(v, &want) == nil {
				one, _ := parseElement("{{ input.s }}")
				if got, err := one.render(a); err != nil || got != want {
					t.Fatalf("{{ input.s }} rendered %q, %v; want %q", got, err, want)
				}
			}
		}
	})
}

// FuzzExpandVars never panics, and text without "$" is unchanged.
func FuzzExpandVars(f *testing.F) {
	for _, s := range []string{"", "${HOME}", "$${X}", "${", "${1}", "a$b", "${A}${B}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, _, err := expandVars(s, func(k string) (string, bool) { return "v", k != "MISSING" })
		if err == nil && !containsDollar(s) && got != s {
			t.Fatalf("expandVars(%q) = %q without any $", s, got)
		}
	})
}

func containsDollar(s string) bool {
	for i := range len(s) {
		if s[i] == '$' {
			return true
		}
	}
	return false
}
