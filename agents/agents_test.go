package agents_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/talonhq/talon/agents"
	"github.com/talonhq/talon/approval"
	"github.com/talonhq/talon/models"
	"github.com/talonhq/talon/models/modeltest"
	"github.com/talonhq/talon/tool"
)

var providers = []modeltest.Provider{modeltest.OpenAI, modeltest.Anthropic}

const researcher = `---
name: researcher
description: Reads the workspace to answer a question.
tools: [file_read]
---
Answer from the files of the workspace: {{ input }}
`

// TestDelegation is the basic run: the agent reads a file through the
// runtime, then answers.
func TestDelegation(t *testing.T) {
	for _, p := range providers {
		t.Run(string(p), func(t *testing.T) {
			f := newFixture(t, fixtureOptions{provider: p, files: map[string]string{"agents/researcher.md": researcher}, receipts: true})
			f.write("notes.txt", "the launch is on Tuesday\n")
			f.srv.Script("m1",
				modeltest.Turn{Calls: []modeltest.Call{call("file_read", `{"path":"notes.txt"}`)}, InputTokens: 30, OutputTokens: 8},
				modeltest.Turn{Text: "The launch is on Tuesday.", InputTokens: 50, OutputTokens: 6},
			)
			res := f.mustCall("agent__researcher", map[string]any{"input": "When is the launch?"})
			if !res.Success || res.Output.Text != "The launch is on Tuesday." {
				t.Fatalf("result = %+v", res)
			}
			rep, ok := res.Output.Data.(agents.Report)
			if !ok || rep.Rounds != 2 || rep.Calls != 1 || rep.Model != "local/m1" || rep.Usage != (models.Usage{InputTokens: 80, OutputTokens: 14}) {
				t.Errorf("report = %+v", res.Output.Data)
			}
			reqs := f.srv.RequestsFor("m1")
			if len(reqs) != 2 {
				t.Fatalf("%d model requests", len(reqs))
			}
			if got := reqs[0].Messages[0].Text; !strings.Contains(got, "Answer from the files of the workspace: When is the launch?") {
				t.Errorf("prompt = %q", got)
			}
			if !slices.Equal(reqs[0].Tools, []string{"file_read"}) {
				t.Errorf("offered %v, want only file_read", reqs[0].Tools)
			}
			if r := reqs[1].LastToolResults(); len(r) != 1 || !strings.Contains(r[0].Text, "the launch is on Tuesday") {
				t.Errorf("tool results fed back = %+v", r)
			}
			if reqs[0].Auth != testKey {
				t.Error("the model was not sent its key")
			}
			if n := len(f.receiptsOf("file_read")); n != 1 {
				t.Errorf("%d file_read receipts, want 1", n)
			}
			if n := len(f.receiptsOf("agent__researcher")); n != 1 {
				t.Errorf("%d agent receipts, want 1", n)
			}
			if res.Receipt == nil {
				t.Error("the agent's result has no receipt")
			}
		})
	}
}

// TestNotAllowed feeds a denial back to the model, which then answers.
func TestNotAllowed(t *testing.T) {
	tests := []struct {
		name    string
		call    modeltest.Call
		fedBack string
	}{
		{name: "tool outside the agent's list", call: call("shell", `{"command":"ls"}`), fedBack: "Denied by policy: tool shell is not allowed for this caller"},
		{name: "unknown tool", call: call("nosuch", `{}`), fedBack: "unknown tool nosuch; the tools you may call are: file_read"},
		{name: "arguments not an object", call: call("file_read", `"notes.txt"`), fedBack: "arguments"},
		{name: "arguments fail the schema", call: call("file_read", `{"paht":"x"}`), fedBack: "fix the arguments"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, fixtureOptions{files: map[string]string{"agents/researcher.md": researcher}})
			f.srv.Script("m1", modeltest.Turn{Calls: []modeltest.Call{tt.call}}, modeltest.Turn{Text: "I could not do that."})
			res := f.mustCall("agent__researcher", map[string]any{"input": "list the files"})
			if !res.Success || res.Output.Text != "I could not do that." {
				t.Fatalf("result = %+v", res)
			}
			reqs := f.srv.RequestsFor("m1")
			r := reqs[len(reqs)-1].LastToolResults()
			if len(r) != 1 || !strings.Contains(r[0].Text, tt.fedBack) {
				t.Fatalf("fed back %+v, want %q", r, tt.fedBack)
			}
		})
	}
}

