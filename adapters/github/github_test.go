package github

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/talonhq/talon/tool"
)

// seen is one request the fake API received.
type seen struct {
	Method, Path, Query, Auth, Version string
	Body                               map[string]any
}

// fakeAPI is a GitHub REST API under /api/v3 with one repository,
// octo/hello: 250 issues, every fifth of them a pull request.
type fakeAPI struct {
	srv *httptest.Server
	mu  sync.Mutex
	log []seen
	// override, when set, answers every request.
	override http.HandlerFunc
}

const prefix = "/api/v3"

func newAPI(t *testing.T) *fakeAPI {
	f := &fakeAPI{}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeAPI) requests() []seen {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]seen(nil), f.log...)
}

func issueJSON(f *fakeAPI, n int) map[string]any {
	m := map[string]any{"number": n, "title": fmt.Sprintf("issue %d", n), "state": "open",
		"html_url": fmt.Sprintf("https://github.test/octo/hello/issues/%d", n), "user": map[string]any{"login": "alice"},
		"labels": []any{map[string]any{"name": "bug"}}, "comments": 2, "updated_at": "2026-11-01T00:00:00Z", "body": "it breaks"}
	if n%5 == 0 {
		m["pull_request"] = map[string]any{"url": "x"}
	}
	return m
}

func pullJSON(n int) map[string]any {
	return map[string]any{"number": n, "title": fmt.Sprintf("pull %d", n), "state": "open", "draft": n == 7,
		"html_url": fmt.Sprintf("https://github.test/octo/hello/pull/%d", n), "user": map[string]any{"login": "bob"},
		"head": map[string]any{"ref": "feature"}, "base": map[string]any{"ref": "main"}, "body": "adds things"}
}

func write(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

func (f *fakeAPI) serve(w http.ResponseWriter, r *http.Request) {
	s := seen{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Auth: r.Header.Get("Authorization"), Version: r.Header.Get("X-GitHub-Api-Version")}
	if r.Body != nil {
		b, _ := io.ReadAll(r.Body)
		if len(b) > 0 {
			_ = json.Unmarshal(b, &s.Body)
		}
	}
	f.mu.Lock()
	f.log = append(f.log, s)
	f.mu.Unlock()
	if f.override != nil {
		f.override(w, r)
		return
	}
	if s.Auth != "" && s.Auth != "Bearer tok" {
		write(w, 401, map[string]any{"message": "Bad credentials"})
		return
	}
	path := strings.TrimPrefix(r.URL.Path, prefix+"/repos/octo/hello")
	if path == r.URL.Path {
		write(w, 404, map[string]any{"message": "Not Found"})
		return
	}
	switch {
	case r.Method == "GET" && (path == "/issues" || path == "/pulls"):
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		page = max(page, 1)
		per, _ := strconv.Atoi(r.URL.Query().Get("per_page"))
		if per == 0 {
			per = 30
		}
		var items []any
		for n := (page-1)*per + 1; n <= page*per && n <= 250; n++ {
			if path == "/issues" {
				items = append(items, issueJSON(f, n))
			} else {
				items = append(items, pullJSON(n))
			}
		}
		if page*per < 250 {
			q := r.URL.Query()
			q.Set("page", strconv.Itoa(page+1))
			w.Header().Set("Link", fmt.Sprintf(`<%s%s?%s>; rel="next", <%s%s?page=99>; rel="last"`, f.srv.URL, r.URL.Path, q.Encode(), f.srv.URL, r.URL.Path))
		}
		if items == nil {
			items = []any{}
		}
		write(w, 200, items)
	case r.Method == "GET" && path == "/issues/1":
		write(w, 200, issueJSON(f, 1))
	case r.Method == "GET" && path == "/pulls/7":
		write(w, 200, pullJSON(7))
	case r.Method == "POST" && path == "/issues":
		if s.Auth == "" {
			write(w, 401, map[string]any{"message": "Requires authentication"})
			return
		}
		if s.Body["title"] == "" {
			write(w, 422, map[string]any{"message": "Validation Failed", "errors": []any{map[string]any{"resource": "Issue", "field": "title", "code": "missing_field"}}})
			return
		}
		m := issueJSON(f, 42)
		m["title"] = s.Body["title"]
		write(w, 201, m)
	case r.Method == "POST" && path == "/issues/1/comments":
		write(w, 201, map[string]any{"id": 9, "html_url": "https://github.test/octo/hello/issues/1#issuecomment-9", "body": s.Body["body"]})
	case r.Method == "POST" && path == "/pulls":
		if s.Body["head"] == s.Body["base"] {
			write(w, 422, map[string]any{"message": "Validation Failed", "errors": []any{map[string]any{"message": "No commits between main and main"}}})
			return
		}
		write(w, 201, pullJSON(8))
	default:
		write(w, 404, map[string]any{"message": "Not Found"})
	}
}

func (f *fakeAPI) tool(t *testing.T, o Options) *GitHub {
	t.Helper()
	o.BaseURL = f.srv.URL + prefix + "/"
	o.AllowPrivate = []string{"127.0.0.1"}
	if o.LookupEnv == nil {
		o.LookupEnv = func(k string) (string, bool) {
			if k == "GITHUB_TOKEN" {
				return "tok", true
			}
			return "", false
		}
	}
	g, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = g.Close() })
	return g
}

