package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"
	"golang.org/x/text/encoding/japanese"

	"github.com/talonhq/talon/netguard"
	"github.com/talonhq/talon/tool"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// testResolver maps the names the tests use. public.test stands for a
// public site and resolves to the test server on 127.0.0.1, which the
// tests allow explicitly; internal.test resolves to 127.0.0.2, which no
// test allows, so nothing ever connects to it.
type testResolver map[string]string

func (m testResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	a, ok := m[host]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	return []netip.Addr{netip.MustParseAddr(a)}, nil
}

var names = testResolver{
	"public.test":   "127.0.0.1",
	"api.test":      "127.0.0.1",
	"other.test":    "127.0.0.1",
	"blocked.test":  "127.0.0.1",
	"internal.test": "127.0.0.2",
}

// publicNet is the network policy of most tests: names resolve through
// the table and 127.0.0.1 counts as reachable.
func publicNet() netguard.Options {
	return netguard.Options{Resolver: names, AllowPrivate: []string{"127.0.0.1"}}
}

type site struct {
	*httptest.Server
	hits atomic.Int32
	port string
}

func newSite(t *testing.T, mux *http.ServeMux) *site {
	t.Helper()
	s := &site{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(s.Close)
	u, _ := url.Parse(s.URL)
	s.port = u.Port()
	return s
}

func (s *site) at(host, path string) string { return "http://" + host + ":" + s.port + path }

func newFetch(t testing.TB, o FetchOptions) *WebFetch {
	t.Helper()
	f, err := NewWebFetch(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Close() })
	return f
}

func call(t testing.TB, tl tool.Tool, args any) tool.Result {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	res, err := tl.Execute(context.Background(), raw)
	if err != nil {
		t.Fatalf("Execute: %v", err)
	}
	return res
}

const page = `<!doctype html>
<html><head><title>Release notes</title>
<style>body { color: red }</style>
<script>alert("tracking")</script></head>
<body><h1>Version 2</h1>
<p>Read the <a href="/docs/guide">guide</a> first.</p>
<img src="data:image/png;base64,iVBORw0KGgoAAAANSUhEUg==" alt="pixel">
<ul><li>faster</li><li>smaller</li></ul>
<noscript>enable javascript</noscript>
</body></html>`

