package console

import (
	"bufio"
	"context"
	"errors"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/talonhq/talon/approval"
	"github.com/talonhq/talon/plugins"
	"github.com/talonhq/talon/plugins/manifest"
	"github.com/talonhq/talon/receipts"
	"github.com/talonhq/talon/sandbox"
)

func fakeCheck(context.Context) (sandbox.Report, error) {
	return sandbox.Report{Summary: "fake", OK: true, Proofs: []sandbox.Proof{
		{Protection: "filesystem", Action: "write outside the workspace", Expected: true, Control: "allowed", Sandboxed: "denied", OK: true},
	}}, nil
}

const writeArgs = `{"path":"notes.txt","content":"hello"}`

func TestPages(t *testing.T) {
	f := newFixture(t, fixtureOptions{sandboxCheck: true})
	f.call("file_write", writeArgs, "sess-1", "")
	f.waiting(1)
	tests := []struct {
		path   string
		status int
		want   []string
	}{
		{path: "/console/", status: http.StatusSeeOther},
		{path: "/console/approvals", status: http.StatusOK, want: []string{"file_write", "builtin.file_write", "tier medium", "write 5 bytes to notes.txt", "Approve once", "Always, this session", "Deny", "sess-1"}},
		{path: "/console/calls", status: http.StatusOK, want: []string{"Calls", `id="calls"`}},
		{path: "/console/receipts", status: http.StatusOK, want: []string{"Receipts", "Verify every chain"}},
		{path: "/console/catalog", status: http.StatusOK, want: []string{"file_write", "Write text to a file", "builtin.file_write"}},
		{path: "/console/catalog?profile=strict&channel=cli", status: http.StatusOK, want: []string{"profile strict on channel cli"}},
		{path: "/console/policy", status: http.StatusOK, want: []string{"Explain"}},
		{path: "/console/policy?tool=file_write&args=" + url.QueryEscape(writeArgs), status: http.StatusOK, want: []string{"medium risk needs approval", "write 5 bytes to notes.txt"}},
		{path: "/console/plugins", status: http.StatusOK, want: []string{"No plugin is installed."}},
		{path: "/console/sandbox", status: http.StatusOK, want: []string{"Run the check"}},
		{path: "/console/login", status: http.StatusSeeOther},
		{path: "/console/assets/console.css", status: http.StatusOK, want: []string{"prefers-color-scheme"}},
		{path: "/console/assets/console.js", status: http.StatusOK, want: []string{"EventSource"}},
		{path: "/console/assets/nothing.js", status: http.StatusNotFound},
		{path: "/console/nowhere", status: http.StatusNotFound, want: []string{"There is no console page at /console/nowhere", "Nothing was changed"}},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			r := f.do(req{path: tt.path})
			if r.status != tt.status {
				t.Fatalf("status %d, want %d:\n%s", r.status, tt.status, r.body)
			}
			for _, w := range tt.want {
				if !strings.Contains(r.body, w) {
					t.Errorf("page lacks %q:\n%s", w, r.body)
				}
			}
			for _, h := range []string{"Content-Security-Policy", "X-Frame-Options", "X-Content-Type-Options"} {
				if r.header.Get(h) == "" {
					t.Errorf("no %s header", h)
				}
			}
		})
	}
	if r := f.do(req{method: http.MethodPut, path: "/console/approvals"}); r.status != http.StatusMethodNotAllowed {
		t.Errorf("PUT: status %d, want 405", r.status)
	}
	_ = f.q.Decide(f.q.List()[0].ID, approval.No)
	f.result()
}

