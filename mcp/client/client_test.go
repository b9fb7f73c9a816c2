package client

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"

	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/internal/syncbuf"
	"github.com/talonhq/talon/tool"
)

func helperServer(t *testing.T, mode string) config.MCPServer {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return config.MCPServer{Command: exe, Env: map[string]string{helperEnv: mode}, StartupTimeoutSeconds: 10}
}

// hostEnv is talon's environment as the tests see it.
func hostEnv(extra map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		if v, ok := extra[k]; ok {
			return v, true
		}
		return os.LookupEnv(k)
	}
}

// syncBuffer collects output written from several goroutines.
type syncBuffer = syncbuf.Buffer

func lookupTool(t *testing.T, m *Manager, name string) tool.Tool {
	t.Helper()
	for _, tl := range m.Tools() {
		if tl.Spec().Name == name {
			return tl
		}
	}
	var names []string
	for _, tl := range m.Tools() {
		names = append(names, tl.Spec().Name)
	}
	t.Fatalf("no tool %s among %v", name, names)
	return nil
}

func call(t *testing.T, tl tool.Tool, args string) tool.Result {
	t.Helper()
	res, err := tl.Execute(context.Background(), json.RawMessage(args))
	if err != nil {
		t.Fatal(err)
	}
	return tool.Normalize(tl.Spec().Name, res, nil)
}

func TestStdioServer(t *testing.T) {
	t.Parallel()
	cfg := helperServer(t, "serve")
	cfg.Tier = "low"
	cfg.Tools = map[string]config.MCPTool{"echo": {Tier: "medium"}}
	cfg.Env["GREETING"] = "${TEST_GREETING}!"
	var logs syncBuffer
	m := Start(context.Background(), Options{
		Servers:   map[string]config.MCPServer{"helper": cfg},
		LookupEnv: hostEnv(map[string]string{"TEST_GREETING": "hello", "TALON_SECRET": "s3cret"}),
		Logger:    zerolog.New(&logs),
	})
	defer func() { _ = m.Close() }()

	st := m.Status()
	if len(st) != 1 || st[0].State != StateConnected {
		t.Fatalf("status = %+v\n%s", st, logs.String())
	}
	if len(st[0].Problems) != 1 || !strings.Contains(st[0].Problems[0], "64") {
		t.Fatalf("the over-long name is not reported: %v", st[0].Problems)
	}

	echo := lookupTool(t, m, "helper__echo")
	spec := echo.Spec()
	if spec.Attribution != (tool.Attribution{Kind: tool.KindMCP, Alias: "helper"}) || spec.Tier != tool.Medium ||
		spec.Description != "Echo the text back." || !strings.Contains(string(spec.Input), `"text"`) {
		t.Fatalf("spec = %+v", spec)
	}
	if tier := lookupTool(t, m, "helper__fail").Spec().Tier; tier != tool.Low {
		t.Fatalf("server tier not applied: %s", tier)
	}
	lookupTool(t, m, "helper__dotted_name")

	tests := []struct {
		name    string
		tool    string
		args    string
		success bool
		text    string
	}{
		{name: "echo", tool: "helper__echo", args: `{"text":"hi there"}`, success: true, text: "hi there"},
		{name: "tool error", tool: "helper__fail", args: `{}`, text: "failed on purpose"},
		{name: "sanitized name calls the server's name", tool: "helper__dotted_name", args: `{}`, success: true, text: "dotted"},
		{name: "schema checked by the server", tool: "helper__echo", args: `{"text":3}`, text: "text"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, lookupTool(t, m, tt.tool), tt.args)
			if res.Success != tt.success {
				t.Fatalf("result = %+v", res)
			}
			got := res.Output.Text + res.Error
			if !strings.Contains(got, tt.text) {
				t.Fatalf("result %q lacks %q", got, tt.text)
			}
		})
	}
	if res := call(t, echo, `{"text":"x"}`); res.Output.Data == nil {
		t.Error("structured content not kept as data")
	}

	t.Run("explicit environment", func(t *testing.T) {
		env := call(t, lookupTool(t, m, "helper__env"), `{}`).Output.Text
		if !strings.Contains(env, "GREETING=hello!") || !strings.Contains(env, "PATH=") {
			t.Fatalf("child env lacks configured or PATH values:\n%s", env)
		}
		if strings.Contains(env, "TALON_SECRET") || strings.Contains(env, "GOFLAGS") {
			t.Fatalf("child env leaks talon's environment:\n%s", env)
		}
	})
	if !strings.Contains(logs.String(), "helper: ready") || !strings.Contains(logs.String(), `"attribution":"mcp.helper"`) {
		t.Errorf("stderr of the server is not logged with its attribution:\n%s", logs.String())
	}
}