func sjisPage(t *testing.T, withMeta bool) []byte {
	t.Helper()
	meta := ""
	if withMeta {
		meta = `<meta charset="Shift_JIS">`
	}
	src := `<html><head>` + meta + `<title>お知らせ</title></head><body><p>日本語のページです。</p></body></html>`
	b, err := japanese.ShiftJIS.NewEncoder().Bytes([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestWebFetch(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/page", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, page)
	})
	mux.HandleFunc("/text", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "line one\nline two: <b>not html</b>\n")
	})
	mux.HandleFunc("/json", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/problem+json")
		fmt.Fprint(w, `{"name":"ü","n":1}`)
	})
	mux.HandleFunc("/png", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write([]byte("\x89PNG\r\n\x1a\n\x00\x00"))
	})
	mux.HandleFunc("/nul", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte("abc\x00def"))
	})
	mux.HandleFunc("/untyped", func(w http.ResponseWriter, _ *http.Request) {
		w.Header()["Content-Type"] = nil
		fmt.Fprint(w, "<html><body><p>sniffed</p></body></html>")
	})
	mux.HandleFunc("/sjis-header", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=Shift_JIS")
		w.Write(sjisPage(t, false))
	})
	mux.HandleFunc("/sjis-meta", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write(sjisPage(t, true))
	})
	mux.HandleFunc("/missing", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, "<h1>No such page</h1>")
	})
	mux.HandleFunc("/gone-image", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "image/gif")
		w.WriteHeader(http.StatusGone)
		w.Write([]byte("GIF89a\x00"))
	})
	mux.HandleFunc("/moved", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/page", http.StatusFound)
	})
	s := newSite(t, mux)
	f := newFetch(t, FetchOptions{Network: publicNet()})

	tests := []struct {
		name    string
		args    map[string]any
		ok      bool
		want    []string
		notWant []string
		format  string
	}{
		{name: "html to markdown", args: map[string]any{"url": s.at("public.test", "/page")}, ok: true, format: "markdown",
			want: []string{
				"Fetched http://public.test:" + s.port + "/page (200 OK, text/html; charset=utf-8, converted to markdown)",
				"Title: Release notes", "# Version 2",
				"[guide](http://public.test:" + s.port + "/docs/guide)", "- faster",
			},
			notWant: []string{"alert", "color: red", "base64", "enable javascript", "<p>"}},
		{name: "raw html", args: map[string]any{"url": s.at("public.test", "/page"), "raw": true}, ok: true, format: "html",
			want: []string{"<h1>Version 2</h1>", "<script>"}},
		{name: "redirect followed", args: map[string]any{"url": s.at("public.test", "/moved")}, ok: true,
			want: []string{"Fetched http://public.test:" + s.port + "/page (200 OK"}},
		{name: "plain text", args: map[string]any{"url": s.at("public.test", "/text")}, ok: true, format: "text",
			want: []string{"line two: <b>not html</b>"}},
		{name: "json", args: map[string]any{"url": s.at("public.test", "/json")}, ok: true, format: "text",
			want: []string{`{"name":"ü","n":1}`, "application/problem+json"}},
		{name: "sniffed html", args: map[string]any{"url": s.at("public.test", "/untyped")}, ok: true, format: "markdown",
			want: []string{"text/html (sniffed)", "sniffed"}},
		{name: "shift_jis by header", args: map[string]any{"url": s.at("public.test", "/sjis-header")}, ok: true, format: "markdown",
			want: []string{"Title: お知らせ", "日本語のページです。"}},
		{name: "shift_jis by meta", args: map[string]any{"url": s.at("public.test", "/sjis-meta")}, ok: true, format: "markdown",
			want: []string{"Title: お知らせ", "日本語のページです。"}},
		{name: "image refused", args: map[string]any{"url": s.at("public.test", "/png")},
			want: []string{"image/png", "cannot show as text"}},
		{name: "binary text refused", args: map[string]any{"url": s.at("public.test", "/nul")},
			want: []string{"binary data"}},
		{name: "not found", args: map[string]any{"url": s.at("public.test", "/missing")},
			want: []string{"404 Not Found", "No such page"}},
		{name: "error status with binary body", args: map[string]any{"url": s.at("public.test", "/gone-image")},
			want: []string{"410 Gone; check the URL"}, notWant: []string{"GIF"}},
		{name: "no scheme", args: map[string]any{"url": "public.test/page"}, want: []string{"https://"}},
		{name: "file scheme", args: map[string]any{"url": "file:///etc/passwd"}, want: []string{`scheme "file"`, "only http and https"}},
		{name: "zero max_bytes", args: map[string]any{"url": s.at("public.test", "/page"), "max_bytes": 0}, want: []string{"max_bytes must be 1 or more"}},
		{name: "unknown argument", args: map[string]any{"url": s.at("public.test", "/page"), "method": "POST"}, want: []string{"invalid arguments"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, f, tt.args)
			text := res.Output.Text
			if !tt.ok {
				text = res.Error
			}
			if res.Success != tt.ok {
				t.Fatalf("success = %v, want %v: %s%s", res.Success, tt.ok, res.Output.Text, res.Error)
			}
			for _, w := range tt.want {
				if !strings.Contains(text, w) {
					t.Errorf("missing %q in:\n%s", w, text)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(text, w) {
					t.Errorf("unexpected %q in:\n%s", w, text)
				}
			}
			if tt.format != "" {
				if d, _ := res.Output.Data.(FetchData); d.Format != tt.format {
					t.Errorf("format = %q, want %q", d.Format, tt.format)
				}
			}
		})
	}
}

