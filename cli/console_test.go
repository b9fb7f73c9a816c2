//go:build !talon_no_mcp

package cli

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	spawner "github.com/talonhq/talon/sandbox"
)

var consoleLine = regexp.MustCompile(`console:\s+(http://\S+)`)

// TestServeConsole answers a waiting call of an MCP client through the
// console of a real talon serve: the banner names the console, its pages
// need the token the MCP endpoint needs, and an answer posted with the
// page's form token releases the call.
func TestServeConsole(t *testing.T) {
	const token = "console-token-0123456789"
	s := newSandbox(t, "[serve]\ntoken = \""+token+"\"\n")
	p := startHTTP(t, s, "talon", "serve", "--listen", "127.0.0.1:0")
	m := consoleLine.FindStringSubmatch(p.stderr.String())
	if m == nil {
		t.Fatalf("the banner names no console:\n%s", p.stderr.String())
	}
	consoleURL := m[1]
	if !strings.HasSuffix(consoleURL, "/console/") || !strings.HasPrefix(consoleURL, strings.TrimSuffix(p.url, "/mcp")) {
		t.Fatalf("console %s is not beside %s", consoleURL, p.url)
	}
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar, Timeout: 10 * time.Second}
	get := func(path string) (int, string) {
		t.Helper()
		resp, err := browser.Get(strings.TrimSuffix(consoleURL, "/console/") + path)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = resp.Body.Close() }()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get("/console/approvals"); code != http.StatusOK || !strings.Contains(body, "Sign in") {
		t.Fatalf("without the token: %d, want the sign-in page:\n%s", code, body)
	}
	csrf := regexp.MustCompile(`name="csrf" value="([^"]+)"`)
	base := strings.TrimSuffix(consoleURL, "/console/")
	post := func(path string, form url.Values) int {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, base+path, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", base)
		resp, err := browser.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		return resp.StatusCode
	}
	_, login := get("/console/login")
	if code := post("/console/login", url.Values{"csrf": {csrf.FindStringSubmatch(login)[1]}, "token": {token}, "next": {"/console/approvals"}}); code != http.StatusOK {
		t.Fatalf("sign-in ended with %d", code)
	}

	cs := connectHTTP(t, p.url, newHeaderTransport(map[string]string{"Authorization": "Bearer " + token}), nil)
	type result struct {
		res *sdk.CallToolResult
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "file_write",
			Arguments: map[string]any{"path": "from-console.txt", "content": "hi"}})
		done <- result{res, err}
	}()
	id := regexp.MustCompile(`id="approval-([a-z2-7]{12})"`)
	var page string
	deadline := time.Now().Add(20 * time.Second)
	for {
		_, page = get("/console/approvals")
		if id.MatchString(page) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the call never appeared in the console:\n%s", page)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !strings.Contains(page, "write 2 bytes to from-console.txt") {
		t.Errorf("the console does not show the plan:\n%s", page)
	}
	code := post("/console/approvals/"+id.FindStringSubmatch(page)[1], url.Values{"csrf": {csrf.FindStringSubmatch(page)[1]}, "answer": {"yes"}})
	if code != http.StatusOK {
		t.Fatalf("the answer ended with %d", code)
	}
	r := <-done
	if r.err != nil || r.res.IsError || r.res.Meta["talon/receipt"] == nil {
		t.Fatalf("the call ended %v %+v, want a success with a receipt", r.err, r.res)
	}
}

func TestToolReach(t *testing.T) {
	tests := []struct {
		name  string
		st    spawner.Status
		ports []int
		port  int
		want  string
	}{
		{name: "confined", st: spawner.Status{Active: true, Connect: true}, port: 7357},
		{name: "no sandbox", st: spawner.Status{Reason: "mode off"}, port: 7357, want: "not active (mode off)"},
		{name: "no connect rule", st: spawner.Status{Active: true, ABI: 3}, port: 7357, want: "Landlock ABI 3"},
		{name: "port allowed", st: spawner.Status{Active: true, Connect: true}, ports: []int{443, 7357}, port: 7357, want: "allow_connect_ports lists port 7357"},
		{name: "other port allowed", st: spawner.Status{Active: true, Connect: true}, ports: []int{443}, port: 7357},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := toolReach(tt.st, tt.ports, tt.port)
			if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
				t.Fatalf("toolReach = %q, want %q", got, tt.want)
			}
		})
	}
}