// TestParallelCalls runs the calls of one round as a batch and feeds the
// results back in the model's order.
func TestParallelCalls(t *testing.T) {
	for _, p := range providers {
		t.Run(string(p), func(t *testing.T) {
			f := newFixture(t, fixtureOptions{provider: p, files: map[string]string{"agents/researcher.md": researcher}})
			f.write("a.txt", "alpha\n")
			f.write("b.txt", "beta\n")
			f.srv.Script("m1",
				modeltest.Turn{Calls: []modeltest.Call{{ID: "c1", Name: "file_read", Args: `{"path":"a.txt"}`}, {ID: "c2", Name: "file_read", Args: `{"path":"b.txt"}`}}},
				modeltest.Turn{Text: "alpha and beta"},
			)
			var mu sync.Mutex
			var events []agents.Event
			ctx := agents.WithObserver(context.Background(), func(e agents.Event) {
				mu.Lock()
				defer mu.Unlock()
				events = append(events, e)
			})
			res, err := f.call(ctx, "agent__researcher", map[string]any{"input": "read both"})
			if err != nil || !res.Success {
				t.Fatalf("res = %+v, err = %v", res, err)
			}
			r := f.srv.RequestsFor("m1")[1].LastToolResults()
			if len(r) != 2 || r[0].ToolCallID != "c1" || !strings.Contains(r[0].Text, "alpha") || r[1].ToolCallID != "c2" || !strings.Contains(r[1].Text, "beta") {
				t.Fatalf("results fed back = %+v", r)
			}
			var outcomes []string
			for _, e := range events {
				outcomes = append(outcomes, e.Tool+":"+e.Outcome)
				if !slices.Equal(e.Path, []string{"researcher"}) {
					t.Errorf("event path %v", e.Path)
				}
			}
			if want := []string{"file_read:", "file_read:", "file_read:ok", "file_read:ok", ":answer"}; !slices.Equal(outcomes, want) {
				t.Errorf("events %v, want %v", outcomes, want)
			}
		})
	}
}

// TestNesting delegates three deep; an approval asked at the bottom shows
// the whole path, and every agent runs on its own model.
func TestNesting(t *testing.T) {
	files := map[string]string{
		"agents/orchestrator.md": agentFile("model: mo\nsubagents: [researcher]", "Plan: {{ input }}"),
		"agents/researcher.md":   agentFile("model: mr\nsubagents: [writer]", "Research: {{ input }}"),
		"agents/writer.md":       agentFile("model: mw\ntools: [file_write]", "Write: {{ input }}"),
	}
	cfg := `
[models.mo]
provider = "openai"
base_url = "{{URL}}"
model = "mo"
[models.mr]
provider = "openai"
base_url = "{{URL}}"
model = "mr"
[models.mw]
provider = "openai"
base_url = "{{URL}}"
model = "mw"
[agents]
dir = "agents"
`
	ap := &recorder{answer: approval.Yes}
	f := newFixture(t, fixtureOptions{config: cfg, files: files, approver: ap})
	f.srv.Key = ""
	f.srv.Script("mo", modeltest.Turn{Calls: []modeltest.Call{call("agent__researcher", `{"input":"find and record"}`)}}, modeltest.Turn{Text: "done: recorded"})
	f.srv.Script("mr", modeltest.Turn{Calls: []modeltest.Call{call("agent__writer", `{"input":{"note":"x"}}`)}}, modeltest.Turn{Text: "recorded"})
	f.srv.Script("mw", modeltest.Turn{Calls: []modeltest.Call{call("file_write", `{"path":"out.txt","content":"x"}`)}}, modeltest.Turn{Text: "wrote out.txt"})
	res := f.mustCall("agent__orchestrator", map[string]any{"input": "go"})
	if !res.Success || res.Output.Text != "done: recorded" {
		t.Fatalf("result = %+v", res)
	}
	if got, _ := os.ReadFile(filepath.Join(f.ws, "out.txt")); string(got) != "x" {
		t.Fatalf("out.txt = %q", got)
	}
	if got := f.srv.RequestsFor("mw")[0].Messages[0].Text; !strings.Contains(got, `Write: {"note":"x"}`) {
		t.Errorf("an object input is rendered as JSON: %q", got)
	}
	reqs := ap.requests()
	if len(reqs) != 1 || !slices.Equal(reqs[0].Delegation, []string{"orchestrator", "researcher", "writer"}) {
		t.Fatalf("approvals = %+v", reqs)
	}
	if r := approval.Render(reqs[0]); !strings.Contains(r, "via:    orchestrator → researcher → writer → file_write") {
		t.Errorf("the approver is not shown the path:\n%s", r)
	}
}