// TestWebFetchConcurrent runs calls in parallel on one tool, as a batch
// does, for the race detector.
func TestWebFetchConcurrent(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, page)
	})
	s := newSite(t, mux)
	f := newFetch(t, FetchOptions{Network: publicNet()})
	args := json.RawMessage(`{"url":"` + s.at("public.test", "/") + `"}`)
	errs := make(chan string, 8)
	for range 4 {
		go func() {
			for range 2 {
				res, err := f.Execute(context.Background(), args)
				if err != nil || !res.Success || !strings.Contains(res.Output.Text, "# Version 2") {
					errs <- fmt.Sprintf("%+v %v", res, err)
					continue
				}
				errs <- ""
			}
		}()
	}
	for range 8 {
		if e := <-errs; e != "" {
			t.Error(e)
		}
	}
}

func TestWebFetchRefusals(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "internal secrets") })
	mux.HandleFunc("/to-internal", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://internal.test:"+r.Host[strings.LastIndex(r.Host, ":")+1:]+"/", http.StatusFound)
	})
	mux.HandleFunc("/to-blocked", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://blocked.test/", http.StatusFound)
	})
	mux.HandleFunc("/to-file", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
	})
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/loop", http.StatusFound)
	})
	s := newSite(t, mux)
	guarded := publicNet()
	guarded.BlockedHosts = []string{"blocked.test"}
	noRedirects := publicNet()
	noRedirects.MaxRedirects = -1
	tests := []struct {
		name     string
		opts     netguard.Options
		url      string
		want     []string
		wantHits int32
	}{
		{name: "loopback by default", opts: netguard.Options{}, url: s.URL + "/", want: []string{"127.0.0.1 is a loopback address", "allow_private"}},
		{name: "name resolving to loopback by default", opts: netguard.Options{Resolver: names}, url: s.at("public.test", "/"),
			want: []string{"public.test resolves to 127.0.0.1, a loopback address", "[tools.web_fetch] allow_private"}},
		{name: "metadata address", opts: netguard.Options{}, url: "http://169.254.169.254/latest/meta-data/", want: []string{"cloud metadata"}},
		{name: "mapped v6 loopback", opts: netguard.Options{}, url: "http://[::ffff:127.0.0.1]:" + s.port + "/", want: []string{"IPv4-mapped"}},
		{name: "v6 loopback", opts: netguard.Options{}, url: "http://[::1]:" + s.port + "/", want: []string{"::1 is a loopback address"}},
		{name: "redirect to internal", opts: guarded, url: s.at("public.test", "/to-internal"), want: []string{"127.0.0.2", "loopback"}, wantHits: 1},
		{name: "redirect to blocked", opts: guarded, url: s.at("public.test", "/to-blocked"), want: []string{"blocked.test is in [tools.web_fetch] blocked_domains"}, wantHits: 1},
		{name: "redirect to file", opts: guarded, url: s.at("public.test", "/to-file"), want: []string{"only http and https"}, wantHits: 1},
		{name: "redirect loop", opts: guarded, url: s.at("public.test", "/loop"), want: []string{"stopped after 5 redirects"}, wantHits: 6},
		{name: "redirects disabled", opts: noRedirects, url: s.at("public.test", "/to-blocked"), want: []string{"redirect to \"http://blocked.test/\"", "not followed"}, wantHits: 1},
		{name: "not in allowed domains", opts: netguard.Options{Resolver: names, AllowPrivate: []string{"127.0.0.1"}, AllowedHosts: []string{"api.test"}},
			url: s.at("public.test", "/"), want: []string{"public.test is not in [tools.web_fetch] allowed_domains"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFetch(t, FetchOptions{Network: tt.opts})
			before := s.hits.Load()
			res := call(t, f, map[string]any{"url": tt.url})
			if res.Success {
				t.Fatalf("succeeded: %s", res.Output.Text)
			}
			for _, w := range tt.want {
				if !strings.Contains(res.Error, w) {
					t.Errorf("missing %q in %q", w, res.Error)
				}
			}
			if strings.Contains(res.Error, "internal secrets") {
				t.Error("the internal page leaked")
			}
			if got := s.hits.Load() - before; got != tt.wantHits {
				t.Errorf("server saw %d requests, want %d", got, tt.wantHits)
			}
		})
	}
}

