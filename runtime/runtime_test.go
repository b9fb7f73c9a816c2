package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/talonhq/talon/approval"
	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/tool"
)

// fake is a tool whose behaviour each test chooses.
type fake struct {
	name   string
	tier   tool.Tier
	schema string
	runs   atomic.Int32
	assess func(json.RawMessage) (tool.Assessment, error)
	exec   func(context.Context, json.RawMessage) (tool.Result, error)
	gotCtx atomic.Pointer[context.Context]
}

func (f *fake) Spec() tool.Spec {
	s := f.schema
	if s == "" {
		s = `{"type":"object","properties":{"n":{"type":"integer"}},"additionalProperties":false}`
	}
	return tool.Spec{Name: f.name, Description: "fake " + f.name, Input: json.RawMessage(s), Tier: f.tier,
		Attribution: tool.Attribution{Kind: tool.KindCommand, Alias: f.name}}
}

func (f *fake) Execute(ctx context.Context, args json.RawMessage) (tool.Result, error) {
	f.runs.Add(1)
	f.gotCtx.Store(&ctx)
	if f.exec != nil {
		return f.exec(ctx, args)
	}
	return tool.Text("ran " + string(args)), nil
}

type assessingFake struct{ *fake }

func (a assessingFake) Assess(args json.RawMessage) (tool.Assessment, error) { return a.assess(args) }

type scriptedApprover struct {
	answer approval.Answer
	err    error
	asked  atomic.Int32
	last   atomic.Pointer[approval.Request]
}

func (s *scriptedApprover) Approve(_ context.Context, r approval.Request) (approval.Answer, error) {
	s.asked.Add(1)
	s.last.Store(&r)
	return s.answer, s.err
}

func newRT(t *testing.T, cfg *config.Config, ap approval.Approver, tools ...tool.Tool) (*Runtime, *bytes.Buffer) {
	t.Helper()
	if cfg == nil {
		cfg = &config.Config{}
	}
	none := []string{}
	cfg.Tools.Optional = &none
	var logs bytes.Buffer
	rt, err := New(Options{Config: cfg, Workspace: t.TempDir(), DataDir: t.TempDir(), Tools: tools, Approver: ap,
		Logger: zerolog.New(zerolog.SyncWriter(&logs)), ApprovalTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return rt, &logs
}

func profile(level string, mut ...func(*config.RiskProfile)) *config.Config {
	p := config.RiskProfile{Level: level}
	for _, m := range mut {
		m(&p)
	}
	return &config.Config{RiskProfiles: map[string]config.RiskProfile{"default": p}}
}

func TestCallHardErrors(t *testing.T) {
	f := &fake{name: "t_ok", tier: tool.Low}
	rt, _ := newRT(t, nil, nil, f)
	tests := []struct {
		name string
		call tool.Call
		is   error
		sub  string
	}{
		{name: "unknown tool", call: tool.Call{Name: "t_okk"}, is: ErrUnknownTool, sub: `did you mean "t_ok"`},
		{name: "array args", call: tool.Call{Name: "t_ok", Args: json.RawMessage(`[1]`)}, is: tool.ErrArgumentsNotObject},
		{name: "string args", call: tool.Call{Name: "t_ok", Args: json.RawMessage(`"x"`)}, is: tool.ErrArgumentsNotObject},
		{name: "number args", call: tool.Call{Name: "t_ok", Args: json.RawMessage(`3`)}, is: tool.ErrArgumentsNotObject},
		{name: "bool args", call: tool.Call{Name: "t_ok", Args: json.RawMessage(`false`)}, is: tool.ErrArgumentsNotObject},
		{name: "unparseable", call: tool.Call{Name: "t_ok", Args: json.RawMessage(`{"n":`)}, is: tool.ErrArgumentsMalformed},
		{name: "unknown profile", call: tool.Call{Name: "t_ok", Profile: "nope"}, sub: "unknown risk profile"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := rt.Call(context.Background(), tt.call)
			if err == nil {
				t.Fatal("want a hard error")
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Fatalf("err = %v, want %v", err, tt.is)
			}
			if !strings.Contains(err.Error(), tt.sub) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.sub)
			}
		})
	}
	if n := f.runs.Load(); n != 0 {
		t.Fatalf("tool ran %d times on hard errors", n)
	}
}

func TestCallArgumentNormalization(t *testing.T) {
	f := &fake{name: "t_ok", tier: tool.Low}
	rt, _ := newRT(t, nil, nil, f)
	for _, raw := range []string{"", "null", " null ", "{}"} {
		res, err := rt.Call(context.Background(), tool.Call{Name: "t_ok", Args: json.RawMessage(raw)})
		if err != nil || !res.Success || res.Output.Text != "ran {}" {
			t.Fatalf("args %q: %+v %v", raw, res, err)
		}
	}
}

