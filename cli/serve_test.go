package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	_ "github.com/talonhq/talon/adapters/standard"
	"github.com/talonhq/talon/approval"
	"github.com/talonhq/talon/internal/syncbuf"
	"github.com/talonhq/talon/toolfactory"
)

// testMainEnv makes the test binary act as something else (see init):
// "talon" is the talon command itself, so end-to-end tests run the real
// program as a subprocess; the other values are MCP servers built with the
// official SDK, used as a tool source and as benchmark baselines.
const testMainEnv = "TALON_CLI_TEST_MAIN"

// init, not TestMain, dispatches: other test files of this package may
// define TestMain.
func init() {
	switch os.Getenv(testMainEnv) {
	case "":
		return
	case "talon":
		os.Exit(Main(os.Args[1:], System()))
	case "mcp-helper":
		os.Exit(runMCPHelper())
	case "baseline-stdio":
		os.Exit(runBaseline(false))
	case "baseline-http":
		os.Exit(runBaseline(true))
	}
	fmt.Fprintf(os.Stderr, "unknown %s\n", testMainEnv)
	os.Exit(2)
}

// legacyVersions pins a baseline server to the protocol revisions talon
// serves, so both sides of a comparison speak the same protocol.
func legacyVersions() []string {
	var out []string
	for _, v := range sdk.SupportedProtocolVersions() {
		if v < "2026-07-28" {
			out = append(out, v)
		}
	}
	return out
}

type calcArgs struct {
	Expression string `json:"expression"`
}

// runBaseline is the official SDK's minimal server with a calculator that
// does nothing: the baseline of the round-trip benchmarks.
func runBaseline(overHTTP bool) int {
	s := sdk.NewServer(&sdk.Implementation{Name: "baseline", Version: "v0"}, &sdk.ServerOptions{SupportedProtocolVersions: legacyVersions()})
	sdk.AddTool(s, &sdk.Tool{Name: "calculator", Description: "No-op."},
		func(context.Context, *sdk.CallToolRequest, calcArgs) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "2"}}}, nil, nil
		})
	if !overHTTP {
		if err := s.Run(context.Background(), &sdk.StdioTransport{}); err != nil {
			return 1
		}
		return 0
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 1
	}
	fmt.Fprintf(os.Stderr, "  url:       http://%s/mcp\n", ln.Addr())
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil)
	_ = http.Serve(ln, h)
	return 0
}

// runMCPHelper is an MCP server that talon serve uses as a tool source.
func runMCPHelper() int {
	s := sdk.NewServer(&sdk.Implementation{Name: "helper", Version: "v0"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "echo", Description: "Echo the text back."},
		func(_ context.Context, _ *sdk.CallToolRequest, in struct {
			Text string `json:"text"`
		}) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "echo: " + in.Text}}}, nil, nil
		})
	if err := s.Run(context.Background(), &sdk.StdioTransport{}); err != nil {
		return 1
	}
	return 0
}

// lockedBuffer collects output written from several goroutines.
type lockedBuffer = syncbuf.Buffer

// sandbox is a private home, config and data dir for one talon.
type sandbox struct {
	dir string // holds home, xdg dirs and the workspace
	ws  string
}