func TestWebFetchCaps(t *testing.T) {
	big := strings.Repeat("0123456789", 1000) // 10000 bytes
	mux := http.NewServeMux()
	mux.HandleFunc("/big", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprint(w, big)
	})
	mux.HandleFunc("/kana", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprint(w, strings.Repeat("あ", 100)) // 3 bytes each
	})
	s := newSite(t, mux)
	capped := publicNet()
	capped.MaxBytes = 4000
	tests := []struct {
		name      string
		args      map[string]any
		wantBytes int
		want      string
		truncated bool
	}{
		{name: "operator cap", args: map[string]any{"url": s.at("public.test", "/big")}, wantBytes: 4000, truncated: true, want: "the most this tool may read"},
		{name: "max_bytes below cap", args: map[string]any{"url": s.at("public.test", "/big"), "max_bytes": 100}, wantBytes: 100, truncated: true, want: "up to 4000"},
		{name: "max_bytes above cap is capped", args: map[string]any{"url": s.at("public.test", "/big"), "max_bytes": 1 << 30}, wantBytes: 4000, truncated: true},
		{name: "cut inside a character", args: map[string]any{"url": s.at("public.test", "/kana"), "max_bytes": 10}, wantBytes: 10, truncated: true, want: "あああ\n"},
		{name: "under the cap", args: map[string]any{"url": s.at("public.test", "/kana")}, wantBytes: 300},
	}
	f := newFetch(t, FetchOptions{Network: capped})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, f, tt.args)
			if !res.Success {
				t.Fatal(res.Error)
			}
			d := res.Output.Data.(FetchData)
			if d.Bytes != tt.wantBytes || d.Truncated != tt.truncated {
				t.Errorf("read %d bytes, truncated %v; want %d, %v", d.Bytes, d.Truncated, tt.wantBytes, tt.truncated)
			}
			if tt.want != "" && !strings.Contains(res.Output.Text, tt.want) {
				t.Errorf("missing %q in %q", tt.want, res.Output.Text)
			}
			if strings.Contains(res.Output.Text, "\uFFFD") {
				t.Error("a cut character became U+FFFD")
			}
		})
	}
}

func TestWebFetchAssess(t *testing.T) {
	f := newFetch(t, FetchOptions{Network: netguard.Options{BlockedHosts: []string{"blocked.test"}}})
	tests := []struct {
		name    string
		args    string
		summary string
		reasons []string
	}{
		{name: "public", args: `{"url":"https://example.com/a?b=1"}`, summary: "GET https://example.com/a?b=1", reasons: []string{"reads https://example.com/a?b=1"}},
		{name: "password hidden", args: `{"url":"https://u:pw@example.com/"}`, summary: "GET https://u:xxxxx@example.com/"},
		{name: "blocked noted", args: `{"url":"https://blocked.test/"}`, summary: "GET https://blocked.test/", reasons: []string{"will be refused", "blocked"}},
		{name: "loopback noted", args: `{"url":"http://127.0.0.1/"}`, summary: "GET http://127.0.0.1/", reasons: []string{"loopback"}},
		{name: "bad url", args: `{"url":"nope"}`, reasons: []string{"no scheme"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			as, err := f.Assess(json.RawMessage(tt.args))
			if err != nil {
				t.Fatal(err)
			}
			if as.Tier != tool.Low {
				t.Errorf("tier = %v, want low", as.Tier)
			}
			if tt.summary != "" && (as.Plan == nil || as.Plan.Summary != tt.summary) {
				t.Errorf("plan = %+v, want summary %q", as.Plan, tt.summary)
			}
			all := strings.Join(as.Reasons, "\n")
			for _, r := range tt.reasons {
				if !strings.Contains(all, r) {
					t.Errorf("reasons %q lack %q", all, r)
				}
			}
		})
	}
	if _, err := f.Assess(json.RawMessage(`{"url":1}`)); err == nil {
		t.Error("Assess accepted a number as url")
	}
}