func TestAnswers(t *testing.T) {
	tests := []struct {
		name    string
		answer  string
		profile string
		rules   bool
		success bool
		denied  bool
		always  bool
	}{
		{name: "approve", answer: "yes", success: true},
		{name: "deny", answer: "no", denied: true},
		{name: "always", answer: "always", success: true, always: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := fixtureOptions{}
			if tt.rules {
				o.rules = filepath.Join(t.TempDir(), "approvals.toml")
			}
			f := newFixture(t, o)
			// The file exists, so the call plans the same write each time.
			if err := os.WriteFile(filepath.Join(f.ws, "notes.txt"), []byte("old"), 0o644); err != nil {
				t.Fatal(err)
			}
			f.call("file_write", writeArgs, "sess-1", tt.profile)
			p := f.waiting(1)[0]
			page := f.do(req{path: "/console/approvals"})
			if tt.rules != strings.Contains(page.body, "Permanently") {
				t.Errorf("Permanently offered: %v, want %v", !tt.rules, tt.rules)
			}
			tok := csrfRE.FindStringSubmatch(page.body)[1]
			r := f.do(req{method: http.MethodPost, path: "/console/approvals/" + p.ID,
				form: url.Values{"csrf": {tok}, "answer": {tt.answer}}, headers: map[string]string{"Origin": f.origin()}})
			if r.status != http.StatusSeeOther || !strings.HasPrefix(r.header.Get("Location"), "/console/approvals?answered="+p.ID) {
				t.Fatalf("answer: status %d location %q:\n%s", r.status, r.header.Get("Location"), r.body)
			}
			res := f.result()
			if res.err != nil || res.res.Success != tt.success || res.res.Denied != tt.denied {
				t.Fatalf("call ended %+v, %v", res.res, res.err)
			}
			if tt.success && res.res.Receipt == nil {
				t.Fatal("an approved call has no receipt")
			}
			flash := f.do(req{path: r.header.Get("Location")})
			if !strings.Contains(flash.body, "file_write was") {
				t.Errorf("no account of the answer on the page:\n%s", flash.body)
			}
			if tt.always {
				f.call("file_write", writeArgs, "sess-1", tt.profile)
				if res := f.result(); !res.res.Success {
					t.Fatalf("the same call again in the session was not allowed: %+v", res.res)
				}
			}
		})
	}
}

// TestAnswerPermanently saves a shell call's exact plan as a rule through
// the same Permanent answer talon approvals gives: the same line then runs
// in another session without asking.
func TestAnswerPermanently(t *testing.T) {
	f := newFixture(t, fixtureOptions{rules: filepath.Join(t.TempDir(), "approvals.toml")})
	line := `{"command":"touch notes.txt"}`
	f.call("shell", line, "sess-1", "")
	p := f.waiting(1)[0]
	page := f.do(req{path: "/console/approvals"})
	if !strings.Contains(page.body, "Permanently") {
		t.Fatalf("Permanently not offered for a saveable plan:\n%s", page.body)
	}
	tok := csrfRE.FindStringSubmatch(page.body)[1]
	r := f.do(req{method: http.MethodPost, path: "/console/approvals/" + p.ID,
		form: url.Values{"csrf": {tok}, "answer": {"permanently"}}, headers: map[string]string{"Origin": f.origin()}})
	if r.status != http.StatusSeeOther {
		t.Fatalf("answer: status %d:\n%s", r.status, r.body)
	}
	if res := f.result(); res.err != nil || !res.res.Success {
		t.Fatalf("call ended %+v, %v", res.res, res.err)
	}
	f.call("shell", line, "sess-2", "")
	if res := f.result(); !res.res.Success {
		t.Fatalf("the saved rule did not allow the same line in another session: %+v", res.res)
	}
	// A plan that cannot be kept as a rule (a file write, not a command
	// line) is not offered it.
	f.call("file_write", writeArgs, "sess-1", "")
	q := f.waiting(1)[0]
	if page := f.do(req{path: "/console/approvals"}); strings.Contains(page.body, "Permanently") {
		t.Errorf("Permanently offered for a plan no rule can keep:\n%s", page.body)
	}
	_ = f.q.Decide(q.ID, approval.No)
	f.result()
}

