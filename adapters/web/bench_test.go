package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// benchPage is about 1 MB of ordinary documentation HTML: headings,
// paragraphs with links and inline code, lists, a table, and the scripts
// and styles a real page carries.
func benchPage() string {
	var b strings.Builder
	b.WriteString("<!doctype html><html><head><title>Manual</title><style>p{margin:0}</style></head><body>\n")
	for i := 0; b.Len() < 1<<20; i++ {
		fmt.Fprintf(&b, "<section><h2 id=s%d>Section %d</h2>\n", i, i)
		fmt.Fprintf(&b, "<p>Paragraph %d explains the <a href=\"/ref/%d\">reference</a> and the <code>flag_%d</code> option in some detail, "+
			"with <em>emphasis</em> and <strong>strong words</strong> so that the converter has work to do.</p>\n", i, i, i)
		b.WriteString("<ul><li>first item</li><li>second item with <a href=\"https://example.com/x\">a link</a></li><li>third</li></ul>\n")
		fmt.Fprintf(&b, "<table><tr><th>key</th><th>value</th></tr><tr><td>k%d</td><td>v%d</td></tr></table>\n", i, i)
		b.WriteString("<script>window.analytics && window.analytics.track('view')</script></section>\n")
	}
	b.WriteString("</body></html>")
	return b.String()
}

// BenchmarkWebFetch fetches a 1 MB page from a local server, converted to
// markdown and raw; the ratio of the two is the cost of conversion.
func BenchmarkWebFetch(b *testing.B) {
	body := benchPage()
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(body))
	})
	s := newSite(&testing.T{}, mux)
	defer s.Close()
	f, err := NewWebFetch(FetchOptions{Network: publicNet()})
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	for _, mode := range []struct {
		name string
		raw  bool
	}{{"markdown", false}, {"raw", true}} {
		args, _ := json.Marshal(map[string]any{"url": s.at("public.test", "/"), "raw": mode.raw})
		b.Run(mode.name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				res, err := f.Execute(context.Background(), args)
				if err != nil || !res.Success {
					b.Fatalf("%+v %v", res.Error, err)
				}
			}
		})
	}
}
