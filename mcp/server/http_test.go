package server

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`

func TestHTTPGuards(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	hs := httptest.NewServer(f.srv.HTTPHandler(HTTPOptions{Token: "s3cret-token", AllowedOrigins: []string{"https://app.example.com/"}}))
	defer hs.Close()
	tests := []struct {
		name   string
		path   string
		origin string
		auth   string
		host   string
		want   int
	}{
		{name: "rebound host", path: DefaultPath, host: "attacker.test:7357", auth: "Bearer s3cret-token", want: http.StatusForbidden},
		{name: "no token", path: DefaultPath, want: http.StatusUnauthorized},
		{name: "wrong token", path: DefaultPath, auth: "Bearer nope", want: http.StatusUnauthorized},
		{name: "wrong scheme", path: DefaultPath, auth: "Basic s3cret-token", want: http.StatusUnauthorized},
		{name: "token", path: DefaultPath, auth: "Bearer s3cret-token", want: http.StatusOK},
		{name: "token, scheme in lower case", path: DefaultPath, auth: "bearer s3cret-token", want: http.StatusOK},
		{name: "loopback origin", path: DefaultPath, origin: "http://localhost:3000", auth: "Bearer s3cret-token", want: http.StatusOK},
		{name: "configured origin", path: DefaultPath, origin: "https://APP.example.com", auth: "Bearer s3cret-token", want: http.StatusOK},
		{name: "foreign origin", path: DefaultPath, origin: "https://evil.example", auth: "Bearer s3cret-token", want: http.StatusForbidden},
		{name: "rebound name", path: DefaultPath, origin: "http://attacker.test:7357", auth: "Bearer s3cret-token", want: http.StatusForbidden},
		{name: "null origin", path: DefaultPath, origin: "null", auth: "Bearer s3cret-token", want: http.StatusForbidden},
		{name: "other path", path: "/", auth: "Bearer s3cret-token", want: http.StatusNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := postInitialize(t, hs.URL+tt.path, tt.origin, tt.auth, tt.host)
			if resp.StatusCode != tt.want {
				t.Fatalf("status %d, want %d", resp.StatusCode, tt.want)
			}
			if tt.want == http.StatusUnauthorized && resp.Header.Get("WWW-Authenticate") == "" {
				t.Error("401 without WWW-Authenticate")
			}
		})
	}
	// The sessions opened above are closed with the server.
	hs.CloseClientConnections()
}

// bearer adds a token to every request of the official client.
type bearer struct {
	token string
	base  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.base.RoundTrip(r)
}

func TestHTTPWithOfficialClient(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	hs := httptest.NewServer(f.srv.HTTPHandler(HTTPOptions{Token: "tok"}))
	defer hs.Close()
	ctx := context.Background()
	c := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "v0"}, nil)
	tr := &sdk.StreamableClientTransport{Endpoint: hs.URL + DefaultPath,
		HTTPClient: &http.Client{Transport: bearer{token: "tok", base: http.DefaultTransport}}}
	cs, err := c.Connect(ctx, tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cs.Close() }()
	if v := cs.InitializeResult().ProtocolVersion; v >= "2026-07-28" {
		t.Fatalf("negotiated %s", v)
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "calculator", Arguments: map[string]any{"expression": "6*7"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := text(t, res); got != "42" {
		t.Fatalf("text = %q", got)
	}
	if cs.ID() == "" {
		t.Fatal("HTTP session has no id")
	}
}

func TestCheckListen(t *testing.T) {
	tests := []struct {
		name     string
		addr     string
		fromFlag bool
		token    string
		want     error // nil: allowed
		wantAny  bool  // some error
	}{
		{name: "loopback v4", addr: "127.0.0.1:7357"},
		{name: "loopback v6", addr: "[::1]:7357"},
		{name: "localhost", addr: "localhost:0"},
		{name: "loopback from config", addr: "127.0.0.2:80"},
		{name: "all interfaces from config", addr: ":7357", token: "t", want: ErrNonLoopback},
		{name: "lan from config", addr: "192.168.1.5:7357", token: "t", want: ErrNonLoopback},
		{name: "all interfaces without token", addr: "0.0.0.0:7357", fromFlag: true, want: ErrNoToken},
		{name: "empty host without token", addr: ":7357", fromFlag: true, want: ErrNoToken},
		{name: "flag and token", addr: "0.0.0.0:7357", fromFlag: true, token: "t"},
		{name: "not host:port", addr: "7357", wantAny: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckListen(tt.addr, tt.fromFlag, tt.token)
			switch {
			case tt.wantAny:
				if err == nil {
					t.Fatal("allowed")
				}
			case tt.want == nil:
				if err != nil {
					t.Fatal(err)
				}
			case !errors.Is(err, tt.want):
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestOriginAllowed(t *testing.T) {
	allowed := map[string]bool{"https://app.example.com": true}
	tests := []struct {
		origin string
		want   bool
	}{
		{"", true},
		{"http://localhost", true},
		{"http://127.0.0.1:5173", true},
		{"http://[::1]:8080", true},
		{"http://dev.localhost", true},
		{"https://app.example.com", true},
		{"https://app.example.com:8443", false},
		{"http://app.example.com", false},
		{"https://localhost.evil.com", false},
		{"file://", false},
		{"null", false},
		{"://", false},
	}
	for _, tt := range tests {
		t.Run(tt.origin, func(t *testing.T) {
			if got := originAllowed(tt.origin, allowed); got != tt.want {
				t.Fatalf("originAllowed(%q) = %v", tt.origin, got)
			}
		})
	}
}

// The streamable HTTP transport's answers to what a client sends outside
// the happy path.
func TestHTTPTransportStatuses(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	hs := httptest.NewServer(f.srv.HTTPHandler(HTTPOptions{}))
	defer hs.Close()
	url := hs.URL + DefaultPath
	do := func(method, session, version, accept, body string) *http.Response {
		t.Helper()
		req, err := http.NewRequest(method, url, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if method == http.MethodPost {
			req.Header.Set("Content-Type", "application/json")
		}
		if accept == "" {
			accept = "application/json, text/event-stream"
		}
		req.Header.Set("Accept", accept)
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
		}
		if version != "" {
			req.Header.Set("Mcp-Protocol-Version", version)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = resp.Body.Close() })
		return resp
	}
	init := do(http.MethodPost, "", "", "", initBody)
	sid := init.Header.Get("Mcp-Session-Id")
	if init.StatusCode != http.StatusOK || sid == "" {
		t.Fatalf("initialize: %d, session %q", init.StatusCode, sid)
	}
	other := do(http.MethodPost, "", "", "", initBody).Header.Get("Mcp-Session-Id")
	ping := `{"jsonrpc":"2.0","id":7,"method":"ping"}`
	tests := []struct {
		name                           string
		method, session, version, body string
		accept                         string
		want                           int
		wantBody                       string // substring
	}{
		{name: "ping", method: http.MethodPost, session: sid, body: ping, want: http.StatusOK, wantBody: `"result":{}`},
		{name: "no session", method: http.MethodPost, body: ping, want: http.StatusBadRequest, wantBody: "initialize"},
		{name: "unknown session", method: http.MethodPost, session: "nope", body: ping, want: http.StatusNotFound},
		{name: "discover", method: http.MethodPost, body: `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{}}`, want: http.StatusOK, wantBody: "-32601"},
		{name: "notification", method: http.MethodPost, session: sid, body: `{"jsonrpc":"2.0","method":"notifications/initialized"}`, want: http.StatusAccepted},
		{name: "stray response", method: http.MethodPost, session: sid, body: `{"jsonrpc":"2.0","id":"x","result":{}}`, want: http.StatusAccepted},
		{name: "batch", method: http.MethodPost, session: sid, body: `[` + ping + `]`, want: http.StatusBadRequest, wantBody: "-32600"},
		{name: "not JSON", method: http.MethodPost, session: sid, body: `{`, want: http.StatusBadRequest, wantBody: "-32700"},
		{name: "unsupported version", method: http.MethodPost, session: sid, version: "1999-01-01", body: ping, want: http.StatusBadRequest},
		{name: "supported version", method: http.MethodPost, session: sid, version: "2025-06-18", body: ping, want: http.StatusOK},
		{name: "no JSON accepted", method: http.MethodPost, session: sid, accept: "text/event-stream", body: ping, want: http.StatusBadRequest},
		{name: "GET without a session", method: http.MethodGet, accept: "text/event-stream", want: http.StatusBadRequest},
		{name: "GET without event streams", method: http.MethodGet, session: sid, accept: "application/json", want: http.StatusBadRequest},
		{name: "PUT", method: http.MethodPut, session: sid, want: http.StatusMethodNotAllowed},
		{name: "DELETE", method: http.MethodDelete, session: other, want: http.StatusNoContent},
		{name: "after DELETE", method: http.MethodPost, session: other, body: ping, want: http.StatusNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := do(tt.method, tt.session, tt.version, tt.accept, tt.body)
			if resp.StatusCode != tt.want {
				t.Fatalf("status %d, want %d", resp.StatusCode, tt.want)
			}
			if tt.wantBody != "" {
				b, _ := io.ReadAll(resp.Body)
				if !strings.Contains(string(b), tt.wantBody) {
					t.Fatalf("body %s lacks %s", b, tt.wantBody)
				}
			}
		})
	}
	// One standalone stream per session.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", sid)
	stream, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Body.Close()
	if stream.StatusCode != http.StatusOK || stream.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("stream: %d %s", stream.StatusCode, stream.Header.Get("Content-Type"))
	}
	if resp := do(http.MethodGet, sid, "", "text/event-stream", ""); resp.StatusCode != http.StatusConflict {
		t.Fatalf("a second stream: %d, want 409", resp.StatusCode)
	}
	cancel()
}

// postInitialize POSTs an initialize request to url with the given
// Origin, Authorization and Host (each left out when empty) and returns
// the response, its body closed.
func postInitialize(t *testing.T, url, origin, auth, host string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(initBody))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	if host != "" {
		req.Host = host
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	return resp
}
