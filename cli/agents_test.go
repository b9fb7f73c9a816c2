package cli

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/talonhq/talon/agents"
	"github.com/talonhq/talon/models"
)

func TestAgentArgs(t *testing.T) {
	plain := &agents.Agent{Name: "r", File: &agents.File{}}
	schema := &agents.Agent{Name: "s", File: &agents.File{InputSchema: json.RawMessage(`{"type":"object"}`)}}
	tests := []struct {
		name  string
		agent *agents.Agent
		input string
		want  string
		err   string
	}{
		{name: "text", agent: plain, input: "When is the launch?", want: `{"input":"When is the launch?"}`},
		{name: "a number stays text", agent: plain, input: "42", want: `{"input":"42"}`},
		{name: "object", agent: plain, input: ` {"q": 1} `, want: `{"input":{"q":1}}`},
		{name: "array", agent: plain, input: `["a","b"]`, want: `{"input":["a","b"]}`},
		{name: "broken JSON stays text", agent: plain, input: `{"q":`, want: `{"input":"{\"q\":"}`},
		{name: "schema takes the object", agent: schema, input: `{"topic":"tides"}`, want: `{"topic":"tides"}`},
		{name: "schema refuses text", agent: schema, input: `tides`, err: "takes a JSON object of its parameters"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := agentArgs(tt.agent, tt.input)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) || ExitCode(err) != ExitUsage {
					t.Fatalf("err = %v", err)
				}
				return
			}
			if err != nil || string(got) != tt.want {
				t.Fatalf("got %s, %v; want %s", got, err, tt.want)
			}
		})
	}
}

func TestStreamRounds(t *testing.T) {
	var b bytes.Buffer
	o := streamRounds(&b)
	path := []string{"orchestrator", "researcher"}
	o(agents.Event{Path: path, Round: 1, Tool: "file_read", Args: json.RawMessage("{\n  \"path\": \"a.txt\"\n}")})
	o(agents.Event{Path: path, Round: 1, Tool: "file_read", Outcome: "ok"})
	o(agents.Event{Path: path, Round: 2, Tool: "shell", Outcome: "denied", Detail: "denied by policy: no\nmore"})
	o(agents.Event{Path: path, Round: 3, Outcome: "answer", Usage: models.Usage{InputTokens: 9, OutputTokens: 2}})
	want := `orchestrator → researcher: round 1: file_read { "path": "a.txt" }
orchestrator → researcher: round 1: file_read: ok
orchestrator → researcher: round 2: shell: denied: denied by policy: no
orchestrator → researcher: answered after 3 rounds (9 tokens in, 2 out)
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
