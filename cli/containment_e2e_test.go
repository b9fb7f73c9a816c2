package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMCPClientCannotReachPastPolicy is issue 14's end-to-end case: an
// MCP client driving the default profile tries to read a secret from
// talon's environment, to approve its own pending call, and to leave a
// process behind a timeout. Each attempt fails, and nothing of it is left.
func TestMCPClientCannotReachPastPolicy(t *testing.T) {
	if _, err := os.Stat("/proc/self/environ"); err != nil {
		t.Skip("needs /proc")
	}
	s := newSandbox(t, "[approvals]\ntimeout_seconds = 30\n")
	const token = "tok-0123456789abcdef-serve"
	const gh = "ghp_0123456789abcdefSECRETgh"
	cmd := s.command(t, "talon", "serve", "--stdio")
	cmd.Env = append(cmd.Env, "TALON_SERVE_TOKEN="+token, "GITHUB_TOKEN="+gh)
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	c := sdk.NewClient(&sdk.Implementation{Name: "agent", Version: "v0"}, nil)
	cs, err := c.Connect(context.Background(), &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, stderr.String())
	}
	t.Cleanup(func() { _ = cs.Close() })
	ctx := context.Background()
	shell := func(line string, timeout int) (string, bool) {
		t.Helper()
		args := map[string]any{"command": line}
		if timeout > 0 {
			args["timeout_seconds"] = timeout
		}
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "shell", Arguments: args})
		if err != nil {
			t.Fatalf("shell %q: %v\n%s", line, err, stderr.String())
		}
		return callText(t, res), res.IsError
	}
	talonPID := strconv.Itoa(cmd.Process.Pid)

	// 1. talon's environment, through its pid, the namespace's init and
	// the caller's own parent.
	for _, line := range []string{
		"grep -a TOKEN /proc/" + talonPID + "/environ",
		"cat /proc/" + talonPID + "/environ",
		"grep -a -r TOKEN /proc/1/environ",
		"cat /proc/" + talonPID + "/cmdline",
	} {
		text, _ := shell(line, 0)
		if strings.Contains(text, token) || strings.Contains(text, gh) {
			t.Errorf("%s printed a secret of talon's:\n%s", line, text)
		}
		// The default profile runs these lines: what stops them is the
		// sandbox and talon itself, not the policy.
		if strings.Contains(text, "policy") {
			t.Errorf("%s was refused by policy, so this proves nothing:\n%s", line, text)
		}
	}

	// 2. Its own pending call: a file_write waits for a person, and the
	// agent tries to answer it with talon itself.
	done := make(chan *sdk.CallToolResult, 1)
	go func() {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "file_write", Arguments: map[string]any{"path": "self.txt", "content": "self-approved"}})
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	id := pendingID(t, s)
	for _, line := range []string{
		"talon approvals approve " + id,
		"env talon approvals approve " + id,
		filepath.Join(filepath.Dir(os.Args[0]), filepath.Base(os.Args[0])) + " approvals approve " + id,
	} {
		text, isErr := shell(line, 0)
		if !isErr {
			t.Errorf("%s was not refused:\n%s", line, text)
		}
	}
	if _, err := os.Stat(filepath.Join(s.ws, "self.txt")); err == nil {
		t.Fatal("the agent approved its own call")
	}
	if again := pendingID(t, s); again != id {
		t.Fatalf("pending %s, want %s still", again, id)
	}
	if code, out := s.run("approvals", "deny", id); code != 0 {
		t.Fatalf("the operator's deny: exit %d\n%s", code, out)
	}
	<-done

	// 3. A process that outlives its call's timeout: tail -f of a file
	// named so that nothing else on the machine matches.
	mark := fmt.Sprintf("mark-%d.log", time.Now().UnixNano())
	if err := os.WriteFile(filepath.Join(s.ws, mark), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	text, isErr := shell("tail -f "+mark, 1)
	if !isErr || !strings.Contains(strings.ToLower(text), "timed out") {
		t.Errorf("tail -f with a 1 s timeout: isError=%v\n%s", isErr, text)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		left := processesNaming(mark)
		if len(left) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("processes left behind after the timeout: %v", left)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// processesNaming lists the pids whose command line mentions s.
func processesNaming(s string) []string {
	ents, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.Contains(string(b), s) {
			out = append(out, e.Name())
		}
	}
	return out
}