// TestRefusedAnswers sends every kind of bad answer and checks that each
// is refused with its status and a page that says why, that the call keeps
// waiting, and that the server goes on answering.
func TestRefusedAnswers(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	f.call("file_write", writeArgs, "sess-1", "")
	f.call("file_write", writeArgs, "sess-2", "strict")
	ps := f.waiting(2)
	var normal, strict approval.Pending
	for _, p := range ps {
		if p.Request.AlwaysAsk {
			strict = p
		} else {
			normal = p
		}
	}
	tok := f.csrf(f.client)
	other := f.newClient()
	otherTok := f.csrf(other)
	// A token drawn by another server process is stale here.
	f2 := newFixture(t, fixtureOptions{})
	foreignTok := f2.csrf(f.client)
	own := map[string]string{"Origin": f.origin()}
	form := func(tok, ans string) url.Values { return url.Values{"csrf": {tok}, "answer": {ans}} }
	tests := []struct {
		name    string
		path    string
		form    url.Values
		headers map[string]string
		host    string
		client  *http.Client
		status  int
		want    string
	}{
		{name: "no CSRF token", path: normal.ID, form: url.Values{"answer": {"yes"}}, headers: own, status: 403, want: "no form token"},
		{name: "token of another browser", path: normal.ID, form: form(otherTok, "yes"), headers: own, status: 403, want: "expired"},
		{name: "token of another server process", path: normal.ID, form: form(foreignTok, "yes"), headers: own, status: 403, want: "expired"},
		{name: "forged token", path: normal.ID, form: form("1700000000.AAAA", "yes"), headers: own, status: 403, want: "expired"},
		{name: "foreign origin", path: normal.ID, form: form(tok, "yes"), headers: map[string]string{"Origin": "https://evil.example"}, status: 403, want: "allowed_origins"},
		{name: "another local port", path: normal.ID, form: form(tok, "yes"), headers: map[string]string{"Origin": "http://127.0.0.1:1"}, status: 403, want: "did not come from a page of this console"},
		{name: "cross-site fetch", path: normal.ID, form: form(tok, "yes"), headers: map[string]string{"Sec-Fetch-Site": "cross-site"}, status: 403, want: "did not come from a page"},
		{name: "rebound host", path: normal.ID, form: form(tok, "yes"), host: "attacker.test", status: 403, want: "not a loopback name"},
		{name: "malformed id", path: "x'or'1", form: form(tok, "yes"), headers: own, status: 400, want: "is not an approval id"},
		{name: "unknown id", path: "aaaaaaaaaaaa", form: form(tok, "yes"), headers: own, status: 404, want: "No call waits under aaaaaaaaaaaa"},
		{name: "not an answer", path: normal.ID, form: form(tok, "maybe"), headers: own, status: 400, want: "is not an answer"},
		{name: "always for always_ask", path: strict.ID, form: form(tok, "always"), headers: own, status: 400, want: "always_ask"},
		{name: "permanently without rules", path: normal.ID, form: form(tok, "permanently"), headers: own, status: 400, want: "not available"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := f.do(req{method: http.MethodPost, path: "/console/approvals/" + tt.path, form: tt.form, headers: tt.headers, host: tt.host, client: tt.client})
			if r.status != tt.status || !strings.Contains(r.body, tt.want) {
				t.Fatalf("status %d, want %d with %q:\n%s", r.status, tt.status, tt.want, r.body)
			}
			if n := len(f.q.List()); n != 2 {
				t.Fatalf("%d calls wait after a refused answer, want 2", n)
			}
		})
	}
	// Answered and withdrawn ids are told apart from unknown ones.
	r := f.do(req{method: http.MethodPost, path: "/console/approvals/" + normal.ID, form: form(tok, "no"), headers: own})
	if r.status != http.StatusSeeOther {
		t.Fatalf("deny: %d %s", r.status, r.body)
	}
	f.result()
	r = f.do(req{method: http.MethodPost, path: "/console/approvals/" + normal.ID, form: form(tok, "yes"), headers: own})
	if r.status != http.StatusConflict || !strings.Contains(r.body, "was already answered (no)") {
		t.Fatalf("replayed answer: status %d:\n%s", r.status, r.body)
	}
	if r := f.do(req{path: "/console/approvals"}); r.status != 200 || !strings.Contains(r.body, strict.ID) {
		t.Fatalf("the server stopped answering after the refusals: %d", r.status)
	}
	_ = f.q.Decide(strict.ID, approval.No)
	f.result()
}

func TestWithdrawnAnswer(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = f.q.Approve(ctx, approval.Request{Tool: "file_write"})
	}()
	p := f.waiting(1)[0]
	cancel()
	<-done
	r := f.do(req{method: http.MethodPost, path: "/console/approvals/" + p.ID,
		form: url.Values{"csrf": {f.csrf(f.client)}, "answer": {"yes"}}, headers: map[string]string{"Origin": f.origin()}})
	if r.status != http.StatusConflict || !strings.Contains(r.body, "no longer waiting") {
		t.Fatalf("status %d:\n%s", r.status, r.body)
	}
}

