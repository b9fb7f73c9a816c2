package agents_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/talonhq/talon/agents"
	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/models/modeltest"
	"github.com/talonhq/talon/runtime"
	"github.com/talonhq/talon/tool"
)

// noop is a low-tier tool that does nothing, so a round costs only the
// loop, the model endpoint and the pipeline.
type noop struct{}

func (noop) Spec() tool.Spec {
	return tool.Spec{Name: "noop", Description: "Does nothing.", Input: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}}}`),
		Tier: tool.Low, Attribution: tool.Attribution{Kind: tool.KindCommand, Alias: "noop"}}
}

func (noop) Execute(context.Context, json.RawMessage) (tool.Result, error) {
	return tool.Text("ok"), nil
}

// BenchmarkAgentRound measures what the loop adds to a round besides the
// model endpoint's own latency and the tool's own cost. In the same run it
// times: an agent call of rounds rounds (each calls noop, then the model
// answers); a bare HTTP POST of a round's request to the same scripted
// server (the endpoint's own latency, as a client without any SDK sees
// it); and a runtime.Call of noop. overhead-ns/round is a round of the
// agent minus one POST and one noop call; the target is under 1 ms.
func BenchmarkAgentRound(b *testing.B) {
	const rounds = 10
	srv := modeltest.New(modeltest.OpenAI)
	defer srv.Close()
	dir := b.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "agents"), 0o755); err != nil {
		b.Fatal(err)
	}
	file := agentFile("tools: [noop]\nmax_rounds: 20", "Call noop until told otherwise: {{ input }}")
	if err := os.WriteFile(filepath.Join(dir, "agents", "bench.md"), []byte(file), 0o644); err != nil {
		b.Fatal(err)
	}
	src := "[models.local]\nprovider = \"openai\"\nbase_url = \"" + srv.URL + "\"\nmodel = \"m1\"\n[agents]\ndir = \"agents\"\nmodel = \"local\"\n"
	cfg, _, err := config.Parse(filepath.Join(dir, "talon.toml"), []byte(src))
	if err != nil {
		b.Fatal(err)
	}
	set, err := agents.Load(cfg, agents.Options{})
	if err != nil {
		b.Fatal(err)
	}
	rt, err := runtime.New(runtime.Options{Config: cfg, Workspace: b.TempDir(), DataDir: b.TempDir(), Tools: append(set.Tools, noop{})})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	script := func(n int) {
		for range n {
			for range rounds {
				srv.Script("m1", modeltest.Turn{Calls: []modeltest.Call{call("noop", `{"n":1}`)}})
			}
			srv.Script("m1", modeltest.Turn{Text: "done"})
		}
	}
	agentCall := tool.Call{Name: "agent__bench", Args: json.RawMessage(`{"input":"go"}`)}
	// Warm up the connection and every lazy compilation.
	script(1)
	if res, err := rt.Call(ctx, agentCall); err != nil || !res.Success {
		b.Fatalf("warm-up: %+v %v", res, err)
	}
	body := srv.Requests()[len(srv.Requests())-1].Body

	script(b.N)
	b.ResetTimer()
	for range b.N {
		if res, err := rt.Call(ctx, agentCall); err != nil || !res.Success {
			b.Fatalf("%+v %v", res, err)
		}
	}
	b.StopTimer()
	perRound := float64(b.Elapsed().Nanoseconds()) / float64(b.N*(rounds+1))

	// The endpoint's own latency: the last round's request body, posted
	// as it is, rounds+1 times per iteration.
	posts := b.N * (rounds + 1)
	for range posts {
		srv.Script("m1", modeltest.Turn{Calls: []modeltest.Call{call("noop", `{"n":1}`)}})
	}
	hc := &http.Client{}
	start := time.Now()
	for range posts {
		resp, err := hc.Post(srv.URL+"/chat/completions", "application/json", bytes.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
	}
	post := float64(time.Since(start).Nanoseconds()) / float64(posts)

	noopCall := tool.Call{Name: "noop", Args: json.RawMessage(`{"n":1}`)}
	start = time.Now()
	for range posts {
		if _, err := rt.Call(ctx, noopCall); err != nil {
			b.Fatal(err)
		}
	}
	toolCost := float64(time.Since(start).Nanoseconds()) / float64(posts)

	b.ReportMetric(perRound, "ns/round")
	b.ReportMetric(post, "endpoint-ns/round")
	b.ReportMetric(toolCost, "tool-ns/call")
	b.ReportMetric(perRound-post-toolCost*float64(rounds)/float64(rounds+1), "overhead-ns/round")
	b.ReportMetric(perRound/post, "round/endpoint")
}
