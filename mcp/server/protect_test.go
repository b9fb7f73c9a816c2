package server

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestProtectMatchesTheEndpoint: a handler behind Protect refuses exactly
// what /mcp refuses, with the same status and challenge.
func TestProtectMatchesTheEndpoint(t *testing.T) {
	for _, token := range []string{"", "s3cret-token"} {
		f := newFixture(t, fixtureOptions{})
		opts := HTTPOptions{Token: token, AllowedOrigins: []string{"https://app.example.com"}}
		mux := http.NewServeMux()
		mux.Handle(DefaultPath, f.srv.HTTPHandler(opts))
		mux.Handle("/metrics", NewAccess(opts).Protect(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(http.StatusOK)
		})))
		hs := httptest.NewServer(mux)
		tests := []struct{ name, origin, auth, host string }{
			{name: "plain"},
			{name: "token", auth: "Bearer s3cret-token"},
			{name: "wrong token", auth: "Bearer nope"},
			{name: "rebound host", host: "attacker.test:7357", auth: "Bearer s3cret-token"},
			{name: "configured origin", origin: "https://app.example.com", auth: "Bearer s3cret-token"},
			{name: "foreign origin", origin: "https://evil.example", auth: "Bearer s3cret-token"},
		}
		for _, tt := range tests {
			t.Run(tt.name+"/token="+token, func(t *testing.T) {
				do := func(path string) (int, string) {
					resp := postInitialize(t, hs.URL+path, tt.origin, tt.auth, tt.host)
					return resp.StatusCode, resp.Header.Get("WWW-Authenticate")
				}
				ms, mc := do(DefaultPath)
				ps, pc := do("/metrics")
				if ms != ps || mc != pc {
					t.Fatalf("/mcp answered %d %q, the protected handler %d %q", ms, mc, ps, pc)
				}
			})
		}
		hs.CloseClientConnections()
		hs.Close()
	}
}
