package agents_test

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/talonhq/talon/models/modeltest"
	"github.com/talonhq/talon/receipts"
)

// TestReceiptTree: the receipt of each agent records its model, rounds and
// tokens and the receipts of the calls made inside it, nested agents
// included; the store verifies, links and all.
func TestReceiptTree(t *testing.T) {
	files := map[string]string{
		"agents/orchestrator.md": agentFile("subagents: [researcher]\ntools: [calculator]", "Plan: {{ input }}"),
		"agents/researcher.md":   researcher,
	}
	f := newFixture(t, fixtureOptions{files: files, receipts: true})
	f.write("notes.txt", "launch on Tuesday\n")
	f.srv.Script("m1",
		// orchestrator, round 1: two calls at once
		modeltest.Turn{Calls: []modeltest.Call{call("calculator", `{"expression":"6*7"}`), call("agent__researcher", `{"input":"when?"}`)}, InputTokens: 100, OutputTokens: 10},
		// researcher
		modeltest.Turn{Calls: []modeltest.Call{call("file_read", `{"path":"notes.txt"}`)}, InputTokens: 20, OutputTokens: 4},
		modeltest.Turn{Text: "Tuesday", InputTokens: 30, OutputTokens: 2},
		// orchestrator, round 2
		modeltest.Turn{Text: "42, on Tuesday", InputTokens: 200, OutputTokens: 6},
	)
	res := f.mustCall("agent__orchestrator", map[string]any{"input": "go"})
	if !res.Success || res.Receipt == nil {
		t.Fatalf("result = %+v", res)
	}
	d := res.Receipt.Delegation
	if d == nil || d.Model != "local/m1" || d.Rounds != 2 || d.InputTokens != 300 || d.OutputTokens != 16 || len(d.Inner) != 2 {
		t.Fatalf("delegation = %+v", d)
	}
	tree, err := receipts.Tree(f.storeDir, res.Receipt.ID)
	if err != nil {
		t.Fatal(err)
	}
	var tools []string
	var walk func(n *receipts.Node, depth int)
	walk = func(n *receipts.Node, depth int) {
		if n.Missing {
			t.Errorf("missing inner receipt %s", n.ID)
			return
		}
		tools = append(tools, strings.Repeat(">", depth)+n.Receipt.Tool)
		for _, c := range n.Inner {
			walk(c, depth+1)
		}
	}
	walk(tree, 0)
	slices.Sort(tools[1:])
	if want := []string{"agent__orchestrator", ">>file_read", ">agent__researcher", ">calculator"}; !slices.Equal(tools, want) {
		t.Errorf("tree %v, want %v", tools, want)
	}
	if rep := receipts.Verify(f.storeDir, nil); !rep.OK() {
		t.Fatalf("verify: %s", rep)
	}
	var b bytes.Buffer
	if err := receipts.WriteTree(&b, tree); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "agent__orchestrator (agent.orchestrator) auto, local/m1, 2 rounds, 300+16 tokens") {
		t.Errorf("tree:\n%s", b.String())
	}
}