// TestDepth refuses the 17th agent of a chain; the 16th reads the refusal
// and answers.
func TestDepth(t *testing.T) {
	files := map[string]string{}
	for i := 1; i <= agents.MaxDepth+1; i++ {
		front := "model: local"
		if i <= agents.MaxDepth {
			front += fmt.Sprintf("\nsubagents: [a%d]", i+1)
		}
		files[fmt.Sprintf("agents/a%d.md", i)] = agentFile(front, "Task: {{ input }}")
	}
	f := newFixture(t, fixtureOptions{files: files})
	// One model serves the chain: each of the 16 agents delegates once,
	// then each answers, innermost first.
	for i := 1; i <= agents.MaxDepth; i++ {
		f.srv.Script("m1", modeltest.Turn{Calls: []modeltest.Call{call(fmt.Sprintf("agent__a%d", i+1), `{"input":"deeper"}`)}})
	}
	for range agents.MaxDepth {
		f.srv.Script("m1", modeltest.Turn{Text: "bottom reached"})
	}
	res := f.mustCall("agent__a1", map[string]any{"input": "go"})
	if !res.Success || res.Output.Text != "bottom reached" {
		t.Fatalf("result = %+v", res)
	}
	reqs := f.srv.RequestsFor("m1")
	refusal := reqs[agents.MaxDepth].LastToolResults()
	if len(refusal) != 1 || !strings.Contains(refusal[0].Text, "agent a17 was not started") || !strings.Contains(refusal[0].Text, "17 agents deep, and talon allows 16") {
		t.Fatalf("the 16th agent read %+v", refusal)
	}
	if f.srv.Pending() != 0 {
		t.Errorf("%d scripted turns left", f.srv.Pending())
	}
}

