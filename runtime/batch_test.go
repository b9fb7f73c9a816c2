package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/talonhq/talon/approval"
	"github.com/talonhq/talon/tool"
)

func TestCallBatchBoundsConcurrencyAndKeepsOrder(t *testing.T) {
	var running, peak atomic.Int32
	f := &fake{name: "t_work", tier: tool.Low, exec: func(ctx context.Context, args json.RawMessage) (tool.Result, error) {
		n := running.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(30 * time.Millisecond)
		running.Add(-1)
		return tool.Text(string(args)), nil
	}}
	rt, _ := newRT(t, nil, nil, f)
	var calls []tool.Call
	for i := 0; i < 10; i++ {
		calls = append(calls, tool.Call{Name: "t_work", Args: json.RawMessage(fmt.Sprintf(`{"n":%d}`, i))})
	}
	res := rt.CallBatch(context.Background(), calls)
	if len(res) != 10 {
		t.Fatalf("%d results", len(res))
	}
	for i, r := range res {
		if r.Err != nil || r.Result.Output.Text != fmt.Sprintf(`{"n":%d}`, i) {
			t.Fatalf("result %d out of order or failed: %+v", i, r)
		}
	}
	if p := peak.Load(); p > MaxBatchConcurrency || p < 2 {
		t.Fatalf("peak concurrency %d, want 2..%d", p, MaxBatchConcurrency)
	}
}

// orderApprover records the order in which calls were asked about and
// refuses the second.
type orderApprover struct {
	asked []string
}

func (o *orderApprover) Approve(_ context.Context, r approval.Request) (approval.Answer, error) {
	o.asked = append(o.asked, r.Args)
	if len(o.asked) == 2 {
		return approval.No, nil
	}
	return approval.Yes, nil
}

func TestCallBatchDecidesEverythingFirstInOrder(t *testing.T) {
	var started atomic.Int32
	var askedBeforeRun atomic.Bool
	ap := &orderApprover{}
	f := &fake{name: "t_write", tier: tool.Medium, exec: func(context.Context, json.RawMessage) (tool.Result, error) {
		started.Add(1)
		askedBeforeRun.Store(len(ap.asked) == 3)
		return tool.Text("ok"), nil
	}}
	rt, _ := newRT(t, profile("supervised"), ap, f)
	calls := []tool.Call{
		{Name: "t_write", Args: json.RawMessage(`{"n":1}`)},
		{Name: "t_write", Args: json.RawMessage(`{"n":2}`)},
		{Name: "no_such"},
		{Name: "t_write", Args: json.RawMessage(`{"n":3}`)},
	}
	res := rt.CallBatch(context.Background(), calls)
	if fmt.Sprint(ap.asked) != `[{"n":1} {"n":2} {"n":3}]` {
		t.Fatalf("asked in order %v", ap.asked)
	}
	if !askedBeforeRun.Load() {
		t.Fatal("a call ran before every approval was decided")
	}
	if !res[0].Result.Success || !res[1].Result.Denied || !errors.Is(res[2].Err, ErrUnknownTool) || !res[3].Result.Success {
		t.Fatalf("results %+v", res)
	}
	if started.Load() != 2 {
		t.Fatalf("%d calls ran, want 2", started.Load())
	}
}
