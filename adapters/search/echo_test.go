package search

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

const longKey = "BSA-brave-K3y-0123456789abcdef"

// TestKeyEchoesRedacted: a provider that sends the API key back, in a
// result or in an error, in any of its forms (literal, base64, hex,
// percent-encoded), shows the model none of them.
func TestKeyEchoesRedacted(t *testing.T) {
	b64 := base64.StdEncoding.EncodeToString([]byte("ab" + longKey))
	forms := map[string]string{
		"literal": longKey,
		"base64":  b64,
		"hex":     hex.EncodeToString([]byte(longKey)),
		"percent": url.QueryEscape(longKey),
	}
	leaks := []string{longKey, b64[4:36], hex.EncodeToString([]byte(longKey))}
	for name, form := range forms {
		for _, code := range []int{200, 401} {
			t.Run(name+"/"+http.StatusText(code), func(t *testing.T) {
				f := newFake(t, func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(code)
					if code == 200 {
						_, _ = w.Write([]byte(`{"type":"search","web":{"results":[{"title":"key ` + form + `","url":"https://example.org/?k=` + form + `","description":"you sent ` + form + `"}]}}`))
						return
					}
					_, _ = w.Write([]byte(`{"error":"bad key ` + form + `"}`))
				})
				ws := newTool(t, Options{Provider: Brave, BraveURL: f.URL, BraveAPIKey: "${BRAVE_API_KEY}",
					LookupEnv: env(map[string]string{"BRAVE_API_KEY": longKey})})
				res, err := ws.Execute(context.Background(), json.RawMessage(`{"query":"talon"}`))
				if err != nil {
					t.Fatal(err)
				}
				all, _ := json.Marshal(res)
				for _, text := range []string{string(all), res.Output.Text, res.Error} {
					for _, leak := range leaks {
						if strings.Contains(text, leak) {
							t.Fatalf("the key's form %q shows in %s", leak, text)
						}
					}
				}
			})
		}
	}
}