func TestCrashAndRestart(t *testing.T) {
	t.Parallel()
	m := Start(context.Background(), Options{Servers: map[string]config.MCPServer{"h": helperServer(t, "serve")}})
	defer func() { _ = m.Close() }()
	res := call(t, lookupTool(t, m, "h__crash"), `{}`)
	if res.Success || !strings.Contains(res.Error, "next call starts it again") {
		t.Fatalf("crash result = %+v", res)
	}
	res = call(t, lookupTool(t, m, "h__echo"), `{"text":"back"}`)
	if !res.Success || res.Output.Text != "back" {
		t.Fatalf("after restart = %+v", res)
	}
	if st := m.Status(); st[0].State != StateConnected {
		t.Fatalf("status = %+v", st)
	}
}

func TestServersThatFailToStart(t *testing.T) {
	t.Parallel()
	hang := helperServer(t, "hang")
	hang.StartupTimeoutSeconds = 1
	missing := config.MCPServer{Command: "/nonexistent/mcp-server"}
	off := helperServer(t, "serve")
	no := false
	off.EnabledSetting = &no
	bad := helperServer(t, "serve")
	bad.Env["X"] = "${TALON_TEST_UNSET_VARIABLE}"
	start := time.Now()
	m := Start(context.Background(), Options{Servers: map[string]config.MCPServer{
		"good": helperServer(t, "serve"), "dies": helperServer(t, "exit"), "hangs": hang,
		"missing": missing, "off": off, "badenv": bad,
	}})
	defer func() { _ = m.Close() }()
	if d := time.Since(start); d > 8*time.Second {
		t.Fatalf("Start took %s", d)
	}
	want := map[string]State{"good": StateConnected, "dies": StateFailed, "hangs": StateFailed,
		"missing": StateFailed, "off": StateDisabled, "badenv": StateFailed}
	for _, st := range m.Status() {
		if st.State != want[st.Name] {
			t.Errorf("%s: state %s, want %s (%v)", st.Name, st.State, want[st.Name], st.Err)
		}
		if st.State == StateFailed && st.Err == nil {
			t.Errorf("%s failed without a reason", st.Name)
		}
		if st.Name == "hangs" && !strings.Contains(st.Err.Error(), "startup_timeout_seconds") {
			t.Errorf("timeout not named: %v", st.Err)
		}
		if st.Name == "badenv" && !errors.Is(st.Err, ErrUndefinedVariable) {
			t.Errorf("badenv: %v", st.Err)
		}
	}
	for _, tl := range m.Tools() {
		if a := tl.Spec().Attribution.Alias; a != "good" {
			t.Errorf("tool %s of %s in the catalog", tl.Spec().Name, a)
		}
	}
	if res := call(t, lookupTool(t, m, "good__echo"), `{"text":"ok"}`); !res.Success {
		t.Fatalf("the working server is affected: %+v", res)
	}
}

