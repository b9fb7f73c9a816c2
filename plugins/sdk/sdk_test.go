package sdk

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	pb "github.com/talonhq/talon/plugins/proto"
)

func testServer(t *testing.T, tools ...Tool) (*server, *bytes.Buffer) {
	t.Helper()
	var logs bytes.Buffer
	s, err := newServer(tools, slog.New(slog.NewJSONHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	return s, &logs
}

func decode(t *testing.T, resp *pb.CallResponse) wireResult {
	t.Helper()
	var w wireResult
	if err := json.Unmarshal(resp.GetResult(), &w); err != nil {
		t.Fatalf("result %s: %v", resp.GetResult(), err)
	}
	return w
}

// TestNewServer checks that invalid tool sets are refused with a message
// that says what to fix.
func TestNewServer(t *testing.T) {
	run := func(context.Context, Call) (Result, error) { return Text("ok"), nil }
	tests := []struct {
		name  string
		tools []Tool
		want  string
	}{
		{name: "none", want: "no tools"},
		{name: "no name", tools: []Tool{{Run: run}}, want: "set sdk.Tool.Name"},
		{name: "no run", tools: []Tool{{Name: "a"}}, want: "set sdk.Tool.Run"},
		{name: "twice", tools: []Tool{{Name: "a", Run: run}, {Name: "a", Run: run}}, want: "served twice"},
		{name: "bad schema", tools: []Tool{{Name: "a", Run: run, Input: json.RawMessage(`{`)}}, want: "input schema"},
		{name: "ok", tools: []Tool{{Name: "a", Run: run}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := newServer(tt.tools, slog.Default())
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

// TestCall checks results, failures, panics and unknown tools on the wire.
func TestCall(t *testing.T) {
	s, logs := testServer(t,
		Tool{Name: "echo", Tier: "low", Run: func(_ context.Context, c Call) (Result, error) {
			var in struct{ Say string }
			if err := c.Bind(&in); err != nil {
				return Result{}, err
			}
			var cfg struct{ Prefix string }
			if err := c.BindConfig(&cfg); err != nil {
				return Result{}, err
			}
			c.Logger.Info("echoing", "say", in.Say)
			return Result{Text: cfg.Prefix + in.Say, Data: map[string]int{"n": len(in.Say)}}, nil
		}},
		Tool{Name: "fails", Run: func(context.Context, Call) (Result, error) { return Result{}, context.DeadlineExceeded }},
		Tool{Name: "panics", Run: func(context.Context, Call) (Result, error) { panic("boom") }},
		Tool{Name: "baddata", Run: func(context.Context, Call) (Result, error) { return Result{Data: func() {}}, nil }},
	)
	desc, err := s.Describe(context.Background(), &pb.DescribeRequest{})
	if err != nil || len(desc.GetTools()) != 4 || string(desc.GetTools()[1].GetInputSchema()) != `{"type":"object"}` {
		t.Fatalf("describe = %v, %v", desc, err)
	}
	tests := []struct {
		name, tool, args string
		wantErr          bool
		wantText         string
	}{
		{name: "ok", tool: "echo", args: `{"say":"hi"}`, wantText: "> hi"},
		{name: "bad args", tool: "echo", args: `[1]`, wantErr: true, wantText: "decode the arguments"},
		{name: "error", tool: "fails", args: `{}`, wantErr: true, wantText: "deadline exceeded"},
		{name: "panic", tool: "panics", args: `{}`, wantErr: true, wantText: "panicked: boom"},
		{name: "unencodable data", tool: "baddata", args: `{}`, wantErr: true, wantText: "does not encode as JSON"},
		{name: "unknown", tool: "nope", args: `{}`, wantErr: true, wantText: `no tool "nope"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := s.Call(context.Background(), &pb.CallRequest{CallId: "1", Tool: tt.tool, Arguments: []byte(tt.args), Config: []byte(`{"prefix":"> "}`)})
			if err != nil {
				t.Fatal(err)
			}
			w := decode(t, resp)
			if w.IsError != tt.wantErr || len(w.Content) != 1 || !strings.Contains(w.Content[0].Text, tt.wantText) {
				t.Fatalf("result = %s", resp.GetResult())
			}
		})
	}
	if !strings.Contains(logs.String(), `"tool":"echo"`) || !strings.Contains(logs.String(), `"call_id":"1"`) {
		t.Errorf("call log lacks the tool and call id: %s", logs)
	}
}

// TestCancel checks that Cancel ends the call's context, and reports
// whether the call was in flight.
func TestCancel(t *testing.T) {
	started := make(chan struct{})
	s, _ := testServer(t, Tool{Name: "wait", Run: func(ctx context.Context, _ Call) (Result, error) {
		close(started)
		<-ctx.Done()
		return Errorf("stopped: %v", ctx.Err()), nil
	}})
	done := make(chan *pb.CallResponse, 1)
	go func() {
		resp, _ := s.Call(context.Background(), &pb.CallRequest{CallId: "c1", Tool: "wait"})
		done <- resp
	}()
	<-started
	h, _ := s.Health(context.Background(), &pb.HealthRequest{})
	if h.GetInFlight() != 1 || h.GetProtocolVersion() != pb.Version {
		t.Fatalf("health = %v", h)
	}
	if r, _ := s.Cancel(context.Background(), &pb.CancelRequest{CallId: "c1"}); !r.GetFound() {
		t.Fatal("the call in flight was not found")
	}
	select {
	case resp := <-done:
		if w := decode(t, resp); !w.IsError || !strings.Contains(w.Content[0].Text, "canceled") {
			t.Fatalf("result = %s", resp.GetResult())
		}
	case <-time.After(time.Minute):
		t.Fatal("Cancel did not end the call")
	}
	if r, _ := s.Cancel(context.Background(), &pb.CancelRequest{CallId: "c1"}); r.GetFound() {
		t.Fatal("a finished call is still found")
	}
}
