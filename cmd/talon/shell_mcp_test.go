//go:build linux

package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/talonhq/talon/internal/proctest"
)

// shellSession is a talon serve --stdio with a go-sdk client that
// collects the log notifications it gets.
type shellSession struct {
	t     *testing.T
	srv   *mpServer
	notes chan *sdk.LoggingMessageParams
}

func startShellSession(t *testing.T, h *mpHome) *shellSession {
	t.Helper()
	s := &shellSession{t: t, notes: make(chan *sdk.LoggingMessageParams, 32)}
	srv := &mpServer{cmd: h.command(h.ctx, "serve", "--stdio"), stderr: &syncBuffer{}}
	srv.cmd.Stderr = srv.stderr
	c := sdk.NewClient(&sdk.Implementation{Name: "shell-e2e", Version: "v0"}, &sdk.ClientOptions{
		LoggingMessageHandler: func(_ context.Context, req *sdk.LoggingMessageRequest) {
			select {
			case s.notes <- req.Params:
			default:
			}
		},
	})
	cs, err := c.Connect(context.Background(), &sdk.CommandTransport{Command: srv.cmd}, nil)
	if err != nil {
		t.Fatalf("connect to talon serve --stdio: %v\n%s", err, srv.stderr.String())
	}
	srv.cs = cs
	t.Cleanup(func() { _ = cs.Close() })
	s.srv = srv
	return s
}

func (s *shellSession) call(name string, args map[string]any) (string, bool) {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), mpCallTimeout)
	defer cancel()
	res, err := s.srv.cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		s.t.Fatalf("%s %v: %v\n%s", name, args, err, s.srv.stderr.String())
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), !res.IsError
}

var processID = regexp.MustCompile(`\bp[0-9]+\b`)

// pollFor polls process id until what it wrote contains want; it returns
// the last poll's text.
func (s *shellSession) pollFor(id, want string) string {
	s.t.Helper()
	var seen strings.Builder
	deadline := time.Now().Add(30 * time.Second)
	last := ""
	for time.Now().Before(deadline) {
		text, ok := s.call("process", map[string]any{"action": "poll", "id": id, "wait_seconds": 2})
		if !ok {
			s.t.Fatalf("poll %s: %s", id, text)
		}
		seen.WriteString(text)
		last = text
		if strings.Contains(seen.String(), want) {
			return last
		}
	}
	s.t.Fatalf("%s never wrote %q; polls said:\n%s", id, want, seen.String())
	return last
}

func (s *shellSession) note(id string) *sdk.LoggingMessageParams {
	s.t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case n := <-s.notes:
			if d, ok := n.Data.(map[string]any); ok && d["process"] == id {
				return n
			}
		case <-deadline:
			s.t.Fatalf("no notification for %s arrived\n%s", id, s.srv.stderr.String())
			return nil
		}
	}
}

