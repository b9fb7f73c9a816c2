package github

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

const longToken = "ghp_T0kenValue1234567890abcdefXYZ"

// TestTokenEchoesRedacted: whatever the server sends back (an issue, an
// error), the token shows in none of its forms: literal, base64 in either
// alphabet and at any offset, hex, percent- or JSON-escaped.
func TestTokenEchoesRedacted(t *testing.T) {
	b64 := base64.StdEncoding.EncodeToString([]byte("x" + longToken))
	forms := map[string]string{
		"literal":      longToken,
		"base64":       b64,
		"base64url":    base64.RawURLEncoding.EncodeToString([]byte(longToken)),
		"hex":          strings.ToUpper(hex.EncodeToString([]byte(longToken))),
		"percent":      strings.ReplaceAll(url.QueryEscape(longToken), "_", "%5F"),
		"json unicode": `\u0067\u0068\u0070` + longToken[3:],
		"reversed":     reversed(longToken),
	}
	leaks := []string{longToken, b64[4:40], base64.RawURLEncoding.EncodeToString([]byte(longToken))[:40],
		strings.ToUpper(hex.EncodeToString([]byte(longToken))), reversed(longToken)}
	for name, form := range forms {
		for _, code := range []int{200, 422} {
			t.Run(name+"/"+http.StatusText(code), func(t *testing.T) {
				api := newAPI(t)
				api.override = func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(code)
					if code == 200 {
						_, _ = w.Write([]byte(`{"number":1,"title":"echo ` + form + `","state":"open","html_url":"https://github.test/o/r/issues/1","user":{"login":"a"},"body":"sent ` + form + ` back"}`))
						return
					}
					_, _ = w.Write([]byte(`{"message":"Validation Failed: token ` + form + `"}`))
				}
				g := api.tool(t, Options{Token: "${GITHUB_TOKEN}", Owner: "octo", Repo: "hello",
					LookupEnv: func(k string) (string, bool) { return longToken, k == "GITHUB_TOKEN" }})
				res, err := g.Execute(context.Background(), json.RawMessage(`{"action":"get_issue","number":1}`))
				if err != nil {
					t.Fatal(err)
				}
				all, _ := json.Marshal(res)
				for _, text := range []string{string(all), res.Output.Text, res.Error} {
					for _, leak := range leaks {
						if strings.Contains(text, leak) {
							t.Fatalf("the token's form %q shows in %s", leak, text)
						}
					}
				}
				if !strings.Contains(string(all), "[secret tools.github.token]") {
					t.Errorf("no redaction mark in %s", all)
				}
			})
		}
	}
}

func reversed(s string) string {
	b := []byte(s)
	for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
		b[i], b[j] = b[j], b[i]
	}
	return string(b)
}
