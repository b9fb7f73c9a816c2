//go:build unix

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/talonhq/talon/cli"
	"github.com/talonhq/talon/internal/syncbuf"
	mcpserver "github.com/talonhq/talon/mcp/server"
	"github.com/talonhq/talon/receipts"
)

// multiprocEnv sets how long TestMultiprocessReceipts keeps its writers
// going, as a Go duration: 30s by default, 3s under -short.
const multiprocEnv = "TALON_MULTIPROC_DURATION"

// mpPace is how often each server of TestMultiprocessReceipts is called:
// a steady pace, not as fast as possible, so that four race-enabled
// servers and the test leave the machine's cores to the rest of the suite.
const mpPace = 50 * time.Millisecond

// mpLoopPace is how often each talon tools call loop starts a call, at
// most: each one is a race-enabled process of its own.
const mpLoopPace = 400 * time.Millisecond

func multiprocDuration(t *testing.T) time.Duration {
	t.Helper()
	if v := os.Getenv(multiprocEnv); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatalf("%s=%q: %v", multiprocEnv, v, err)
		}
		return d
	}
	if testing.Short() {
		return 3 * time.Second
	}
	return 30 * time.Second
}

// mpHome is a private home and data dir shared by several talon processes
// (this test binary re-executed as talon).
type mpHome struct {
	dir string
	ws  string
	env []string
	// ctx ends when the test does: every process the test started that
	// is still running then is killed and reaped, whatever went wrong.
	ctx context.Context
}

func newMPHome(t *testing.T) *mpHome {
	t.Helper()
	// Short, so that the control sockets under the data dir fit.
	dir, err := os.MkdirTemp("", "mp")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	h := &mpHome{dir: dir, ws: filepath.Join(dir, "ws"), ctx: ctx}
	if err := os.MkdirAll(h.ws, 0o755); err != nil {
		t.Fatal(err)
	}
	h.env = []string{"TALON_TEST_AS_TALON=1", "PATH=" + os.Getenv("PATH"),
		"HOME=" + filepath.Join(dir, "home"), "XDG_CONFIG_HOME=" + filepath.Join(dir, "config"), "XDG_DATA_HOME=" + filepath.Join(dir, "data"),
		// A race-enabled program sleeps a second before it exits, by
		// default; the tools call loops start hundreds of them.
		"GORACE=" + strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0")}
	return h
}

func (h *mpHome) receiptsDir() string { return filepath.Join(h.dir, "data", "talon", "receipts") }

// mpCallTimeout bounds one call or one talon run: a hung process fails
// the test instead of holding it until go test's timeout.
const mpCallTimeout = 2 * time.Minute

// command returns talon with args, killed when ctx ends.
func (h *mpHome) command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Dir = h.ws
	cmd.Env = h.env
	cmd.WaitDelay = 10 * time.Second
	return cmd
}

// run runs talon to the end and returns its output and exit code.
func (h *mpHome) run(args ...string) (stdout, stderr string, code int, err error) {
	ctx, cancel := context.WithTimeout(h.ctx, mpCallTimeout)
	defer cancel()
	cmd := h.command(ctx, args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return out.String(), errOut.String(), 0, nil
	case errors.As(err, &ee) && ctx.Err() == nil:
		return out.String(), errOut.String(), ee.ExitCode(), nil
	}
	return out.String(), errOut.String(), -1, err
}

