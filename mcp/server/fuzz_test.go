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

// FuzzDecodeMessage feeds whole messages as a client sends them, over
// stdio or in an HTTP body: decoding never panics, and whatever talon
// answers (the error, with the id it found) is one valid JSON value.
func FuzzDecodeMessage(f *testing.F) {
	for _, s := range []string{
		initLine, initializedLine, `{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"x","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":1,"result":{}}`, `{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m"}}`,
		`[]`, `{}`, `{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}`, `{"jsonrpc":"2.0","id":5,"method":7}`, `"\ud800"`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, rerr := decodeMessage(data)
		if rerr == nil {
			if m == nil || m.JSONRPC != "2.0" || (m.Method == "" && len(m.ID) == 0) {
				t.Fatalf("accepted %q as %+v", data, m)
			}
			return
		}
		var id json.RawMessage
		if m != nil {
			id = m.ID
		}
		if out := appendErrorResponse(nil, id, rerr); !json.Valid(out) {
			t.Fatalf("answer to %q is not JSON: %s", data, out)
		}
	})
}

// FuzzAppendString checks talon's JSON string writer against
// encoding/json's reading of it.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "a", "\"\\\n\t\x00\x1f", "\u2028\u2029", "\xff\xfe", "日本語", "<&>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := appendString(nil, s)
		var back string
		if err := json.Unmarshal(out, &back); err != nil {
			t.Fatalf("%q -> %s: %v", s, out, err)
		}
		std, _ := json.Marshal(s)
		var want string
		_ = json.Unmarshal(std, &want)
		if back != want {
			t.Fatalf("%q -> %s -> %q, encoding/json reads %q", s, out, back, want)
		}
	})
}
