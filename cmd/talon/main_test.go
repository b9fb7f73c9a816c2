package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/talonhq/talon/cli"
	"github.com/talonhq/talon/internal/pluginbuild"
)

var update = flag.Bool("update", false, "rewrite golden files and scripts")

func TestMain(m *testing.M) {
	if os.Getenv("TALON_TEST_AS_TALON") == "1" {
		// Re-executed by a test that needs talon as a real process.
		os.Exit(cli.Main(os.Args[1:], cli.System()))
	}
	testscript.Main(cleanupAfter{m}, map[string]func(){
		"talon": func() { os.Exit(cli.Main(os.Args[1:], cli.System())) },
	})
}

// cleanupAfter removes the plugin fixtures once every test has run
// (testscript.Main exits the process itself).
type cleanupAfter struct{ m *testing.M }

func (c cleanupAfter) Run() int {
	defer pluginbuild.Cleanup()
	return c.m.Run()
}

// scriptParams is the environment every CLI script runs in: a private home,
// XDG dirs beside the work dir, no inherited locale or config.
func scriptParams(dir string) testscript.Params {
	return testscript.Params{
		Dir:                 dir,
		UpdateScripts:       *update,
		RequireExplicitExec: true,
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"comments-kept": commentsKept,
			"exit":          expectExit,
			"flip-byte":     flipByte,
			"mktar":         mkTar,
			"evil-tar":      evilTar,
			"wasm-append":   wasmAppend,
			"fake-model":    fakeModel,
			"model-saw":     modelSaw,
		},
		Condition: func(cond string) (bool, error) {
			switch cond {
			case "plugins":
				return helloWASM != "", nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Setup: func(env *testscript.Env) error {
			// HOME sits next to the work dir, not in it: the work dir is
			// the workspace, and talon refuses one that holds its own
			// config or data. $DATA is talon's data dir.
			home := env.WorkDir + ".home"
			if err := os.MkdirAll(home, 0o700); err != nil {
				return err
			}
			env.Setenv("HOME", home)
			env.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
			env.Setenv("XDG_DATA_HOME", filepath.Join(home, ".local", "share"))
			env.Setenv("DATA", filepath.Join(home, ".local", "share", "talon"))
			for _, k := range []string{"LANG", "LANGUAGE", "LC_ALL", "LC_MESSAGES", "TALON_CONFIG"} {
				env.Setenv(k, "")
			}
			pluginEnv(env)
			return nil
		},
	}
}

// commentsKept checks that every comment line of the first file is still in
// the second: comments-kept BEFORE AFTER.
func commentsKept(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 || neg {
		ts.Fatalf("usage: comments-kept BEFORE AFTER")
	}
	after := ts.ReadFile(args[1])
	n := 0
	for _, line := range strings.Split(ts.ReadFile(args[0]), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "#") {
			n++
			if !strings.Contains(after, line) {
				ts.Fatalf("comment lost: %q", line)
			}
		}
	}
	if n == 0 {
		ts.Fatalf("%s has no comments to compare", args[0])
	}
}

// expectExit runs a command and checks its exit code: exit N CMD ARGS...
func expectExit(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 || neg {
		ts.Fatalf("usage: exit CODE COMMAND [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exit code %q: %v", args[0], err)
	}
	err = ts.Exec(args[1], args[2:]...)
	got := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		got = ee.ExitCode()
	} else if err != nil {
		ts.Fatalf("%v", err)
	}
	if got != want {
		ts.Fatalf("exit code %d, want %d", got, want)
	}
}

// flipByte changes one byte in the middle of line N of a file: flip-byte FILE N.
func flipByte(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 || neg {
		ts.Fatalf("usage: flip-byte FILE LINE")
	}
	n, err := strconv.Atoi(args[1])
	if err != nil {
		ts.Fatalf("line %q: %v", args[1], err)
	}
	path := ts.MkAbs(args[0])
	data, err := os.ReadFile(path)
	ts.Check(err)
	lines := bytes.SplitAfter(data, []byte("\n"))
	if n < 1 || n > len(lines) || len(lines[n-1]) < 4 {
		ts.Fatalf("%s has no line %d to change", args[0], n)
	}
	line := lines[n-1]
	i := bytes.Index(line, []byte(`"tool":"`))
	if i < 0 {
		i = len(line) / 2
	} else {
		i += len(`"tool":"`)
	}
	line[i] ^= 0x01
	ts.Check(os.WriteFile(path, bytes.Join(lines, nil), 0o644))
}

func TestScripts(t *testing.T) {
	buildPluginFixtures(t)
	testscript.Run(t, scriptParams("testdata/script"))
}

// TestToolsListGolden pins the catalog an agent sees, per locale and format.
func TestToolsListGolden(t *testing.T) {
	ws := t.TempDir()
	tests := []struct {
		name string
		args []string
	}{
		{name: "list-en.json", args: []string{"tools", "list", "--json"}},
		{name: "list-ja.json", args: []string{"tools", "list", "--json", "--locale", "ja"}},
		{name: "list-code.json", args: []string{"tools", "list", "--json", "--surface", "code"}},
		{name: "format-openai.json", args: []string{"tools", "list", "--format", "openai"}},
		{name: "format-anthropic.json", args: []string{"tools", "list", "--format", "anthropic"}},
		{name: "format-mcp.json", args: []string{"tools", "list", "--format", "mcp"}},
		{name: "format-mcp-ja.json", args: []string{"tools", "list", "--format", "mcp", "--locale", "ja"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := cli.Main(tt.args, cli.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut, Cwd: ws,
				Getenv: func(k string) string {
					if k == "HOME" {
						return ws
					}
					return ""
				}})
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut.String())
			}
			golden(t, filepath.Join("testdata", "golden", tt.name), out.Bytes())
		})
	}
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./cmd/talon -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s differs from the output (run go test ./cmd/talon -update after checking the change):\n%s", path, got)
	}
}
