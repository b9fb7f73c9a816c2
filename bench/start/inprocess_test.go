package start

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	_ "github.com/talonhq/talon/adapters/standard"
	"github.com/talonhq/talon/cli"
	_ "github.com/talonhq/talon/plugins/standard"
)

// BenchmarkToolsListInProcess runs `talon tools list --json` through
// cli.Main in this process: the command's own work, without starting a
// process and initialising its packages (BenchmarkStart has both).
func BenchmarkToolsListInProcess(b *testing.B) {
	home := b.TempDir()
	ws := filepath.Join(home, "project")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		b.Fatal(err)
	}
	env := map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config"), "XDG_DATA_HOME": filepath.Join(home, ".local", "share")}
	streams := cli.IOStreams{Out: io.Discard, ErrOut: io.Discard, Getenv: func(k string) string { return env[k] }, Cwd: ws}
	b.ReportAllocs()
	for b.Loop() {
		if code := cli.Main([]string{"tools", "list", "--json"}, streams); code != 0 {
			b.Fatalf("exit %d", code)
		}
	}
}