func newSandbox(t testing.TB, configTOML string) *sandbox {
	t.Helper()
	dir := t.TempDir()
	s := &sandbox{dir: dir, ws: filepath.Join(dir, "ws")}
	if err := os.MkdirAll(s.ws, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s.ws, "README.md"), []byte("# hello\nfrom the workspace\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s.writeConfig(t, configTOML)
	return s
}

func (s *sandbox) writeConfig(t testing.TB, toml string) {
	t.Helper()
	tmp := filepath.Join(s.ws, ".talon.toml.tmp")
	if err := os.WriteFile(tmp, []byte(toml), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(s.ws, "talon.toml")); err != nil {
		t.Fatal(err)
	}
}

func (s *sandbox) env() map[string]string {
	return map[string]string{
		"HOME":            filepath.Join(s.dir, "home"),
		"XDG_CONFIG_HOME": filepath.Join(s.dir, "config"),
		"XDG_DATA_HOME":   filepath.Join(s.dir, "data"),
		"PATH":            os.Getenv("PATH"),
	}
}

// command is the test binary acting as mode, in the sandbox.
func (s *sandbox) command(t testing.TB, mode string, args ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Dir = s.ws
	for k, v := range s.env() {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Env = append(cmd.Env, testMainEnv+"="+mode)
	return cmd
}

// run runs talon in-process in the sandbox, as `talon approvals` would be.
func (s *sandbox) run(args ...string) (int, string) {
	var out strings.Builder
	env := s.env()
	code := Main(args, IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &out, Cwd: s.ws,
		Getenv: func(k string) string { return env[k] }})
	return code, out.String()
}

// proc is a talon serve (or baseline) running over HTTP.
type proc struct {
	cmd    *exec.Cmd
	stderr *lockedBuffer
	url    string
	exited chan error
}

var urlLine = regexp.MustCompile(`url:\s+(http://\S+)`)

func startHTTP(t testing.TB, s *sandbox, mode string, args ...string) *proc {
	t.Helper()
	cmd := s.command(t, mode, args...)
	p := &proc{cmd: cmd, stderr: &lockedBuffer{}, exited: make(chan error, 1)}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.exited <- cmd.Wait() }()
	t.Cleanup(func() { p.stop(t) })
	deadline := time.Now().Add(20 * time.Second)
	for {
		if m := urlLine.FindStringSubmatch(p.stderr.String()); m != nil {
			p.url = m[1]
			return p
		}
		select {
		case err := <-p.exited:
			p.exited <- err
			t.Fatalf("%s exited: %v\n%s", mode, err, p.stderr.String())
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("no url from %s:\n%s", mode, p.stderr.String())
		}
	}
}

