package risk

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/talonhq/talon/config"
)

// The operator's agent sockets are protected: the session's runtime
// directory and the directory of SSH_AUTH_SOCK, never a shared /tmp.
func TestProtectedAgentSockets(t *testing.T) {
	runtimeDir := t.TempDir()
	agentDir := t.TempDir()
	tests := []struct {
		name string
		env  map[string]string
		want []string
		not  []string
	}{
		{name: "runtime dir and agent", env: map[string]string{"XDG_RUNTIME_DIR": runtimeDir, "SSH_AUTH_SOCK": filepath.Join(agentDir, "agent.1")},
			want: []string{runtimeDir, agentDir}},
		{name: "agent in /tmp", env: map[string]string{"XDG_RUNTIME_DIR": runtimeDir, "SSH_AUTH_SOCK": "/tmp/agent.1"},
			want: []string{runtimeDir}, not: []string{"/tmp"}},
		{name: "relative values ignored", env: map[string]string{"XDG_RUNTIME_DIR": "run", "SSH_AUTH_SOCK": "agent"},
			not: []string{"run", "."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			getenv := func(k string) string { return tt.env[k] }
			p := ProtectedPaths(config.Default(), t.TempDir(), getenv)
			var socketRules []string
			for _, r := range p.Rules() {
				if r.Name == "agent-sockets" {
					socketRules = append(socketRules, r.Path)
				}
			}
			for _, w := range tt.want {
				if !slices.Contains(socketRules, w) {
					t.Errorf("%s not protected; agent-socket rules: %v", w, socketRules)
				}
				if !slices.Contains(p.Deny(), w) {
					t.Errorf("%s not denied to processes: %v", w, p.Deny())
				}
			}
			for _, n := range tt.not {
				if slices.Contains(socketRules, n) {
					t.Errorf("%s protected as an agent socket directory", n)
				}
			}
		})
	}
}

// TestTalonProgramProtected: a tool may read talon's own executable and
// the talon-sandbox next to it, never change them: what replaced them
// would run as talon the next time.
func TestTalonProgramProtected(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	p := ProtectedPaths(config.Default(), t.TempDir(), func(string) string { return "" })
	for _, prog := range []string{exe, filepath.Join(filepath.Dir(exe), "talon-sandbox")} {
		if err := p.Refuse(prog, prog, true); err == nil {
			t.Errorf("changing %s is allowed", prog)
		}
		if err := p.Refuse(prog, prog, false); err != nil {
			t.Errorf("reading %s: %v, want it allowed", prog, err)
		}
	}
}
