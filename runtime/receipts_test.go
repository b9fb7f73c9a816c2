package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/talonhq/talon/approval"
	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/receipts"
	"github.com/talonhq/talon/tool"
)

func withStore(t *testing.T, cfg *config.Config, ap approval.Approver, tools ...tool.Tool) (*Runtime, string) {
	t.Helper()
	dir := t.TempDir()
	store, err := receipts.Open(receipts.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	if cfg == nil {
		cfg = &config.Config{}
	}
	none := []string{}
	cfg.Tools.Optional = &none
	rt, err := New(Options{Config: cfg, Workspace: t.TempDir(), Tools: tools, Approver: ap, Receipts: store,
		Logger: zerolog.Nop(), ApprovalTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return rt, dir
}

func count(t *testing.T, dir string) int {
	t.Helper()
	rs, err := receipts.List(dir, receipts.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	return len(rs)
}

// TestReceiptsOnlyForSuccess checks the issuing rule case by case: only a
// successful execution is recorded.
func TestReceiptsOnlyForSuccess(t *testing.T) {
	okTool := &fake{name: "t_ok", tier: tool.Low}
	medium := &fake{name: "t_mid", tier: tool.Medium}
	failing := &fake{name: "t_fail", tier: tool.Low, exec: func(context.Context, json.RawMessage) (tool.Result, error) {
		return tool.Failure("exit status 1"), nil
	}}
	erroring := &fake{name: "t_err", tier: tool.Low, exec: func(context.Context, json.RawMessage) (tool.Result, error) {
		return tool.Result{}, errors.New("boom")
	}}
	timedOut := &fake{name: "t_timeout", tier: tool.Low, exec: func(context.Context, json.RawMessage) (tool.Result, error) {
		return tool.Failure("timed out after 1s"), nil
	}}
	blocking := &fake{name: "t_block", tier: tool.Low, exec: func(ctx context.Context, _ json.RawMessage) (tool.Result, error) {
		<-ctx.Done()
		return tool.Text("too late"), nil
	}}
	blocked := &fake{name: "t_blocked", tier: tool.Low}
	blocked.assess = func(json.RawMessage) (tool.Assessment, error) {
		return tool.Assessment{Tier: tool.High, Denied: true, Reasons: []string{"not allowed"}}, nil
	}
	rt, dir := withStore(t, profile("supervised"), &scriptedApprover{answer: approval.No},
		okTool, medium, failing, erroring, timedOut, blocking, assessingFake{blocked})

	tests := []struct {
		name string
		call tool.Call
		ctx  func() (context.Context, context.CancelFunc)
	}{
		{name: "denied by a person", call: tool.Call{Name: "t_mid"}},
		{name: "blocked by analysis", call: tool.Call{Name: "t_blocked"}},
		{name: "failed", call: tool.Call{Name: "t_fail"}},
		{name: "go error", call: tool.Call{Name: "t_err"}},
		{name: "timed out", call: tool.Call{Name: "t_timeout"}},
		{name: "schema rejected", call: tool.Call{Name: "t_ok", Args: json.RawMessage(`{"n":"x"}`)}},
		{name: "not an object", call: tool.Call{Name: "t_ok", Args: json.RawMessage(`[]`)}},
		{name: "cancelled", call: tool.Call{Name: "t_block"}, ctx: func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 20*time.Millisecond)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.Background(), func() {}
			if tt.ctx != nil {
				ctx, cancel = tt.ctx()
			}
			defer cancel()
			res, _ := rt.Call(ctx, tt.call)
			if res.Receipt != nil {
				t.Fatalf("got a receipt for %+v", res)
			}
			if n := count(t, dir); n != 0 {
				t.Fatalf("store holds %d receipts", n)
			}
		})
	}

	res, err := rt.Call(context.Background(), tool.Call{Name: "t_ok", Args: json.RawMessage(`{"n":7}`), SessionID: "s", Channel: tool.ChannelMCP})
	if err != nil || !res.Success || res.Receipt == nil {
		t.Fatalf("success without a receipt: %+v %v", res, err)
	}
	rec := res.Receipt
	if rec.Tool != "t_ok" || rec.Attribution != "command.t_ok" || rec.Channel != "mcp" || rec.Session != "s" ||
		rec.Tier != "low" || rec.AllowedBy != receipts.AllowedAuto || rec.Profile != "default" {
		t.Fatalf("receipt fields: %+v", rec)
	}
	if rep := receipts.Verify(dir, nil); !rep.OK() || rep.Records != 1 {
		t.Fatalf("verify: %s", rep)
	}
}

func TestReceiptRecordsApprovalAndToken(t *testing.T) {
	cfg := profile("supervised")
	cfg.Receipts.ShowInResponse = true
	rt, _ := withStore(t, cfg, &scriptedApprover{answer: approval.Yes}, &fake{name: "t_mid", tier: tool.Medium})
	res, err := rt.Call(context.Background(), tool.Call{Name: "t_mid"})
	if err != nil || res.Receipt == nil {
		t.Fatalf("%+v %v", res, err)
	}
	if res.Receipt.AllowedBy != receipts.AllowedByUser {
		t.Fatalf("allowed_by = %s", res.Receipt.AllowedBy)
	}
	if !strings.HasSuffix(res.Output.Text, "\n"+res.Receipt.Token()) || !strings.HasPrefix(res.Receipt.Token(), "tr1.") {
		t.Fatalf("text %q lacks the token", res.Output.Text)
	}
}

func TestReceiptsDisabled(t *testing.T) {
	off := false
	cfg := &config.Config{}
	cfg.Receipts.EnabledSetting = &off
	rt, dir := withStore(t, cfg, nil, &fake{name: "t_ok", tier: tool.Low})
	res, _ := rt.Call(context.Background(), tool.Call{Name: "t_ok"})
	if !res.Success || res.Receipt != nil || count(t, dir) != 0 {
		t.Fatalf("receipt issued while disabled: %+v", res)
	}
}

func TestUncanonicalArgumentsRefusedBeforeRunning(t *testing.T) {
	f := &fake{name: "t_any", tier: tool.Low, schema: `{"type":"object"}`}
	rt, _ := withStore(t, nil, nil, f)
	res, err := rt.Call(context.Background(), tool.Call{Name: "t_any", Args: json.RawMessage(`{"n":1e400}`)})
	if err != nil || res.Success || f.runs.Load() != 0 {
		t.Fatalf("res %+v err %v runs %d", res, err, f.runs.Load())
	}
}
