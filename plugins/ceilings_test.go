package plugins

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/plugins/manifest"
)

// TestLoadCeilings: a manifest may not ask for more than the operator's
// [plugins] ceilings; the refusal names the number, the ceiling and what
// to do, and limits the manifest leaves out are filled in no higher than
// the ceilings.
func TestLoadCeilings(t *testing.T) {
	f := newFixture(t)
	wasmHost := &fakeHost{kind: manifest.KindWASM}
	procHost := &fakeHost{kind: manifest.KindProcess}
	useHost(t, wasmHost, procHost)
	f.plugin("greedy", pluginSpec{extra: "[limits]\nmax_memory_mb = 4096\ntimeout_ms = 600000\n"})
	f.plugin("crowd", pluginSpec{extra: "[limits]\nmax_instances = 64\n"})
	f.plugin("chatty", pluginSpec{extra: "[limits]\nmax_output_bytes = 33554432\n"})
	f.plugin("modest", pluginSpec{extra: "[limits]\nmax_memory_mb = 128\ntimeout_ms = 20000\n"})
	f.plugin("silent", pluginSpec{})
	// A subprocess plugin's memory is the sandbox's business, not a
	// manifest ceiling; its timeouts and instances are.
	f.plugin("procmem", pluginSpec{kind: manifest.KindProcess, extra: "[limits]\nmax_memory_mb = 4096\n"})
	f.plugin("procslow", pluginSpec{kind: manifest.KindProcess, extra: "[limits]\nstart_timeout_ms = 600000\n"})

	t.Run("defaults", func(t *testing.T) {
		set := f.load(f.config(autoOn))
		if got, want := toolNames(set), []string{"modest_tool", "procmem_tool", "silent_tool"}; !slices.Equal(got, want) {
			t.Fatalf("tools %v, want %v (%q)", got, want, set.Warnings)
		}
		for _, w := range []string{
			`plugin greedy skipped: plugin "greedy" asks for 4096 MiB of memory (limits.max_memory_mb); [plugins] max_memory_mb is 256: raise it in talon.toml if you trust this plugin`,
			`plugin "greedy" asks for a 600000 ms timeout (limits.timeout_ms); [plugins] max_timeout_ms is 60000: raise it in talon.toml if you trust this plugin`,
			`plugin crowd skipped: plugin "crowd" asks for 64 instances (limits.max_instances); [plugins] max_instances is 4: raise it in talon.toml if you trust this plugin`,
			`plugin chatty skipped: plugin "chatty" asks for 33554432 bytes of output (limits.max_output_bytes); [plugins] max_output_bytes is 4194304`,
			`plugin procslow skipped: plugin "procslow" asks for a 600000 ms start timeout (limits.start_timeout_ms); [plugins] max_timeout_ms is 60000`,
		} {
			if !warned(set, w) {
				t.Errorf("missing warning %q in %q", w, set.Warnings)
			}
		}
		// Limits left out are the manifest defaults, under the ceilings.
		l := wasmHost.loaded("silent").Manifest.Limits
		if l.Timeout() != manifest.DefaultTimeout || l.MemoryMB() != manifest.DefaultMaxMemoryMB || l.Instances() != manifest.DefaultMaxInstances {
			t.Errorf("silent got limits %+v", l)
		}
	})

	t.Run("raised ceilings", func(t *testing.T) {
		set := f.load(f.config(autoOn + "max_memory_mb = 4096\nmax_timeout_ms = 600000\nmax_instances = 64\nmax_output_bytes = 33554432\n"))
		if got, want := toolNames(set), []string{"chatty_tool", "crowd_tool", "greedy_tool", "modest_tool", "procmem_tool", "procslow_tool", "silent_tool"}; !slices.Equal(got, want) {
			t.Fatalf("tools %v, want %v (%q)", got, want, set.Warnings)
		}
	})

	t.Run("lowered ceilings cap the defaults", func(t *testing.T) {
		set := f.load(f.config(autoOn + "max_memory_mb = 64\nmax_timeout_ms = 5000\nmax_instances = 2\nmax_output_bytes = 65536\n"))
		if !slices.Contains(toolNames(set), "silent_tool") {
			t.Fatalf("tools %v (%q)", toolNames(set), set.Warnings)
		}
		if !warned(set, `plugin "modest" asks for 128 MiB of memory (limits.max_memory_mb); [plugins] max_memory_mb is 64`) {
			t.Errorf("warnings %q", set.Warnings)
		}
		l := wasmHost.loaded("silent").Manifest.Limits
		if l.Timeout().Milliseconds() != 5000 || l.MemoryMB() != 64 || l.Instances() != 2 || l.OutputBytes() != 65536 {
			t.Errorf("silent got limits %+v; want them capped at the ceilings", l)
		}
		p := procHost.loaded("procmem").Manifest.Limits
		if p.Timeout().Milliseconds() != 5000 || p.StartTimeout().Milliseconds() != 5000 || p.Instances() != 2 {
			t.Errorf("procmem got limits %+v; want them capped at the ceilings", p)
		}
	})

	t.Run("check and inspect", func(t *testing.T) {
		opts := Options{Config: f.config(autoOn), Workspace: f.ws, DataDir: f.dataDir, Trust: f.trust}
		_, warnings := Check(opts)
		if !slices.ContainsFunc(warnings, func(w string) bool { return strings.Contains(w, `plugin "greedy" asks for 4096 MiB`) }) {
			t.Errorf("Check warnings %q", warnings)
		}
		r, err := Inspect(f.dataDir+"/plugins/greedy", opts)
		if err != nil {
			t.Fatal(err)
		}
		if !errors.Is(r.Refusal(), ErrOverCeiling) || !errors.Is(r.LimitsErr, ErrOverCeiling) {
			t.Errorf("Refusal() = %v, LimitsErr = %v", r.Refusal(), r.LimitsErr)
		}
	})

	t.Run("load dir", func(t *testing.T) {
		// plugins install and plugins test go through LoadDir.
		_, err := LoadDir(context.Background(), f.dataDir+"/plugins/greedy", Options{Config: config.Default(), Workspace: f.ws, DataDir: f.dataDir})
		if !errors.Is(err, ErrOverCeiling) || !strings.Contains(err.Error(), "[plugins] max_memory_mb is 256") {
			t.Fatalf("LoadDir: %v", err)
		}
	})
}
