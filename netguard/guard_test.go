package netguard

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// mapResolver resolves names from a fixed table; anything else does not
// exist. It never reaches a real DNS server.
type mapResolver map[string][]string

func (m mapResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	addrs, ok := m[host]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	out := make([]netip.Addr, len(addrs))
	for i, a := range addrs {
		out[i] = netip.MustParseAddr(a)
	}
	return out, nil
}

// testResolver maps the names the tests use: public.test and other.test
// are "public" servers on 127.0.0.1, internal.test is an internal address
// (127.0.0.2) that no test allows, so nothing ever connects to it.
var testResolver = mapResolver{
	"public.test":   {"127.0.0.1"},
	"other.test":    {"127.0.0.1"},
	"blocked.test":  {"127.0.0.1"},
	"internal.test": {"127.0.0.2"},
	"mixed.test":    {"127.0.0.2", "127.0.0.1"},
	"mapped.test":   {"::ffff:127.0.0.2"},
}

// newGuard builds a guard that treats 127.0.0.1 as reachable, as an
// operator's allow entry would, and cleans its connections up.
func newGuard(t *testing.T, o Options) *Guard {
	t.Helper()
	if o.Resolver == nil {
		o.Resolver = testResolver
	}
	g, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(g.CloseIdleConnections)
	return g
}

// server is a test server on 127.0.0.1 that counts requests.
type server struct {
	*httptest.Server
	hits atomic.Int32
	port string
}

func newServer(t *testing.T, h http.HandlerFunc) *server {
	t.Helper()
	s := &server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		h(w, r)
	}))
	t.Cleanup(s.Close)
	u, _ := url.Parse(s.URL)
	s.port = u.Port()
	return s
}

// at returns the server's URL under another host name.
func (s *server) at(host, path string) string { return "http://" + host + ":" + s.port + path }

func get(t *testing.T, g *Guard, rawURL string, header http.Header, max int64) (*Response, error) {
	t.Helper()
	req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, rawURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	return g.Do(req, max)
}

func TestLoopbackRefusedByDefault(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "secret internal page") })
	tests := []struct {
		name    string
		opts    Options
		url     string
		wantErr error
	}{
		{name: "literal refused", url: s.URL + "/", wantErr: ErrAddressRefused},
		{name: "name resolving to loopback refused", url: s.at("public.test", "/"), wantErr: ErrAddressRefused},
		{name: "mapped resolution refused", url: s.at("mapped.test", "/"), wantErr: ErrAddressRefused},
		{name: "localhost refused", url: s.at("localhost", "/"), wantErr: ErrAddressRefused},
		{name: "literal allowed by address", opts: Options{AllowPrivate: []string{"127.0.0.1"}}, url: s.URL + "/"},
		{name: "literal allowed by cidr", opts: Options{AllowPrivate: []string{"127.0.0.0/30"}}, url: s.URL + "/"},
		{name: "name allowed by address", opts: Options{AllowPrivate: []string{"127.0.0.1"}}, url: s.at("public.test", "/")},
		{name: "name allowed by host", opts: Options{AllowPrivate: []string{"*.test"}}, url: s.at("public.test", "/")},
		{name: "mixed skips the refused address", opts: Options{AllowPrivate: []string{"127.0.0.1"}}, url: s.at("mixed.test", "/")},
		{name: "other loopback still refused", opts: Options{AllowPrivate: []string{"127.0.0.1"}}, url: s.at("internal.test", "/"), wantErr: ErrAddressRefused},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newGuard(t, tt.opts)
			before := s.hits.Load()
			resp, err := get(t, g, tt.url, nil, 0)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				if s.hits.Load() != before {
					t.Fatal("the server was reached")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != 200 || string(resp.Body) != "secret internal page" {
				t.Fatalf("got %d %q", resp.StatusCode, resp.Body)
			}
		})
	}
}