// waitLog waits until the process's stderr contains want.
func (p *proc) waitLog(t testing.TB, want string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(p.stderr.String(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("stderr never showed %q:\n%s", want, p.stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (p *proc) stop(t testing.TB) {
	select {
	case err := <-p.exited:
		p.exited <- err
		return
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-p.exited:
		p.exited <- err
	case <-time.After(15 * time.Second):
		_ = p.cmd.Process.Kill()
		t.Errorf("process did not stop on SIGTERM:\n%s", p.stderr.String())
	}
}

// headerTransport adds headers (a token, an origin) to every request and
// remembers its connections so a test can cut them.
type headerTransport struct {
	headers map[string]string
	mu      sync.Mutex
	conns   []net.Conn
	base    *http.Transport
}

func newHeaderTransport(headers map[string]string) *headerTransport {
	h := &headerTransport{headers: headers}
	h.base = &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		var d net.Dialer
		c, err := d.DialContext(ctx, network, addr)
		if err == nil {
			h.mu.Lock()
			h.conns = append(h.conns, c)
			h.mu.Unlock()
		}
		return c, err
	}}
	return h
}

func (h *headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h.headers {
		r.Header.Set(k, v)
	}
	return h.base.RoundTrip(r)
}

// cut closes every connection, as a client that crashed would.
func (h *headerTransport) cut() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, c := range h.conns {
		_ = c.Close()
	}
}

func connectHTTP(t testing.TB, url string, tr http.RoundTripper, opts *sdk.ClientOptions) *sdk.ClientSession {
	t.Helper()
	if tr == nil {
		tr = newHeaderTransport(nil)
	}
	c := sdk.NewClient(&sdk.Implementation{Name: "e2e", Version: "v0"}, opts)
	cs, err := c.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: tr}, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// connectStdio starts talon serve --stdio (or a baseline) as the client's
// subprocess.
func connectStdio(t testing.TB, s *sandbox, mode string, stderr io.Writer, args ...string) *sdk.ClientSession {
	t.Helper()
	cmd := s.command(t, mode, args...)
	cmd.Stderr = stderr
	c := sdk.NewClient(&sdk.Implementation{Name: "e2e", Version: "v0"}, nil)
	cs, err := c.Connect(context.Background(), &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%v", err, stderr)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

func callText(t testing.TB, res *sdk.CallToolResult) string {
	t.Helper()
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// quickApprovals makes calls that need approval fail closed fast.
const quickApprovals = "[approvals]\ntimeout_seconds = 1\n"

// basicSession checks what every transport must do.
func basicSession(t *testing.T, cs *sdk.ClientSession) {
	ctx := context.Background()
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, tl := range list.Tools {
		names[tl.Name] = true
	}
	for _, n := range []string{"calculator", "file_read", "file_write"} {
		if !names[n] {
			t.Fatalf("tools/list lacks %s: %v", n, names)
		}
	}
	tests := []struct {
		name    string
		tool    string
		args    map[string]any
		isError bool
		text    string
	}{
		{name: "calculator", tool: "calculator", args: map[string]any{"expression": "1+1"}, text: "2"},
		{name: "file_read", tool: "file_read", args: map[string]any{"path": "README.md"}, text: "from the workspace"},
		{name: "schema failure", tool: "file_read", args: map[string]any{"path": 7}, isError: true, text: "/path"},
		{name: "denied, fail closed", tool: "file_write", args: map[string]any{"path": "x.txt", "content": "x"}, isError: true, text: approval.DeniedNoApprover},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tt.tool, Arguments: tt.args})
			if err != nil {
				t.Fatal(err)
			}
			if res.IsError != tt.isError || !strings.Contains(callText(t, res), tt.text) {
				t.Fatalf("isError = %v, text %q; want %v, %q", res.IsError, callText(t, res), tt.isError, tt.text)
			}
		})
	}
	if _, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "no_such_tool"}); err == nil {
		t.Error("an unknown tool is not a protocol error")
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "calculator", Arguments: map[string]any{"expression": "3"}})
	if err != nil {
		t.Fatal(err)
	}
	if rec, ok := res.Meta["talon/receipt"].(map[string]any); !ok || rec["sig"] == "" || rec["channel"] != "mcp" {
		t.Errorf("no receipt in _meta: %v", res.Meta)
	}
}

func TestServeStdio(t *testing.T) {
	s := newSandbox(t, quickApprovals)
	var stderr lockedBuffer
	cs := connectStdio(t, s, "talon", &stderr, "serve", "--stdio")
	basicSession(t, cs)
	if !strings.Contains(stderr.String(), `"args": [`) || !strings.Contains(stderr.String(), "--stdio") {
		t.Errorf("banner lacks the stdio client snippet:\n%s", stderr.String())
	}
}

