package search

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/talonhq/talon/tool"
)

// fake is a provider server that records what it was sent.
type fake struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []*http.Request
}

func newFake(t testing.TB, h http.HandlerFunc) *fake {
	t.Helper()
	f := &fake{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.reqs = append(f.reqs, r.Clone(context.Background()))
		f.mu.Unlock()
		h(w, r)
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *fake) requests() []*http.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*http.Request(nil), f.reqs...)
}

func jsonBody(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, body)
	}
}

func status(code int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(code)
		fmt.Fprint(w, body)
	}
}

const searxngBody = `{"query":"go","results":[
 {"title":"The <b>Go</b> Programming Language","url":"https://go.dev/","content":"Go is an open source &amp; fast language."},
 {"title":"no url","url":"javascript:alert(1)","content":"dropped"},
 {"title":"Effective Go","url":"https://go.dev/doc/effective_go","content":"Tips"},
 {"title":"Tour","url":"https://go.dev/tour/","content":"A tour"}]}`

const braveBody = `{"type":"search","web":{"results":[
 {"title":"Brave result","url":"https://example.org/a","description":"The <strong>first</strong> hit"}]}}`

const anyBody = `{"results":[{"title":"Any result","url":"https://example.net/x","snippet":"snippet text"}]}`

func env(vars map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := vars[k]; return v, ok }
}

func newTool(t *testing.T, o Options) *WebSearch {
	t.Helper()
	o.AllowPrivate = append(o.AllowPrivate, "127.0.0.1")
	if o.LookupEnv == nil {
		o.LookupEnv = env(nil)
	}
	ws, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ws.Close() })
	return ws
}

func TestProviders(t *testing.T) {
	tests := []struct {
		name     string
		handler  http.HandlerFunc
		opts     func(url string) Options
		args     string
		check    func(t *testing.T, r *http.Request)
		wantText []string
		wantN    int
	}{
		{
			name:    "searxng",
			handler: jsonBody(searxngBody),
			opts:    func(u string) Options { return Options{Provider: SearXNG, SearXNGURL: u + "/sx/"} },
			args:    `{"query":"go language","max_results":2}`,
			check: func(t *testing.T, r *http.Request) {
				q := r.URL.Query()
				if r.URL.Path != "/sx/search" || q.Get("q") != "go language" || q.Get("format") != "json" {
					t.Errorf("request %s", r.URL)
				}
				if r.Header.Get("Authorization") != "" {
					t.Error("SearXNG got an Authorization header")
				}
			},
			wantText: []string{"2 results for \"go language\" from searxng", "1. The Go Programming Language", "https://go.dev/", "open source & fast", "2. Effective Go"},
			wantN:    2,
		},
		{
			name:    "brave with key from the environment",
			handler: jsonBody(braveBody),
			opts: func(u string) Options {
				return Options{Provider: Brave, BraveURL: u + "/res/v1/web/search", BraveAPIKey: "${BRAVE_API_KEY}", LookupEnv: env(map[string]string{"BRAVE_API_KEY": "brave-secret"})}
			},
			args: `{"query":"talon"}`,
			check: func(t *testing.T, r *http.Request) {
				if got := r.Header.Get("X-Subscription-Token"); got != "brave-secret" {
					t.Errorf("X-Subscription-Token = %q", got)
				}
				if r.URL.Path != "/res/v1/web/search" || r.URL.Query().Get("count") != "5" || r.URL.Query().Get("q") != "talon" {
					t.Errorf("request %s", r.URL)
				}
			},
			wantText: []string{"1 results for \"talon\" from brave", "Brave result", "The first hit"},
			wantN:    1,
		},
		{
			name:    "anysearch with a key sends a bearer token",
			handler: jsonBody(anyBody),
			opts: func(u string) Options {
				return Options{Provider: AnySearch, AnySearchURL: u + "/v1/search", AnySearchAPIKey: "any-key"}
			},
			args: `{"query":"q","max_results":3}`,
			check: func(t *testing.T, r *http.Request) {
				if got := r.Header.Get("Authorization"); got != "Bearer any-key" {
					t.Errorf("Authorization = %q", got)
				}
				if r.URL.Query().Get("limit") != "3" {
					t.Errorf("request %s", r.URL)
				}
			},
			wantText: []string{"Any result", "snippet text"},
			wantN:    1,
		},
		{
			name:    "anysearch without a key sends no auth header",
			handler: jsonBody(anyBody),
			opts:    func(u string) Options { return Options{Provider: AnySearch, AnySearchURL: u + "/v1/search"} },
			args:    `{"query":"q"}`,
			check: func(t *testing.T, r *http.Request) {
				if _, ok := r.Header["Authorization"]; ok {
					t.Errorf("anonymous AnySearch request carries Authorization %q", r.Header.Get("Authorization"))
				}
				if r.Header.Get("X-Subscription-Token") != "" {
					t.Error("AnySearch got a Brave header")
				}
			},
			wantText: []string{"Any result"},
			wantN:    1,
		},
		{
			name:     "no results",
			handler:  jsonBody(`{"results":[]}`),
			opts:     func(u string) Options { return Options{Provider: SearXNG, SearXNGURL: u} },
			args:     `{"query":"nothing"}`,
			wantText: []string{"No results for \"nothing\" from searxng"},
		},
		{
			name:     "operator cap wins over the call",
			handler:  jsonBody(searxngBody),
			opts:     func(u string) Options { return Options{Provider: SearXNG, SearXNGURL: u, MaxResults: 1} },
			args:     `{"query":"go","max_results":20}`,
			wantText: []string{"1 results"},
			wantN:    1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newFake(t, tt.handler)
			ws := newTool(t, tt.opts(srv.URL))
			res, err := ws.Execute(context.Background(), json.RawMessage(tt.args))
			if err != nil || !res.Success {
				t.Fatalf("Execute = %+v, %v", res, err)
			}
			reqs := srv.requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests, want 1", len(reqs))
			}
			if tt.check != nil {
				tt.check(t, reqs[0])
			}
			for _, w := range tt.wantText {
				if !strings.Contains(res.Output.Text, w) {
					t.Errorf("text lacks %q:\n%s", w, res.Output.Text)
				}
			}
			if d := res.Output.Data.(Data); len(d.Results) != tt.wantN {
				t.Errorf("%d results, want %d: %+v", len(d.Results), tt.wantN, d.Results)
			}
		})
	}
}