func TestRefusalNamesAddress(t *testing.T) {
	g := newGuard(t, Options{AllowPrivate: []string{"127.0.0.1"}})
	_, err := get(t, g, "http://internal.test:1/", nil, 0)
	var re *RefusedError
	if !errors.As(err, &re) {
		t.Fatalf("err = %v, want *RefusedError", err)
	}
	if re.Host != "internal.test" || re.Addr != netip.MustParseAddr("127.0.0.2") {
		t.Errorf("refusal = %+v", re)
	}
	if want := "internal.test resolves to 127.0.0.2, a loopback address"; !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not say %q", err, want)
	}
}

func TestRedirects(t *testing.T) {
	var s *server
	s = newServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/ok":
			fmt.Fprint(w, "landed")
		case r.URL.Path == "/to-internal":
			http.Redirect(w, r, s.at("internal.test", "/ok"), http.StatusFound)
		case r.URL.Path == "/to-literal":
			http.Redirect(w, r, "http://127.0.0.2:"+s.port+"/ok", http.StatusFound)
		case r.URL.Path == "/to-metadata":
			http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusFound)
		case r.URL.Path == "/to-metadata-name":
			http.Redirect(w, r, "http://metadata.google.internal/", http.StatusFound)
		case r.URL.Path == "/to-v6-loopback":
			http.Redirect(w, r, "http://[::1]:"+s.port+"/ok", http.StatusFound)
		case r.URL.Path == "/to-mapped":
			http.Redirect(w, r, "http://[::ffff:127.0.0.2]:"+s.port+"/ok", http.StatusFound)
		case r.URL.Path == "/to-blocked":
			http.Redirect(w, r, s.at("blocked.test", "/ok"), http.StatusMovedPermanently)
		case r.URL.Path == "/to-file":
			http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
		case r.URL.Path == "/to-other":
			http.Redirect(w, r, s.at("other.test", "/ok"), http.StatusTemporaryRedirect)
		case r.URL.Path == "/loop":
			http.Redirect(w, r, "/loop", http.StatusFound)
		case strings.HasPrefix(r.URL.Path, "/hop/"):
			var n int
			fmt.Sscanf(strings.TrimPrefix(r.URL.Path, "/hop/"), "%d", &n)
			if n == 0 {
				fmt.Fprint(w, "landed")
				return
			}
			http.Redirect(w, r, fmt.Sprintf("/hop/%d", n-1), http.StatusFound)
		default:
			http.NotFound(w, r)
		}
	})
	base := Options{AllowPrivate: []string{"127.0.0.1"}, BlockedHosts: []string{"blocked.test"}}
	tests := []struct {
		name      string
		opts      *Options
		path      string
		wantErr   error
		wantInErr string
		wantHits  int32
		wantCode  int
	}{
		{name: "to internal name", path: "/to-internal", wantErr: ErrAddressRefused, wantInErr: "127.0.0.2", wantHits: 1},
		{name: "to internal literal", path: "/to-literal", wantErr: ErrAddressRefused, wantInErr: "redirect to", wantHits: 1},
		{name: "to metadata", path: "/to-metadata", wantErr: ErrAddressRefused, wantInErr: "metadata", wantHits: 1},
		{name: "to metadata name", path: "/to-metadata-name", wantErr: ErrAddressRefused, wantInErr: "metadata", wantHits: 1},
		{name: "to v6 loopback", path: "/to-v6-loopback", wantErr: ErrAddressRefused, wantInErr: "::1", wantHits: 1},
		{name: "to mapped", path: "/to-mapped", wantErr: ErrAddressRefused, wantInErr: "IPv4-mapped", wantHits: 1},
		{name: "to blocked domain", path: "/to-blocked", wantErr: ErrHostBlocked, wantInErr: "blocked.test", wantHits: 1},
		{name: "to file", path: "/to-file", wantErr: ErrScheme, wantInErr: "file", wantHits: 1},
		{name: "to a host outside the allowed list", opts: &Options{AllowPrivate: []string{"127.0.0.1"}, AllowedHosts: []string{"public.test"}},
			path: "/to-other", wantErr: ErrHostNotAllowed, wantInErr: "other.test", wantHits: 1},
		{name: "loop beyond the limit", path: "/loop", wantErr: ErrTooManyRedirects, wantInErr: "5 redirects", wantHits: 6},
		{name: "limit of two", opts: &Options{AllowPrivate: []string{"127.0.0.1"}, MaxRedirects: 2}, path: "/hop/3", wantErr: ErrTooManyRedirects, wantHits: 3},
		{name: "five hops land", path: "/hop/5", wantHits: 6, wantCode: 200},
		{name: "no redirects returns the 3xx", opts: &Options{AllowPrivate: []string{"127.0.0.1"}, MaxRedirects: -1}, path: "/hop/1", wantHits: 1, wantCode: 302},
		{name: "to an allowed host", path: "/to-other", wantHits: 2, wantCode: 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := base
			if tt.opts != nil {
				o = *tt.opts
			}
			g := newGuard(t, o)
			before := s.hits.Load()
			resp, err := get(t, g, s.at("public.test", tt.path), nil, 0)
			if hits := s.hits.Load() - before; hits != tt.wantHits {
				t.Errorf("server saw %d requests, want %d", hits, tt.wantHits)
			}
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) || !strings.Contains(err.Error(), tt.wantInErr) {
					t.Fatalf("err = %v, want %v mentioning %q", err, tt.wantErr, tt.wantInErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tt.wantCode {
				t.Fatalf("status %d, want %d", resp.StatusCode, tt.wantCode)
			}
		})
	}
}

