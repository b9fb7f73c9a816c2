package search

import (
	"encoding/json"
	"errors"
	"html"
	"net/url"
	"strings"
	"unicode/utf8"
)

// hit is the union of the fields the providers use for one result.
type hit struct {
	Title       string `json:"title"`
	URL         string `json:"url"`
	Content     string `json:"content"`
	Description string `json:"description"`
	Snippet     string `json:"snippet"`
}

// parse reads a provider's answer: SearXNG and AnySearch put the hits in
// "results", Brave in "web.results". Hits without an http(s) URL are
// dropped; titles and snippets lose their markup.
func parse(provider string, body []byte) ([]Result, error) {
	var doc struct {
		Results []hit `json:"results"`
		Web     struct {
			Results []hit `json:"results"`
		} `json:"web"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, errors.New("the answer is not JSON")
	}
	hits := doc.Results
	if provider == Brave {
		hits = doc.Web.Results
	}
	out := make([]Result, 0, len(hits))
	for _, h := range hits {
		u, err := url.Parse(strings.TrimSpace(h.URL))
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			continue
		}
		snippet := h.Content
		for _, s := range []string{h.Description, h.Snippet} {
			if snippet == "" {
				snippet = s
			}
		}
		title := clean(h.Title)
		if title == "" {
			title = u.Host
		}
		out = append(out, Result{Title: clip(title, 200), URL: u.String(), Snippet: clip(clean(snippet), maxSnippet)})
	}
	return out, nil
}

// clean turns a fragment of HTML into one line of text: tags dropped,
// entities decoded, whitespace collapsed.
func clean(s string) string {
	var b strings.Builder
	inTag := false
	for _, r := range s {
		switch {
		case r == '<':
			inTag = true
		case r == '>' && inTag:
			inTag = false
			b.WriteByte(' ')
		case !inTag:
			b.WriteRune(r)
		}
	}
	return strings.Join(strings.Fields(html.UnescapeString(b.String())), " ")
}

// clip cuts s to at most n bytes at a character boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
