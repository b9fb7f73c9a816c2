package github_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/talonhq/talon/adapters/github"
)

func ExampleGitHub_Execute() {
	// A stand-in for the GitHub REST API.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `[{"number":7,"title":"Crash on empty config","state":"open","html_url":"https://github.com/octo/hello/issues/7","user":{"login":"alice"}}]`)
	}))
	defer srv.Close()
	gh, err := github.New(github.Options{BaseURL: srv.URL, Owner: "octo", Repo: "hello", AllowPrivate: []string{"127.0.0.1"}})
	if err != nil {
		panic(err)
	}
	res, _ := gh.Execute(context.Background(), json.RawMessage(`{"action":"list_issues"}`))
	fmt.Print(res.Output.Text)
	// Output:
	// 1 open issues in octo/hello:
	// #7 [open] Crash on empty config (@alice)
	//   https://github.com/octo/hello/issues/7
}

func ExampleGitHub_Assess() {
	gh, _ := github.New(github.Options{Owner: "octo", Repo: "hello"})
	as, _ := gh.Assess(json.RawMessage(`{"action":"comment_issue","number":7,"body":"Fixed in #8"}`))
	fmt.Println(as.Tier)
	// Output:
	// high
}
