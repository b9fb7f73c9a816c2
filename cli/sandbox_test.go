package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	spawner "github.com/talonhq/talon/sandbox"
)

func TestSandboxPolicy(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	cfgPath := filepath.Join(dir, "talon.toml")
	toml := `schema_version = 1

[risk_profiles.default]
forbidden_paths = ["~/secrets", "/srv/private", "**/*.pem"]

[sandbox]
mode = "required"
read_only = ["~/lib"]
allow_connect_ports = [443]
max_processes = 64
helper = "~/bin/talon-sandbox"
`
	if err := os.WriteFile(cfgPath, []byte(toml), 0o600); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"HOME": home, "XDG_DATA_HOME": filepath.Join(dir, "data"), "XDG_CONFIG_HOME": filepath.Join(home, ".config")}
	e := &env{io: IOStreams{Getenv: func(k string) string { return vars[k] }, Cwd: dir, ErrOut: &bytes.Buffer{}}, g: &globals{configPath: cfgPath}}
	cfg, err := e.config()
	if err != nil {
		t.Fatal(err)
	}
	p := e.sandboxPolicy(cfg, dir)
	if p.Mode != spawner.Required || p.Workspace != dir || p.Limits.Processes != 64 {
		t.Fatalf("policy = %+v", p)
	}
	if !slices.Equal(p.AllowConnectPorts, []int{443}) || !slices.Equal(p.ReadOnly, []string{filepath.Join(home, "lib")}) {
		t.Fatalf("policy = %+v", p)
	}
	if want := filepath.Join(home, "bin", "talon-sandbox"); p.NativeHelper != want {
		t.Errorf("NativeHelper = %q, want %q", p.NativeHelper, want)
	}
	for _, want := range []string{
		filepath.Join(home, ".ssh"), filepath.Join(home, ".aws"), filepath.Join(home, ".config"),
		filepath.Join(dir, "data", "talon"), cfgPath, filepath.Join(home, "secrets"), "/srv/private",
	} {
		if !slices.Contains(p.Deny, want) {
			t.Errorf("Deny = %q, missing %s", p.Deny, want)
		}
	}
	if n := strings.Count(strings.Join(p.Deny, "\n")+"\n", filepath.Join(home, ".config")+"\n"); n != 1 {
		t.Errorf("Deny lists %s %d times, want once: %q", filepath.Join(home, ".config"), n, p.Deny)
	}
	for _, d := range p.Deny {
		if strings.Contains(d, "*") {
			t.Errorf("Deny has the glob %q; globs cannot be carved out", d)
		}
	}
}

func TestSandboxCheckOff(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "talon.toml"), []byte("schema_version = 1\n[sandbox]\nmode = \"off\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	vars := map[string]string{"HOME": dir}
	code := Main([]string{"sandbox", "check"}, IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut,
		Getenv: func(k string) string { return vars[k] }, Cwd: dir})
	if code != 0 || !strings.Contains(out.String(), "sandbox: off (mode off)") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errOut.String())
	}
}

func TestSandboxHelperHidden(t *testing.T) {
	root := newRootCmd(&env{io: IOStreams{}, g: &globals{}})
	c, _, err := root.Find([]string{spawner.HelperCommand})
	if err != nil || !c.Hidden || !c.DisableFlagParsing {
		t.Fatalf("helper command = %v, %v", c, err)
	}
}

// TestHelperLine: sandbox check names the helper that starts tool
// processes, and why talon re-executes itself when it does.
func TestHelperLine(t *testing.T) {
	tests := []struct {
		st   spawner.Status
		want string
	}{
		{spawner.Status{Helper: "/usr/local/bin/talon-sandbox"}, "/usr/local/bin/talon-sandbox (talon-sandbox)"},
		{spawner.Status{Helper: spawner.HelperTalon, HelperReason: "no talon-sandbox next to talon in /opt"},
			"talon, re-executed (no talon-sandbox next to talon in /opt)"},
		{spawner.Status{Helper: spawner.HelperTalon}, "talon, re-executed"},
	}
	for _, tt := range tests {
		if got := helperLine(tt.st); got != tt.want {
			t.Errorf("helperLine(%+v) = %q, want %q", tt.st, got, tt.want)
		}
	}
}