func TestActions(t *testing.T) {
	tests := []struct {
		name     string
		args     string
		want     []string
		method   string
		path     string
		query    []string
		body     map[string]any
		requests int
		items    int
	}{
		{name: "list issues skips pull requests", args: `{"action":"list_issues","limit":5,"labels":["bug","ui"]}`,
			want:   []string{"5 open issues in octo/hello", "#1 [open] issue 1 (@alice) {bug}", "#6 [open]", "more issues exist"},
			method: "GET", path: prefix + "/repos/octo/hello/issues", query: []string{"state=open", "labels=bug%2Cui", "per_page=5"}, requests: 2, items: 5},
		{name: "list closed pulls", args: `{"action":"list_pulls","state":"closed","limit":2}`,
			want:   []string{"2 closed pull requests", "#1 [open] pull 1 (@bob)"},
			method: "GET", path: prefix + "/repos/octo/hello/pulls", query: []string{"state=closed", "per_page=2"}, requests: 1, items: 2},
		{name: "get issue", args: `{"action":"get_issue","number":1}`,
			want:   []string{"#1 [open] issue 1", "https://github.test/octo/hello/issues/1", "Comments: 2", "it breaks"},
			method: "GET", path: prefix + "/repos/octo/hello/issues/1", requests: 1, items: 1},
		{name: "get draft pull", args: `{"action":"get_pull","number":7}`,
			want:   []string{"#7 [draft] pull 7", "Branches: feature -> main", "adds things"},
			method: "GET", path: prefix + "/repos/octo/hello/pulls/7", requests: 1, items: 1},
		{name: "create issue", args: `{"action":"create_issue","title":"Crash on start","body":"steps...","labels":["bug"]}`,
			want:   []string{"Created issue #42 in octo/hello"},
			method: "POST", path: prefix + "/repos/octo/hello/issues", body: map[string]any{"title": "Crash on start", "body": "steps...", "labels": []any{"bug"}}, requests: 1, items: 1},
		{name: "comment", args: `{"action":"comment_issue","number":1,"body":"Fixed in #42"}`,
			want:   []string{"Commented on #1 in octo/hello", "issuecomment-9"},
			method: "POST", path: prefix + "/repos/octo/hello/issues/1/comments", body: map[string]any{"body": "Fixed in #42"}, requests: 1, items: 1},
		{name: "create draft pull", args: `{"action":"create_pull","title":"Feature","head":"feature","base":"main","draft":true}`,
			want:   []string{"Created pull request #8 in octo/hello (feature -> main)"},
			method: "POST", path: prefix + "/repos/octo/hello/pulls", body: map[string]any{"title": "Feature", "head": "feature", "base": "main", "draft": true}, requests: 1, items: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := newAPI(t)
			g := api.tool(t, Options{Token: "${GITHUB_TOKEN}", Owner: "octo", Repo: "hello"})
			res, err := g.Execute(context.Background(), json.RawMessage(tt.args))
			if err != nil || !res.Success {
				t.Fatalf("Execute = %+v, %v", res, err)
			}
			for _, w := range tt.want {
				if !strings.Contains(res.Output.Text, w) {
					t.Errorf("text lacks %q:\n%s", w, res.Output.Text)
				}
			}
			reqs := api.requests()
			if len(reqs) != tt.requests {
				t.Fatalf("%d requests, want %d: %+v", len(reqs), tt.requests, reqs)
			}
			r := reqs[0]
			if r.Method != tt.method || r.Path != tt.path || r.Auth != "Bearer tok" || r.Version != apiVersion {
				t.Errorf("request = %+v", r)
			}
			for _, q := range tt.query {
				if !strings.Contains(r.Query, q) {
					t.Errorf("query %q lacks %q", r.Query, q)
				}
			}
			if tt.body != nil {
				got, _ := json.Marshal(r.Body)
				want, _ := json.Marshal(tt.body)
				if string(got) != string(want) {
					t.Errorf("body = %s, want %s", got, want)
				}
			}
			if d := res.Output.Data.(Data); len(d.Items) != tt.items || d.Repo != "octo/hello" {
				t.Errorf("data = %+v", d)
			}
		})
	}
}

