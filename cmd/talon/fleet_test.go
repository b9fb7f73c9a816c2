//go:build unix

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/talonhq/talon/fleet/fleettest"
	"github.com/talonhq/talon/receipts"
)

// fleetCluster starts a throwaway PostgreSQL for one test and returns a
// new database's URL.
func fleetCluster(t *testing.T) (*fleettest.Cluster, string) {
	t.Helper()
	c, err := fleettest.Start(fleettest.Options{})
	if errors.Is(err, fleettest.ErrNoPostgres) && os.Getenv("CI") == "" {
		t.Skipf("skipped: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Stop() })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	url, err := c.CreateDatabase(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return c, url
}

// fleetHome is a talon home whose talon.toml joins the fleet.
func fleetHome(t *testing.T, url, extra string) *mpHome {
	t.Helper()
	h := newMPHome(t)
	conf := "schema_version = 1\n[tools]\noptional = [\"*\"]\n[fleet]\ndatabase_url = \"" + url + "\"\napprovals = true\n" + extra
	if err := os.WriteFile(filepath.Join(h.ws, "talon.toml"), []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	return h
}

// query runs one SQL query that returns one value.
func query[T any](t *testing.T, url, sql string, args ...any) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var v T
	if err := conn.QueryRow(ctx, sql, args...).Scan(&v); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return v
}

// waitFor polls cond until it holds: servers ship and publish in the
// background.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not so after 90 s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestFleet runs four talon serve processes as four hosts on one
// database: they ship while the database is killed and brought back,
// every receipt ends up there and verifies from it alone, an approval
// one server waits for is answered from another host and its MCP client
// gets the result, and a log cut from its end is caught by --against.
func TestFleet(t *testing.T) {
	c, url := fleetCluster(t)
	hosts := make([]*mpHome, 4)
	for i := range hosts {
		hosts[i] = fleetHome(t, url, "")
	}
	if out, errOut, code, err := hosts[0].run("fleet", "migrate"); err != nil || code != 0 || !strings.Contains(out, "schema at version 1") {
		t.Fatalf("fleet migrate: exit %d, %v\n%s%s", code, err, out, errOut)
	}
	servers := make([]*mpServer, len(hosts))
	for i, h := range hosts {
		servers[i] = h.serve(t)
	}

	// Four hosts call at once; half way the database dies, and comes
	// back a little later. Every call succeeds throughout.
	const perHost = 24
	var mu sync.Mutex
	acked := 0
	var wg sync.WaitGroup
	half := make(chan struct{}, len(hosts))
	resume := make(chan struct{})
	for i, s := range servers {
		wg.Go(func() {
			halved := false
			defer func() {
				if !halved {
					half <- struct{}{} // a failed host does not hold the others
				}
			}()
			for n := range perHost {
				if n == perHost/2 {
					halved = true
					half <- struct{}{}
					<-resume
				}
				ctx, cancel := context.WithTimeout(context.Background(), mpCallTimeout)
				res, err := s.cs.CallTool(ctx, &sdk.CallToolParams{Name: "calculator", Arguments: map[string]any{"expression": fmt.Sprintf("%d+%d", i, n)}})
				cancel()
				if err != nil || res.IsError {
					t.Errorf("host %d call %d: %v %+v\n%s", i, n, err, res, s.stderr.String())
					return
				}
				if _, err := metaReceipt(res); err != nil {
					t.Errorf("host %d call %d: %v", i, n, err)
					return
				}
				mu.Lock()
				acked++
				mu.Unlock()
			}
		})
	}
	for range hosts {
		<-half
	}
	c.Kill()
	killed := make(chan struct{})
	go func() {
		defer close(killed)
		// Calls go on without the database.
		for i, s := range servers {
			ctx, cancel := context.WithTimeout(context.Background(), mpCallTimeout)
			res, err := s.cs.CallTool(ctx, &sdk.CallToolParams{Name: "calculator", Arguments: map[string]any{"expression": "1+1"}})
			cancel()
			if err != nil || res.IsError {
				t.Errorf("host %d while the database is down: %v %+v", i, err, res)
				continue
			}
			mu.Lock()
			acked++
			mu.Unlock()
		}
	}()
	<-killed
	close(resume)
	if err := c.Restart(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	waitFor(t, fmt.Sprintf("all %d receipts in the database", acked), func() bool {
		return query[int64](t, url, `SELECT count(*) FROM talon.receipts`) == int64(acked)
	})
	if n := query[int64](t, url, `SELECT count(DISTINCT host_id) FROM talon.receipts`); n != 4 {
		t.Fatalf("%d hosts shipped, want 4", n)
	}
	out, errOut, code, err := hosts[1].run("receipts", "verify", "--source", "postgres")
	if err != nil || code != 0 || !strings.Contains(out, fmt.Sprintf("4 hosts, 4 chains, %d records verified from the database", acked)) {
		t.Fatalf("verify --source postgres: exit %d, %v\n%s%s", code, err, out, errOut)
	}
	out, errOut, code, err = hosts[2].run("fleet", "status")
	if err != nil || code != 0 || !strings.Contains(out, ": connected") || !strings.Contains(out, "schema:    version 1 (this talon: 1)") ||
		!strings.Contains(out, "hosts:     4") || !strings.Contains(out, "approvals: 0 pending across the fleet") {
		t.Fatalf("fleet status: exit %d, %v\n%s%s", code, err, out, errOut)
	}

	t.Run("approved from another host", func(t *testing.T) {
		type result struct {
			res *sdk.CallToolResult
			err error
		}
		done := make(chan result, 1)
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), mpCallTimeout)
			defer cancel()
			res, err := servers[0].cs.CallTool(ctx, &sdk.CallToolParams{Name: "file_write", Arguments: map[string]any{"path": "notes.txt", "content": "from the fleet\n"}})
			done <- result{res, err}
		}()
		var pending []struct {
			ID   string `json:"id"`
			Host string `json:"host"`
			Tool string `json:"tool"`
		}
		waitFor(t, "the approval is in the fleet inbox", func() bool {
			out, code := hosts[3].runHere("approvals", "list", "--fleet", "--json")
			return code == 0 && json.Unmarshal([]byte(out), &pending) == nil && len(pending) == 1
		})
		if pending[0].Tool != "file_write" {
			t.Fatalf("pending: %+v", pending)
		}
		out, code := hosts[3].runHere("approvals", "approve", pending[0].ID, "--fleet")
		if code != 0 || !strings.Contains(out, "approved "+pending[0].ID+" (file_write on host "+pending[0].Host+")") {
			t.Fatalf("approve --fleet: exit %d\n%s", code, out)
		}
		r := <-done
		if r.err != nil || r.res.IsError {
			t.Fatalf("the waiting client got %+v, %v", r.res, r.err)
		}
		if b, err := os.ReadFile(filepath.Join(hosts[0].ws, "notes.txt")); err != nil || string(b) != "from the fleet\n" {
			t.Fatalf("the approved call did not run: %q %v", b, err)
		}
		by := query[string](t, url, `SELECT answered_by || ' via ' || answered_via FROM talon.approvals WHERE id = $1`, pending[0].ID)
		if !strings.HasSuffix(by, " via fleet") || strings.HasPrefix(by, " ") {
			t.Errorf("the answer records %q", by)
		}
		out, code = hosts[2].runHere("approvals", "deny", pending[0].ID, "--fleet")
		if code != 4 || !strings.Contains(out, "already answered") {
			t.Fatalf("a second answer: exit %d\n%s", code, out)
		}
	})

	t.Run("a log cut from its end", func(t *testing.T) {
		h := hosts[3]
		_ = servers[3].cs.Close()
		_ = servers[3].cmd.Wait()
		ids, err := receipts.ListChains(h.receiptsDir())
		if err != nil || len(ids) != 1 {
			t.Fatalf("chains %v, %v", ids, err)
		}
		dir := filepath.Join(h.receiptsDir(), receipts.ChainsDir, ids[0])
		segs, _ := filepath.Glob(filepath.Join(dir, "segment-*.jsonl"))
		seg := segs[len(segs)-1]
		data, _ := os.ReadFile(seg)
		lines := strings.SplitAfter(strings.TrimSuffix(string(data), "\n"), "\n")
		if err := os.WriteFile(seg, []byte(strings.Join(lines[:len(lines)-2], "")), 0o600); err != nil {
			t.Fatal(err)
		}
		if out, errOut, code, err := h.run("receipts", "verify"); err != nil || code != 0 {
			t.Fatalf("the cut log alone should verify: exit %d, %v\n%s%s", code, err, out, errOut)
		}
		out, errOut, code, err := h.run("receipts", "verify", "--against", "postgres")
		if err != nil || code != 6 || !strings.Contains(out, "missing from the local log: seq") {
			t.Fatalf("verify --against postgres: exit %d, %v\n%s%s", code, err, out, errOut)
		}
	})
}