// runHere runs talon in this process, as a person's terminal would: the
// control sockets refuse `talon approvals` started by a talon process,
// which this test binary, re-executed as the servers, is.
func (h *mpHome) runHere(args ...string) (out string, code int) {
	var b bytes.Buffer
	env := map[string]string{}
	for _, kv := range h.env {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	code = cli.Main(args, cli.IOStreams{In: strings.NewReader(""), Out: &b, ErrOut: &b, Cwd: h.ws,
		Getenv: func(k string) string { return env[k] }})
	return b.String(), code
}

// syncBuffer collects output written from several goroutines.
type syncBuffer = syncbuf.Buffer

// mpServer is a talon serve --stdio with an MCP client on its pipes.
type mpServer struct {
	cmd    *exec.Cmd
	cs     *sdk.ClientSession
	stderr *syncBuffer
}

func (h *mpHome) serve(t *testing.T) *mpServer {
	t.Helper()
	s := &mpServer{cmd: h.command(h.ctx, "serve", "--stdio"), stderr: &syncBuffer{}}
	s.cmd.Stderr = s.stderr
	c := sdk.NewClient(&sdk.Implementation{Name: "multiproc", Version: "v0"}, nil)
	cs, err := c.Connect(context.Background(), &sdk.CommandTransport{Command: s.cmd}, nil)
	if err != nil {
		t.Fatalf("connect to talon serve --stdio: %v\n%s", err, s.stderr.String())
	}
	s.cs = cs
	t.Cleanup(func() { _ = cs.Close() })
	return s
}

// metaReceipt decodes the receipt a result carries in _meta.
func metaReceipt(res *sdk.CallToolResult) (*receipts.Receipt, error) {
	raw, ok := res.Meta[mcpserver.MetaReceipt]
	if !ok {
		return nil, errors.New("the result carries no receipt")
	}
	b, err := json.Marshal(raw)
	if err != nil {
		return nil, err
	}
	var r receipts.Receipt
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// acked collects the receipts talon acknowledged, by signature.
type acked struct {
	mu sync.Mutex
	by map[string]*receipts.Receipt
}

func (a *acked) add(r *receipts.Receipt) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.by[r.Sig] = r
}

// TestMultiprocessReceipts runs four talon serve --stdio and two loops of
// talon tools call on one data directory at once, SIGKILLs one server
// mid-stream, and checks that every receipt any of them acknowledged is in
// the log, that every chain verifies, and that the killed writer's torn
// tail is reported in its own chain only, then noted by the next writer.
func TestMultiprocessReceipts(t *testing.T) {
	d := multiprocDuration(t)
	h := newMPHome(t)
	const nServers, nLoops, victim = 4, 2, 3
	servers := make([]*mpServer, nServers)
	for i := range servers {
		servers[i] = h.serve(t)
	}
	got := &acked{by: map[string]*receipts.Receipt{}}
	var calls atomic.Int64
	var killed atomic.Bool
	firstAck := make(chan struct{})
	var firstOnce sync.Once
	victimChain := make(chan string, 1)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	// However the test ends, the loops stop and are waited for before the
	// servers are closed (cleanups run last registered first).
	stopLoops := sync.OnceFunc(func() { close(stop); wg.Wait() })
	t.Cleanup(stopLoops)
	for i, s := range servers {
		wg.Go(func() {
			tick := time.NewTicker(mpPace)
			defer tick.Stop()
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				case <-tick.C:
				}
				ctx, cancel := context.WithTimeout(h.ctx, mpCallTimeout)
				res, err := s.cs.CallTool(ctx, &sdk.CallToolParams{Name: "calculator",
					Arguments: map[string]any{"expression": fmt.Sprintf("%d+%d", i, n)}})
				cancel()
				if err != nil {
					if i == victim && killed.Load() {
						return
					}
					t.Errorf("server %d, call %d: %v\n%s", i, n, err, s.stderr.String())
					return
				}
				if res.IsError {
					t.Errorf("server %d, call %d failed: %+v", i, n, res.Content)
					return
				}
				r, err := metaReceipt(res)
				if err != nil {
					t.Errorf("server %d, call %d: %v", i, n, err)
					return
				}
				got.add(r)
				if i == victim {
					firstOnce.Do(func() { victimChain <- r.Chain; close(firstAck) })
				}
			}
		})
	}
	for i := range nLoops {
		wg.Go(func() {
			tick := time.NewTicker(mpLoopPace)
			defer tick.Stop()
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				case <-tick.C:
				}
				out, errOut, code, err := h.run("tools", "call", "calculator", fmt.Sprintf(`{"expression":"%d*%d"}`, i+7, n), "--json")
				if err != nil || code != 0 {
					t.Errorf("tools call loop %d, call %d: exit %d, %v\n%s", i, n, code, err, errOut)
					return
				}
				var res struct {
					Receipt *receipts.Receipt `json:"receipt"`
				}
				if err := json.Unmarshal([]byte(out), &res); err != nil || res.Receipt == nil {
					t.Errorf("tools call loop %d, call %d: no receipt in %s (%v)", i, n, out, err)
					return
				}
				got.add(res.Receipt)
				calls.Add(1)
			}
		})
	}

	// Half way through, once the victim has acknowledged a receipt, kill it
	// in the middle of its stream of calls.
	half := time.NewTimer(d / 2)
	<-half.C
	select {
	case <-firstAck:
	case <-time.After(30 * time.Second):
		t.Fatalf("server %d acknowledged no receipt:\n%s", victim, servers[victim].stderr.String())
	}
	killed.Store(true)
	if err := servers[victim].cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	rest := time.NewTimer(d - d/2)
	<-rest.C
	stopLoops()
	for i, s := range servers {
		if i != victim {
			_ = s.cs.Close()
		}
	}
	if t.Failed() {
		return
	}
	vc := <-victimChain
	t.Logf("%d receipts acknowledged over %s, %d of them by talon tools call", len(got.by), d, calls.Load())

	// Every acknowledged receipt is in the log, exactly as acknowledged.
	out, errOut, code, err := h.run("receipts", "export")
	if err != nil || code != 0 {
		t.Fatalf("receipts export: exit %d, %v\n%s", code, err, errOut)
	}
	exported := map[string]string{}
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		r, err := receipts.ParseRecord([]byte(l))
		if err != nil {
			t.Fatalf("export line %q: %v", l, err)
		}
		exported[r.Sig] = l
	}
	chains := map[string]bool{}
	for sig, r := range got.by {
		if exported[sig] != string(r.Canonical()) {
			t.Errorf("acknowledged receipt %s (chain %s seq %d) is not in the log as acknowledged", r.ID, r.Chain, r.Seq)
		}
		chains[r.Chain] = true
	}
	if len(chains) < nServers {
		t.Errorf("receipts came from %d chains, want at least one per server (%d)", len(chains), nServers)
	}
	out, _, code, _ = h.run("receipts", "list", "--json")
	var listed []json.RawMessage
	if code != 0 || json.Unmarshal([]byte(out), &listed) != nil || len(listed) != len(exported) {
		t.Errorf("receipts list --json: exit %d, %d receipts, want %d", code, len(listed), len(exported))
	}

	// A SIGKILL cannot cut one write(2) short, so the kill above rarely
	// tears anything: cut the victim's chain as a crash mid-write would.
	// Then every chain verifies but the victim's, which ends in that torn
	// record (and nothing worse before it).
	seg := tearChain(t, filepath.Join(h.receiptsDir(), receipts.ChainsDir, vc))
	rep := receipts.Verify(h.receiptsDir(), nil)
	for _, c := range rep.Chains {
		switch {
		case c.Chain == vc && (c.Problem == nil || c.Problem.Reason != receipts.ReasonTorn || !strings.HasSuffix(c.Problem.Segment, seg)):
			t.Fatalf("want the torn record reported in chain %s (%s):\n%s", vc, seg, rep)
		case c.Chain != vc && c.Problem != nil:
			t.Fatalf("a torn tail in chain %s made chain %s fail:\n%s", vc, c.Chain, rep)
		}
	}
	out, _, code, _ = h.run("receipts", "verify")
	if code != 6 || !strings.Contains(out, "torn record") || !strings.Contains(out, "chains/"+vc+"/") {
		t.Fatalf("receipts verify with a torn tail: exit %d, want 6 naming chain %s:\n%s", code, vc, out)
	}

	// The next writer continues the torn chain and notes the tail.
	out, errOut, code, err = h.run("tools", "call", "calculator", `{"expression":"1+1"}`, "--json")
	if err != nil || code != 0 {
		t.Fatalf("tools call after the crash: exit %d, %v\n%s", code, err, errOut)
	}
	var res struct {
		Receipt *receipts.Receipt `json:"receipt"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.Receipt == nil || res.Receipt.Chain != vc || len(res.Receipt.Torn) != 1 {
		t.Fatalf("the next receipt should continue chain %s and note its torn tail: %s", vc, out)
	}
	out, _, code, _ = h.run("receipts", "verify")
	if code != 0 || !strings.Contains(out, "torn tail: chains/"+vc+"/") || !strings.Contains(out, "OK: every signature and all") {
		t.Fatalf("receipts verify after the tail was noted: exit %d\n%s", code, out)
	}
}

// tearChain appends half of a chain's last record, without a newline, to
// its last segment unless it already ends in a partial line, and returns
// the segment's name.
func tearChain(t *testing.T, dir string) string {
	t.Helper()
	segs, err := filepath.Glob(filepath.Join(dir, "segment-*.jsonl"))
	if err != nil || len(segs) == 0 {
		t.Fatalf("chain %s has no segments (%v)", dir, err)
	}
	for i := len(segs) - 1; i >= 0; i-- {
		data, err := os.ReadFile(segs[i])
		if err != nil {
			t.Fatal(err)
		}
		if len(data) == 0 {
			continue
		}
		if data[len(data)-1] != '\n' {
			return filepath.Base(segs[i])
		}
		lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
		last := lines[len(lines)-1]
		f, err := os.OpenFile(segs[i], os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write(last[:len(last)/2]); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		return filepath.Base(segs[i])
	}
	t.Fatalf("chain %s has only empty segments", dir)
	return ""
}

// TestMultiprocessApprovals: talon approvals lists the pending approvals
// of every server running on the data directory, and answers each on the
// server that holds it.
func TestMultiprocessApprovals(t *testing.T) {
	h := newMPHome(t)
	// A failed run ends within the timeout instead of waiting on calls
	// nobody answers.
	if err := os.WriteFile(filepath.Join(h.ws, "talon.toml"), []byte("[approvals]\ntimeout_seconds = 30\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	servers := []*mpServer{h.serve(t), h.serve(t)}
	type result struct {
		res *sdk.CallToolResult
		err error
	}
	// The calls end when they are denied below, or when the test ends
	// (h.ctx) however it ends; the goroutines only report on the channel.
	results := make(chan result, len(servers))
	for i, s := range servers {
		go func() {
			res, err := s.cs.CallTool(h.ctx, &sdk.CallToolParams{Name: "file_write",
				Arguments: map[string]any{"path": fmt.Sprintf("out%d.txt", i), "content": "queued"}})
			results <- result{res, err}
		}()
	}
	var list []mcpserver.PendingApproval
	deadline := time.Now().Add(30 * time.Second)
	for len(list) < len(servers) {
		if time.Now().After(deadline) {
			t.Fatalf("approvals list never showed both servers' requests: %+v", list)
		}
		time.Sleep(20 * time.Millisecond)
		out, code := h.runHere("approvals", "list", "--json")
		if code != 0 {
			t.Fatalf("approvals list: exit %d\n%s", code, out)
		}
		list = nil
		if err := json.Unmarshal([]byte(out), &list); err != nil {
			t.Fatalf("approvals list --json: %v\n%s", err, out)
		}
	}
	pids := map[int]bool{}
	for _, p := range list {
		pids[p.Server] = true
		if p.Tool != "file_write" {
			t.Errorf("pending %+v, want file_write", p)
		}
	}
	if len(list) != 2 || len(pids) != 2 || !pids[servers[0].cmd.Process.Pid] || !pids[servers[1].cmd.Process.Pid] {
		t.Fatalf("pending = %+v, want one request from each server (pids %d, %d)", list, servers[0].cmd.Process.Pid, servers[1].cmd.Process.Pid)
	}
	for _, p := range list {
		if out, code := h.runHere("approvals", "deny", p.ID); code != 0 {
			t.Fatalf("approvals deny %s: exit %d\n%s", p.ID, code, out)
		}
	}
	for range servers {
		if r := <-results; r.err != nil || !r.res.IsError {
			t.Fatalf("a denied call returned %+v, %v", r.res, r.err)
		}
	}
}
