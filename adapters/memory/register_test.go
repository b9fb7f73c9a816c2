package memory

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/tool"
	"github.com/talonhq/talon/toolfactory"
)

// forgetShared closes and drops the process-wide store of dataDir.
func forgetShared(t *testing.T, dataDir string) {
	t.Helper()
	s := sharedStore(dataDir)
	stores.Lock()
	delete(stores.byPath, s.Path())
	stores.Unlock()
	if err := s.Close(); err != nil {
		t.Error(err)
	}
}

func TestRegistered(t *testing.T) {
	dataDir := filepath.Join(t.TempDir(), "data")
	t.Cleanup(func() { forgetShared(t, dataDir) })
	tests := []struct {
		name string
		tier tool.Tier
	}{
		{name: ForgetName, tier: tool.Medium},
		{name: RecallName, tier: tool.Low},
		{name: StoreName, tier: tool.Medium},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fac, ok := toolfactory.Get(tt.name)
			if !ok {
				t.Fatalf("%s is not registered", tt.name)
			}
			if fac.Tier != tt.tier {
				t.Errorf("factory tier = %v, want %v", fac.Tier, tt.tier)
			}
			if !fac.AllowedOn("chat") || fac.AllowedOn("code") || !slices.Equal(fac.Surfaces, []string{"chat"}) {
				t.Errorf("surfaces = %v, want chat only", fac.Surfaces)
			}
			tl, err := fac.New(toolfactory.Env{DataDir: dataDir, Config: config.Default()})
			if err != nil {
				t.Fatal(err)
			}
			if spec := tl.Spec(); spec.Name != tt.name || spec.Tier != tt.tier {
				t.Errorf("spec = %+v", spec)
			}
			if _, ok := tl.(tool.Profiled); !ok {
				t.Error("not profiled: namespaces would not follow the profile")
			}
			if _, err := fac.New(toolfactory.Env{}); err != nil {
				t.Errorf("New without a data directory: %v", err)
			}
		})
	}
	if _, err := os.Stat(dataDir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("constructing the tools touched the data directory (stat err %v)", err)
	}
}

// TestRegisteredToolsShareOneStore stores through one registered tool and
// recalls through another, built separately, as a catalog reload would.
func TestRegisteredToolsShareOneStore(t *testing.T) {
	dataDir := t.TempDir()
	t.Cleanup(func() { forgetShared(t, dataDir) })
	build := func(name string) tool.Tool {
		fac, _ := toolfactory.Get(name)
		tl, err := fac.New(toolfactory.Env{DataDir: dataDir})
		if err != nil {
			t.Fatal(err)
		}
		p, err := tl.(tool.Profiled).ForProfile(tool.ProfileSettings{Name: "full"})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	ctx := context.Background()
	if res, err := build(StoreName).Execute(ctx, json.RawMessage(`{"key":"k","content":"shared handle"}`)); err != nil || !res.Success {
		t.Fatalf("store: %+v, %v", res, err)
	}
	res, err := build(RecallName).Execute(ctx, json.RawMessage(`{"query":"handle"}`))
	if err != nil || !strings.Contains(res.Output.Text, "shared handle") {
		t.Fatalf("recall: %+v, %v", res, err)
	}
	if sharedStore(dataDir) != sharedStore(dataDir+string(filepath.Separator)) {
		t.Error("one data directory gave two stores")
	}
	if _, err := os.Stat(filepath.Join(dataDir, FileName)); err != nil {
		t.Errorf("database not at <data dir>/%s: %v", FileName, err)
	}
}