// TestAnswersOffWhenToolsReachThePort: without a token, a console whose
// port tool processes can reach shows the calls but takes no answer.
func TestAnswersOffWhenToolsReachThePort(t *testing.T) {
	f := newFixture(t, fixtureOptions{reach: "the sandbox is off"})
	f.call("file_write", writeArgs, "sess-1", "")
	p := f.waiting(1)[0]
	page := f.do(req{path: "/console/approvals"})
	if !strings.Contains(page.body, "takes no answers: the sandbox is off") || strings.Contains(page.body, `value="yes"`) {
		t.Fatalf("the page offers answers:\n%s", page.body)
	}
	r := f.do(req{method: http.MethodPost, path: "/console/approvals/" + p.ID,
		form: url.Values{"csrf": {f.csrf(f.client)}, "answer": {"yes"}}, headers: map[string]string{"Origin": f.origin()}})
	if r.status != http.StatusForbidden || len(f.q.List()) != 1 {
		t.Fatalf("status %d, %d waiting:\n%s", r.status, len(f.q.List()), r.body)
	}
	// With a token the same console takes answers: tools cannot know it.
	ft := newFixture(t, fixtureOptions{reach: "the sandbox is off", token: "tok-123"})
	page = ft.do(req{path: "/console/approvals", headers: map[string]string{"Authorization": "Bearer tok-123"}})
	if strings.Contains(page.body, "takes no answers") {
		t.Fatalf("answers are off despite the token:\n%s", page.body)
	}
	_ = f.q.Decide(p.ID, approval.No)
	f.result()
}

func TestToken(t *testing.T) {
	f := newFixture(t, fixtureOptions{token: "s3cret-token"})
	tests := []struct {
		name     string
		method   string
		path     string
		headers  map[string]string
		status   int
		location string
	}{
		{name: "page without token", path: "/console/approvals", status: 303, location: "/console/login?next=%2Fconsole%2Fapprovals"},
		{name: "page with bearer", path: "/console/approvals", headers: map[string]string{"Authorization": "Bearer s3cret-token"}, status: 200},
		{name: "page with wrong bearer", path: "/console/calls", headers: map[string]string{"Authorization": "Bearer nope"}, status: 303},
		{name: "events without token", path: "/console/events?page=approvals", status: 401},
		{name: "export without token", path: "/console/receipts/export", status: 401},
		{name: "answer without token", method: http.MethodPost, path: "/console/approvals/aaaaaaaaaaaa", status: 401},
		{name: "login page", path: "/console/login", status: 200},
		{name: "assets need no token", path: "/console/assets/console.css", status: 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := f.do(req{method: tt.method, path: tt.path, headers: tt.headers, client: f.newClient()})
			if r.status != tt.status || (tt.location != "" && r.header.Get("Location") != tt.location) {
				t.Fatalf("status %d location %q, want %d %q", r.status, r.header.Get("Location"), tt.status, tt.location)
			}
		})
	}
	browser := f.newClient()
	login := f.do(req{path: "/console/login?next=/console/calls", client: browser})
	tok := csrfRE.FindStringSubmatch(login.body)[1]
	wrong := f.do(req{method: http.MethodPost, path: "/console/login", client: browser, headers: map[string]string{"Origin": f.origin()},
		form: url.Values{"csrf": {tok}, "token": {"guess"}, "next": {"/console/calls"}}})
	if wrong.status != http.StatusUnauthorized || !strings.Contains(wrong.body, "not the token") {
		t.Fatalf("wrong token: %d\n%s", wrong.status, wrong.body)
	}
	right := f.do(req{method: http.MethodPost, path: "/console/login", client: browser, headers: map[string]string{"Origin": f.origin()},
		form: url.Values{"csrf": {tok}, "token": {"s3cret-token"}, "next": {"//evil.example/"}}})
	if right.status != http.StatusSeeOther || right.header.Get("Location") != "/console/approvals" {
		t.Fatalf("sign-in: %d to %q", right.status, right.header.Get("Location"))
	}
	var auth *http.Cookie
	for _, c := range right.header.Values("Set-Cookie") {
		if strings.HasPrefix(c, authCookie+"=") {
			auth, _ = http.ParseSetCookie(c)
		}
	}
	if auth == nil || !auth.HttpOnly || auth.SameSite != http.SameSiteStrictMode || strings.Contains(auth.Value, "s3cret") {
		t.Fatalf("sign-in cookie %+v: want HttpOnly, SameSite=Strict, without the token", auth)
	}
	if r := f.do(req{path: "/console/calls", client: browser}); r.status != http.StatusOK {
		t.Fatalf("signed in, the page answers %d", r.status)
	}
	// The cookie is bound to its browser session: copied alone it opens
	// nothing.
	thief := f.newClient()
	u, _ := url.Parse(f.srv.URL + "/console/")
	thief.Jar.SetCookies(u, []*http.Cookie{{Name: authCookie, Value: auth.Value, Path: "/console"}})
	if r := f.do(req{path: "/console/calls", client: thief}); r.status != http.StatusSeeOther {
		t.Fatalf("a copied sign-in cookie opened the console: %d", r.status)
	}
}

