package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The workspace resolves against the caller's working directory and home,
// as IOStreams gives them, not the process's: --workspace DIR relative to
// the working directory, ~ and ~/ (flag or config) to HOME.
func TestWorkspaceResolvesAgainstTheCaller(t *testing.T) {
	home := t.TempDir()
	cwd := filepath.Join(home, "src")
	if err := os.MkdirAll(filepath.Join(cwd, "proj"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		args   []string
		config string
		want   string
	}{
		{name: "relative flag", args: []string{"--workspace", "proj"}, want: filepath.Join(cwd, "proj") + " (--workspace)"},
		{name: "tilde flag", args: []string{"--workspace", "~/src"}, want: cwd + " (--workspace)"},
		{name: "tilde in config", config: "workspace = \"~\"\n", want: home + " (workspace in the config)"},
		{name: "tilde slash in config", config: "workspace = \"~/src/proj\"\n", want: filepath.Join(cwd, "proj") + " (workspace in the config)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config"), "XDG_DATA_HOME": filepath.Join(home, ".data")}
			cfg := ""
			if tt.config != "" {
				cfg = filepath.Join(t.TempDir(), "talon.toml")
				if err := os.WriteFile(cfg, []byte("schema_version = 1\n"+tt.config), 0o600); err != nil {
					t.Fatal(err)
				}
				tt.args = append(tt.args, "--config", cfg)
			}
			var out strings.Builder
			code := Main(append(tt.args, "config", "path"), IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &out, Cwd: cwd,
				Getenv: func(k string) string { return env[k] }})
			if code != 0 || !strings.Contains(out.String(), "workspace: "+tt.want+"\n") {
				t.Fatalf("exit %d, want workspace %s:\n%s", code, tt.want, out.String())
			}
		})
	}
}