func TestServeHTTP(t *testing.T) {
	s := newSandbox(t, quickApprovals+"[serve]\nallowed_origins = [\"https://ok.example\"]\n")
	p := startHTTP(t, s, "talon", "serve", "--listen", "127.0.0.1:0")
	for _, want := range []string{"catalog:", "builtin", "profile:   default", "surface:   chat", `"type": "http"`, p.url} {
		if !strings.Contains(p.stderr.String(), want) {
			t.Errorf("banner lacks %q:\n%s", want, p.stderr.String())
		}
	}
	basicSession(t, connectHTTP(t, p.url, nil, nil))

	t.Run("origin", func(t *testing.T) {
		for origin, want := range map[string]int{"https://evil.example": http.StatusForbidden, "https://ok.example": http.StatusOK} {
			req, _ := http.NewRequest(http.MethodPost, p.url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"0"}}}`))
			req.Header.Set("Origin", origin)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			_ = resp.Body.Close()
			if resp.StatusCode != want {
				t.Errorf("origin %s: status %d, want %d", origin, resp.StatusCode, want)
			}
		}
	})
}

func TestServeBearerToken(t *testing.T) {
	s := newSandbox(t, "[serve]\ntoken = \"from-config-0123456789\"\n")
	p := startHTTP(t, s, "talon", "serve", "--listen", "127.0.0.1:0")
	if !strings.Contains(p.stderr.String(), "Bearer ${TALON_SERVE_TOKEN}") {
		t.Errorf("banner does not show how to send the token:\n%s", p.stderr.String())
	}
	resp, err := http.Post(p.url, "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("no token: status %d", resp.StatusCode)
	}
	cs := connectHTTP(t, p.url, newHeaderTransport(map[string]string{"Authorization": "Bearer from-config-0123456789"}), nil)
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "calculator", Arguments: map[string]any{"expression": "2*21"}})
	if err != nil || callText(t, res) != "42" {
		t.Fatalf("%v %v", err, res)
	}
}

func TestServeRefusesToExpose(t *testing.T) {
	tests := []struct {
		name   string
		config string
		args   []string
		want   string
	}{
		{name: "flag without token", args: []string{"serve", "--listen", "0.0.0.0:0"}, want: "without a bearer token"},
		{name: "config beyond loopback", config: "[serve]\nlisten = \"0.0.0.0:7357\"\ntoken = \"t0123456789abcdef\"\n", args: []string{"serve"}, want: "--listen 0.0.0.0:7357"},
		{name: "unknown surface", args: []string{"serve", "--surface", "tv"}, want: "chat or code"},
		{name: "unknown profile", args: []string{"serve", "--profile", "nope", "--listen", "127.0.0.1:0"}, want: "nope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSandbox(t, tt.config)
			code, out := s.run(tt.args...)
			if code != ExitUsage || !strings.Contains(out, tt.want) {
				t.Fatalf("exit %d, output:\n%s", code, out)
			}
		})
	}
}

func TestServeReload(t *testing.T) {
	s := newSandbox(t, "[tools]\noptional = [\"*\"]\n")
	p := startHTTP(t, s, "talon", "serve", "--listen", "127.0.0.1:0")
	changed := make(chan struct{}, 8)
	cs := connectHTTP(t, p.url, nil, &sdk.ClientOptions{ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) {
		changed <- struct{}{}
	}})
	ctx := context.Background()
	count := func() (int, bool) {
		list, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		calc := false
		for _, tl := range list.Tools {
			calc = calc || tl.Name == "calculator"
		}
		return len(list.Tools), calc
	}
	before, calc := count()
	if !calc {
		t.Fatal("the full catalog lacks calculator")
	}

	s.writeConfig(t, "[tools]\noptional = []\n")
	select {
	case <-changed:
	case <-time.After(10 * time.Second):
		t.Fatalf("no notifications/tools/list_changed:\n%s", p.stderr.String())
	}
	after, calc := count()
	if calc || after >= before {
		t.Fatalf("tools/list after reload: %d tools (was %d), calculator %v", after, before, calc)
	}

	s.writeConfig(t, "[tools]\noptional = [\n")
	p.waitLog(t, "config reload failed; keeping the running catalog")
	if n, _ := count(); n != after {
		t.Fatalf("a broken config changed the catalog: %d tools", n)
	}

	s.writeConfig(t, "[tools]\noptional = [\"calculator\"]\n")
	select {
	case <-changed:
	case <-time.After(10 * time.Second):
		t.Fatal("no notification after the config was fixed")
	}
	if _, calc := count(); !calc {
		t.Fatal("calculator not back")
	}
	if err := p.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	p.waitLog(t, "reason=SIGHUP")
}

// A server started without a config file watches for the one it would
// load: creating it later is picked up like an edit.
func TestServePicksUpACreatedConfig(t *testing.T) {
	s := newSandbox(t, "")
	if err := os.Remove(filepath.Join(s.ws, "talon.toml")); err != nil {
		t.Fatal(err)
	}
	p := startHTTP(t, s, "talon", "serve", "--listen", "127.0.0.1:0")
	changed := make(chan struct{}, 8)
	cs := connectHTTP(t, p.url, nil, &sdk.ClientOptions{ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) {
		changed <- struct{}{}
	}})
	xdg := filepath.Join(s.env()["XDG_CONFIG_HOME"], "talon", "config.toml")
	if err := os.MkdirAll(filepath.Dir(xdg), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(xdg, []byte("[tools]\noptional = []\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	select {
	case <-changed:
	case <-time.After(10 * time.Second):
		t.Fatalf("the created config was not picked up:\n%s", p.stderr.String())
	}
	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range list.Tools {
		if tl.Name == "calculator" {
			t.Fatal("calculator still listed under optional = []")
		}
	}
	// Later edits of the file it found are watched too.
	if err := os.WriteFile(xdg, []byte("[tools]\noptional = [\"calculator\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	select {
	case <-changed:
	case <-time.After(10 * time.Second):
		t.Fatalf("an edit of the found config was not picked up:\n%s", p.stderr.String())
	}
}

// shellConfig lets the shell run sleep without asking.
const shellConfig = "[risk_profiles.default]\nlevel = \"full\"\nallowed_commands = [\"sleep\"]\n"

func requireShell(t *testing.T) {
	t.Helper()
	if _, ok := toolfactory.Get("shell"); !ok {
		t.Skip("the shell tool is not compiled in")
	}
}

func TestServeHTTPDisconnectCancelsCall(t *testing.T) {
	requireShell(t)
	s := newSandbox(t, shellConfig)
	p := startHTTP(t, s, "talon", "serve", "--listen", "127.0.0.1:0")
	tr := newHeaderTransport(nil)
	cs := connectHTTP(t, p.url, tr, nil)
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "shell", Arguments: map[string]any{"command": "sleep 5"}})
		done <- err
	}()
	p.waitLog(t, "decision=allow")
	time.Sleep(200 * time.Millisecond)
	start := time.Now()
	tr.cut()
	p.waitLog(t, "call cancelled by the caller")
	if d := time.Since(start); d > 4*time.Second {
		t.Fatalf("the call was cancelled only after %s", d)
	}
	<-done
}

func TestServeStdioDisconnectCancelsCall(t *testing.T) {
	requireShell(t)
	s := newSandbox(t, shellConfig)
	cmd := s.command(t, "talon", "serve", "--stdio")
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	c := sdk.NewClient(&sdk.Implementation{Name: "e2e", Version: "v0"}, nil)
	cs, err := c.Connect(context.Background(), &sdk.IOTransport{Reader: stdout, Writer: stdin}, nil)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		_, _ = cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "shell", Arguments: map[string]any{"command": "sleep 5"}})
	}()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(stderr.String(), "decision=allow") {
		if time.Now().After(deadline) {
			t.Fatalf("call never started:\n%s", stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	start := time.Now()
	// The client is gone, without a word: both pipes close.
	_ = stdin.Close()
	_ = stdout.Close()
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
	}
	if d := time.Since(start); d > 4*time.Second {
		t.Fatalf("talon took %s to stop after its client went away:\n%s", d, stderr.String())
	}
	if !strings.Contains(stderr.String(), "call cancelled by the caller") {
		t.Fatalf("the running call was not cancelled:\n%s", stderr.String())
	}
}

// A client that pipes its requests and closes its end gets every answer,
// and the server exits 0.
func TestServeStdioPipedRequests(t *testing.T) {
	s := newSandbox(t, "")
	var in strings.Builder
	in.WriteString(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"pipe","version":"0"}}}` + "\n")
	in.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}` + "\n")
	const calls = 100
	for i := 1; i <= calls; i++ {
		fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"calculator","arguments":{"expression":"%d*2"}}}`+"\n", i, i)
	}
	in.WriteString("not json\n")
	cmd := s.command(t, "talon", "serve", "--stdio")
	cmd.Stdin = strings.NewReader(in.String())
	var stdout, stderr lockedBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("talon serve --stdio: %v\n%s", err, stderr.String())
	}
	answered := map[int]bool{}
	parseErrors := 0
	for _, line := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		var r struct {
			ID     *int            `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Code int `json:"code"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("not JSON on stdout: %q", line)
		}
		switch {
		case r.ID == nil && r.Error != nil && r.Error.Code == -32700:
			parseErrors++
		case r.ID != nil && *r.ID > 0 && strings.Contains(string(r.Result), fmt.Sprintf(`"%d"`, *r.ID*2)):
			answered[*r.ID] = true
		}
	}
	if len(answered) != calls || parseErrors != 1 {
		t.Fatalf("answered %d of %d calls and %d parse errors (want 1); stderr:\n%s", len(answered), calls, parseErrors, stderr.String())
	}
}