func TestLanguage(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	tests := []struct {
		name, path, accept string
		want               []string
	}{
		{name: "english by default", path: "/console/approvals", want: []string{`<html lang="en">`, "Nothing is waiting for an answer."}},
		{name: "accept-language", path: "/console/approvals", accept: "ja-JP,ja;q=0.9,en;q=0.5", want: []string{`<html lang="ja">`, "回答を待っている呼び出しはありません。"}},
		{name: "unknown language", path: "/console/approvals", accept: "xx", want: []string{`<html lang="en">`}},
		{name: "switch", path: "/console/calls?lang=ja", want: []string{`<html lang="ja">`, "呼び出し"}},
		{name: "switch is kept", path: "/console/approvals", want: []string{`<html lang="ja">`}},
		{name: "switch back", path: "/console/approvals?lang=en", accept: "ja", want: []string{`<html lang="en">`}},
		{name: "catalog descriptions follow", path: "/console/catalog?lang=ja", want: []string{"ワークスペース"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := map[string]string{}
			if tt.accept != "" {
				h["Accept-Language"] = tt.accept
			}
			r := f.do(req{path: tt.path, headers: h})
			for _, w := range tt.want {
				if !strings.Contains(r.body, w) {
					t.Errorf("page lacks %q", w)
				}
			}
		})
	}
}

// sse reads server-sent events from a stream.
type sse struct {
	sc  *bufio.Scanner
	res *http.Response
}

func (f *fixture) events(query string) *sse {
	f.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	f.t.Cleanup(cancel)
	r, _ := http.NewRequestWithContext(ctx, http.MethodGet, f.srv.URL+"/console/events?"+query, nil)
	res, err := f.client.Do(r)
	if err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() { _ = res.Body.Close() })
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		f.t.Fatalf("events: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	return &sse{sc: sc, res: res}
}

// next returns the next event's name and data.
func (s *sse) next(t *testing.T) (string, string) {
	t.Helper()
	var name string
	var data []string
	for s.sc.Scan() {
		line := s.sc.Text()
		switch {
		case line == "" && name != "":
			return name, strings.Join(data, "\n")
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			data = append(data, strings.TrimPrefix(line, "data: "))
		}
	}
	t.Fatalf("event stream ended: %v", s.sc.Err())
	return "", ""
}

func TestEvents(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	f.call("file_write", writeArgs, "sess-1", "")
	first := f.waiting(1)[0]
	ev := f.events("page=approvals")
	if name, data := ev.next(t); name != "approval-added" || !strings.Contains(data, `id="approval-`+first.ID+`"`) || !strings.Contains(data, `name="csrf"`) {
		t.Fatalf("snapshot: %s %s", name, data)
	}
	if name, data := ev.next(t); name != "approval-sync" || data != first.ID {
		t.Fatalf("sync: %s %q", name, data)
	}
	f.call("file_write", `{"path":"b.txt","content":"x"}`, "sess-2", "")
	name, data := ev.next(t)
	if name != "approval-added" || !strings.Contains(data, "b.txt") {
		t.Fatalf("live: %s %s", name, data)
	}
	if err := f.q.Decide(first.ID, approval.Yes); err != nil {
		t.Fatal(err)
	}
	if name, data := ev.next(t); name != "approval-removed" || data != first.ID+" file_write was approved." {
		t.Fatalf("removed: %s %q", name, data)
	}
	f.result()

	calls := f.events("page=calls&session=sess-2")
	second := f.q.List()[0]
	_ = f.q.Decide(second.ID, approval.No)
	f.result()
	if name, data := calls.next(t); name != "call" || !strings.Contains(data, "file_write") || !strings.Contains(data, "denied") {
		t.Fatalf("call: %s %s", name, data)
	}
}

