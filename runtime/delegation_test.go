package runtime

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"testing"

	"github.com/talonhq/talon/approval"
	"github.com/talonhq/talon/tool"
)

// agentFake is a fake whose attribution kind is agent.
type agentFake struct{ *fake }

func (a agentFake) Spec() tool.Spec {
	s := a.fake.Spec()
	s.Attribution = tool.Attribution{Kind: tool.KindAgent, Alias: a.name}
	return s
}

type askRecorder struct {
	mu   sync.Mutex
	reqs []approval.Request
}

func (r *askRecorder) Approve(_ context.Context, req approval.Request) (approval.Answer, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reqs = append(r.reqs, req)
	return approval.Yes, nil
}

// TestDelegationContext: a tool that calls tools through the runtime that
// runs it finds that runtime in its context; the calls it makes carry the
// agents they run inside to the approver.
func TestDelegationContext(t *testing.T) {
	if FromContext(context.Background()) != nil || DelegationPath(context.Background()) != nil {
		t.Fatal("a context outside any execution has a runtime or a path")
	}
	low := &fake{name: "t_low", tier: tool.Low}
	mid := &fake{name: "t_mid", tier: tool.Medium}
	var paths [][]string
	inner := agentFake{&fake{name: "inner", tier: tool.Low}}
	inner.exec = func(ctx context.Context, _ json.RawMessage) (tool.Result, error) {
		paths = append(paths, DelegationPath(ctx))
		res, err := FromContext(ctx).Call(ctx, tool.Call{Name: "t_mid", Args: json.RawMessage(`{}`)})
		if err != nil || !res.Success {
			return tool.Failure("t_mid: %v %s", err, res.Error), nil
		}
		return tool.Text("inner done"), nil
	}
	plain := &fake{name: "plain", tier: tool.Low}
	outer := agentFake{&fake{name: "outer", tier: tool.Low}}
	var rt *Runtime
	outer.exec = func(ctx context.Context, _ json.RawMessage) (tool.Result, error) {
		if FromContext(ctx) != rt {
			return tool.Failure("not the runtime that runs the call"), nil
		}
		paths = append(paths, DelegationPath(ctx))
		for _, name := range []string{"t_low", "plain", "inner"} {
			if res, err := FromContext(ctx).Call(ctx, tool.Call{Name: name, Args: json.RawMessage(`{}`)}); err != nil || !res.Success {
				return tool.Failure("%s: %v %s", name, err, res.Error), nil
			}
		}
		return tool.Text("outer done"), nil
	}
	plain.exec = func(ctx context.Context, _ json.RawMessage) (tool.Result, error) {
		paths = append(paths, DelegationPath(ctx))
		return tool.Text("plain"), nil
	}
	ap := &askRecorder{}
	rt, _ = withStore(t, nil, ap, low, mid, inner, outer, plain)
	res, err := rt.Call(context.Background(), tool.Call{Name: "outer", Args: json.RawMessage(`{}`)})
	if err != nil || !res.Success {
		t.Fatalf("res = %+v, err = %v", res, err)
	}
	want := [][]string{{"outer"}, {"outer"}, {"outer", "inner"}}
	if !slices.EqualFunc(paths, want, slices.Equal[[]string]) {
		t.Errorf("paths = %v, want %v", paths, want)
	}
	if len(ap.reqs) != 1 || !slices.Equal(ap.reqs[0].Delegation, []string{"outer", "inner"}) {
		t.Fatalf("approvals = %+v", ap.reqs)
	}
}
