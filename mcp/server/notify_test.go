package server

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/talonhq/talon/approval"
	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/runtime"
	"github.com/talonhq/talon/tool"
)

// notes collects what a client hears outside its results.
type notes struct {
	logs     chan *sdk.LoggingMessageParams
	progress chan *sdk.ProgressNotificationParams
}

func newNotes() (*notes, *sdk.ClientOptions) {
	n := &notes{logs: make(chan *sdk.LoggingMessageParams, 16), progress: make(chan *sdk.ProgressNotificationParams, 16)}
	return n, &sdk.ClientOptions{
		LoggingMessageHandler: func(_ context.Context, r *sdk.LoggingMessageRequest) { n.logs <- r.Params },
		ProgressNotificationHandler: func(_ context.Context, r *sdk.ProgressNotificationClientRequest) {
			n.progress <- r.Params
		},
	}
}

func (n *notes) log(t *testing.T, logger string) *sdk.LoggingMessageParams {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case p := <-n.logs:
			if p.Logger == logger {
				return p
			}
		case <-deadline:
			t.Fatalf("no log notification from %s", logger)
			return nil
		}
	}
}

// TestApprovalRunningNotice: a call that waits on approval longer than
// approval_running_notice_ms is notified once, as progress when the
// request asked for it and as a log notification otherwise.
func TestApprovalRunningNotice(t *testing.T) {
	for _, withToken := range []bool{false, true} {
		name := "log"
		if withToken {
			name = "progress"
		}
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, fixtureOptions{queue: true, config: "[tools.shell]\napproval_running_notice_ms = 50\n"})
			n, opts := newNotes()
			cs := f.connect(t, opts)
			done := make(chan *sdk.CallToolResult, 1)
			go func() {
				params := &sdk.CallToolParams{Name: "file_write", Arguments: map[string]any{"path": "w.txt", "content": "x"}}
				if withToken {
					params.SetProgressToken("tok-1")
				}
				res, err := cs.CallTool(context.Background(), params)
				if err != nil {
					t.Error(err)
				}
				done <- res
			}()
			p := waitPending(t, f.queue, 1)[0]
			if withToken {
				select {
				case pr := <-n.progress:
					if pr.ProgressToken != "tok-1" || !strings.Contains(pr.Message, "waiting for a person's approval") {
						t.Fatalf("progress = %+v", pr)
					}
				case <-time.After(10 * time.Second):
					t.Fatal("no progress notification")
				}
			} else {
				l := n.log(t, "talon.approvals")
				if d := l.Data.(map[string]any); d["tool"] != "file_write" || !strings.Contains(d["message"].(string), "waiting for a person's approval") {
					t.Fatalf("notice = %+v", l)
				}
			}
			if err := f.queue.Decide(p.ID, approval.Yes); err != nil {
				t.Fatal(err)
			}
			if res := <-done; res == nil || res.IsError {
				t.Fatalf("result = %+v", res)
			}
			select {
			case l := <-n.logs:
				t.Fatalf("a second notice: %+v", l)
			case pr := <-n.progress:
				t.Fatalf("a second notice: %+v", pr)
			default:
			}
		})
	}
}

// later is a tool that reports something after its call returned, as a
// background process reports its end.
type later struct{ release chan struct{} }

func (l *later) Spec() tool.Spec {
	return tool.Spec{Name: "bg__later", Input: json.RawMessage(`{"type":"object"}`), Tier: tool.Low,
		Attribution: tool.Attribution{Kind: tool.KindCommand, Alias: "later"}}
}

func (l *later) Execute(ctx context.Context, _ json.RawMessage) (tool.Result, error) {
	notify := tool.NotifierFrom(ctx)
	go func() {
		<-l.release
		for _, level := range []string{tool.NoticeInfo, tool.NoticeError} {
			notify(tool.Notice{Level: level, Logger: "talon.process", Text: "background process p9 " + level,
				Data: map[string]any{"process": "p9", "status": "exited"}})
		}
	}()
	return tool.Text("started"), nil
}

