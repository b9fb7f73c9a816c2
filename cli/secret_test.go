package cli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestServeHidesItsSecrets starts talon serve with a serve token and a
// GitHub token in its environment and has a tool process (sandbox off)
// read talon's environment block, as `grep -a TOKEN /proc/<talon>/environ`
// did.
func TestServeHidesItsSecrets(t *testing.T) {
	if _, err := os.Stat("/proc/self/environ"); err != nil {
		t.Skip("no /proc")
	}
	// LATER_SETTING is named like no secret, and only a config loaded
	// later references it.
	const serveToken, githubToken, laterSetting = "serve-token-5f2e9c0a7b", "ghp_secret4c1d8e2f", "later-setting-91b3"
	s := newSandbox(t, "")
	const tools = `[sandbox]
mode = "off"

[tools.commands.peek]
description = "Print the environment block of the process that started this one"
command = ['/bin/sh', '-c', 'tr "\000" "\n" < /proc/$PPID/environ']
tier = "low"
env = { PATH = "/usr/bin:/bin" }

[tools.commands.gh]
description = "Print the token the configuration hands this tool"
command = ['/bin/sh', '-c', 'echo "token=$GH"']
tier = "low"
env = { GH = "${GITHUB_TOKEN}", PATH = "/usr/bin:/bin" }
`
	s.userConfig(t, tools)
	cmd := s.command(t, "talon", "serve", "--listen", "127.0.0.1:0")
	cmd.Env = append(cmd.Env, "TALON_SERVE_TOKEN="+serveToken, "GITHUB_TOKEN="+githubToken, "LATER_SETTING="+laterSetting)
	p := startProc(t, cmd)
	cs := connectHTTP(t, p.url, newHeaderTransport(map[string]string{"Authorization": "Bearer " + serveToken}), nil)

	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "tool__peek", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	block := callText(t, res)
	if res.IsError || !strings.Contains(block, "XDG_DATA_HOME=") {
		t.Fatalf("the tool could not read talon's environment block at all (the test proves nothing):\n%s", block)
	}
	for _, secret := range []string{serveToken, githubToken} {
		if strings.Contains(block, secret) {
			t.Errorf("a tool process read %s from /proc/<talon>/environ:\n%s", secret, block)
		}
	}
	// ${GITHUB_TOKEN} in the config still reaches the tool it is meant for.
	res, err = cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "tool__gh", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if text := callText(t, res); res.IsError || !strings.Contains(text, "token="+githubToken) {
		t.Fatalf("the configured ${GITHUB_TOKEN} did not reach its tool:\n%s", text)
	}

	// A reloaded config that references ${LATER_SETTING} makes it a secret
	// too, from then on.
	if !strings.Contains(block, laterSetting) {
		t.Fatalf("LATER_SETTING was hidden before any config referenced it:\n%s", block)
	}
	later := tools + `
[tools.commands.later]
description = "Print the setting the configuration hands this tool"
command = ['/bin/sh', '-c', 'echo "setting=$S"']
tier = "low"
env = { S = "${LATER_SETTING}", PATH = "/usr/bin:/bin" }
`
	path := filepath.Join(s.env()["XDG_CONFIG_HOME"], "talon", "config.toml")
	if err := os.WriteFile(path, []byte("schema_version = 1\n"+later), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	p.waitLog(t, "reason=SIGHUP")
	res, err = cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "tool__peek", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if block := callText(t, res); res.IsError || strings.Contains(block, laterSetting) {
		t.Errorf("after the reload a tool process still read LATER_SETTING from /proc/<talon>/environ:\n%s", block)
	}
	res, err = cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "tool__later", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if text := callText(t, res); res.IsError || !strings.Contains(text, "setting="+laterSetting) {
		t.Fatalf("the reloaded ${LATER_SETTING} did not reach its tool:\n%s", text)
	}
}

// userConfig moves the sandbox's configuration out of the workspace, to
// $XDG_CONFIG_HOME/talon/config.toml, where every talon started with the
// sandbox's environment finds it.
func (s *sandbox) userConfig(t testing.TB, toml string) {
	t.Helper()
	dir := filepath.Join(s.env()["XDG_CONFIG_HOME"], "talon")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte("schema_version = 1\n"+toml), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(s.ws, "talon.toml")); err != nil {
		t.Fatal(err)
	}
}

// startProc starts a talon serve command over HTTP and waits for its url.
func startProc(t testing.TB, cmd *exec.Cmd) *proc {
	t.Helper()
	p := &proc{cmd: cmd, stderr: &lockedBuffer{}, exited: make(chan error, 1)}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.exited <- cmd.Wait() }()
	t.Cleanup(func() { p.stop(t) })
	deadline := time.Now().Add(20 * time.Second)
	for {
		if m := urlLine.FindStringSubmatch(p.stderr.String()); m != nil {
			p.url = m[1]
			return p
		}
		select {
		case err := <-p.exited:
			p.exited <- err
			t.Fatalf("talon serve exited: %v\n%s", err, p.stderr.String())
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("no url from talon serve:\n%s", p.stderr.String())
		}
	}
}
