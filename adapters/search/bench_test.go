package search

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// BenchmarkSearch compares a web_search call against a local SearXNG
// stand-in (raw: a bare GET of the same URL with net/http, read to the
// end; talon: the tool, with its guard, parsing and rendering). The ratio
// is the tool's overhead per search.
func BenchmarkSearch(b *testing.B) {
	body := `{"results":[` + strings.Repeat(`{"title":"A <b>result</b> title","url":"https://example.org/page","content":"Some snippet text &amp; more words to clean up."},`, 19) +
		`{"title":"last","url":"https://example.org/last","content":"x"}]}`
	srv := newFake(b, jsonBody(body))
	b.Run("raw", func(b *testing.B) {
		c := &http.Client{}
		for b.Loop() {
			resp, err := c.Get(srv.URL + "/search?q=golang&format=json&pageno=1")
			if err != nil {
				b.Fatal(err)
			}
			var doc map[string]any
			if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil {
				b.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	})
	b.Run("talon", func(b *testing.B) {
		ws, err := New(Options{Provider: SearXNG, SearXNGURL: srv.URL, MaxResults: 20, AllowPrivate: []string{"127.0.0.1"}})
		if err != nil {
			b.Fatal(err)
		}
		defer ws.Close()
		args := json.RawMessage(`{"query":"golang"}`)
		for b.Loop() {
			res, err := ws.Execute(context.Background(), args)
			if err != nil || !res.Success {
				b.Fatal(res.Error, err)
			}
		}
	})
}
