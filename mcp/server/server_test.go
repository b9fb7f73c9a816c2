package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	_ "github.com/talonhq/talon/adapters/calc"
	_ "github.com/talonhq/talon/adapters/fsx"
	"github.com/talonhq/talon/approval"
	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/receipts"
	"github.com/talonhq/talon/runtime"
	"github.com/talonhq/talon/tool"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// fixture is a server over a runtime on a temporary workspace.
type fixture struct {
	ws    string
	queue *approval.Queue
	rt    *runtime.Runtime
	srv   *Server
}

type fixtureOptions struct {
	config      string // TOML; "" means the defaults
	queue       bool
	receipts    bool
	maxInFlight int
	maxQueued   int
}

func newFixture(t *testing.T, o fixtureOptions) *fixture {
	t.Helper()
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "hello.txt"), []byte("hello\nworld\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	if o.config != "" {
		var err error
		if cfg, _, err = config.Parse("talon.toml", []byte(o.config)); err != nil {
			t.Fatal(err)
		}
	}
	f := &fixture{ws: ws}
	approver := &Approver{}
	if o.queue {
		f.queue = approval.NewQueue(approval.QueueOptions{Timeout: 10 * time.Second})
		approver.Queue = f.queue
	}
	opts := runtime.Options{Config: cfg, Workspace: ws, DataDir: t.TempDir(), Approver: approver}
	if o.receipts {
		store, err := receipts.Open(receipts.Options{Dir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = store.Close() })
		opts.Receipts = store
	}
	var err error
	f.rt, err = runtime.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	f.srv, err = New(Options{Runtime: f.rt, MaxInFlight: o.maxInFlight, MaxQueued: o.maxQueued})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.srv.Close() })
	return f
}

// connect opens a session with the official client over a pair of pipes,
// as an editor talks to `talon serve --stdio`.
func (f *fixture) connect(t *testing.T, opts *sdk.ClientOptions) *sdk.ClientSession {
	t.Helper()
	toServer, fromClient := io.Pipe()
	toClient, fromServer := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.srv.ServeStdio(ctx, toServer, fromServer) }()
	c := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "v0"}, opts)
	cs, err := c.Connect(context.Background(), &sdk.IOTransport{Reader: toClient, Writer: fromClient}, nil)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.Close()
		cancel()
		_ = toClient.Close()
		if err := <-done; err != nil {
			t.Errorf("ServeStdio: %v", err)
		}
	})
	return cs
}

func text(t *testing.T, res *sdk.CallToolResult) string {
	t.Helper()
	var parts []string
	for _, c := range res.Content {
		tc, ok := c.(*sdk.TextContent)
		if !ok {
			t.Fatalf("content %T, want text", c)
		}
		parts = append(parts, tc.Text)
	}
	return strings.Join(parts, "\n")
}