func TestCallsFilter(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	f.call("calculator", `{"expression":"1+1"}`, "sess-a", "")
	f.result()
	f.call("file_read", `{"path":"missing.txt"}`, "sess-b", "")
	f.result()
	tests := []struct {
		query       string
		want, avoid string
	}{
		{query: "", want: "calculator"},
		{query: "session=sess-a", want: "calculator", avoid: "<code>file_read</code>"},
		{query: "tool=file_read", want: "<code>file_read</code>", avoid: "<code>calculator</code>"},
		{query: "decision=deny", avoid: "<code>calculator</code>"},
		{query: "decision=anything", want: "<code>calculator</code>"},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			r := f.do(req{path: "/console/calls?" + tt.query})
			body := r.body[strings.Index(r.body, `id="calls"`):]
			if tt.want != "" && !strings.Contains(body, tt.want) || tt.avoid != "" && strings.Contains(body, tt.avoid) {
				t.Fatalf("calls?%s:\n%s", tt.query, body)
			}
		})
	}
}

func TestReceipts(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	for range 3 {
		f.call("calculator", `{"expression":"2*3"}`, "sess-calc", "")
		f.result()
	}
	f.call("file_write", writeArgs, "sess-w", "")
	_ = f.q.Decide(f.waiting(1)[0].ID, approval.Yes)
	written := f.result().res.Receipt
	if written == nil {
		t.Fatal("no receipt")
	}
	tests := []struct {
		name   string
		path   string
		status int
		want   []string
		avoid  []string
	}{
		{name: "newest first", path: "/console/receipts", status: 200, want: []string{"file_write", "calculator", "signature verified"}},
		{name: "exact tool", path: "/console/receipts?tool=file_write", status: 200, want: []string{"<code>file_write</code>"}, avoid: []string{"<code>calculator</code>"}},
		{name: "tool pattern", path: "/console/receipts?tool=" + url.QueryEscape("calc.*"), status: 200, want: []string{"<code>calculator</code>"}, avoid: []string{"<code>file_write</code>"}},
		{name: "session", path: "/console/receipts?session=sess-w", status: 200, want: []string{"<code>file_write</code>"}, avoid: []string{"<code>calculator</code>"}},
		{name: "time range", path: "/console/receipts?since=2000-01-01T00:00&until=2001-01-01", status: 200, want: []string{"No receipt matches."}},
		{name: "huge range", path: "/console/receipts?since=0001-01-01T00:00&until=9999-12-31T23:59", status: 200, want: []string{"calculator"}},
		{name: "detail", path: "/console/receipts/" + written.ID, status: 200, want: []string{"Verified: the signature holds", "newest record of its chain", "links to seq 3 before it", written.ArgsSHA256}},
		{name: "detail lower case", path: "/console/receipts/" + strings.ToLower(written.ID), status: 200, want: []string{"Verified"}},
		{name: "hostile pattern", path: "/console/receipts?tool=" + url.QueryEscape("((a{1000}){1000}){1000}"), status: 400, want: []string{"is not a regular expression"}},
		{name: "broken pattern", path: "/console/receipts?session=" + url.QueryEscape("(unclosed"), status: 400, want: []string{"is not a regular expression"}},
		{name: "long pattern", path: "/console/receipts?tool=" + strings.Repeat("a", 201), status: 400, want: []string{"longer than 200"}},
		{name: "bad time", path: "/console/receipts?since=yesterday", status: 400, want: []string{"is not a date and time"}},
		{name: "year beyond", path: "/console/receipts?until=99999-01-01", status: 400, want: []string{"is not a date and time"}},
		{name: "reversed range", path: "/console/receipts?since=2026-02-01&until=2026-01-01", status: 400, want: []string{"ends before it starts"}},
		{name: "forged cursor", path: "/console/receipts?before=" + url.QueryEscape("../../etc:1"), status: 400, want: []string{"does not exist"}},
		{name: "malformed id", path: "/console/receipts/" + url.PathEscape("<script>"), status: 400, want: []string{"is not a receipt id", "&lt;script&gt;"}},
		{name: "unknown id", path: "/console/receipts/01ARZ3NDEKTSV4RRFFQ69G5FAV", status: 404, want: []string{"No receipt has the id"}},
		{name: "export", path: "/console/receipts/export", status: 200, want: []string{`"tool":"file_write"`}},
		{name: "export of a chain", path: "/console/receipts/export?chain=" + f.store.Chain(), status: 200, want: []string{`"tool":"calculator"`}},
		{name: "export of no chain", path: "/console/receipts/export?chain=0123456789abcdef", status: 404},
		{name: "public key", path: "/console/receipts/key", status: 200, want: []string{receipts.FormatPublicKey(f.store.PublicKey())}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := f.do(req{path: tt.path})
			if r.status != tt.status {
				t.Fatalf("status %d, want %d:\n%s", r.status, tt.status, r.body)
			}
			for _, w := range tt.want {
				if !strings.Contains(r.body, w) {
					t.Errorf("lacks %q:\n%s", w, r.body)
				}
			}
			for _, a := range tt.avoid {
				if strings.Contains(r.body, a) {
					t.Errorf("has %q:\n%s", a, r.body)
				}
			}
		})
	}
	own := map[string]string{"Origin": f.origin()}
	tok := f.csrf(f.client)
	v := f.do(req{method: http.MethodPost, path: "/console/receipts/verify", form: url.Values{"csrf": {tok}, "chain": {f.store.Chain()}}, headers: own})
	if v.status != 200 || !strings.Contains(v.body, "Verified: 4 records") {
		t.Fatalf("verify: %d\n%s", v.status, v.body)
	}
	all := f.do(req{method: http.MethodPost, path: "/console/receipts/verify", form: url.Values{"csrf": {tok}}, headers: own})
	if all.status != 200 || !strings.Contains(all.body, "every chain, checked at") {
		t.Fatalf("verify every chain: %d\n%s", all.status, all.body)
	}
	if r := f.do(req{path: "/console/receipts/" + written.ID}); !strings.Contains(r.body, "verified at") {
		t.Errorf("the receipt page does not show the chain's verification:\n%s", r.body)
	}
	for _, bad := range []url.Values{{"chain": {"../x"}, "csrf": {tok}}, {"chain": {f.store.Chain()}}} {
		if r := f.do(req{method: http.MethodPost, path: "/console/receipts/verify", form: bad, headers: own}); r.status == 200 {
			t.Errorf("verify with %v answered 200", bad)
		}
	}
}