func TestFailures(t *testing.T) {
	tests := []struct {
		name    string
		handler http.HandlerFunc
		opts    func(url string) Options
		args    string
		want    []string
		sent    int
	}{
		{name: "no provider", opts: func(u string) Options { return Options{AnySearchURL: u, SearXNGURL: u} },
			want: []string{"no search provider configured", "provider", "[tools.web_search]"}},
		{name: "searxng without url", opts: func(u string) Options { return Options{Provider: SearXNG} },
			want: []string{"searxng_url"}},
		{name: "brave without key", opts: func(u string) Options { return Options{Provider: Brave, BraveURL: u} },
			want: []string{"brave_api_key", "BRAVE_API_KEY"}},
		{name: "brave key variable unset", opts: func(u string) Options { return Options{Provider: Brave, BraveURL: u, BraveAPIKey: "${BRAVE_API_KEY}"} },
			want: []string{"BRAVE_API_KEY is not set", "export"}},
		{name: "anysearch key variable unset", opts: func(u string) Options {
			return Options{Provider: AnySearch, AnySearchURL: u, AnySearchAPIKey: "${ANY_KEY}"}
		},
			want: []string{"ANY_KEY is not set"}},
		{name: "searxng json disabled", handler: status(403, "forbidden"), opts: func(u string) Options { return Options{Provider: SearXNG, SearXNGURL: u} },
			want: []string{"search.formats", "settings.yml"}, sent: 1},
		{name: "brave bad key", handler: status(401, `{"error":"bad token brave-secret"}`),
			opts: func(u string) Options { return Options{Provider: Brave, BraveURL: u, BraveAPIKey: "brave-secret"} },
			want: []string{"rejected the API key", "brave_api_key"}, sent: 1},
		{name: "anysearch anonymous refused", handler: status(401, ""), opts: func(u string) Options { return Options{Provider: AnySearch, AnySearchURL: u} },
			want: []string{"anonymous", "anysearch_api_key"}, sent: 1},
		{name: "anysearch anonymous quota", handler: status(429, ""), opts: func(u string) Options { return Options{Provider: AnySearch, AnySearchURL: u} },
			want: []string{"quota", "anysearch_api_key"}, sent: 1},
		{name: "rate limited", handler: status(429, ""), opts: func(u string) Options { return Options{Provider: SearXNG, SearXNGURL: u} },
			want: []string{"rate limiting", "try again"}, sent: 1},
		{name: "server error", handler: status(502, ""), opts: func(u string) Options { return Options{Provider: SearXNG, SearXNGURL: u} },
			want: []string{"502", "try again later"}, sent: 1},
		{name: "not json", handler: status(200, "<html>"), opts: func(u string) Options { return Options{Provider: SearXNG, SearXNGURL: u} },
			want: []string{"does not understand"}, sent: 1},
		{name: "bad url", opts: func(u string) Options { return Options{Provider: SearXNG, SearXNGURL: "ftp://x"} },
			want: []string{"not an http or https URL"}},
		{name: "empty query", opts: func(u string) Options { return Options{Provider: SearXNG, SearXNGURL: u} }, args: `{"query":"  "}`,
			want: []string{"query is empty"}},
		{name: "unknown argument", opts: func(u string) Options { return Options{Provider: SearXNG, SearXNGURL: u} }, args: `{"query":"x","page":2}`,
			want: []string{"invalid arguments"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := tt.handler
			if h == nil {
				h = jsonBody(anyBody)
			}
			srv := newFake(t, h)
			ws := newTool(t, tt.opts(srv.URL))
			args := tt.args
			if args == "" {
				args = `{"query":"x"}`
			}
			res, err := ws.Execute(context.Background(), json.RawMessage(args))
			if err != nil || res.Success {
				t.Fatalf("Execute = %+v, %v; want a failed result", res, err)
			}
			for _, w := range tt.want {
				if !strings.Contains(res.Error, w) {
					t.Errorf("error lacks %q: %s", w, res.Error)
				}
			}
			if strings.Contains(res.Error, "brave-secret") {
				t.Errorf("error shows the key: %s", res.Error)
			}
			if n := len(srv.requests()); n != tt.sent {
				t.Errorf("%d requests sent, want %d", n, tt.sent)
			}
		})
	}
}