// TestPagination checks that lists follow rel="next" until the limit, and
// never read past the cap.
func TestPagination(t *testing.T) {
	tests := []struct {
		name       string
		operator   int
		args       string
		want, reqs int
		more       bool
	}{
		{name: "cap of 100 across pages", operator: 100, args: `{"action":"list_issues","limit":100}`, want: 100, reqs: 2, more: true},
		{name: "operator cap wins", operator: 3, args: `{"action":"list_pulls","limit":100}`, want: 3, reqs: 1, more: true},
		{name: "default limit", args: `{"action":"list_pulls"}`, want: DefaultLimit, reqs: 1, more: true},
		{name: "last page", operator: 100, args: `{"action":"list_pulls","limit":100,"state":"all"}`, want: 100, reqs: 1, more: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := newAPI(t)
			g := api.tool(t, Options{Owner: "octo", Repo: "hello", Limit: tt.operator})
			res, err := g.Execute(context.Background(), json.RawMessage(tt.args))
			if err != nil || !res.Success {
				t.Fatalf("Execute = %+v, %v", res, err)
			}
			d := res.Output.Data.(Data)
			if len(d.Items) != tt.want || d.More != tt.more {
				t.Errorf("%d items (more %v), want %d (more %v)", len(d.Items), d.More, tt.want, tt.more)
			}
			if n := len(api.requests()); n != tt.reqs {
				t.Errorf("%d requests, want %d", n, tt.reqs)
			}
			if r := api.requests()[0]; r.Auth != "" {
				t.Errorf("anonymous list sent Authorization %q", r.Auth)
			}
		})
	}
	// A list that ends: every page of the 250 items is read, and the
	// result says nothing is left.
	api := newAPI(t)
	api.override = func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("page") == "" {
			w.Header().Set("Link", fmt.Sprintf(`<%s%s?page=2>; rel="next"`, api.srv.URL, r.URL.Path))
			write(w, 200, []any{pullJSON(1)})
			return
		}
		write(w, 200, []any{pullJSON(2)})
	}
	res, _ := api.tool(t, Options{}).Execute(context.Background(), json.RawMessage(`{"action":"list_pulls","owner":"octo","repo":"hello"}`))
	if d := res.Output.Data.(Data); len(d.Items) != 2 || d.More || len(api.requests()) != 2 {
		t.Errorf("short list: %+v after %d requests", d, len(api.requests()))
	}
}

