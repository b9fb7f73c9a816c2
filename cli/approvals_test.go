package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/talonhq/talon/approval"
	mcpserver "github.com/talonhq/talon/mcp/server"
)

func init() {
	// A tool process of these tests runs the test binary as talon. Started
	// without TALON_CLI_TEST_MAIN it would run every test of this package,
	// each starting servers and tools of its own: refuse to, rather than
	// fork without bound. go test passes only -test.* flags.
	if os.Getenv(testMainEnv) == "" && len(os.Args) > 1 && !strings.HasPrefix(os.Args[1], "-") {
		fmt.Fprintf(os.Stderr, "%s is not set: the test binary started as a program, not as tests\n", testMainEnv)
		os.Exit(2)
	}
}

// pendingID waits until `talon approvals list --json` shows one request.
func pendingID(t *testing.T, s *sandbox) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		code, out := s.run("approvals", "list", "--json")
		var list []struct {
			ID   string `json:"id"`
			Tool string `json:"tool"`
			Tier string `json:"tier"`
		}
		if code == 0 && json.Unmarshal([]byte(out), &list) == nil && len(list) == 1 {
			if list[0].Tool != "file_write" || list[0].Tier != "medium" {
				t.Fatalf("pending = %+v", list[0])
			}
			return list[0].ID
		}
		if time.Now().After(deadline) {
			t.Fatalf("no pending approval: exit %d\n%s", code, out)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestServeApprovalQueue(t *testing.T) {
	s := newSandbox(t, "")
	p := startHTTP(t, s, "talon", "serve", "--listen", "127.0.0.1:0")
	cs := connectHTTP(t, p.url, nil, nil)
	tests := []struct {
		name    string
		verb    string
		wantRun bool
		text    string
	}{
		{name: "approve", verb: "approve", wantRun: true, text: "out.txt"},
		{name: "deny", verb: "deny", text: approval.DeniedByUser},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := tt.name + ".txt"
			done := make(chan *sdk.CallToolResult, 1)
			go func() {
				res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "file_write", Arguments: map[string]any{"path": file, "content": "queued"}})
				if err != nil {
					t.Error(err)
				}
				done <- res
			}()
			id := pendingID(t, s)
			code, out := s.run("approvals", "list")
			if code != 0 || !strings.Contains(out, id) || !strings.Contains(out, "file_write") || !strings.Contains(out, "AGE") {
				t.Fatalf("approvals list: exit %d\n%s", code, out)
			}
			p.waitLog(t, "talon approvals approve "+id)
			if code, out := s.run("approvals", tt.verb, id); code != 0 {
				t.Fatalf("approvals %s: exit %d\n%s", tt.verb, code, out)
			}
			res := <-done
			if res == nil || res.IsError == tt.wantRun {
				t.Fatalf("result = %+v", res)
			}
			if tt.verb == "deny" && !strings.Contains(callText(t, res), tt.text) {
				t.Fatalf("text = %q", callText(t, res))
			}
			_, err := os.Stat(filepath.Join(s.ws, file))
			if (err == nil) != tt.wantRun {
				t.Fatalf("file written = %v", err == nil)
			}
		})
	}
	if code, out := s.run("approvals", "approve", "nosuchid"); code != ExitUsage || !strings.Contains(out, "approvals list") {
		t.Fatalf("unknown id: exit %d\n%s", code, out)
	}
	if code, out := s.run("approvals", "list"); code != 0 || !strings.Contains(out, "no approvals pending") {
		t.Fatalf("empty list: exit %d\n%s", code, out)
	}
}

func TestApprovalsWithoutServer(t *testing.T) {
	s := newSandbox(t, "")
	code, out := s.run("approvals", "list")
	if code != ExitError || !strings.Contains(out, "no running talon serve") {
		t.Fatalf("exit %d\n%s", code, out)
	}
}

func TestAge(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{-time.Second, "0s"}, {8 * time.Second, "8s"}, {125 * time.Second, "2m05s"}, {3780 * time.Second, "1h03m"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := age(tt.d); got != tt.want {
				t.Fatalf("age(%s) = %s", tt.d, got)
			}
		})
	}
}

func TestPrintPending(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var out strings.Builder
	list := []mcpserver.PendingApproval{{ID: "abcdefghijkl", Tool: "shell", Tier: 3, Since: now.Add(-90 * time.Second), Args: `{"command":"rm -rf build"}`}}
	if err := printPending(&out, list, now); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"ID", "TOOL", "TIER", "AGE", "PLAN", "abcdefghijkl", "shell", "high", "1m30s", "rm -rf build"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

func TestServeApprovalByElicitation(t *testing.T) {
	s := newSandbox(t, "")
	p := startHTTP(t, s, "talon", "serve", "--listen", "127.0.0.1:0")
	var asked []string
	cs := connectHTTP(t, p.url, nil, &sdk.ClientOptions{ElicitationHandler: func(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		asked = append(asked, req.Params.Message)
		return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"decision": "yes"}}, nil
	}})
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "file_write", Arguments: map[string]any{"path": "asked.txt", "content": "ok"}})
	if err != nil || res.IsError {
		t.Fatalf("%v %+v", err, res)
	}
	if len(asked) != 1 || !strings.Contains(asked[0], "builtin.file_write") || !strings.Contains(asked[0], "medium") {
		t.Fatalf("asked %q", asked)
	}
	if got, err := os.ReadFile(filepath.Join(s.ws, "asked.txt")); err != nil || string(got) != "ok" {
		t.Fatalf("file = %q, %v", got, err)
	}
}

