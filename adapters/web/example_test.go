package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/talonhq/talon/adapters/web"
	"github.com/talonhq/talon/netguard"
)

func ExampleWebFetch_Execute() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<html><head><title>Docs</title><script>track()</script></head>`+
			`<body><h1>Install</h1><p>Run <code>make</code>.</p></body></html>`)
	}))
	defer srv.Close()

	// 127.0.0.1 is refused unless the operator allows it, as here.
	fetch, err := web.NewWebFetch(web.FetchOptions{Network: netguard.Options{AllowPrivate: []string{"127.0.0.1"}}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer fetch.Close()
	args, _ := json.Marshal(map[string]string{"url": srv.URL})
	res, _ := fetch.Execute(context.Background(), args)
	fmt.Println(strings.Replace(res.Output.Text, srv.URL, "http://127.0.0.1:PORT", 1))
	// Output:
	// Fetched http://127.0.0.1:PORT (200 OK, text/html; charset=utf-8, converted to markdown)
	// Title: Docs
	//
	// # Install
	//
	// Run `make`.
}

func ExampleHTTPRequest_Assess() {
	req, err := web.NewHTTPRequest(web.RequestOptions{
		Network: netguard.Options{AllowedHosts: []string{"api.example.com"}},
		Secrets: map[string]string{"GITHUB": "Bearer ${GITHUB_TOKEN}"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer req.Close()
	for _, args := range []string{
		`{"url": "https://api.example.com/issues"}`,
		`{"method": "POST", "url": "https://api.example.com/issues", "body": "{\"title\":\"bug\"}", "secret_headers": {"Authorization": "GITHUB"}}`,
	} {
		as, _ := req.Assess(json.RawMessage(args))
		fmt.Println(as.Tier, as.Plan.Summary[:strings.LastIndex(as.Plan.Summary, " #")])
	}
	// Output:
	// low GET https://api.example.com/issues
	// high POST https://api.example.com/issues (secret headers: Authorization from secret GITHUB; body: 15 bytes)
}

func ExampleHTTPRequest_Execute() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"you_sent":%q}`, r.Header.Get("Authorization"))
	}))
	defer srv.Close()

	req, _ := web.NewHTTPRequest(web.RequestOptions{
		Network:   netguard.Options{AllowedHosts: []string{"127.0.0.1"}, AllowPrivate: []string{"127.0.0.1"}},
		Secrets:   map[string]string{"API": "Bearer ${API_TOKEN}"},
		LookupEnv: func(string) (string, bool) { return "tok-123", true },
	})
	defer req.Close()
	args, _ := json.Marshal(map[string]any{"url": srv.URL, "secret_headers": map[string]string{"Authorization": "API"}})
	res, _ := req.Execute(context.Background(), args)
	fmt.Println(res.Output.Data.(web.RequestData).Body)
	// Output:
	// {"you_sent":"[secret API]"}
}