func TestErrors(t *testing.T) {
	status := func(code int, hdr map[string]string, body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			for k, v := range hdr {
				w.Header().Set(k, v)
			}
			w.WriteHeader(code)
			fmt.Fprint(w, body)
		}
	}
	tests := []struct {
		name    string
		token   string
		handler http.HandlerFunc
		args    string
		want    []string
		sent    int
	}{
		{name: "bad token", token: "wrong", args: `{"action":"get_issue","number":1}`, want: []string{"rejected the token", "[tools.github]"}, sent: 1},
		{name: "needs auth", args: `{"action":"get_issue","number":1}`, handler: status(401, nil, `{"message":"Requires authentication"}`), want: []string{"requires authentication", "GITHUB_TOKEN"}, sent: 1},
		{name: "no permission", token: "tok", handler: status(403, nil, `{"message":"Resource not accessible by integration"}`), args: `{"action":"create_issue","title":"x"}`,
			want: []string{"lacks the permission", "Resource not accessible"}, sent: 1},
		{name: "rate limit", token: "tok", handler: status(403, map[string]string{"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "1700000000"}, `{"message":"API rate limit exceeded"}`),
			args: `{"action":"list_issues"}`, want: []string{"rate limit", "22:13 UTC", "wait"}, sent: 1},
		{name: "anonymous rate limit", handler: status(429, map[string]string{"X-RateLimit-Remaining": "0"}, `{}`), args: `{"action":"list_issues"}`,
			want: []string{"anonymous", "sets token"}, sent: 1},
		{name: "not found", token: "tok", args: `{"action":"get_issue","number":404}`, want: []string{"found nothing", "/repos/octo/hello/issues/404", "check owner, repo and number"}, sent: 1},
		{name: "issues disabled", handler: status(410, nil, `{"message":"Issues are disabled for this repo"}`), args: `{"action":"list_issues"}`, want: []string{"disabled"}, sent: 1},
		{name: "validation", token: "tok", args: `{"action":"create_pull","title":"x","head":"main","base":"main"}`, want: []string{"refused the input", "No commits between main and main", "head and base"}, sent: 1},
		{name: "validation fields", token: "tok", args: `{"action":"create_issue","title":" "}`, want: []string{"needs a title"}},
		{name: "server error", handler: status(502, nil, ""), args: `{"action":"list_issues"}`, want: []string{"502", "try again later"}, sent: 1},
		{name: "redirect not followed", token: "tok", handler: status(301, map[string]string{"Location": "https://elsewhere.test/"}, ""), args: `{"action":"list_issues"}`,
			want: []string{"redirect", "base_url"}, sent: 1},
		{name: "token echoed", token: "tok", handler: status(400, nil, `{"message":"bad header Bearer tok"}`), args: `{"action":"list_issues"}`, want: []string{"[secret tools.github.token]"}, sent: 1},
		{name: "write without token", args: `{"action":"comment_issue","number":1,"body":"hi"}`, want: []string{"needs a GitHub token", "GITHUB_TOKEN"}},
		{name: "token variable unset", token: "${NOPE}", args: `{"action":"list_issues"}`, want: []string{"NOPE is not set"}},
		{name: "missing number", args: `{"action":"get_pull"}`, want: []string{"get_pull needs the number"}},
		{name: "unused argument", args: `{"action":"get_issue","number":1,"title":"x"}`, want: []string{"does not take title"}},
		{name: "bad owner", args: `{"action":"list_issues","owner":"../x","repo":"y"}`, want: []string{"must be GitHub names"}},
		{name: "unknown action", args: `{"action":"delete_repo"}`, want: []string{"not known", "list_issues"}},
		{name: "not json", handler: status(200, nil, "<html>"), args: `{"action":"get_issue","number":1}`, want: []string{"does not understand"}, sent: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := newAPI(t)
			api.override = tt.handler
			g := api.tool(t, Options{Token: tt.token, Owner: "octo", Repo: "hello"})
			res, err := g.Execute(context.Background(), json.RawMessage(tt.args))
			if err != nil || res.Success {
				t.Fatalf("Execute = %+v, %v; want a failure", res, err)
			}
			for _, w := range tt.want {
				if !strings.Contains(res.Error, w) {
					t.Errorf("error lacks %q: %s", w, res.Error)
				}
			}
			if strings.Contains(res.Error, "Bearer tok") {
				t.Errorf("error shows the token: %s", res.Error)
			}
			if n := len(api.requests()); n != tt.sent {
				t.Errorf("%d requests sent, want %d", n, tt.sent)
			}
		})
	}
}

