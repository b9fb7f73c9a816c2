package runtime

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/talonhq/talon/approval"
	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/history"
	"github.com/talonhq/talon/tool"
)

// recorder is an Observer that writes down what it is told, checking
// that every call it saw start ends once, on the context it returned.
type recorder struct {
	mu     sync.Mutex
	events []string
	open   map[int]bool
	next   int
}

type obsKey struct{}

func (r *recorder) CallStarted(ctx context.Context, name string) context.Context {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.next++
	if r.open == nil {
		r.open = map[int]bool{}
	}
	r.open[r.next] = true
	return context.WithValue(ctx, obsKey{}, r.next)
}

func (r *recorder) CallEnded(ctx context.Context, rec history.Record) {
	r.mu.Lock()
	defer r.mu.Unlock()
	id, _ := ctx.Value(obsKey{}).(int)
	if !r.open[id] {
		r.events = append(r.events, fmt.Sprintf("end of a call not started (%d)", id))
	}
	delete(r.open, id)
	r.events = append(r.events, fmt.Sprintf("%s %s %s %s receipt=%t", rec.Tool, rec.Decision, rec.Outcome, rec.Tier, rec.ReceiptID != ""))
}

func (r *recorder) ApprovalStarted(ctx context.Context, req approval.Request) (context.Context, func(string)) {
	id, _ := ctx.Value(obsKey{}).(int)
	return ctx, func(answer string) {
		r.mu.Lock()
		defer r.mu.Unlock()
		if !r.open[id] {
			r.events = append(r.events, "an approval outside a call")
		}
		r.events = append(r.events, "approval "+req.Tool+" "+answer)
	}
}

func (r *recorder) take(t *testing.T) string {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.open) > 0 {
		t.Errorf("calls that never ended: %v", r.open)
	}
	out := strings.Join(r.events, "\n")
	r.events = nil
	return out
}

func TestObserverSeesEveryCall(t *testing.T) {
	low := &fake{name: "t_low", tier: tool.Low}
	mid := &fake{name: "t_mid", tier: tool.Medium}
	ap := &scriptedApprover{answer: approval.Yes}
	obs := &recorder{}
	none := []string{}
	cfg := &config.Config{}
	cfg.Tools.Optional = &none
	rt, err := New(Options{Config: cfg, Workspace: t.TempDir(), DataDir: t.TempDir(), Tools: []tool.Tool{low, mid},
		Approver: ap, Logger: zerolog.Nop(), ApprovalTimeout: time.Second, Observer: obs})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	tests := []struct {
		name string
		run  func()
		want string
	}{
		{"allowed", func() { _, _ = rt.Call(ctx, tool.Call{Name: "t_low"}) }, "t_low allow success low receipt=false"},
		{"approved", func() { _, _ = rt.Call(ctx, tool.Call{Name: "t_mid", SessionID: "s"}) }, "approval t_mid yes\nt_mid ask success medium receipt=false"},
		{"schema refused", func() { _, _ = rt.Call(ctx, tool.Call{Name: "t_low", Args: []byte(`{"n":"x"}`)}) }, "t_low  rejected  receipt=false"},
		{"unknown tool", func() { _, _ = rt.Call(ctx, tool.Call{Name: "nope"}) }, "nope  error  receipt=false"},
		{"batch", func() {
			rt.CallBatch(ctx, []tool.Call{{Name: "t_low"}, {Name: "nope"}, {Name: "t_mid"}})
		}, "approval t_mid yes\nnope  error  receipt=false\nt_low allow success low receipt=false\nt_mid ask success medium receipt=false"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.run()
			got := obs.take(t)
			if tt.name == "batch" {
				lines := strings.Split(got, "\n")
				slices.Sort(lines)
				got = strings.Join(lines, "\n")
			}
			if got != tt.want {
				t.Fatalf("observed\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
	ap.answer, ap.err = approval.No, approval.ErrNoApprover
	_, _ = rt.Call(ctx, tool.Call{Name: "t_mid"})
	if got := obs.take(t); got != "approval t_mid none\nt_mid ask denied medium receipt=false" {
		t.Fatalf("nobody answered:\n%s", got)
	}
}

func TestSetObserver(t *testing.T) {
	low := &fake{name: "t_low", tier: tool.Low}
	rt, _ := newRT(t, nil, nil, low)
	obs := &recorder{}
	_, _ = rt.Call(context.Background(), tool.Call{Name: "t_low"})
	rt.SetObserver(obs)
	_, _ = rt.Call(context.Background(), tool.Call{Name: "t_low"})
	rt.SetObserver(nil)
	_, _ = rt.Call(context.Background(), tool.Call{Name: "t_low"})
	if got := obs.take(t); got != "t_low allow success low receipt=false" {
		t.Fatalf("observed %q: only the call made while it was set", got)
	}
}