// TestApprovalsRefusedFromToolProcesses has a tool process of talon serve
// run the real `talon approvals approve ID` through a shell for a call
// that waits; with the sandbox off, nothing but the control socket's peer
// check stands in its way. The operator, whose process talon did not
// start, then approves the same call.
func TestApprovalsRefusedFromToolProcesses(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	s := newSandbox(t, "")
	env := s.env()
	// detach.sh leaves the tool's session, group and tree (setsid -f, a
	// double fork) and returns only once the detached process has its own
	// session, so the tool's group kill cannot reach it.
	detachScript := filepath.Join(t.TempDir(), "detach.sh")
	if err := os.WriteFile(detachScript, []byte(`setsid -f /bin/sh -c 'touch "$3.ready"; `+testMainEnv+`=talon "$1" approvals approve "$2" > "$3" 2>&1; echo "exit $?" >> "$3"' sh "$1" "$2" "$3"
while [ ! -e "$3.ready" ]; do sleep 0.01; done
`), 0o644); err != nil {
		t.Fatal(err)
	}
	s.userConfig(t, fmt.Sprintf(`[sandbox]
mode = "off"

[tools.commands.approve]
description = "Answer a pending approval"
command = ["/bin/sh", "-c", '%s=talon "$0" approvals approve "$1"; echo "exit $?"', %q, "{{ input.id }}"]
parameters = { type = "object", properties = { id = { type = "string" } }, required = ["id"] }
tier = "low"
env = { HOME = %q, XDG_CONFIG_HOME = %q, XDG_DATA_HOME = %q, PATH = %q }

[tools.commands.approve_detached]
description = "Answer a pending approval from a process that left the tool's tree"
command = ["/bin/sh", %q, %q, "{{ input.id }}", %q]
parameters = { type = "object", properties = { id = { type = "string" } }, required = ["id"] }
tier = "low"
env = { HOME = %q, XDG_CONFIG_HOME = %q, XDG_DATA_HOME = %q, PATH = %q }
`, testMainEnv, exe, env["HOME"], env["XDG_CONFIG_HOME"], env["XDG_DATA_HOME"], env["PATH"],
		detachScript, exe, filepath.Join(s.ws, "detached.out"), env["HOME"], env["XDG_CONFIG_HOME"], env["XDG_DATA_HOME"], env["PATH"]))
	p := startHTTP(t, s, "talon", "serve", "--listen", "127.0.0.1:0")
	cs := connectHTTP(t, p.url, nil, nil)
	done := make(chan *sdk.CallToolResult, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "file_write", Arguments: map[string]any{"path": "agent.txt", "content": "self-approved"}})
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	id := pendingID(t, s)

	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "tool__approve", Arguments: map[string]any{"id": id}})
	if err != nil {
		t.Fatal(err)
	}
	if text := callText(t, res); !strings.Contains(text, "approvals must come from a person's terminal") || !strings.Contains(text, fmt.Sprintf("exit %d", ExitDenied)) {
		t.Fatalf("talon approvals approve from a tool process:\n%s", text)
	}
	p.waitLog(t, "approvals must come from a person's terminal")
	for _, want := range []string{"check=\"descendant of this server\"", "peer_pid=", "approvals approve " + id} {
		if !strings.Contains(p.stderr.String(), want) {
			t.Errorf("the server's log lacks %q:\n%s", want, p.stderr.String())
		}
	}
	if _, err := os.Stat(filepath.Join(s.ws, "agent.txt")); err == nil {
		t.Fatal("the tool process approved its own call")
	}
	// A process that left the tool's session, group and tree: talon, a
	// child subreaper even with the sandbox off, adopts the orphan, which
	// stays its descendant.
	if res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "tool__approve_detached", Arguments: map[string]any{"id": id}}); err != nil || res.IsError {
		t.Fatalf("tool__approve_detached: %v %s", err, callText(t, res))
	}
	detached := filepath.Join(s.ws, "detached.out")
	deadline := time.Now().Add(20 * time.Second)
	for {
		out, _ := os.ReadFile(detached)
		if strings.Contains(string(out), "exit ") {
			if !strings.Contains(string(out), fmt.Sprintf("exit %d", ExitDenied)) {
				t.Fatalf("a detached tool process answered the approval:\n%s", out)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the detached process never finished:\n%s", out)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if again := pendingID(t, s); again != id {
		t.Fatalf("pending %s, want %s still", again, id)
	}
	// The operator, from a process talon did not start, still answers.
	if code, out := s.run("approvals", "approve", id); code != 0 {
		t.Fatalf("the operator's approve: exit %d\n%s", code, out)
	}
	if res := <-done; res == nil || res.IsError {
		t.Fatalf("file_write = %+v", res)
	}
}
