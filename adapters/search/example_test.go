package search_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/talonhq/talon/adapters/search"
)

func ExampleWebSearch_Execute() {
	// A stand-in for a SearXNG instance on the local network.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"results":[{"title":"The Go Programming Language","url":"https://go.dev/","content":"Build simple, secure, scalable systems."}]}`)
	}))
	defer srv.Close()
	ws, err := search.New(search.Options{Provider: search.SearXNG, SearXNGURL: srv.URL, AllowPrivate: []string{"127.0.0.1"}})
	if err != nil {
		panic(err)
	}
	res, _ := ws.Execute(context.Background(), json.RawMessage(`{"query":"golang"}`))
	fmt.Print(res.Output.Text)
	// Output:
	// 1 results for "golang" from searxng:
	//
	// 1. The Go Programming Language
	//    https://go.dev/
	//    Build simple, secure, scalable systems.
}

func ExampleNew_noProvider() {
	ws, _ := search.New(search.Options{})
	res, _ := ws.Execute(context.Background(), json.RawMessage(`{"query":"golang"}`))
	fmt.Println(res.Success)
	// Output:
	// false
}