// TestFailures: whatever goes wrong, the call fails naming the agent and
// what to fix, nothing hangs, and the agent gets no receipt.
func TestFailures(t *testing.T) {
	loop := make([]modeltest.Turn, 3)
	for i := range loop {
		loop[i] = modeltest.Turn{Calls: []modeltest.Call{call("file_read", `{"path":"notes.txt"}`)}}
	}
	tests := []struct {
		name  string
		front string
		turns []modeltest.Turn
		down  bool
		want  []string
	}{
		{name: "endpoint down", down: true, want: []string{"agent researcher stopped in round 1", "could not be reached"}},
		{name: "5xx", turns: []modeltest.Turn{{Status: 503}}, want: []string{"agent researcher stopped in round 1", "503"}},
		{name: "garbage", turns: []modeltest.Turn{{Raw: "this is not JSON"}}, want: []string{"agent researcher stopped in round 1", "cannot read"}},
		{name: "loops forever", front: "max_rounds: 3", turns: loop, want: []string{"agent researcher did not finish within max_rounds = 3", "file_read"}},
		{name: "answer too long", front: "max_output_bytes: 10", turns: []modeltest.Turn{{Text: "far more than ten bytes"}},
			want: []string{"answered 23 bytes, more than max_output_bytes = 10"}},
		{name: "timeout", front: "timeout_seconds: 1", turns: []modeltest.Turn{{Hang: true}}, want: []string{"agent researcher timed out", "timeout_seconds = 1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			front := "tools: [file_read]"
			if tt.front != "" {
				front += "\n" + tt.front
			}
			f := newFixture(t, fixtureOptions{files: map[string]string{"agents/researcher.md": agentFile(front, "{{ input }}")}, receipts: true})
			f.write("notes.txt", "hello\n")
			f.srv.Script("m1", tt.turns...)
			if tt.down {
				f.srv.Close()
			}
			res := f.mustCall("agent__researcher", map[string]any{"input": "go"})
			if res.Success {
				t.Fatalf("succeeded: %+v", res)
			}
			for _, w := range tt.want {
				if !strings.Contains(res.Error, w) {
					t.Errorf("error %q lacks %q", res.Error, w)
				}
			}
			if res.Receipt != nil || len(f.receiptsOf("agent__researcher")) != 0 {
				t.Error("a failed run got a receipt")
			}
			if strings.Contains(res.Error, testKey) || strings.Contains(f.logs.String(), testKey) {
				t.Error("the key was shown")
			}
		})
	}
}

