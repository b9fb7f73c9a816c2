package server

import (
	"crypto/sha256"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// FuzzRequestGuards feeds the Origin and Authorization headers a network
// peer controls. The guards never panic, accept only the exact token, and
// never accept an origin that is neither loopback nor configured.
func FuzzRequestGuards(f *testing.F) {
	for _, seed := range [][2]string{
		{"", "Bearer tok"}, {"http://localhost:1", "bearer tok"}, {"https://app.example.com", "Bearer  tok "},
		{"null", "Basic dG9r"}, {"http://[::1", "Bearer"}, {"http://127.0.0.1.evil.com", ""}, {"ftp://localhost", "Bearer tok\x00"},
	} {
		f.Add(seed[0], seed[1])
	}
	allowed := map[string]bool{"https://app.example.com": true}
	want := sha256.Sum256([]byte("tok"))
	f.Fuzz(func(t *testing.T, origin, auth string) {
		if originAllowed(origin, allowed) && origin != "" {
			if !allowed[normalizeOrigin(origin)] && !loopbackOrigin(origin) {
				t.Fatalf("accepted origin %q", origin)
			}
		}
		r := &http.Request{Header: http.Header{"Authorization": {auth}}}
		if tokenMatches(r, want) && !validAuth(auth) {
			t.Fatalf("accepted Authorization %q", auth)
		}
	})
}

func loopbackOrigin(origin string) bool {
	u, err := url.Parse(origin)
	return err == nil && IsLoopbackHost(u.Hostname())
}

func validAuth(auth string) bool {
	scheme, token, ok := strings.Cut(auth, " ")
	return ok && strings.EqualFold(scheme, "bearer") && strings.TrimSpace(token) == "tok"
}

// FuzzObjectSchema feeds input schemas of tools from other sources
// (plugins, MCP servers): the result is an object schema or an error,
// never a panic.
func FuzzObjectSchema(f *testing.F) {
	for _, s := range []string{`{}`, `{"type":"object"}`, `{"type":"array"}`, `[]`, `null`, ``, `{"type":["object","null"]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		out, err := objectSchema(raw)
		if err != nil {
			return
		}
		var m map[string]any
		if json.Unmarshal(out, &m) != nil || m["type"] != "object" {
			t.Fatalf("objectSchema(%q) = %s", raw, out)
		}
	})
}
