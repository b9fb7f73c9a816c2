package server

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestAccessMatchesTheEndpoint sends the same requests to /mcp and to a
// handler behind Access, on one listener, and expects the same verdicts:
// the console refuses exactly what the MCP endpoint refuses.
func TestAccessMatchesTheEndpoint(t *testing.T) {
	for _, token := range []string{"", "s3cret-token"} {
		f := newFixture(t, fixtureOptions{})
		opts := HTTPOptions{Token: token, AllowedOrigins: []string{"https://app.example.com/"}}
		a := NewAccess(opts)
		mux := http.NewServeMux()
		mux.Handle(DefaultPath, f.srv.HTTPHandler(opts))
		mux.Handle("/other", a.Guard(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !a.Bearer(r) {
				w.WriteHeader(http.StatusUnauthorized)
				return
			}
			w.WriteHeader(http.StatusOK)
		})))
		hs := httptest.NewServer(mux)
		tests := []struct {
			name, origin, auth, host string
		}{
			{name: "plain"},
			{name: "token", auth: "Bearer s3cret-token"},
			{name: "wrong token", auth: "Bearer nope"},
			{name: "wrong scheme", auth: "Basic s3cret-token"},
			{name: "rebound host", host: "attacker.test:7357", auth: "Bearer s3cret-token"},
			{name: "localhost host", host: "localhost:7357", auth: "Bearer s3cret-token"},
			{name: "loopback origin", origin: "http://localhost:3000", auth: "Bearer s3cret-token"},
			{name: "configured origin", origin: "https://APP.example.com", auth: "Bearer s3cret-token"},
			{name: "foreign origin", origin: "https://evil.example", auth: "Bearer s3cret-token"},
			{name: "null origin", origin: "null", auth: "Bearer s3cret-token"},
		}
		for _, tt := range tests {
			t.Run(tt.name+"/token="+token, func(t *testing.T) {
				status := func(path string) int {
					resp := postInitialize(t, hs.URL+path, tt.origin, tt.auth, tt.host)
					return resp.StatusCode
				}
				if mcp, other := status(DefaultPath), status("/other"); mcp != other {
					t.Fatalf("/mcp answered %d, the guarded handler %d", mcp, other)
				}
			})
		}
		hs.CloseClientConnections()
		hs.Close()
	}
}

func TestAccessTokenMatches(t *testing.T) {
	tests := []struct {
		name, token, given string
		want               bool
	}{
		{name: "same", token: "abc", given: "abc", want: true},
		{name: "spaces around", token: "abc", given: " abc\n", want: true},
		{name: "other", token: "abc", given: "abd"},
		{name: "prefix", token: "abc", given: "ab"},
		{name: "no token set", token: "", given: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := NewAccess(HTTPOptions{Token: tt.token}).TokenMatches(tt.given); got != tt.want {
				t.Fatalf("TokenMatches(%q) = %v with token %q", tt.given, got, tt.token)
			}
		})
	}
}