func TestToolsList(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	cs := f.connect(t, nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*sdk.Tool{}
	for _, tl := range res.Tools {
		byName[tl.Name] = tl
	}
	for _, name := range []string{"calculator", "file_read", "file_write"} {
		tl, ok := byName[name]
		if !ok {
			t.Fatalf("tools/list lacks %s: %v", name, f.srv.Tools())
		}
		if tl.Description == "" || tl.InputSchema == nil {
			t.Errorf("%s has no description or schema", name)
		}
	}
	if got := byName["file_read"].Meta[MetaTier]; got != "low" {
		t.Errorf("file_read tier meta = %v", got)
	}
	if got := byName["file_read"].Meta[MetaAttribution]; got != "builtin.file_read" {
		t.Errorf("file_read attribution meta = %v", got)
	}
}

func TestToolsCall(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	cs := f.connect(t, nil)
	tests := []struct {
		name       string
		tool       string
		args       any
		wantErr    bool // a JSON-RPC error
		isError    bool
		text       string // substring
		structured bool
	}{
		{name: "calculator", tool: "calculator", args: map[string]any{"expression": "1+1"}, text: "2", structured: true},
		{name: "file_read", tool: "file_read", args: map[string]any{"path": "hello.txt"}, text: "hello", structured: true},
		{name: "schema failure", tool: "file_read", args: map[string]any{"path": 3}, isError: true, text: "/path"},
		{name: "denied without approver", tool: "file_write", args: map[string]any{"path": "a.txt", "content": "x"}, isError: true, text: approval.DeniedNoApprover},
		{name: "unknown tool", tool: "no_such_tool", args: map[string]any{}, wantErr: true},
		{name: "outside workspace", tool: "file_read", args: map[string]any{"path": "/etc/passwd"}, isError: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tt.tool, Arguments: tt.args})
			if tt.wantErr {
				if err == nil {
					t.Fatalf("want a protocol error, got %+v", res)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.IsError != tt.isError {
				t.Fatalf("isError = %v, want %v: %s", res.IsError, tt.isError, text(t, res))
			}
			if got := text(t, res); !strings.Contains(got, tt.text) {
				t.Fatalf("text %q lacks %q", got, tt.text)
			}
			if (res.StructuredContent != nil) != tt.structured {
				t.Fatalf("structuredContent = %v", res.StructuredContent)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(f.ws, "a.txt")); err == nil {
		t.Fatal("a denied file_write ran")
	}
}

func TestNonObjectArgumentsAreProtocolErrors(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	lines := []string{initLine, initializedLine}
	for i, args := range []string{`[1,2]`, `"x"`, `7`} {
		lines = append(lines, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"calculator","arguments":%s}}`, i+2, args))
	}
	lines = append(lines, `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"calculator"}}`)
	replies := serveLines(t, f, lines)
	for i, args := range []string{`[1,2]`, `"x"`, `7`} {
		r := replies[fmt.Sprint(i+2)]
		if len(r) != 1 || r[0].Error == nil || r[0].Error.Code != codeInvalidParams || !strings.Contains(r[0].Error.Message, "object") {
			t.Errorf("arguments %s: replies = %+v, want invalid params naming the object rule", args, r)
		}
	}
	r := replies["9"]
	if len(r) != 1 || r[0].Error != nil {
		t.Fatalf("missing arguments are {} and reach the schema, got %+v", r)
	}
	var res struct {
		IsError bool `json:"isError"`
	}
	_ = json.Unmarshal(r[0].Result, &res)
	if !res.IsError {
		t.Errorf("no arguments passed the calculator's schema: %s", r[0].Result)
	}
}

// elicitor answers every elicitation with answer, recording the messages.
type elicitor struct {
	mu       sync.Mutex
	answer   string
	action   string
	messages []string
	schemas  []any
}

func (e *elicitor) handle(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.messages = append(e.messages, req.Params.Message)
	e.schemas = append(e.schemas, req.Params.RequestedSchema)
	if e.action != "accept" && e.action != "" {
		return &sdk.ElicitResult{Action: e.action}, nil
	}
	return &sdk.ElicitResult{Action: "accept", Content: map[string]any{answerField: e.answer}}, nil
}

func TestApprovalByElicitation(t *testing.T) {
	tests := []struct {
		name      string
		answer    string
		action    string
		wantRun   bool
		wantText  string
		wantAsked int // elicitations over two identical calls
	}{
		{name: "yes", answer: "yes", wantRun: true, wantAsked: 2},
		{name: "always", answer: "always", wantRun: true, wantAsked: 1},
		{name: "no", answer: "no", wantText: approval.DeniedByUser, wantAsked: 2},
		{name: "decline", action: "decline", wantText: approval.DeniedByUser, wantAsked: 2},
		{name: "cancel", action: "cancel", wantText: approval.DeniedNoApprover, wantAsked: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, fixtureOptions{})
			// The file exists, so both calls have the same plan (an overwrite),
			// which is what an "always" answer binds to.
			out := filepath.Join(f.ws, "out.txt")
			if err := os.WriteFile(out, []byte("before"), 0o644); err != nil {
				t.Fatal(err)
			}
			el := &elicitor{answer: tt.answer, action: tt.action}
			cs := f.connect(t, &sdk.ClientOptions{ElicitationHandler: el.handle})
			for range 2 {
				res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{
					Name: "file_write", Arguments: map[string]any{"path": "out.txt", "content": "hi"},
				})
				if err != nil {
					t.Fatal(err)
				}
				if res.IsError == tt.wantRun || !strings.Contains(text(t, res), tt.wantText) {
					t.Fatalf("isError = %v, text %q", res.IsError, text(t, res))
				}
				if !tt.wantRun && res.Meta[MetaDenied] != true {
					t.Errorf("denied result lacks %s: %v", MetaDenied, res.Meta)
				}
			}
			got, _ := os.ReadFile(out)
			if ran := string(got) == "hi"; ran != tt.wantRun {
				t.Fatalf("file written = %v, want %v", ran, tt.wantRun)
			}
			el.mu.Lock()
			defer el.mu.Unlock()
			if len(el.messages) != tt.wantAsked {
				t.Fatalf("asked %d times, want %d", len(el.messages), tt.wantAsked)
			}
			for _, want := range []string{"file_write", "builtin.file_write", "medium", "out.txt"} {
				if !strings.Contains(el.messages[0], want) {
					t.Errorf("question lacks %q:\n%s", want, el.messages[0])
				}
			}
		})
	}
}

func TestAlwaysAskOffersNoAlways(t *testing.T) {
	f := newFixture(t, fixtureOptions{config: "[risk_profiles.default]\nalways_ask = [\"calculator\"]\n"})
	el := &elicitor{answer: "yes"}
	cs := f.connect(t, &sdk.ClientOptions{ElicitationHandler: el.handle})
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "calculator", Arguments: map[string]any{"expression": "2*3"}})
	if err != nil || res.IsError {
		t.Fatalf("%v %+v", err, res)
	}
	b, _ := json.Marshal(el.schemas[0])
	if strings.Contains(string(b), answerAlways) {
		t.Fatalf("always_ask question offers always: %s", b)
	}
}

// waitPending polls q until n requests wait.
func waitPending(t *testing.T, q *approval.Queue, n int) []approval.Pending {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if l := q.List(); len(l) == n {
			return l
		}
		time.Sleep(2 * time.Millisecond)
	}
	t.Fatalf("queue never held %d requests", n)
	return nil
}

func TestApprovalByQueue(t *testing.T) {
	tests := []struct {
		name    string
		answer  approval.Answer
		wantRun bool
	}{
		{name: "approve", answer: approval.Yes, wantRun: true},
		{name: "deny", answer: approval.No},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, fixtureOptions{queue: true})
			cs := f.connect(t, nil)
			done := make(chan *sdk.CallToolResult, 1)
			go func() {
				res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{
					Name: "file_write", Arguments: map[string]any{"path": "q.txt", "content": "s3cret"},
				})
				if err != nil {
					t.Error(err)
				}
				done <- res
			}()
			p := waitPending(t, f.queue, 1)[0]
			if p.Request.Channel != tool.ChannelMCP || p.Request.SessionID == "" || p.Request.Tier != tool.Medium {
				t.Errorf("pending request = %+v", p.Request)
			}
			if !strings.Contains(p.Request.Args, "q.txt") {
				t.Errorf("approvers do not see the arguments: %s", p.Request.Args)
			}
			if err := f.queue.Decide(p.ID, tt.answer); err != nil {
				t.Fatal(err)
			}
			res := <-done
			if res == nil || res.IsError == tt.wantRun {
				t.Fatalf("result = %+v", res)
			}
		})
	}
}

func TestBusy(t *testing.T) {
	f := newFixture(t, fixtureOptions{queue: true, maxInFlight: 1, maxQueued: -1})
	cs := f.connect(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "file_write", Arguments: map[string]any{"path": "b.txt", "content": "x"}})
		done <- err
	}()
	waitPending(t, f.queue, 1)
	_, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "calculator", Arguments: map[string]any{"expression": "1"}})
	var werr *jsonrpc.Error
	if !errors.As(err, &werr) || werr.Code != CodeBusy || !strings.Contains(werr.Message, "retry") {
		t.Fatalf("second call = %v, want busy", err)
	}
	cancel()
	<-done
	// The slot is free again once the first call ended.
	deadline := time.Now().Add(5 * time.Second)
	for {
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "calculator", Arguments: map[string]any{"expression": "1"}})
		if err == nil && !res.IsError {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("slot never freed: %v", err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// A call beyond the in-flight limit waits for a slot instead of being
// refused, and runs once the slot frees.
func TestQueuedCallWaitsForASlot(t *testing.T) {
	f := newFixture(t, fixtureOptions{queue: true, maxInFlight: 1})
	cs := f.connect(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	first := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "file_write", Arguments: map[string]any{"path": "b.txt", "content": "x"}})
		first <- err
	}()
	waitPending(t, f.queue, 1)
	second := make(chan *sdk.CallToolResult, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "calculator", Arguments: map[string]any{"expression": "20+22"}})
		if err != nil {
			t.Errorf("queued call: %v", err)
		}
		second <- res
	}()
	select {
	case <-second:
		t.Fatal("the second call ran while the only slot was taken")
	case <-time.After(100 * time.Millisecond):
	}
	cancel()
	<-first
	if res := <-second; res == nil || res.IsError || text(t, res) != "42" {
		t.Fatalf("queued call result: %+v", res)
	}
}

func TestSyncSendsListChanged(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	changed := make(chan struct{}, 4)
	cs := f.connect(t, &sdk.ClientOptions{ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) {
		changed <- struct{}{}
	}})
	before, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg, _, err := config.Parse("talon.toml", []byte("[tools]\noptional = []\n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.rt.Reload(cfg); err != nil {
		t.Fatal(err)
	}
	if ch, err := f.srv.Sync(); err != nil || !ch {
		t.Fatalf("Sync = %v, %v", ch, err)
	}
	select {
	case <-changed:
	case <-time.After(5 * time.Second):
		t.Fatal("no notifications/tools/list_changed")
	}
	after, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(after.Tools) >= len(before.Tools) {
		t.Fatalf("tools/list did not shrink: %d -> %d", len(before.Tools), len(after.Tools))
	}
	for _, tl := range after.Tools {
		if tl.Name == "calculator" {
			t.Fatal("calculator still listed under optional = []")
		}
	}
	if ch, _ := f.srv.Sync(); ch {
		t.Fatal("a Sync without changes reported a change")
	}
}

func TestDrainCancelsAtDeadline(t *testing.T) {
	f := newFixture(t, fixtureOptions{queue: true})
	cs := f.connect(t, nil)
	done := make(chan *sdk.CallToolResult, 1)
	go func() {
		res, _ := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "file_write", Arguments: map[string]any{"path": "d.txt", "content": "x"}})
		done <- res
	}()
	waitPending(t, f.queue, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	if err := f.srv.Drain(ctx, 2*time.Second); err == nil {
		t.Fatal("Drain reported no cancelled calls")
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("Drain took %s", d)
	}
	_, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "calculator", Arguments: map[string]any{"expression": "1"}})
	var werr *jsonrpc.Error
	if !errors.As(err, &werr) || !strings.Contains(werr.Message, "shutting down") {
		t.Fatalf("call after drain = %v", err)
	}
	<-done
	if _, err := os.Stat(filepath.Join(f.ws, "d.txt")); err == nil {
		t.Fatal("a call cancelled at shutdown ran")
	}
}

func TestNewNeedsRuntime(t *testing.T) {
	if _, err := New(Options{}); !errors.Is(err, ErrNoRuntime) {
		t.Fatalf("err = %v", err)
	}
}

func TestProtocolVersionsAreHandshakeEra(t *testing.T) {
	vs := protocolVersions()
	if len(vs) == 0 {
		t.Fatal("no protocol versions")
	}
	for _, v := range vs {
		if v >= "2026-07-28" {
			t.Errorf("serves %s", v)
		}
	}
}

func TestReceiptInMeta(t *testing.T) {
	f := newFixture(t, fixtureOptions{receipts: true})
	cs := f.connect(t, nil)
	ctx := context.Background()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "calculator", Arguments: map[string]any{"expression": "1+1"}})
	if err != nil || res.IsError {
		t.Fatalf("%v %+v", err, res)
	}
	rec, ok := res.Meta[MetaReceipt].(map[string]any)
	if !ok {
		t.Fatalf("no receipt in _meta: %v", res.Meta)
	}
	for _, k := range []string{"sig", "args_sha256", "result_sha256", "key_id"} {
		if s, _ := rec[k].(string); s == "" {
			t.Errorf("receipt lacks %s: %v", k, rec)
		}
	}
	if rec["tool"] != "calculator" || rec["channel"] != tool.ChannelMCP || rec["session"] == "" {
		t.Errorf("receipt = %v", rec)
	}
	res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "calculator", Arguments: map[string]any{"expression": 5}})
	if err != nil || !res.IsError {
		t.Fatalf("%v %+v", err, res)
	}
	if _, ok := res.Meta[MetaReceipt]; ok {
		t.Fatal("a failed call carries a receipt")
	}
}
