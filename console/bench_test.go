package console

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/talonhq/talon/approval"
	"github.com/talonhq/talon/receipts"
	"github.com/talonhq/talon/runtime"
	"github.com/talonhq/talon/tool"
)

// BenchmarkApprovalRow measures the time from a call entering the approval
// wait to its rendered row arriving at an open console's event stream on
// loopback, against a bare event stream that sends a fixed line when told
// (the transport alone). Target: under 200 ms (issue 21); ms/row is the
// figure to compare with it.
func BenchmarkApprovalRow(b *testing.B) {
	b.Run("console", func(b *testing.B) {
		f := benchFixture(b)
		stream := f.benchEvents(b, "page=approvals")
		stream.until(b, "approval-sync")
		var total time.Duration
		n := 0
		for b.Loop() {
			ctx, cancel := context.WithCancel(context.Background())
			start := time.Now()
			done := make(chan struct{})
			go func() {
				defer close(done)
				_, _ = f.q.Approve(ctx, approval.Request{Tool: "file_write", Tier: tool.Medium, SessionID: "bench",
					Plan: &tool.Plan{Summary: "write 5 bytes to notes.txt (new file)"}})
			}()
			stream.until(b, "approval-added")
			total += time.Since(start)
			n++
			cancel()
			<-done
			stream.until(b, "approval-removed")
		}
		b.ReportMetric(float64(total.Microseconds())/1000/float64(n), "ms/row")
	})
	b.Run("bare-sse", func(b *testing.B) {
		kick := make(chan struct{})
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			for {
				select {
				case <-r.Context().Done():
					return
				case <-kick:
					_, _ = io.WriteString(w, "event: row\ndata: <article>row</article>\n\n")
					w.(http.Flusher).Flush()
				}
			}
		}))
		defer srv.Close()
		stream := openStream(b, srv.URL)
		var total time.Duration
		n := 0
		for b.Loop() {
			start := time.Now()
			kick <- struct{}{}
			stream.until(b, "row")
			total += time.Since(start)
			n++
		}
		b.ReportMetric(float64(total.Microseconds())/1000/float64(n), "ms/row")
		srv.CloseClientConnections()
	})
}

// BenchmarkReceiptsPage measures the Receipts page, newest first, over a
// store of 100,000 receipts, against receipts.List of the same 50 (the
// whole log read to keep its last page). Target: the first page under
// 100 ms (issue 21).
func BenchmarkReceiptsPage(b *testing.B) {
	const n = 100000
	dir := benchStore(b, n)
	b.Run("console-first-page", func(b *testing.B) {
		rt, err := runtime.New(runtime.Options{Workspace: b.TempDir(), DataDir: b.TempDir()})
		if err != nil {
			b.Fatal(err)
		}
		c, err := New(Options{Runtime: rt, ReceiptsDir: dir})
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		srv := httptest.NewServer(c)
		defer srv.Close()
		client := srv.Client()
		for b.Loop() {
			res, err := client.Get(srv.URL + "/console/receipts")
			if err != nil {
				b.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			_ = res.Body.Close()
			if res.StatusCode != http.StatusOK || strings.Count(string(body), "signature verified") != receiptsPage {
				b.Fatalf("status %d, want a full page of verified receipts", res.StatusCode)
			}
		}
	})
	b.Run("list-last-50", func(b *testing.B) {
		for b.Loop() {
			rs, err := receipts.List(dir, receipts.Filter{Limit: receiptsPage})
			if err != nil || len(rs) != receiptsPage {
				b.Fatalf("%d receipts, %v", len(rs), err)
			}
		}
	})
}

// benchStore writes n receipts into a new store, from 64 callers at once
// so that group commit keeps it quick.
func benchStore(b *testing.B, n int) string {
	b.Helper()
	parent := ""
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		parent = "/dev/shm"
	}
	dir, err := os.MkdirTemp(parent, "talon-console-bench-")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = os.RemoveAll(dir) })
	s, err := receipts.Open(receipts.Options{Dir: dir})
	if err != nil {
		b.Fatal(err)
	}
	var wg sync.WaitGroup
	const callers = 64
	for g := range callers {
		wg.Go(func() {
			for i := g; i < n; i += callers {
				_, err := s.Issue(context.Background(), receipts.Entry{
					Tool: []string{"file_read", "file_write", "shell"}[i%3], Attribution: "builtin.bench",
					Session: fmt.Sprintf("sess-%d", i%17), Tier: receipts.TierLow, AllowedBy: receipts.AllowedAuto,
					Args: []byte(fmt.Sprintf(`{"path":"src/file_%d.go"}`, i)), Result: "ok",
				})
				if err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	return dir
}

// benchFixture is a console with a queue and a runtime, on loopback.
func benchFixture(b *testing.B) *fixture {
	b.Helper()
	f := &fixture{q: approval.NewQueue(approval.QueueOptions{Timeout: time.Minute})}
	rt, err := runtime.New(runtime.Options{Workspace: b.TempDir(), DataDir: b.TempDir(), Approver: f.q})
	if err != nil {
		b.Fatal(err)
	}
	f.rt = rt
	f.c, err = New(Options{Runtime: rt, Queue: f.q, Reach: func(int) string { return "" }})
	if err != nil {
		b.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle(Path, f.c)
	f.srv = httptest.NewServer(mux)
	b.Cleanup(func() {
		_ = f.c.Close()
		f.srv.CloseClientConnections()
		f.srv.Close()
	})
	return f
}

type benchStream struct {
	sc *bufio.Scanner
}

func (f *fixture) benchEvents(b *testing.B, query string) *benchStream {
	return openStream(b, f.srv.URL+"/console/events?"+query)
}

func openStream(b *testing.B, url string) *benchStream {
	b.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = res.Body.Close() })
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	return &benchStream{sc: sc}
}

// until reads events until one named name has been read whole.
func (s *benchStream) until(b *testing.B, name string) {
	b.Helper()
	in := false
	for s.sc.Scan() {
		line := s.sc.Text()
		switch {
		case line == "event: "+name:
			in = true
		case line == "" && in:
			return
		}
	}
	b.Fatalf("stream ended before %s: %v", name, s.sc.Err())
}