func TestWebFetchApprovedPlan(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "ok") })
	s := newSite(t, mux)
	f := newFetch(t, FetchOptions{Network: publicNet()})
	ctx := tool.WithApprovedPlan(context.Background(), &tool.Plan{Summary: "GET https://example.com/"})
	res, err := f.Execute(ctx, json.RawMessage(`{"url":"`+s.at("public.test", "/")+`"}`))
	if err != nil || res.Success || !strings.Contains(res.Error, "not the one that was approved") {
		t.Fatalf("got %+v, %v", res, err)
	}
	if s.hits.Load() != 0 {
		t.Fatal("the server was reached")
	}
}

func TestWebFetchCancel(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	s := newSite(t, mux)
	f := newFetch(t, FetchOptions{Network: publicNet()})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for s.hits.Load() == 0 {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	_, err := f.Execute(ctx, json.RawMessage(`{"url":"`+s.URL+`"}`))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestDecodeText(t *testing.T) {
	sjis, _ := japanese.ShiftJIS.NewEncoder().Bytes([]byte("漢字"))
	tests := []struct {
		name      string
		body      []byte
		declared  string
		truncated bool
		want      string
		charset   string
		ok        bool
	}{
		{name: "utf-8 undeclared", body: []byte("héllo"), want: "héllo", charset: "utf-8", ok: true},
		{name: "ascii head then utf-8", body: append(bytes.Repeat([]byte("a"), 2000), "é"...), want: strings.Repeat("a", 2000) + "é", charset: "utf-8", ok: true},
		{name: "latin-1 declared", body: []byte("caf\xe9"), declared: "text/plain; charset=iso-8859-1", want: "café", charset: "windows-1252", ok: true},
		{name: "shift_jis declared", body: sjis, declared: "text/plain; charset=shift_jis", want: "漢字", charset: "shift_jis", ok: true},
		{name: "invalid utf-8 undeclared", body: []byte("caf\xe9"), want: "café", charset: "windows-1252", ok: true},
		{name: "utf-8 cut", body: []byte("ab\xe3\x81"), truncated: true, want: "ab", charset: "utf-8", ok: true},
		{name: "bom", body: []byte("\xef\xbb\xbfhi"), declared: "text/plain; charset=iso-8859-1", want: "hi", charset: "utf-8", ok: true},
		{name: "nul", body: []byte("a\x00b"), ok: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, cs, ok := decodeText(tt.body, tt.declared, tt.truncated)
			if ok != tt.ok {
				t.Fatalf("ok = %v, want %v", ok, tt.ok)
			}
			if !ok {
				return
			}
			if got != tt.want || cs != tt.charset {
				t.Errorf("got %q (%s), want %q (%s)", got, cs, tt.want, tt.charset)
			}
		})
	}
}

func TestClassify(t *testing.T) {
	tests := []struct {
		name string
		mt   string
		want contentKind
	}{
		{name: "html", mt: "text/html", want: kindHTML},
		{name: "xhtml", mt: "application/xhtml+xml", want: kindHTML},
		{name: "plain", mt: "text/plain", want: kindText},
		{name: "csv", mt: "text/csv", want: kindText},
		{name: "json", mt: "application/json", want: kindText},
		{name: "vendor json", mt: "application/vnd.github+json", want: kindText},
		{name: "atom", mt: "application/atom+xml", want: kindText},
		{name: "png", mt: "image/png", want: kindBinary},
		{name: "pdf", mt: "application/pdf", want: kindBinary},
		{name: "octet", mt: "application/octet-stream", want: kindBinary},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := classify(tt.mt); got != tt.want {
				t.Errorf("classify(%q) = %v, want %v", tt.mt, got, tt.want)
			}
		})
	}
}
