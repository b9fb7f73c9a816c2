package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestServeFromHomeKeepsTalonsState is issue 15's end-to-end case: an MCP
// client of a talon started from the operator's home directory tries to
// read the receipt signing key and an SSH key and to rewrite talon's own
// config. Started there by accident, talon refuses to serve; started there
// on purpose, under a profile that runs everything, every attempt is
// refused naming the rule, and nothing leaks through search.
func TestServeFromHomeKeepsTalonsState(t *testing.T) {
	s := newSandbox(t, "")
	home := s.env()["HOME"]
	cfgPath := filepath.Join(s.env()["XDG_CONFIG_HOME"], "talon", "config.toml")
	for _, f := range []struct{ path, body string }{
		{cfgPath, "[risk_profiles.default]\nlevel = \"full\"\n"},
		{filepath.Join(home, ".ssh", "id_ed25519"), "-----BEGIN OPENSSH PRIVATE KEY-----\nsecret\n"},
		{filepath.Join(home, "notes.txt"), "an ordinary file\n"},
	} {
		if err := os.MkdirAll(filepath.Dir(f.path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f.path, []byte(f.body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// A first call makes the signing key.
	s.ws = home
	if code, out := s.run("--workspace", home, "tools", "call", "calculator", `{"expression":"1+1"}`); code != 0 {
		t.Fatalf("first call: exit %d\n%s", code, out)
	}
	keyPath := filepath.Join(s.env()["XDG_DATA_HOME"], "talon", "receipts", "receipt-key")
	key, err := os.ReadFile(keyPath)
	if err != nil {
		t.Fatalf("no signing key after a call: %v", err)
	}

	// Started from HOME without saying so: refused.
	if code, out := s.run("serve", "--stdio"); code != ExitUsage || !strings.Contains(out, "it is your home directory") {
		t.Fatalf("serve from HOME: exit %d\n%s", code, out)
	}

	var stderr lockedBuffer
	cs := connectStdio(t, s, "talon", &stderr, "serve", "--stdio", "--workspace", home)
	ctx := context.Background()
	call := func(name string, args map[string]any) (string, bool) {
		t.Helper()
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v\n%s", name, err, stderr.String())
		}
		return callText(t, res), res.IsError
	}
	rel := func(p string) string {
		r, err := filepath.Rel(home, p)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	for _, tt := range []struct {
		name string
		tool string
		args map[string]any
	}{
		{"read the signing key", "file_read", map[string]any{"path": rel(keyPath)}},
		{"read an ssh key", "file_read", map[string]any{"path": ".ssh/id_ed25519"}},
		{"rewrite the config", "file_write", map[string]any{"path": rel(cfgPath), "content": "[risk_profiles.default]\nlevel = \"full\"\nallowed_commands = [\"*\"]\n"}},
		{"edit the config", "file_edit", map[string]any{"path": rel(cfgPath), "old_string": "full", "new_string": "full"}},
	} {
		text, isErr := call(tt.tool, tt.args)
		if !isErr || !strings.Contains(text, "protected") {
			t.Errorf("%s: isError=%v, want a refusal naming the protected path:\n%s", tt.name, isErr, text)
		}
	}
	if got, _ := os.ReadFile(keyPath); string(got) != string(key) {
		t.Error("the signing key changed")
	}
	if got, _ := os.ReadFile(cfgPath); !strings.Contains(string(got), "level = \"full\"\n") || strings.Contains(string(got), "allowed_commands") {
		t.Errorf("the config changed:\n%s", got)
	}
	// Search and glob see ordinary files, never protected ones.
	text, _ := call("content_search", map[string]any{"pattern": "PRIVATE KEY|secret|risk_profiles"})
	if strings.Contains(text, "id_ed25519") || strings.Contains(text, "config.toml") {
		t.Errorf("content_search printed a protected file:\n%s", text)
	}
	text, _ = call("glob_search", map[string]any{"pattern": "**/*"})
	if !strings.Contains(text, "notes.txt") {
		t.Errorf("glob_search lost an ordinary file:\n%s", text)
	}
	for _, p := range []string{"receipt-key", "id_ed25519", "config.toml"} {
		if strings.Contains(text, p) {
			t.Errorf("glob_search listed %s:\n%s", p, text)
		}
	}
}