func TestReceiptsOff(t *testing.T) {
	f := newFixture(t, fixtureOptions{noReceipts: true})
	if r := f.do(req{path: "/console/receipts"}); r.status != 200 || !strings.Contains(r.body, "Receipts are off") {
		t.Fatalf("%d %s", r.status, r.body)
	}
	if r := f.do(req{path: "/console/receipts/01ARZ3NDEKTSV4RRFFQ69G5FAV"}); r.status != 404 {
		t.Fatalf("%d", r.status)
	}
}

func TestPolicyRefusals(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	tests := []struct {
		query  string
		status int
		want   string
	}{
		{query: "tool=no_such_tool", status: 400, want: "unknown tool"},
		{query: "tool=file_write&args=" + url.QueryEscape("{not json"), status: 400, want: "not JSON"},
		{query: "tool=file_write&args=" + url.QueryEscape("[1]"), status: 400, want: "JSON object"},
		{query: "tool=file_write&args=" + url.QueryEscape(`{"path":3}`), status: 200, want: "do not fit the tool"},
		{query: "tool=file_write&args=" + strings.Repeat("x", maxArgs+1), status: 400, want: "longer than"},
		{query: "tool=file_write&profile=strict&args=" + url.QueryEscape(writeArgs), status: 200, want: "ask"},
	}
	for _, tt := range tests {
		t.Run(tt.query[:min(len(tt.query), 40)], func(t *testing.T) {
			r := f.do(req{path: "/console/policy?" + tt.query})
			if r.status != tt.status || !strings.Contains(r.body, tt.want) {
				t.Fatalf("status %d, want %d with %q:\n%s", r.status, tt.status, tt.want, r.body)
			}
		})
	}
}

