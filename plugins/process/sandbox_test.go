package process

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/talonhq/talon/plugins/manifest"
	"github.com/talonhq/talon/sandbox"
)

// TestSandboxed starts a plugin under an active sandbox, from a directory
// every other child is denied (talon's data directory, where plugins are
// installed), and checks that it runs under the helper with a private
// TMPDIR (where go-plugin makes its socket) and still answers.
func TestSandboxed(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	dir := filepath.Join(data, "plugins", "boxed")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "misbehave")
	b, err := os.ReadFile(misbehave(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	st := sandbox.Configure(sandbox.Policy{
		Mode: sandbox.Auto, Helper: self, Workspace: ws, Deny: []string{data}, Logger: zerolog.Nop(),
	})
	t.Cleanup(func() {
		sandbox.Configure(sandbox.Policy{Mode: sandbox.Off, Logger: zerolog.Nop()})
	})
	if !st.Active {
		t.Skipf("the sandbox is not available here: %s", st.Reason)
	}
	p, err := pluginFor(bin, "boxed", manifest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	f, err := load(t, Host{}, p, "")
	if err != nil {
		t.Fatalf("%v\n%s", err, f.logs)
	}
	r, err := call(t, f, "echo", `{}`)
	if err != nil || !r.Success {
		t.Fatalf("echo under the sandbox = %+v, %v", r, err)
	}
	var env []string
	for _, v := range r.Output.Data.(map[string]any)["env"].([]any) {
		env = append(env, v.(string))
	}
	if !slices.Contains(env, "TMPDIR") {
		t.Errorf("the sandboxed plugin has no private TMPDIR: %v", env)
	}
	if strings.Contains(f.logs.String(), "error") {
		t.Logf("logs:\n%s", f.logs.String())
	}
}