func TestCancelForwards(t *testing.T) {
	t.Parallel()
	var logs syncBuffer
	m := Start(context.Background(), Options{Servers: map[string]config.MCPServer{"h": helperServer(t, "serve")}, Logger: zerolog.New(&logs)})
	defer func() { _ = m.Close() }()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := lookupTool(t, m, "h__wait").Execute(ctx, json.RawMessage(`{"seconds":30}`))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("cancellation took %s", d)
	}
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(logs.String(), "wait cancelled") {
		if time.Now().After(deadline) {
			t.Fatalf("the server never saw the cancellation:\n%s", logs.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestToolListChanges(t *testing.T) {
	t.Parallel()
	changed := make(chan string, 1)
	m := Start(context.Background(), Options{
		Servers:        map[string]config.MCPServer{"h": helperServer(t, "serve")},
		OnToolsChanged: func(s string) { changed <- s },
	})
	defer func() { _ = m.Close() }()
	if res := call(t, lookupTool(t, m, "h__grow"), `{}`); !res.Success {
		t.Fatal(res.Error)
	}
	select {
	case s := <-changed:
		if s != "h" {
			t.Fatalf("changed server %q", s)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no change reported")
	}
	if res := call(t, lookupTool(t, m, "h__added"), `{}`); res.Output.Text != "new" {
		t.Fatalf("added tool = %+v", res)
	}
}

func TestUpdate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a := helperServer(t, "serve")
	m := Start(ctx, Options{Servers: map[string]config.MCPServer{"a": a}})
	defer func() { _ = m.Close() }()
	before := lookupTool(t, m, "a__echo")

	m.Update(ctx, map[string]config.MCPServer{"a": a, "b": helperServer(t, "serve")})
	if lookupTool(t, m, "a__echo") != before {
		t.Error("an unchanged server was restarted")
	}
	lookupTool(t, m, "b__echo")

	m.Update(ctx, map[string]config.MCPServer{"b": helperServer(t, "serve")})
	for _, tl := range m.Tools() {
		if tl.Spec().Attribution.Alias == "a" {
			t.Fatal("a removed server's tools remain")
		}
	}
	if res := call(t, before, `{"text":"x"}`); res.Success {
		t.Fatal("a tool of a removed server still runs")
	}
}

func TestNameClashBetweenServers(t *testing.T) {
	t.Parallel()
	m := Start(context.Background(), Options{Servers: map[string]config.MCPServer{
		"a.b": helperServer(t, "serve"), "a_b": helperServer(t, "serve"),
	}})
	defer func() { _ = m.Close() }()
	seen := map[string]bool{}
	for _, tl := range m.Tools() {
		if seen[tl.Spec().Name] {
			t.Fatalf("%s claimed twice", tl.Spec().Name)
		}
		seen[tl.Spec().Name] = true
	}
	var problems []string
	for _, st := range m.Status() {
		problems = append(problems, st.Problems...)
	}
	if !strings.Contains(strings.Join(problems, "\n"), "rename one of the servers") {
		t.Fatalf("clash not reported: %v", problems)
	}
}

func TestStreamableHTTPServer(t *testing.T) {
	s := sdk.NewServer(&sdk.Implementation{Name: "remote", Version: "v0"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "whoami", Description: "Say who asks."},
		func(_ context.Context, req *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: req.Extra.Header.Get("X-Api-Key")}}}, nil, nil
		})
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Api-Key") != "k-123" {
			http.Error(w, "no key", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	defer hs.Close()
	m := Start(context.Background(), Options{
		Servers: map[string]config.MCPServer{"remote": {
			URL: hs.URL, Headers: map[string]string{"X-Api-Key": "${TEST_KEY}"}, Tier: "low", StartupTimeoutSeconds: 5,
		}},
		LookupEnv: hostEnv(map[string]string{"TEST_KEY": "k-123"}),
	})
	defer func() { _ = m.Close() }()
	if res := call(t, lookupTool(t, m, "remote__whoami"), `{}`); res.Output.Text != "k-123" {
		t.Fatalf("result = %+v; status %+v", res, m.Status())
	}
}

func TestExpand(t *testing.T) {
	env := hostEnv(map[string]string{"A": "1", "EMPTY": ""})
	tests := []struct {
		in, want string
		err      bool
	}{
		{in: "plain", want: "plain"},
		{in: "${A}", want: "1"},
		{in: "x${A}y${A}", want: "x1y1"},
		{in: "$A and $$", want: "$A and $$"},
		{in: "${EMPTY}", want: ""},
		{in: "${UNSET_TALON_VAR}", err: true},
		{in: "open ${A", want: "open ${A"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := expand(tt.in, env)
			if (err != nil) != tt.err || got != tt.want {
				t.Fatalf("expand(%q) = %q, %v", tt.in, got, err)
			}
		})
	}
}

func TestChildEnv(t *testing.T) {
	lookup := func(k string) (string, bool) {
		v, ok := map[string]string{"PATH": "/bin", "HOME": "/home/u", "SECRET": "x"}[k]
		return v, ok
	}
	got, err := childEnv(map[string]string{"HOME": "/srv", "TOKEN": "t"}, lookup)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, " ") != "HOME=/srv PATH=/bin TOKEN=t" {
		t.Fatalf("env = %v", got)
	}
}

func TestFromResult(t *testing.T) {
	tests := []struct {
		name    string
		in      *sdk.CallToolResult
		success bool
		text    string
	}{
		{name: "text", in: &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "a"}, &sdk.TextContent{Text: "b"}}}, success: true, text: "a\nb"},
		{name: "image", in: &sdk.CallToolResult{Content: []sdk.Content{&sdk.ImageContent{MIMEType: "image/png", Data: []byte{1, 2}}}}, success: true, text: "[image image/png, 2 bytes]"},
		{name: "link", in: &sdk.CallToolResult{Content: []sdk.Content{&sdk.ResourceLink{URI: "file:///x"}}}, success: true, text: "[resource file:///x]"},
		{name: "embedded", in: &sdk.CallToolResult{Content: []sdk.Content{&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "u", Text: "body"}}}}, success: true, text: "body"},
		{name: "error", in: &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "bad"}}}, text: "bad"},
		{name: "silent error", in: &sdk.CallToolResult{IsError: true}, text: "without saying why"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := fromResult(tt.in)
			if got.Success != tt.success || got.Output.Text+got.Error == "" || !strings.Contains(got.Output.Text+got.Error, tt.text) {
				t.Fatalf("fromResult = %+v", got)
			}
		})
	}
}

func TestLineLogger(t *testing.T) {
	var buf syncBuffer
	w := &lineLogger{log: zerolog.New(&buf)}
	_, _ = w.Write([]byte("one\ntw"))
	_, _ = w.Write([]byte("o\r\n\n" + strings.Repeat("z", maxLine+5)))
	out := buf.String()
	if strings.Count(out, "\n") != 3 || !strings.Contains(out, `"one"`) || !strings.Contains(out, `"two"`) {
		t.Fatalf("logged:\n%s", out)
	}
}
