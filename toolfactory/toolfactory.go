package toolfactory

import (
	"context"
	"fmt"
	"sort"
	"sync"

	"github.com/rs/zerolog"

	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/history"
	"github.com/talonhq/talon/tool"
	"github.com/talonhq/talon/workspace"
)

// Env is what a constructor may use. Values are shared and must not be
// modified.
type Env struct {
	// Workspace is the absolute, symlink-resolved root that file tools are
	// confined to.
	Workspace string
	// DataDir is talon's data directory (receipts, keys, databases).
	DataDir string
	// Protected lists the places no tool may read or change: talon's
	// config and data, the operator's secrets, a repository's hooks. The
	// zero value makes the file tools derive it from DataDir, Config and
	// the process environment.
	Protected workspace.Protected
	// Config is the loaded configuration.
	Config *config.Config
	// Logger is the tool's logger, already carrying its attribution.
	Logger zerolog.Logger
	// History is the runtime's record of calls per session.
	History *history.Log
	// Caller runs calls through the runtime's whole pipeline (policy,
	// approvals, receipts), for tools that call other tools, such as a
	// scheduler. Nil outside a runtime.
	Caller Caller
	// Discovery searches the catalog and activates tools for a session
	// (tool_search). Nil outside a runtime.
	Discovery Discovery
}

// Discovery finds tools for a caller and activates them for its session.
type Discovery interface {
	Search(ctx context.Context, c tool.Call, query string, limit int) ([]tool.Spec, error)
}

// Caller runs a call through the runtime's pipeline.
type Caller interface {
	Call(ctx context.Context, c tool.Call) (tool.Result, error)
}

// Factory describes one compiled-in tool.
type Factory struct {
	// Name is the model-visible name.
	Name string
	// Tier is the floor tier, known without constructing the tool.
	Tier tool.Tier
	// PerCall is set when calls of the tool differ in tier: the tool's
	// assessment raises Tier from each call's arguments (the shell, git),
	// so listings say "per call" rather than the floor.
	PerCall bool
	// Surfaces, when non-empty, limits the surfaces ("chat", "code") the
	// tool may appear on, whatever the selection says.
	Surfaces []string
	// New constructs the tool. It runs only when the tool is selected.
	New func(Env) (tool.Tool, error)
}

var (
	mu        sync.RWMutex
	factories = map[string]Factory{}
)

// Register adds a compiled-in tool. It panics on programmer errors: an
// invalid or duplicate name, a nil constructor, or a name missing from
// [Known].
func Register(f Factory) {
	if err := tool.ValidateName(f.Name); err != nil {
		panic("toolfactory: " + err.Error())
	}
	if f.New == nil {
		panic(fmt.Sprintf("toolfactory: %s registered without a constructor", f.Name))
	}
	if _, ok := Lookup(f.Name); !ok {
		panic(fmt.Sprintf("toolfactory: %s is not listed in toolfactory.Known", f.Name))
	}
	mu.Lock()
	defer mu.Unlock()
	if _, dup := factories[f.Name]; dup {
		panic(fmt.Sprintf("toolfactory: %s registered twice", f.Name))
	}
	factories[f.Name] = f
}

// Get returns the factory registered under name.
func Get(name string) (Factory, bool) {
	mu.RLock()
	defer mu.RUnlock()
	f, ok := factories[name]
	return f, ok
}

// Registered returns every compiled-in factory, sorted by name.
func Registered() []Factory {
	mu.RLock()
	defer mu.RUnlock()
	out := make([]Factory, 0, len(factories))
	for _, f := range factories {
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// AllowedOn reports whether the factory may appear on surface.
func (f Factory) AllowedOn(surface string) bool {
	if len(f.Surfaces) == 0 {
		return true
	}
	for _, s := range f.Surfaces {
		if s == surface {
			return true
		}
	}
	return false
}