func TestServeShutdownCancelsAtDeadline(t *testing.T) {
	s := newSandbox(t, "")
	p := startHTTP(t, s, "talon", "serve", "--listen", "127.0.0.1:0", "--shutdown-timeout", "300ms")
	cs := connectHTTP(t, p.url, nil, nil)
	go func() {
		_, _ = cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "file_write", Arguments: map[string]any{"path": "late.txt", "content": "x"}})
	}()
	pendingID(t, s)
	start := time.Now()
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-p.exited:
		p.exited <- err
		if err != nil {
			t.Fatalf("exit: %v\n%s", err, p.stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("talon did not stop")
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("shutdown took %s", d)
	}
	for _, want := range []string{"shutting down", "cancelled", "stopped"} {
		if !strings.Contains(p.stderr.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, p.stderr.String())
		}
	}
	if _, err := os.Stat(filepath.Join(s.ws, "late.txt")); err == nil {
		t.Fatal("a call cancelled at shutdown ran")
	}
	if socks, _ := filepath.Glob(filepath.Join(s.dir, "data", "talon", "serve", "*.sock")); len(socks) != 0 {
		t.Errorf("control socket left behind: %v", socks)
	}
}

func TestServeMCPServersAsSources(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cfg := fmt.Sprintf(`[mcp.servers.helper]
command = %q
env = { %s = "mcp-helper" }
tier = "low"

[mcp.servers.broken]
command = "/nonexistent/mcp-server"

[tools.commands.greet]
description = "Say hello"
command = ["echo", "hello", "{{ input.name }}"]
parameters = { type = "object", properties = { name = { type = "string" } }, required = ["name"] }
tier = "low"
`, exe, testMainEnv)
	s := newSandbox(t, cfg)
	p := startHTTP(t, s, "talon", "serve", "--listen", "127.0.0.1:0")
	for _, want := range []string{"mcp 1", "helper: 1 tools", "broken failed to start, skipped"} {
		if !strings.Contains(p.stderr.String(), want) {
			t.Errorf("banner lacks %q:\n%s", want, p.stderr.String())
		}
	}
	cs := connectHTTP(t, p.url, nil, nil)
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "helper__echo", Arguments: map[string]any{"text": "hi"}})
	if err != nil || res.IsError || callText(t, res) != "echo: hi" {
		t.Fatalf("%v %+v", err, res)
	}
	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, tl := range list.Tools {
		listed[tl.Name] = true
		if tl.Name == "helper__echo" && (tl.Description != "Echo the text back." || tl.Meta["talon/attribution"] != "mcp.helper") {
			t.Errorf("helper__echo listed as %+v", tl)
		}
	}
	if !listed["helper__echo"] || !listed["tool__greet"] || !listed["file_read"] {
		t.Errorf("tools/list lacks a source: %v", listed)
	}
}