// TestNoApprover: a call that needs a person, on a channel without one,
// is denied as always; the model reads the denial.
func TestNoApprover(t *testing.T) {
	f := newFixture(t, fixtureOptions{files: map[string]string{"agents/w.md": agentFile("tools: [file_write]", "{{ input }}")}})
	f.srv.Script("m1", modeltest.Turn{Calls: []modeltest.Call{call("file_write", `{"path":"x.txt","content":"x"}`)}}, modeltest.Turn{Text: "not allowed"})
	res := f.mustCall("agent__w", map[string]any{"input": "write"})
	if !res.Success {
		t.Fatalf("result = %+v", res)
	}
	r := f.srv.RequestsFor("m1")[1].LastToolResults()
	if len(r) != 1 || r[0].Text != approval.DeniedNoApprover {
		t.Fatalf("fed back %+v", r)
	}
	if _, err := os.Stat(filepath.Join(f.ws, "x.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("the file was written")
	}
}

// TestCallerAllowlist: a caller with an allowlist (a cron job) never lends
// the agent more than it has.
func TestCallerAllowlist(t *testing.T) {
	f := newFixture(t, fixtureOptions{files: map[string]string{"agents/researcher.md": researcher}})
	f.write("notes.txt", "hello\n")
	f.srv.Script("m1", modeltest.Turn{Calls: []modeltest.Call{call("file_read", `{"path":"notes.txt"}`)}}, modeltest.Turn{Text: "no"})
	res, err := f.rt.Call(context.Background(), tool.Call{Name: "agent__researcher", Args: json.RawMessage(`{"input":"read"}`),
		CallerAllowlist: []string{"agent__researcher"}})
	if err != nil || !res.Success {
		t.Fatalf("res = %+v, err = %v", res, err)
	}
	reqs := f.srv.RequestsFor("m1")
	if len(reqs[0].Tools) != 0 {
		t.Errorf("offered %v to a caller that may not use them", reqs[0].Tools)
	}
	if r := reqs[1].LastToolResults(); len(r) != 1 || !strings.Contains(r[0].Text, "not allowed for this caller") {
		t.Fatalf("fed back %+v", r)
	}
}

// TestInputSchema: the agent's input_schema is the tool's parameters and
// the whole argument object is {{ input }}.
func TestInputSchema(t *testing.T) {
	file := agentFile(`input_schema:
  type: object
  properties:
    topic: {type: string}
    depth: {type: integer}
  required: [topic]`, "Research {{ input.topic }} to depth {{ input.depth }}. All: {{ input }}")
	f := newFixture(t, fixtureOptions{files: map[string]string{"agents/r.md": file}})
	f.srv.Script("m1", modeltest.Turn{Text: "ok"})
	e, ok := f.rt.Catalog().Lookup("agent__r")
	if !ok || !strings.Contains(string(e.Spec.Input), `"topic"`) || e.Spec.Attribution.String() != "agent.r" || e.Spec.Tier != tool.Low {
		t.Fatalf("spec = %+v", e)
	}
	if !strings.Contains(e.Spec.Description, "Runs the 'r' subagent for a delegated task.") {
		t.Errorf("default description = %q", e.Spec.Description)
	}
	res := f.mustCall("agent__r", map[string]any{"topic": "tides", "depth": 2})
	if !res.Success {
		t.Fatalf("result = %+v", res)
	}
	want := `Research tides to depth 2. All: {"depth":2,"topic":"tides"}`
	if got := f.srv.RequestsFor("m1")[0].Messages[0].Text; !strings.Contains(got, want) {
		t.Errorf("prompt %q lacks %q", got, want)
	}
	if res := f.mustCall("agent__r", map[string]any{"depth": 2}); res.Success || !strings.Contains(res.Error, "topic") {
		t.Errorf("arguments against the schema: %+v", res)
	}
}

// TestModelOverride: --model replaces the outermost agent's model only.
func TestModelOverride(t *testing.T) {
	f := newFixture(t, fixtureOptions{files: map[string]string{"agents/researcher.md": researcher}})
	other, err := models.New("other", f.cfg.Models["local"], models.Options{LookupEnv: lookup})
	if err != nil {
		t.Fatal(err)
	}
	f.srv.Script("m1", modeltest.Turn{Text: "from m1"})
	ctx := agents.WithModel(context.Background(), "researcher", other)
	res, err := f.call(ctx, "agent__researcher", map[string]any{"input": "x"})
	if err != nil || res.Output.Data.(agents.Report).Model != "other/m1" {
		t.Fatalf("res = %+v, err = %v", res, err)
	}
}

// TestLocalized: <agent>.<lang>.md and locales/ localize the description.
func TestLocalized(t *testing.T) {
	files := map[string]string{
		"agents/researcher.md":         researcher,
		"agents/researcher.ja.md":      "---\ndescription: ワークスペースのファイルを読んで質問に答えます。{ 波括弧 }\n---\n",
		"agents/summarizer.md":         agentFile("description: Summarizes text.", "{{ input }}"),
		"agents/locales/ja/agents.ftl": "tool-agent--summarizer = 文章を要約します。\n",
	}
	f := newFixture(t, fixtureOptions{files: files})
	specs, err := f.rt.View(runtimeView("ja"))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, s := range specs {
		got[s.Name] = s.Description
	}
	if got["agent__researcher"] != "ワークスペースのファイルを読んで質問に答えます。{ 波括弧 }" || got["agent__summarizer"] != "文章を要約します。" {
		t.Errorf("ja descriptions = %q, %q", got["agent__researcher"], got["agent__summarizer"])
	}
	specs, _ = f.rt.View(runtimeView("en"))
	for _, s := range specs {
		if s.Name == "agent__researcher" && s.Description != "Reads the workspace to answer a question." {
			t.Errorf("en description = %q", s.Description)
		}
	}
}

// TestDeferredDiscovery: deferred discovery shortens what a client is
// shown, never what an agent may use: the tools an agent lists are
// offered to its model with their full schemas.
func TestDeferredDiscovery(t *testing.T) {
	cfg := baseConfig + "\n[runtime]\ndeferred_builtin_tools = true\n"
	f := newFixture(t, fixtureOptions{config: cfg, files: map[string]string{"agents/s.md": agentFile("tools: [content_search, glob_search]", "{{ input }}")}})
	f.srv.Script("m1", modeltest.Turn{Text: "ok"})
	if res := f.mustCall("agent__s", map[string]any{"input": "x"}); !res.Success {
		t.Fatalf("result = %+v", res)
	}
	if got := f.srv.RequestsFor("m1")[0].Tools; !slices.Equal(got, []string{"content_search", "glob_search"}) {
		t.Fatalf("offered %v", got)
	}
}
