package search

import (
	"net/url"
	"testing"
	"unicode/utf8"
)

// FuzzParse feeds provider answers to the parser: it must never panic, and
// every result it keeps has an http(s) URL and bounded, valid text.
func FuzzParse(f *testing.F) {
	for _, s := range []string{searxngBody, braveBody, anyBody, `{"results":null}`, `{"web":{"results":[{"url":"https://x","title":"<a"}]}}`, `[]`, `"x"`} {
		f.Add(SearXNG, []byte(s))
		f.Add(Brave, []byte(s))
	}
	f.Fuzz(func(t *testing.T, provider string, body []byte) {
		results, err := parse(provider, body)
		if err != nil {
			return
		}
		for _, r := range results {
			u, err := url.Parse(r.URL)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
				t.Fatalf("kept %q", r.URL)
			}
			if len(r.Snippet) > maxSnippet+len("…") || r.Title == "" {
				t.Fatalf("result %+v", r)
			}
			if utf8.ValidString(string(body)) && (!utf8.ValidString(r.Title) || !utf8.ValidString(r.Snippet)) {
				t.Fatalf("invalid UTF-8 from valid input: %+v", r)
			}
		}
	})
}
