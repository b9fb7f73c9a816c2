package server

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/receipts"
	"github.com/talonhq/talon/runtime"
	"github.com/talonhq/talon/tool"
)

// benchEcho is a no-op tool: it returns its arguments.
type benchEcho struct{}

func (benchEcho) Spec() tool.Spec {
	return tool.Spec{
		Name: "bench_echo", Description: "Return the arguments.", Tier: tool.Low,
		Input:       json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}}}`),
		Attribution: tool.Attribution{Kind: tool.KindCommand, Alias: "bench_echo"},
	}
}

func (benchEcho) Execute(_ context.Context, args json.RawMessage) (tool.Result, error) {
	return tool.Text(string(args)), nil
}

func benchServer(b *testing.B, withReceipts bool) *Server {
	b.Helper()
	ws := b.TempDir()
	opts := runtime.Options{Config: config.Default(), Workspace: ws, DataDir: b.TempDir(), Tools: []tool.Tool{benchEcho{}}}
	if withReceipts {
		store, err := receipts.Open(receipts.Options{Dir: b.TempDir()})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = store.Close() })
		opts.Receipts = store
	}
	rt, err := runtime.New(opts)
	if err != nil {
		b.Fatal(err)
	}
	srv, err := New(Options{Runtime: rt})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = srv.Close() })
	return srv
}

// rawSession is a streamable HTTP session driven with plain requests, so
// that the client's own cost stays small and fixed.
type rawSession struct {
	url, id string
	client  *http.Client
	next    atomic.Int64
}

func (r *rawSession) post(tb testing.TB, body string) string {
	req, err := http.NewRequest(http.MethodPost, r.url, strings.NewReader(body))
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	if r.id != "" {
		req.Header.Set("Mcp-Session-Id", r.id)
	}
	resp, err := r.client.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	if r.id == "" {
		r.id = resp.Header.Get("Mcp-Session-Id")
	}
	if resp.StatusCode == http.StatusAccepted {
		return ""
	}
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			return d
		}
	}
	tb.Fatalf("no answer to %s", body)
	return ""
}

func openRaw(b *testing.B, url string, client *http.Client) *rawSession {
	r := &rawSession{url: url, client: client}
	r.post(b, initBody)
	r.post(b, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return r
}

// BenchmarkHTTPCall is one tools/call of a no-op tool through the
// streamable HTTP handler in this process, one session per goroutine
// (-cpu sets their number): the server's own path, for profiles.
func BenchmarkHTTPCall(b *testing.B) {
	for _, withReceipts := range []bool{false, true} {
		b.Run(fmt.Sprintf("receipts=%v", withReceipts), func(b *testing.B) {
			srv := benchServer(b, withReceipts)
			hs := httptest.NewServer(srv.HTTPHandler(HTTPOptions{}))
			defer hs.Close()
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1024}}
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				r := openRaw(b, hs.URL+DefaultPath, client)
				for pb.Next() {
					id := r.next.Add(1)
					out := r.post(b, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"bench_echo","arguments":{"text":"hello"}}}`, id))
					if !strings.Contains(out, "hello") {
						b.Fatalf("unexpected answer %s", out)
					}
				}
			})
		})
	}
}