func TestAssess(t *testing.T) {
	api := newAPI(t)
	g := api.tool(t, Options{Token: "tok", Owner: "octo", Repo: "hello"})
	tests := []struct {
		args string
		tier tool.Tier
		plan []string
	}{
		{`{"action":"list_issues"}`, tool.Low, []string{"GET ", "/repos/octo/hello/issues?state=open"}},
		{`{"action":"get_pull","number":7,"owner":"other","repo":"repo"}`, tool.Low, []string{"/repos/other/repo/pulls/7"}},
		{`{"action":"create_issue","title":"T","body":"B"}`, tool.High, []string{"POST ", `title "T"`, "body 1 bytes", "sha256:"}},
		{`{"action":"comment_issue","number":3,"body":"hello"}`, tool.High, []string{"/issues/3/comments", "body 5 bytes"}},
		{`{"action":"create_pull","title":"T","head":"a","base":"b"}`, tool.High, []string{"a -> b"}},
	}
	for _, tt := range tests {
		as, err := g.Assess(json.RawMessage(tt.args))
		if err != nil || as.Tier != tt.tier || as.Plan == nil {
			t.Fatalf("Assess(%s) = %+v, %v", tt.args, as, err)
		}
		for _, w := range tt.plan {
			if !strings.Contains(as.Plan.Summary, w) {
				t.Errorf("plan %q lacks %q", as.Plan.Summary, w)
			}
		}
	}
	// An approval binds to the exact payload: another body is refused and
	// nothing is sent.
	as, _ := g.Assess(json.RawMessage(`{"action":"comment_issue","number":1,"body":"approved text"}`))
	ctx := tool.WithApprovedPlan(context.Background(), as.Plan)
	res, _ := g.Execute(ctx, json.RawMessage(`{"action":"comment_issue","number":1,"body":"other text!!"}`))
	if res.Success || !strings.Contains(res.Error, "not the one that was approved") || len(api.requests()) != 0 {
		t.Fatalf("changed comment ran: %+v", res)
	}
	if res, _ := g.Execute(ctx, json.RawMessage(`{"action":"comment_issue","number":1,"body":"approved text"}`)); !res.Success {
		t.Fatalf("approved comment failed: %+v", res)
	}
	if _, err := g.Assess(json.RawMessage(`{"action":"get_issue"}`)); err == nil {
		t.Error("Assess accepted get_issue without a number")
	}
}

func TestNew(t *testing.T) {
	for _, o := range []Options{{BaseURL: "ftp://x"}, {Owner: "a b", Repo: "c"}, {AllowPrivate: []string{"nope/99"}}} {
		if _, err := New(o); err == nil {
			t.Errorf("New(%+v) succeeded", o)
		}
	}
	g, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, _ := g.Execute(context.Background(), json.RawMessage(`{"action":"list_issues"}`))
	if res.Success || !strings.Contains(res.Error, "name the repository") {
		t.Errorf("no repository: %+v", res)
	}
	// Loopback is refused without allow_private, before any connection.
	api := newAPI(t)
	g, _ = New(Options{BaseURL: api.srv.URL, Owner: "octo", Repo: "hello"})
	res, _ = g.Execute(context.Background(), json.RawMessage(`{"action":"list_issues"}`))
	if res.Success || !strings.Contains(res.Error, "allow_private") || len(api.requests()) != 0 {
		t.Errorf("loopback: %+v", res)
	}
}

func FuzzNextLink(f *testing.F) {
	f.Add(`<https://api.github.com/x?page=2>; rel="next", <https://api.github.com/x?page=9>; rel="last"`)
	f.Add(`<>; rel="next"`)
	f.Add(`<relative>; rel = "next"`)
	f.Fuzz(func(t *testing.T, h string) {
		if u := nextLink(h); u != nil && !u.IsAbs() {
			t.Fatalf("relative next link %s", u)
		}
	})
}

func FuzzArguments(f *testing.F) {
	g, err := New(Options{Owner: "o", Repo: "r"})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(`{"action":"create_issue","title":"x","labels":["a"]}`)
	f.Add(`{"action":"get_pull","number":1,"owner":"a","repo":".."}`)
	f.Add(`{"action":"comment_issue","number":-1,"body":null}`)
	f.Fuzz(func(t *testing.T, raw string) {
		c, err := g.decode(json.RawMessage(raw))
		if err != nil {
			return
		}
		if !strings.HasPrefix(c.path, "/repos/") || strings.Contains(c.path, "/../") || strings.HasSuffix(c.path, "/..") {
			t.Fatalf("path %q", c.path)
		}
		if writes(c.Action) != (c.method == http.MethodPost) {
			t.Fatalf("%s uses %s", c.Action, c.method)
		}
	})
}