func TestFileWatch(t *testing.T) {
	path := filepath.Join(t.TempDir(), "talon.toml")
	if err := os.WriteFile(path, []byte("a"), 0o644); err != nil {
		t.Fatal(err)
	}
	w := newFileWatch(path)
	if w.changed() {
		t.Fatal("unchanged file reported")
	}
	if err := os.WriteFile(path, []byte("bb"), 0o644); err != nil {
		t.Fatal(err)
	}
	if !w.changed() {
		t.Fatal("change missed")
	}
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(path, later, later); err != nil {
		t.Fatal(err)
	}
	if w.changed() {
		t.Fatal("a touch without new content reported")
	}
	if newFileWatch("").changed() {
		t.Fatal("no file, yet a change")
	}
}

// BenchmarkServeRoundTrip measures a tools/call round trip of a no-op
// (calculator 1+1) through talon serve against the official SDK's minimal
// server answering the same call, alternating the two in one loop so both
// see the same machine. Metrics: talon-ns/call, sdk-ns/call and
// talon/sdk, the ratio. The plain variants run with receipts off (the
// dispatch itself); the /receipts ones include each call's durable receipt.
func BenchmarkServeRoundTrip(b *testing.B) {
	transports := []struct {
		name    string
		connect func(b *testing.B, s *sandbox, mode string, args ...string) *sdk.ClientSession
	}{
		{name: "stdio", connect: func(b *testing.B, s *sandbox, mode string, args ...string) *sdk.ClientSession {
			return connectStdio(b, s, mode, io.Discard, args...)
		}},
		{name: "http", connect: func(b *testing.B, s *sandbox, mode string, args ...string) *sdk.ClientSession {
			if mode == "talon" {
				args = append(args, "--listen", "127.0.0.1:0")
			}
			p := startHTTP(b, s, mode, args...)
			return connectHTTP(b, p.url, nil, nil)
		}},
	}
	for _, tr := range transports {
		for _, withReceipts := range []bool{false, true} {
			name, config := tr.name, "[receipts]\nenabled = false\n"
			if withReceipts {
				// Each call waits for its receipt to reach the disk (fsync).
				name, config = tr.name+"/receipts", ""
			}
			b.Run(name, func(b *testing.B) { benchRoundTrip(b, tr.name, tr.connect, config) })
		}
	}
}

