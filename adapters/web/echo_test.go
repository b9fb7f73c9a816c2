package web

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
)

// encodedForms are the ways a server may hand a secret back.
var encodedForms = map[string]func(string) string{
	"literal":             func(s string) string { return s },
	"reversed":            func(s string) string { b := []byte(s); slices.Reverse(b); return string(b) },
	"hex":                 func(s string) string { return hex.EncodeToString([]byte(s)) },
	"HEX":                 func(s string) string { return strings.ToUpper(hex.EncodeToString([]byte(s))) },
	"base64":              func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) },
	"base64 raw":          func(s string) string { return base64.RawStdEncoding.EncodeToString([]byte(s)) },
	"base64url":           func(s string) string { return base64.URLEncoding.EncodeToString([]byte(s)) },
	"base64url raw":       func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) },
	"base64 offset 1":     func(s string) string { return base64.StdEncoding.EncodeToString([]byte("{" + s + "}")) },
	"base64 offset 2":     func(s string) string { return base64.StdEncoding.EncodeToString([]byte("k=" + s)) },
	"base64url offset 1":  func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(":" + s + "\n")) },
	"query escaped":       url.QueryEscape,
	"all percent-encoded": func(s string) string { return strings.ToUpper(percentAll(s)) },
	"json escaped":        func(s string) string { b, _ := json.Marshal(s); return strings.Trim(string(b), `"`) },
}

func percentAll(s string) string {
	var b strings.Builder
	for i := range len(s) {
		fmt.Fprintf(&b, "%%%02x", s[i])
	}
	return b.String()
}

// leakForms are substrings that would show a secret: its literal and
// reversed forms, both hex cases, and for each base64 alphabet and offset
// the characters that depend on the secret alone.
func leakForms(s string) []string {
	out := []string{s, encodedForms["reversed"](s), encodedForms["hex"](s), encodedForms["HEX"](s)}
	for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
		for align := range 3 {
			full := enc.EncodeToString(append(make([]byte, align), s...))
			out = append(out, full[(8*align+5)/6:8*(align+len(s))/6])
		}
	}
	return out
}

// TestSecretEncodedEchoes: an allowed host that sends a secret back
// encoded (base64 in both alphabets and every alignment, hex, percent-
// and JSON-escaped, reversed), in its body or its headers, or dribbled out
// in small chunks, shows the model nothing of it; nor of a configured
// secret the call did not use.
func TestSecretEncodedEchoes(t *testing.T) {
	const unused = "an0ther-configured-secret"
	mux := http.NewServeMux()
	mux.HandleFunc("/enc", func(w http.ResponseWriter, r *http.Request) {
		v := r.Header.Get("X-Api-Key")
		if r.URL.Query().Get("which") == "unused" {
			v = unused
		}
		enc := encodedForms[r.URL.Query().Get("form")](v)
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("Etag", `"`+enc+`"`)
		w.Header().Set("Link", "<https://api.test/?t="+enc+">")
		if r.URL.Query().Get("chunked") == "" {
			fmt.Fprintf(w, "you sent %s, thanks", enc)
			return
		}
		f := w.(http.Flusher)
		for _, piece := range strings.SplitAfter("you sent "+enc+", thanks", "") {
			fmt.Fprint(w, piece)
			f.Flush()
		}
	})
	s := newSite(t, mux)
	r := newRequest(t, RequestOptions{
		Network: apiNet(),
		Secrets: map[string]string{"API_KEY": "${API_TOKEN_ENV}", "OTHER": unused},
	})
	for form := range encodedForms {
		for _, variant := range []string{"", "&chunked=1", "&which=unused"} {
			t.Run(form+variant, func(t *testing.T) {
				u := s.at("api.test", "/enc") + "?form=" + url.QueryEscape(form) + variant
				args, _ := json.Marshal(map[string]any{"url": u, "secret_headers": map[string]string{"X-Api-Key": "API_KEY"}})
				res, err := r.Execute(context.Background(), args)
				if err != nil || !res.Success {
					t.Fatalf("%+v, %v", res, err)
				}
				all, _ := json.Marshal(res)
				var data RequestData
				_ = json.Unmarshal(mustJSON(t, res.Output.Data), &data)
				secret := secretValue
				if variant == "&which=unused" {
					secret = unused
				}
				for _, text := range []string{string(all), res.Output.Text, data.Body, data.Headers["Etag"], data.Headers["Link"]} {
					for _, leak := range leakForms(secret) {
						if strings.Contains(text, leak) {
							t.Fatalf("the secret's form %q shows in %q", leak, text)
						}
					}
				}
				if !strings.Contains(data.Body, "[secret ") || !strings.HasSuffix(data.Body, ", thanks") {
					t.Errorf("body %q", data.Body)
				}
			})
		}
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
