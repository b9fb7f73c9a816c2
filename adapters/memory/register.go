package memory

import (
	"path/filepath"
	"sync"

	"github.com/talonhq/talon/tool"
	"github.com/talonhq/talon/toolfactory"
)

// chatOnly keeps the memory tools off the code surface, whatever the
// selection says.
var chatOnly = []string{"chat"}

func init() {
	register := func(name string, tier tool.Tier, build func(*Store, ToolOptions) tool.Tool) {
		toolfactory.Register(toolfactory.Factory{
			Name:     name,
			Tier:     tier,
			Surfaces: chatOnly,
			New: func(env toolfactory.Env) (tool.Tool, error) {
				return build(sharedStore(env.DataDir), ToolOptions{Logger: env.Logger}), nil
			},
		})
	}
	register(StoreName, tool.Medium, func(s *Store, o ToolOptions) tool.Tool { return NewStoreTool(s, o) })
	register(RecallName, tool.Low, func(s *Store, o ToolOptions) tool.Tool { return NewRecallTool(s, o) })
	register(ForgetName, tool.Medium, func(s *Store, o ToolOptions) tool.Tool { return NewForgetTool(s, o) })
}

// stores holds one [Store] per database file for the whole process, so the
// three tools, every profile's variant and every catalog reload share one
// *sql.DB. A Store opens nothing until its first call, so holding one
// costs nothing; it stays open until the process exits.
var stores = struct {
	sync.Mutex
	byPath map[string]*Store
}{byPath: map[string]*Store{}}

// sharedStore returns the process's store for the data directory; an empty
// directory gives a store that fails every call with [ErrNoDataDir].
func sharedStore(dataDir string) *Store {
	path := ""
	if dataDir != "" {
		path = filepath.Join(dataDir, FileName)
		if abs, err := filepath.Abs(path); err == nil {
			path = abs
		}
	}
	stores.Lock()
	defer stores.Unlock()
	if s, ok := stores.byPath[path]; ok {
		return s
	}
	s := NewStore(path, StoreOptions{})
	stores.byPath[path] = s
	return s
}
