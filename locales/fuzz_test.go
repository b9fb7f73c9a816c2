package locales

import (
	"strings"
	"testing"
	"text/template"
)

// FuzzParseFTL checks that ParseFTL never panics on plugin-supplied input,
// that whatever parses formats back to the same messages, and that every
// converted go-i18n template renders exactly the parsed text.
func FuzzParseFTL(f *testing.F) {
	seeds := []string{
		"",
		"hello = Hello, { $name }!\n",
		"multi = a\n\n    b\n      c\n    .attr = { $x } y\n",
		"form =\n    .label = Name\n",
		"### r\n## g\n# c\nm = x\n",
		`b = {"{"}{"}"}{"\u00A0"}{"\U01F600"}{"\\"}{"\""}` + "\n",
		"t = {\"{{\"}index . \"x\"{\"}}\"}\n",
		"sp = {\"  \"}x{\"  \"}\r\n",
		"-term = no\n",
		"a = { $n ->\n   *[other] x\n}\n",
		"a = x\n    [y]\n",
		"\uFEFFa = b\n",
	}
	// The head of each shipped file: whole files make every new input slow
	// to minimize.
	for _, lang := range []string{"en", "ja"} {
		if files, err := ReadLocale(embedded, lang); err == nil && len(files) > 0 {
			msgs := files[0].Resource.Messages
			seeds = append(seeds, string((&Resource{Messages: msgs[:min(3, len(msgs))]}).Format()))
		}
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := ParseFTL("fuzz.ftl", data)
		if err != nil {
			return
		}
		out := res.Format()
		if len(out) > MaxFileSize {
			return
		}
		again, err := ParseFTL("formatted.ftl", out)
		if err != nil {
			t.Fatalf("formatted output does not parse: %v\ninput: %q\noutput: %q", err, data, out)
		}
		if !sameMessages(res.Messages, again.Messages) {
			t.Fatalf("formatted output parses to other messages\ninput: %q\noutput: %q\n got %#v\nwant %#v", data, out, plain(again.Messages), plain(res.Messages))
		}
		for _, e := range res.Entries() {
			checkTemplate(t, e)
		}
	})
}

// checkTemplate renders e's go-i18n template and compares it with the text
// the pattern stands for, each variable replaced by <name>.
func checkTemplate(t *testing.T, e Entry) {
	t.Helper()
	src := toTemplate(e.Pattern)
	tmpl, err := template.New(e.Key).Parse(src)
	if err != nil {
		t.Fatalf("template of %s does not parse: %v\npattern %q\ntemplate %q", e.Key, err, e.Pattern, src)
	}
	data := map[string]any{}
	var want strings.Builder
	for _, el := range parseCanonical(e.Pattern) {
		if el.variable != "" {
			data[el.variable] = "<" + el.variable + ">"
			want.WriteString("<" + el.variable + ">")
		} else {
			want.WriteString(el.text)
		}
	}
	var got strings.Builder
	if err := tmpl.Execute(&got, data); err != nil {
		t.Fatalf("template of %s fails: %v", e.Key, err)
	}
	if got.String() != want.String() {
		t.Fatalf("template of %s renders %q, want %q\ntemplate %q", e.Key, got.String(), want.String(), src)
	}
}
