package sessions

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/talonhq/talon/history"
	"github.com/talonhq/talon/tool"
)

func TestVisibility(t *testing.T) {
	log := history.New(history.Options{})
	now := time.Now()
	log.Add(history.Record{Session: "mine", Tool: "file_read", Outcome: history.OutcomeSuccess, Time: now, ReceiptID: "R1"})
	log.Add(history.Record{Session: "theirs", Tool: "shell", Outcome: history.OutcomeDenied, Time: now})
	list, hist := &List{log: log}, &History{log: log}

	mcp := tool.WithCall(context.Background(), tool.Call{SessionID: "mine", Channel: tool.ChannelMCP})
	cli := tool.WithCall(context.Background(), tool.Call{SessionID: "x", Channel: tool.ChannelCLI})

	tests := []struct {
		name    string
		ctx     context.Context
		t       tool.Tool
		args    string
		success bool
		want    []string
		notWant []string
	}{
		{name: "mcp lists only its own session", ctx: mcp, t: list, args: `{}`, success: true, want: []string{"mine"}, notWant: []string{"theirs"}},
		{name: "cli lists every session", ctx: cli, t: list, args: `{}`, success: true, want: []string{"mine", "theirs"}},
		{name: "own history by default", ctx: mcp, t: hist, args: `{}`, success: true, want: []string{"file_read", "receipt=R1"}},
		{name: "mcp cannot read another session", ctx: mcp, t: hist, args: `{"session":"theirs"}`, want: []string{"only this session's own calls"}},
		{name: "cli reads any session", ctx: cli, t: hist, args: `{"session":"theirs"}`, success: true, want: []string{"outcome=denied"}},
		{name: "empty session", ctx: cli, t: hist, args: `{"session":"nobody"}`, success: true, want: []string{"no calls recorded"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := tt.t.Execute(tt.ctx, json.RawMessage(tt.args))
			if err != nil || res.Success != tt.success {
				t.Fatalf("%+v %v", res, err)
			}
			text := res.Output.Text + res.Error
			for _, w := range tt.want {
				if !strings.Contains(text, w) {
					t.Errorf("%q lacks %q", text, w)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(text, w) {
					t.Errorf("%q shows %q", text, w)
				}
			}
		})
	}
}