func TestSandboxCheck(t *testing.T) {
	f := newFixture(t, fixtureOptions{sandboxCheck: true})
	r := f.do(req{method: http.MethodPost, path: "/console/sandbox", form: url.Values{"csrf": {f.csrf(f.client)}}, headers: map[string]string{"Origin": f.origin()}})
	if r.status != 200 || !strings.Contains(r.body, "Every protection held.") || !strings.Contains(r.body, "write outside the workspace") {
		t.Fatalf("%d\n%s", r.status, r.body)
	}
	if r := f.do(req{method: http.MethodPost, path: "/console/sandbox", form: url.Values{}, headers: map[string]string{"Origin": f.origin()}}); r.status != 403 {
		t.Fatalf("a check without a CSRF token answered %d", r.status)
	}
	g := newFixture(t, fixtureOptions{})
	if r := g.do(req{method: http.MethodPost, path: "/console/sandbox", form: url.Values{"csrf": {g.csrf(g.client)}}, headers: map[string]string{"Origin": g.origin()}}); r.status != 404 {
		t.Fatalf("a check without a checker answered %d", r.status)
	}
}

func TestNewNeedsARuntime(t *testing.T) {
	if _, err := New(Options{}); !errors.Is(err, ErrNoRuntime) {
		t.Fatalf("err = %v", err)
	}
}

func TestPluginsPage(t *testing.T) {
	loads := &plugins.Report{Name: "weather", Dir: "/plugins/weather", Consent: plugins.ConsentCurrent, HasHost: true,
		Manifest:  &manifest.Manifest{Name: "weather", Version: "1.2.0", Kind: manifest.KindWASM, Description: "Forecasts"},
		Signature: manifest.SignedTrusted, Tools: []string{"weather_now"},
		Grants: manifest.Grants{AllowedHosts: []string{"api.weather.example"}, Config: map[string]any{"units": "metric"}}}
	stale := &plugins.Report{Name: "jira", Dir: "/plugins/jira", Consent: plugins.ConsentStale, HasHost: true,
		Manifest: &manifest.Manifest{Name: "jira", Version: "0.3.0", Kind: manifest.KindProcess}, Signature: manifest.Unsigned}
	f := newFixture(t, fixtureOptions{plugins: func() ([]*plugins.Report, error) {
		return []*plugins.Report{loads, stale}, errors.New("broken: plugin.toml: line 3: unknown key")
	}})
	r := f.do(req{path: "/console/plugins"})
	for _, want := range []string{"weather", "1.2.0", "Forecasts", "Loads.", "trusted", "signed-trusted", "api.weather.example", "units", "weather_now",
		"jira", "changed since it was trusted", "Not loaded:", "talon plugins trust jira", "broken: plugin.toml: line 3"} {
		if !strings.Contains(r.body, want) {
			t.Errorf("plugins page lacks %q", want)
		}
	}
}

// TestOneCheckAtATime: a second sandbox check while one runs is refused
// with 429 and nothing else changes.
func TestOneCheckAtATime(t *testing.T) {
	running, release := make(chan struct{}), make(chan struct{})
	f := newFixture(t, fixtureOptions{check: func(ctx context.Context) (sandbox.Report, error) {
		close(running)
		<-release
		return fakeCheck(ctx)
	}})
	tok := f.csrf(f.client)
	own := map[string]string{"Origin": f.origin()}
	first := make(chan resp, 1)
	go func() {
		first <- f.do(req{method: http.MethodPost, path: "/console/sandbox", form: url.Values{"csrf": {tok}}, headers: own})
	}()
	<-running
	if r := f.do(req{method: http.MethodPost, path: "/console/sandbox", form: url.Values{"csrf": {tok}}, headers: own}); r.status != http.StatusTooManyRequests {
		t.Fatalf("a second check answered %d, want 429", r.status)
	}
	close(release)
	if r := <-first; r.status != http.StatusOK || !strings.Contains(r.body, "Every protection held.") {
		t.Fatalf("the first check answered %d", r.status)
	}
}