// traceReceiver is an OTLP/HTTP collector stand-in that keeps the names
// and parents of the spans it receives.
type traceReceiver struct {
	mu    sync.Mutex
	spans map[string][2]string // name -> span id, parent span id
}

func (r *traceReceiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	if req.URL.Path == "/v1/traces" {
		var m coltrace.ExportTraceServiceRequest
		if err := proto.Unmarshal(body, &m); err != nil {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		r.mu.Lock()
		for _, rs := range m.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					r.spans[s.Name] = [2]string{string(s.SpanId), string(s.ParentSpanId)}
				}
			}
		}
		r.mu.Unlock()
	}
	w.Header().Set("Content-Type", "application/x-protobuf")
}

// TestServeTelemetry: a served MCP call that waits for approval shows up
// as a trace in an OTLP receiver, the wait a child of the call, and
// /metrics counts it, behind the same token as /mcp.
func TestServeTelemetry(t *testing.T) {
	rcv := &traceReceiver{spans: map[string][2]string{}}
	otlp := httptest.NewServer(rcv)
	defer otlp.Close()
	h := newMPHome(t)
	h.env = append(h.env, "OTEL_EXPORTER_OTLP_ENDPOINT="+otlp.URL, "OTEL_BSP_SCHEDULE_DELAY=50", "TALON_SERVE_TOKEN=metrics-token")
	cmd := h.command(h.ctx, "serve", "--listen", "127.0.0.1:0")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
	})
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		re := regexp.MustCompile(`url:\s+(http://\S+)`)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				urls <- m[1]
			}
		}
	}()
	var url string
	select {
	case url = <-urls:
	case <-time.After(60 * time.Second):
		t.Fatal("talon serve printed no url")
	}
	hc := &http.Client{Transport: bearer{"metrics-token"}}
	c := sdk.NewClient(&sdk.Implementation{Name: "telemetry", Version: "v0"}, nil)
	cs, err := c.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: hc, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	done := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), mpCallTimeout)
		defer cancel()
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "file_write", Arguments: map[string]any{"path": "t.txt", "content": "x"}})
		if err == nil && res.IsError {
			err = fmt.Errorf("%+v", res.Content)
		}
		done <- err
	}()
	var pending []struct {
		ID string `json:"id"`
	}
	waitFor(t, "the call waits for approval", func() bool {
		out, code := h.runHere("approvals", "list", "--json")
		return code == 0 && json.Unmarshal([]byte(out), &pending) == nil && len(pending) == 1
	})
	if out, code := h.runHere("approvals", "approve", pending[0].ID); code != 0 {
		t.Fatalf("approve: %d %s", code, out)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the trace reaches the receiver", func() bool {
		rcv.mu.Lock()
		defer rcv.mu.Unlock()
		call, wait := rcv.spans["execute_tool file_write"], rcv.spans["approval_wait file_write"]
		return call[0] != "" && wait[1] == call[0]
	})

	metrics := strings.TrimSuffix(url, "/mcp") + "/metrics"
	resp, err := http.Get(metrics)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("/metrics without the token: %d", resp.StatusCode)
	}
	resp, err = hc.Get(metrics)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	want := `talon_calls_total{attribution="builtin.file_write",decision="ask",outcome="success",tool="file_write"} 1`
	if resp.StatusCode != 200 || !strings.Contains(string(body), want+"\n") || !strings.Contains(string(body), "talon_approvals_pending 0\n") {
		t.Fatalf("/metrics: %d\n%s\nwant a line %s", resp.StatusCode, body, want)
	}
}

// bearer adds a bearer token to every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}