// TestAnySearchNeverFallback checks that AnySearch is reached only when it
// is the configured provider: not when none is configured, and not when
// the configured one fails.
func TestAnySearchNeverFallback(t *testing.T) {
	anysearch := newFake(t, jsonBody(anyBody))
	failing := newFake(t, status(500, ""))
	for _, o := range []Options{
		{AnySearchURL: anysearch.URL},
		{Provider: SearXNG, SearXNGURL: failing.URL, AnySearchURL: anysearch.URL, AnySearchAPIKey: "k"},
		{Provider: Brave, BraveURL: failing.URL, BraveAPIKey: "k", AnySearchURL: anysearch.URL},
		{Provider: SearXNG, SearXNGURL: "http://127.0.0.1:1", AnySearchURL: anysearch.URL},
	} {
		ws := newTool(t, o)
		res, err := ws.Execute(context.Background(), json.RawMessage(`{"query":"x"}`))
		if err != nil || res.Success {
			t.Errorf("provider %q: %+v, %v; want a failure", o.Provider, res, err)
		}
	}
	if n := len(anysearch.requests()); n != 0 {
		t.Fatalf("AnySearch received %d requests without being selected", n)
	}
}

func TestPrivateAddressNeedsAllowPrivate(t *testing.T) {
	srv := newFake(t, jsonBody(anyBody))
	ws, err := New(Options{Provider: SearXNG, SearXNGURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	res, _ := ws.Execute(context.Background(), json.RawMessage(`{"query":"x"}`))
	if res.Success || !strings.Contains(res.Error, "allow_private") {
		t.Fatalf("got %+v", res)
	}
	if len(srv.requests()) != 0 {
		t.Error("the guard let a request through to loopback")
	}
}

func TestAssessAndApprovedPlan(t *testing.T) {
	srv := newFake(t, jsonBody(searxngBody))
	ws := newTool(t, Options{Provider: SearXNG, SearXNGURL: srv.URL})
	as, err := ws.Assess(json.RawMessage(`{"query":"go"}`))
	if err != nil || as.Tier != tool.Low || as.Plan == nil || !strings.Contains(as.Plan.Summary, `"go"`) {
		t.Fatalf("Assess = %+v, %v", as, err)
	}
	ctx := tool.WithApprovedPlan(context.Background(), as.Plan)
	if res, _ := ws.Execute(ctx, json.RawMessage(`{"query":"go"}`)); !res.Success {
		t.Fatalf("approved search failed: %+v", res)
	}
	res, _ := ws.Execute(ctx, json.RawMessage(`{"query":"something else"}`))
	if res.Success || !strings.Contains(res.Error, "not the one that was approved") {
		t.Fatalf("different search ran under the approval: %+v", res)
	}
	if n := len(srv.requests()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
	if _, err := New(Options{Provider: "google"}); err == nil {
		t.Error("New accepted an unknown provider")
	}
}
