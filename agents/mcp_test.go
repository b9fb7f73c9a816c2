package agents_test

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	mcpserver "github.com/talonhq/talon/mcp/server"
	"github.com/talonhq/talon/models/modeltest"
)

// TestApprovalOverMCP: an MCP client sees agent__writer, calls it, and is
// asked, by elicitation, about the file_write the subagent wants, with the
// delegation path in the question.
func TestApprovalOverMCP(t *testing.T) {
	for _, answer := range []string{"yes", "no"} {
		t.Run(answer, func(t *testing.T) {
			files := map[string]string{"agents/writer.md": agentFile("description: Writes notes.\ntools: [file_write]", "Record this: {{ input }}")}
			f := newFixture(t, fixtureOptions{files: files, approver: &mcpserver.Approver{}, receipts: true})
			f.srv.Script("m1",
				modeltest.Turn{Calls: []modeltest.Call{call("file_write", `{"path":"note.txt","content":"remember the milk"}`)}},
				modeltest.Turn{Text: "Recorded."},
			)
			srv, err := mcpserver.New(mcpserver.Options{Runtime: f.rt})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = srv.Close() })
			hs := httptest.NewServer(srv.HTTPHandler(mcpserver.HTTPOptions{}))
			t.Cleanup(hs.Close)

			var mu sync.Mutex
			var questions []string
			client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "v0"}, &sdk.ClientOptions{
				ElicitationHandler: func(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
					mu.Lock()
					questions = append(questions, req.Params.Message)
					mu.Unlock()
					return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"decision": answer}}, nil
				},
			})
			ctx := context.Background()
			cs, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: hs.URL + mcpserver.DefaultPath}, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = cs.Close() })

			list, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, tl := range list.Tools {
				found = found || tl.Name == "agent__writer" && tl.Description == "Writes notes."
			}
			if !found {
				t.Fatal("the client does not see agent__writer")
			}
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "agent__writer", Arguments: map[string]any{"input": "milk"}})
			if err != nil {
				t.Fatal(err)
			}
			if res.IsError || len(res.Content) == 0 || res.Content[0].(*sdk.TextContent).Text != "Recorded." {
				t.Fatalf("result = %+v", res)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(questions) != 1 || !strings.Contains(questions[0], "writer → file_write") || !strings.Contains(questions[0], "note.txt") {
				t.Fatalf("questions = %q", questions)
			}
			got, _ := os.ReadFile(filepath.Join(f.ws, "note.txt"))
			fedBack := f.srv.RequestsFor("m1")[1].LastToolResults()[0].Text
			switch answer {
			case "yes":
				if string(got) != "remember the milk" {
					t.Errorf("note.txt = %q", got)
				}
				fw, ag := f.receiptsOf("file_write"), f.receiptsOf("agent__writer")
				if len(fw) != 1 || len(ag) != 1 || ag[0].Delegation == nil || len(ag[0].Delegation.Inner) != 1 || ag[0].Delegation.Inner[0] != fw[0].ID {
					t.Errorf("the file_write receipt is not under the agent's: %+v, %+v", fw, ag)
				}
			default:
				if got != nil || !strings.Contains(fedBack, "Denied by user.") {
					t.Errorf("note.txt = %q, fed back %q", got, fedBack)
				}
			}
			if n := len(f.receiptsOf("agent__writer")); n != 1 {
				t.Errorf("%d agent receipts, want 1", n)
			}
		})
	}
}