// TestNotifierReachesTheSession: what a tool reports after its call
// returned (a background process's end) reaches the session that made the
// call as a log notification, at or above the level the client set.
func TestNotifierReachesTheSession(t *testing.T) {
	for _, level := range []string{"", "error"} {
		t.Run("level "+level, func(t *testing.T) {
			l := &later{release: make(chan struct{})}
			rt, err := runtime.New(runtime.Options{Config: config.Default(), Workspace: t.TempDir(), DataDir: t.TempDir(), Tools: []tool.Tool{l}})
			if err != nil {
				t.Fatal(err)
			}
			srv, err := New(Options{Runtime: rt})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = srv.Close() })
			f := &fixture{rt: rt, srv: srv}
			n, opts := newNotes()
			cs := f.connect(t, opts)
			if level != "" {
				if err := cs.SetLoggingLevel(context.Background(), &sdk.SetLoggingLevelParams{Level: sdk.LoggingLevel(level)}); err != nil {
					t.Fatal(err)
				}
			}
			res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "bg__later"})
			if err != nil || res.IsError {
				t.Fatalf("call = %+v, %v", res, err)
			}
			close(l.release)
			first := n.log(t, "talon.process")
			d := first.Data.(map[string]any)
			if d["process"] != "p9" || d["status"] != "exited" || !strings.Contains(d["message"].(string), "p9") {
				t.Fatalf("notification = %+v", first)
			}
			want := "info"
			if level == "error" {
				want = "error" // the info notice was held back
			}
			if string(first.Level) != want {
				t.Fatalf("first notification level %s, want %s", first.Level, want)
			}
		})
	}
}

// TestPendingWithoutWaiting: with [approvals] wait = false a call that
// needs approval returns at once, pending, with its id; once a person
// decides, it runs (or not), and the outcome reaches the session as a
// notification and its history.
func TestPendingWithoutWaiting(t *testing.T) {
	for _, tt := range []struct {
		name    string
		answer  approval.Answer
		outcome string
	}{
		{name: "approved", answer: approval.Yes, outcome: "success"},
		{name: "denied", answer: approval.No, outcome: "denied"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, fixtureOptions{queue: true, config: "[approvals]\nwait = false\n"})
			n, opts := newNotes()
			cs := f.connect(t, opts)
			res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "file_write", Arguments: map[string]any{"path": "later.txt", "content": "x"}})
			if err != nil {
				t.Fatal(err)
			}
			id, _ := res.Meta[MetaPending].(string)
			if !res.IsError || id == "" || !strings.Contains(text(t, res), "approval pending (id "+id+")") {
				t.Fatalf("result = %+v %q", res, text(t, res))
			}
			if _, err := os.Stat(filepath.Join(f.ws, "later.txt")); err == nil {
				t.Fatal("the call ran before it was approved")
			}
			p := waitPending(t, f.queue, 1)[0]
			if p.ID != id {
				t.Fatalf("pending %s, result says %s", p.ID, id)
			}
			if err := f.queue.Decide(id, tt.answer); err != nil {
				t.Fatal(err)
			}
			l := n.log(t, "talon.approvals")
			d := l.Data.(map[string]any)
			if d["approval_id"] != id || d["outcome"] != tt.outcome || d["tool"] != "file_write" {
				t.Fatalf("notification = %+v", d)
			}
			_, statErr := os.Stat(filepath.Join(f.ws, "later.txt"))
			if ran := statErr == nil; ran != (tt.answer == approval.Yes) {
				t.Fatalf("ran = %v after %s", ran, tt.answer)
			}
			var outcomes []string
			for _, s := range f.rt.History().Sessions() {
				for _, r := range f.rt.History().History(s.Session, 10) {
					outcomes = append(outcomes, r.Outcome)
				}
			}
			if strings.Join(outcomes, ",") != "pending,"+tt.outcome {
				t.Fatalf("history outcomes = %v", outcomes)
			}
		})
	}
}