// TestShellOverMCP is the agent's side of the shell's background work,
// over MCP with real processes under the sandbox talon serve sets up: a
// make in sub/ that outlasts yield_ms is polled to completion and its end
// arrives as a notification; a program that needs a terminal is driven
// with send_keys, and C-c on its terminal reaches it as SIGINT through
// the sandbox helper.
func TestShellOverMCP(t *testing.T) {
	proctest.NeedBins(t, "make", "sleep", "go")
	h := newMPHome(t)
	vimish := filepath.Join(h.dir, "vimish")
	if out, err := exec.Command("go", "build", "-o", vimish, "../../adapters/shell/testdata/vimish").CombinedOutput(); err != nil {
		t.Fatalf("build vimish: %v\n%s", err, out)
	}
	if err := os.MkdirAll(filepath.Join(h.ws, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	makefile := "all:\n\t@echo compiling\n\t@sleep 1\n\t@echo built\n"
	if err := os.WriteFile(filepath.Join(h.ws, "sub", "Makefile"), []byte(makefile), 0o644); err != nil {
		t.Fatal(err)
	}
	cfgDir := filepath.Join(h.dir, "config", "talon")
	if err := os.MkdirAll(cfgDir, 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := "[risk_profiles.default]\nlevel = \"full\"\nallowed_commands = [\"make\", \"sleep\", \"" + vimish + "\"]\n"
	if err := os.WriteFile(filepath.Join(cfgDir, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	s := startShellSession(t, h)

	t.Run("make in sub yields and is polled to completion", func(t *testing.T) {
		s.t = t
		text, ok := s.call("shell", map[string]any{"command": "make", "workdir": "sub", "yield_ms": 200})
		if !ok || !strings.Contains(text, "still running after 200ms") {
			t.Fatalf("make with yield_ms = %q", text)
		}
		id := processID.FindString(text)
		last := s.pollFor(id, "built")
		for !strings.Contains(last, "exited with status 0") {
			last, _ = s.call("process", map[string]any{"action": "poll", "id": id, "wait_seconds": 5})
		}
		n := s.note(id)
		d := n.Data.(map[string]any)
		if n.Logger != "talon.process" || d["status"] != "exited" || d["exit_code"] != float64(0) || !strings.Contains(d["message"].(string), "make") {
			t.Fatalf("notification = %+v %v", n, d)
		}
		if list, _ := s.call("process", map[string]any{"action": "list"}); !strings.Contains(list, id+" exited with status 0") || !strings.Contains(list, " in sub: make") {
			t.Fatalf("list = %q", list)
		}
	})

	t.Run("a terminal program driven with send_keys", func(t *testing.T) {
		s.t = t
		if text, ok := s.call("shell", map[string]any{"command": vimish}); ok || !strings.Contains(text, "not a terminal") {
			t.Fatalf("without pty = %q", text)
		}
		text, ok := s.call("shell", map[string]any{"command": vimish, "pty": true, "background": true})
		if !ok {
			t.Fatalf("start = %q", text)
		}
		id := processID.FindString(text)
		screen := s.pollFor(id, "READY 80x24")
		if strings.Contains(screen, "\x1b") {
			t.Errorf("the screen keeps escape sequences: %q", screen)
		}
		for _, step := range []struct {
			keys []any
			want string
		}{
			{keys: []any{"Up"}, want: "key: Up"},
			{keys: []any{"Down", "Enter"}, want: "key: Enter"},
			{keys: []any{"C-c"}, want: "key: C-c"},
		} {
			if text, ok := s.call("process", map[string]any{"action": "send_keys", "id": id, "keys": step.keys}); !ok {
				t.Fatalf("send_keys %v: %s", step.keys, text)
			}
			s.pollFor(id, step.want)
		}
		if text, ok := s.call("process", map[string]any{"action": "paste", "id": id, "text": "pasted words"}); !ok {
			t.Fatalf("paste: %s", text)
		}
		s.pollFor(id, "paste: pasted words")
		if text, ok := s.call("process", map[string]any{"action": "send_keys", "id": id, "keys": []any{"Entr"}}); ok || !strings.Contains(text, `unknown key name "Entr"`) {
			t.Fatalf("an unknown key = %q", text)
		}
		s.call("process", map[string]any{"action": "send_keys", "id": id, "keys": []any{"q"}})
		s.pollFor(id, "exited with status 0")
		s.note(id)
	})

	t.Run("C-c on the terminal reaches the program through the helper", func(t *testing.T) {
		s.t = t
		text, ok := s.call("shell", map[string]any{"command": vimish + " -cooked", "pty": true, "background": true})
		if !ok {
			t.Fatalf("start = %q", text)
		}
		id := processID.FindString(text)
		s.pollFor(id, "READY")
		s.call("process", map[string]any{"action": "write", "id": id, "input": "hello\n"})
		s.pollFor(id, "line: hello")
		s.call("process", map[string]any{"action": "send_keys", "id": id, "keys": []any{"C-c"}})
		s.pollFor(id, "got SIGINT")
		if d := s.note(id).Data.(map[string]any); d["exit_code"] != float64(3) {
			t.Fatalf("exit notice = %v, want the program's own status 3", d)
		}
	})
}