func benchRoundTrip(b *testing.B, transport string, connect func(b *testing.B, s *sandbox, mode string, args ...string) *sdk.ClientSession, config string) {
	s := newSandbox(b, config)
	args := []string{"serve", "--log-level", "warn"}
	if transport == "stdio" {
		args = append(args, "--stdio")
	}
	talon := connect(b, s, "talon", args...)
	baseline := connect(b, s, "baseline-"+transport)
	ctx := context.Background()
	params := &sdk.CallToolParams{Name: "calculator", Arguments: map[string]any{"expression": "1+1"}}
	for _, cs := range []*sdk.ClientSession{talon, baseline} {
		for range 20 {
			res, err := cs.CallTool(ctx, params)
			if err != nil || res.IsError || callText(b, res) != "2" {
				b.Fatalf("warm-up call: %v %+v", err, res)
			}
		}
	}
	var tTalon, tSDK time.Duration
	n := 0
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		if _, err := talon.CallTool(ctx, params); err != nil {
			b.Fatal(err)
		}
		mid := time.Now()
		if _, err := baseline.CallTool(ctx, params); err != nil {
			b.Fatal(err)
		}
		tTalon += mid.Sub(start)
		tSDK += time.Since(mid)
		n++
	}
	b.ReportMetric(float64(tTalon.Nanoseconds())/float64(n), "talon-ns/call")
	b.ReportMetric(float64(tSDK.Nanoseconds())/float64(n), "sdk-ns/call")
	b.ReportMetric(float64(tTalon)/float64(tSDK), "talon/sdk")
}