func TestCrossOriginRedirectDropsCredentials(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]http.Header{}
	var s *server
	s = newServer(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen[r.Host+r.URL.Path] = r.Header.Clone()
		mu.Unlock()
		switch r.URL.Path {
		case "/same":
			http.Redirect(w, r, "/end", http.StatusFound)
		case "/cross":
			http.Redirect(w, r, s.at("other.test", "/end"), http.StatusFound)
		}
	})
	g := newGuard(t, Options{AllowPrivate: []string{"127.0.0.1"}})
	h := http.Header{"X-Api-Key": {"k-123"}, "Authorization": {"Bearer t-456"}, "Accept": {"text/plain"}}
	if _, err := get(t, g, s.at("public.test", "/same"), h, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := get(t, g, s.at("public.test", "/cross"), h, 0); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	same := seen["public.test:"+s.port+"/end"]
	if same.Get("X-Api-Key") != "k-123" || same.Get("Authorization") == "" {
		t.Errorf("same-origin redirect lost headers: %v", same)
	}
	cross := seen["other.test:"+s.port+"/end"]
	if cross == nil {
		t.Fatal("cross-origin target not reached")
	}
	if cross.Get("X-Api-Key") != "" || cross.Get("Authorization") != "" {
		t.Errorf("cross-origin redirect carried credentials: %v", cross)
	}
	if cross.Get("Accept") != "text/plain" {
		t.Errorf("cross-origin redirect lost Accept: %v", cross)
	}
}

func TestEveryDialIsChecked(t *testing.T) {
	// A resolver that answers an allowed address first and an internal one
	// afterwards, as a rebinding attacker's DNS server would.
	s := newServer(t, func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "ok") })
	var calls atomic.Int32
	rebind := resolverFunc(func(context.Context, string, string) ([]netip.Addr, error) {
		if calls.Add(1) == 1 {
			return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
		}
		return []netip.Addr{netip.MustParseAddr("127.0.0.2")}, nil
	})
	g := newGuard(t, Options{AllowPrivate: []string{"127.0.0.1"}, Resolver: rebind})
	if _, err := get(t, g, s.at("rebind.test", "/"), nil, 0); err != nil {
		t.Fatalf("first request: %v", err)
	}
	g.CloseIdleConnections()
	if _, err := get(t, g, s.at("rebind.test", "/"), nil, 0); !errors.Is(err, ErrAddressRefused) {
		t.Fatalf("second request after rebinding: %v, want ErrAddressRefused", err)
	}
	if s.hits.Load() != 1 {
		t.Fatalf("server saw %d requests, want 1", s.hits.Load())
	}
}

type resolverFunc func(ctx context.Context, network, host string) ([]netip.Addr, error)

func (f resolverFunc) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	return f(ctx, network, host)
}