func TestSchemaFailureIsToolResultAndNothingRuns(t *testing.T) {
	f := &fake{name: "t_ok", tier: tool.Low}
	rt, _ := newRT(t, nil, nil, f)
	res, err := rt.Call(context.Background(), tool.Call{Name: "t_ok", Args: json.RawMessage(`{"n":"x"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Success || !strings.Contains(res.Error, "/n") {
		t.Fatalf("result %+v should fail naming /n", res)
	}
	if f.runs.Load() != 0 {
		t.Fatal("tool ran despite a schema failure")
	}
}

func TestResultNormalization(t *testing.T) {
	tests := []struct {
		name    string
		exec    func(context.Context, json.RawMessage) (tool.Result, error)
		success bool
		sub     string
	}{
		{name: "empty output", exec: func(context.Context, json.RawMessage) (tool.Result, error) { return tool.Text(""), nil }, success: true, sub: tool.NoOutput},
		{name: "go error names tool", exec: func(context.Context, json.RawMessage) (tool.Result, error) {
			return tool.Result{}, errors.New("disk on fire")
		}, sub: "tool t_x failed: disk on fire"},
		{name: "panic is a failed result", exec: func(context.Context, json.RawMessage) (tool.Result, error) { panic("oops") }, sub: "crashed: oops"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rt, _ := newRT(t, nil, nil, &fake{name: "t_x", tier: tool.Low, exec: tt.exec})
			res, err := rt.Call(context.Background(), tool.Call{Name: "t_x"})
			if err != nil {
				t.Fatal(err)
			}
			got := res.Error
			if res.Success {
				got = res.Output.Text
			}
			if res.Success != tt.success || !strings.Contains(got, tt.sub) {
				t.Fatalf("got %+v", res)
			}
		})
	}
}

func TestCancellationIsHardError(t *testing.T) {
	f := &fake{name: "t_slow", tier: tool.Low, exec: func(ctx context.Context, _ json.RawMessage) (tool.Result, error) {
		<-ctx.Done()
		return tool.Result{}, ctx.Err()
	}}
	rt, _ := newRT(t, nil, nil, f)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := rt.Call(ctx, tool.Call{Name: "t_slow"}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v", err)
	}
	cctx, ccancel := context.WithCancel(context.Background())
	ccancel()
	if _, err := rt.Call(cctx, tool.Call{Name: "t_slow"}); !errors.Is(err, context.Canceled) {
		t.Fatalf("pre-cancelled: err = %v", err)
	}
}

func TestPolicyAndApprovals(t *testing.T) {
	medium := func() *fake { return &fake{name: "t_write", tier: tool.Medium} }
	tests := []struct {
		name     string
		cfg      *config.Config
		approver *scriptedApprover
		wantRun  bool
		wantErr  string
		asked    int32
	}{
		{name: "supervised asks, yes runs", cfg: profile("supervised"), approver: &scriptedApprover{answer: approval.Yes}, wantRun: true, asked: 1},
		{name: "supervised asks, no denies", cfg: profile("supervised"), approver: &scriptedApprover{answer: approval.No}, wantErr: approval.DeniedByUser, asked: 1},
		{name: "no approver fails closed", cfg: profile("supervised"), approver: nil, wantErr: approval.DeniedNoApprover},
		{name: "approver error fails closed", cfg: profile("supervised"), approver: &scriptedApprover{answer: approval.Yes, err: approval.ErrNoApprover}, wantErr: approval.DeniedNoApprover, asked: 1},
		{name: "full runs without asking", cfg: profile("full"), approver: &scriptedApprover{}, wantRun: true},
		{name: "always_ask asks under full", cfg: profile("full", func(p *config.RiskProfile) { p.AlwaysAsk = []string{"t_write"} }), approver: &scriptedApprover{answer: approval.No}, wantErr: approval.DeniedByUser, asked: 1},
		{name: "read_only denies", cfg: profile("read_only"), approver: &scriptedApprover{answer: approval.Yes}, wantErr: "read_only"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := medium()
			var ap approval.Approver
			if tt.approver != nil {
				ap = tt.approver
			}
			rt, logs := newRT(t, tt.cfg, ap, f)
			res, err := rt.Call(context.Background(), tool.Call{Name: "t_write", Args: json.RawMessage(`{"n":1}`), Channel: tool.ChannelCLI})
			if err != nil {
				t.Fatal(err)
			}
			if ran := f.runs.Load() > 0; ran != tt.wantRun {
				t.Fatalf("ran = %v, want %v (%+v)", ran, tt.wantRun, res)
			}
			if tt.wantErr != "" && (!res.Denied || !strings.Contains(res.Error, tt.wantErr)) {
				t.Fatalf("result %+v, want denial containing %q", res, tt.wantErr)
			}
			if tt.approver != nil && tt.approver.asked.Load() != tt.asked {
				t.Fatalf("asked %d times, want %d", tt.approver.asked.Load(), tt.asked)
			}
			if !strings.Contains(logs.String(), `"attribution":"command.t_write"`) {
				t.Fatalf("log lines lack attribution: %s", logs.String())
			}
		})
	}
}

func TestAlwaysLastsForSessionButNotOverAlwaysAsk(t *testing.T) {
	f := &fake{name: "t_write", tier: tool.Medium}
	ap := &scriptedApprover{answer: approval.Always}
	rt, _ := newRT(t, profile("supervised"), ap, f)
	call := tool.Call{Name: "t_write", SessionID: "s1"}
	for i := 0; i < 3; i++ {
		if res, _ := rt.Call(context.Background(), call); !res.Success {
			t.Fatalf("call %d: %+v", i, res)
		}
	}
	if ap.asked.Load() != 1 {
		t.Fatalf("asked %d times, want 1", ap.asked.Load())
	}
	call.SessionID = "s2"
	_, _ = rt.Call(context.Background(), call)
	if ap.asked.Load() != 2 {
		t.Fatal("an always answer leaked into another session")
	}

	f2 := &fake{name: "t_write", tier: tool.Medium}
	ap2 := &scriptedApprover{answer: approval.Always}
	rt2, _ := newRT(t, profile("supervised", func(p *config.RiskProfile) { p.AlwaysAsk = []string{"t_write"} }), ap2, f2)
	for i := 0; i < 2; i++ {
		_, _ = rt2.Call(context.Background(), tool.Call{Name: "t_write", SessionID: "s1"})
	}
	if ap2.asked.Load() != 2 {
		t.Fatalf("always_ask asked %d times, want 2", ap2.asked.Load())
	}
	if !ap2.last.Load().AlwaysAsk {
		t.Fatal("request does not say always_ask")
	}
}

func TestAssessorRaisesTierAndPlanBindsToContext(t *testing.T) {
	plan := &tool.Plan{Summary: "rm x"}
	f := &fake{name: "t_sh", tier: tool.Low}
	f.assess = func(json.RawMessage) (tool.Assessment, error) {
		return tool.Assessment{Tier: tool.Medium, Reasons: []string{"writes"}, Plan: plan}, nil
	}
	ap := &scriptedApprover{answer: approval.Yes}
	rt, _ := newRT(t, profile("supervised"), ap, assessingFake{f})
	ex, _, err := rt.Explain(context.Background(), tool.Call{Name: "t_sh"})
	if err != nil || ex.Tier != tool.Medium || ex.Decision.String() != "ask" || ex.Plan != plan {
		t.Fatalf("explain = %+v, %v", ex, err)
	}
	if f.runs.Load() != 0 {
		t.Fatal("explain ran the tool")
	}
	res, _ := rt.Call(context.Background(), tool.Call{Name: "t_sh"})
	if !res.Success || ap.last.Load().Plan != plan {
		t.Fatalf("res %+v", res)
	}
	if got := tool.ApprovedPlan(*f.gotCtx.Load()); got != plan {
		t.Fatalf("tool saw approved plan %v", got)
	}

	// An assessment can never lower the floor.
	f2 := &fake{name: "t_hi", tier: tool.High}
	f2.assess = func(json.RawMessage) (tool.Assessment, error) { return tool.Assessment{Tier: tool.Low}, nil }
	rt2, _ := newRT(t, profile("supervised"), nil, assessingFake{f2})
	ex2, _, _ := rt2.Explain(context.Background(), tool.Call{Name: "t_hi"})
	if ex2.Tier != tool.High {
		t.Fatalf("tier lowered to %s", ex2.Tier)
	}
}

func TestViewHidesWhatCannotRun(t *testing.T) {
	rt, _ := newRT(t, profile("read_only"), nil, &fake{name: "t_low", tier: tool.Low}, &fake{name: "t_mid", tier: tool.Medium})
	specs, err := rt.View(ViewOptions{Channel: tool.ChannelMCP})
	if err != nil {
		t.Fatal(err)
	}
	if len(specs) != 1 || specs[0].Name != "t_low" {
		t.Fatalf("view = %v", specs)
	}
}

func TestBuiltinNamesCannotBeClaimed(t *testing.T) {
	_, err := New(Options{Workspace: t.TempDir(), Tools: []tool.Tool{&fake{name: "file_read", tier: tool.Low}}})
	if err == nil || !strings.Contains(err.Error(), "belongs to a built-in") {
		t.Fatalf("err = %v", err)
	}
}

func TestReloadSwapsCatalog(t *testing.T) {
	rt, _ := newRT(t, nil, nil, &fake{name: "t_a", tier: tool.Low})
	old := rt.Catalog()
	cfg := &config.Config{}
	none := []string{}
	cfg.Tools.Optional = &none
	if err := rt.Reload(cfg); err != nil {
		t.Fatal(err)
	}
	if rt.Catalog() == old {
		t.Fatal("catalog not swapped")
	}
	if _, ok := old.Lookup("t_a"); !ok {
		t.Fatal("old snapshot changed")
	}
}

func TestCronChannelNeverAsks(t *testing.T) {
	f := &fake{name: "t_write", tier: tool.Medium}
	ap := &scriptedApprover{answer: approval.Yes}
	rt, _ := newRT(t, profile("supervised"), ap, f)
	res, err := rt.Call(context.Background(), tool.Call{Name: "t_write", Channel: tool.ChannelCron, SessionID: "cron:x"})
	if err != nil || !res.Denied || !strings.Contains(res.Error, "no person decided") {
		t.Fatalf("%+v %v", res, err)
	}
	if ap.asked.Load() != 0 || f.runs.Load() != 0 {
		t.Fatal("a cron call reached an approver or ran")
	}
}