func TestBodyCap(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/small":
			fmt.Fprint(w, strings.Repeat("a", 1000))
		case "/endless":
			chunk := []byte(strings.Repeat("b", 4096))
			for {
				if _, err := w.Write(chunk); err != nil {
					return
				}
				if r.Context().Err() != nil {
					return
				}
			}
		}
	})
	tests := []struct {
		name          string
		guardMax      int64
		max           int64
		path          string
		wantLen       int
		wantTruncated bool
	}{
		{name: "under the cap", path: "/small", max: 2000, wantLen: 1000},
		{name: "exactly the cap", path: "/small", max: 1000, wantLen: 1000},
		{name: "over the cap", path: "/small", max: 999, wantLen: 999, wantTruncated: true},
		{name: "guard cap wins", path: "/small", guardMax: 10, max: 500, wantLen: 10, wantTruncated: true},
		{name: "endless body stops", path: "/endless", max: 100000, wantLen: 100000, wantTruncated: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newGuard(t, Options{AllowPrivate: []string{"127.0.0.1"}, MaxBytes: tt.guardMax})
			resp, err := get(t, g, s.URL+tt.path, nil, tt.max)
			if err != nil {
				t.Fatal(err)
			}
			if len(resp.Body) != tt.wantLen || resp.Truncated != tt.wantTruncated {
				t.Fatalf("got %d bytes, truncated %v; want %d, %v", len(resp.Body), resp.Truncated, tt.wantLen, tt.wantTruncated)
			}
		})
	}
}

// TestTLS checks that TLS (and HTTP/2) run over the guarded dialer, with
// the certificate checked against the URL's name, not the address dialled.
func TestTLS(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "HTTP/%d over TLS", r.ProtoMajor)
	}))
	srv.EnableHTTP2 = true
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshakes are expected
	srv.StartTLS()
	t.Cleanup(srv.Close)
	port := srv.URL[strings.LastIndex(srv.URL, ":")+1:]
	pool := srv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs
	res := mapResolver{"example.com": {"127.0.0.1"}, "wrong.test": {"127.0.0.1"}}
	g := newGuard(t, Options{AllowPrivate: []string{"127.0.0.1"}, Resolver: res, RootCAs: pool})
	resp, err := get(t, g, "https://example.com:"+port+"/", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if string(resp.Body) != "HTTP/2 over TLS" {
		t.Errorf("body = %q", resp.Body)
	}
	if _, err := get(t, g, "https://wrong.test:"+port+"/", nil, 0); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("a certificate for another name was accepted: %v", err)
	}
	plain := newGuard(t, Options{AllowPrivate: []string{"127.0.0.1"}, Resolver: res})
	if _, err := get(t, plain, "https://example.com:"+port+"/", nil, 0); err == nil {
		t.Error("a certificate from an unknown CA was accepted")
	}
}

func TestTimeout(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	})
	g := newGuard(t, Options{AllowPrivate: []string{"127.0.0.1"}, Timeout: 100 * time.Millisecond})
	_, err := get(t, g, s.URL, nil, 0)
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("err = %v, want ErrTimeout", err)
	}
}

func TestCancel(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	g := newGuard(t, Options{AllowPrivate: []string{"127.0.0.1"}})
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.URL, nil)
	time.AfterFunc(50*time.Millisecond, cancel)
	if _, err := g.Do(req, 0); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestEnvironmentProxyIgnored(t *testing.T) {
	t.Setenv("HTTP_PROXY", "http://127.0.0.1:1")
	t.Setenv("http_proxy", "http://127.0.0.1:1")
	s := newServer(t, func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "direct") })
	g := newGuard(t, Options{AllowPrivate: []string{"127.0.0.1"}})
	resp, err := get(t, g, s.at("public.test", "/"), nil, 0)
	if err != nil || string(resp.Body) != "direct" {
		t.Fatalf("got %v, %v", resp, err)
	}
}

func TestErrorsHidePasswords(t *testing.T) {
	g := newGuard(t, Options{})
	for _, raw := range []string{"http://user:hunter2@127.0.0.1/", "http://user:hunter2@nowhere.test:1/"} {
		_, err := get(t, g, raw, nil, 0)
		if err == nil {
			t.Fatalf("%s: no error", raw)
		}
		if strings.Contains(err.Error(), "hunter2") {
			t.Errorf("error leaks the password: %v", err)
		}
	}
}
