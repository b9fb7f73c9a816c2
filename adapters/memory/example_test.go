package memory_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/talonhq/talon/adapters/memory"
	"github.com/talonhq/talon/tool"
)

// exampleStore returns a store in a fresh directory whose clock starts at
// 2024-05-01 09:00 UTC and ticks a minute per memory.
func exampleStore() (*memory.Store, func()) {
	dir, err := os.MkdirTemp("", "talon-memory-")
	if err != nil {
		panic(err)
	}
	now := time.Date(2024, 5, 1, 9, 0, 0, 0, time.UTC)
	store := memory.NewStore(filepath.Join(dir, memory.FileName), memory.StoreOptions{
		Now: func() time.Time { now = now.Add(time.Minute); return now },
	})
	return store, func() { store.Close(); os.RemoveAll(dir) }
}

func ExampleStoreTool_Execute() {
	store, cleanup := exampleStore()
	defer cleanup()
	remember := memory.NewStoreTool(store, memory.ToolOptions{})
	ctx := context.Background()
	res, _ := remember.Execute(ctx, json.RawMessage(`{"key":"user-editor","content":"The user edits Go in Neovim.","category":"preferences"}`))
	fmt.Println(res.Output.Text)
	res, _ = remember.Execute(ctx, json.RawMessage(`{"key":"user-editor","content":"The user moved to Helix."}`))
	fmt.Println(res.Output.Text)
	// Output:
	// stored memory user-editor
	// replaced memory user-editor
}

func ExampleRecallTool_Execute() {
	store, cleanup := exampleStore()
	defer cleanup()
	ctx := context.Background()
	remember := memory.NewStoreTool(store, memory.ToolOptions{})
	remember.Execute(ctx, json.RawMessage(`{"key":"user-editor","content":"The user edits Go in Neovim.","category":"preferences","tags":["editor"]}`))
	remember.Execute(ctx, json.RawMessage(`{"key":"deploys","content":"Deploys go through staging first."}`))

	recall := memory.NewRecallTool(store, memory.ToolOptions{})
	res, _ := recall.Execute(ctx, json.RawMessage(`{"query":"neovim editor"}`))
	fmt.Println(res.Output.Text)
	res, _ = recall.Execute(ctx, json.RawMessage(`{"mode":"recent"}`))
	fmt.Println(res.Output.Text)
	// Output:
	// user-editor (preferences; 2024-05-01T09:01:00Z; #editor): The user edits Go in Neovim.
	// deploys (2024-05-01T09:02:00Z): Deploys go through staging first.
	// user-editor (preferences; 2024-05-01T09:01:00Z; #editor): The user edits Go in Neovim.
}

func ExampleForgetTool_Execute() {
	store, cleanup := exampleStore()
	defer cleanup()
	ctx := context.Background()
	memory.NewStoreTool(store, memory.ToolOptions{}).Execute(ctx, json.RawMessage(`{"key":"old-fact","content":"outdated"}`))
	forget := memory.NewForgetTool(store, memory.ToolOptions{})
	res, _ := forget.Execute(ctx, json.RawMessage(`{"key":"old-fact"}`))
	fmt.Println(res.Output.Text)
	res, _ = forget.Execute(ctx, json.RawMessage(`{"key":"old-fact"}`))
	fmt.Println(res.Error)
	// Output:
	// forgot memory old-fact
	// no memory has the key "old-fact", so nothing was forgotten: find keys with memory_recall, by keywords in query or with mode recent
}

// Each risk profile has its own memories.
func ExampleRecallTool_ForProfile() {
	store, cleanup := exampleStore()
	defer cleanup()
	ctx := context.Background()
	remember := memory.NewStoreTool(store, memory.ToolOptions{})
	remember.Execute(ctx, json.RawMessage(`{"content":"remembered under the default profile"}`))

	recall := memory.NewRecallTool(store, memory.ToolOptions{})
	work, _ := recall.ForProfile(tool.ProfileSettings{Name: "work"})
	res, _ := work.Execute(ctx, json.RawMessage(`{}`))
	fmt.Println(res.Output.Text)
	// Output:
	// no memories yet: memory_store remembers something
}

func ExampleStore_Recall() {
	store, cleanup := exampleStore()
	defer cleanup()
	ctx := context.Background()
	store.Put(ctx, memory.DefaultNamespace, memory.Memory{Key: "office", Content: "チームは東京タワーの近くで働いています。"})
	// FTS5 syntax in a query is read as words, and Japanese is found inside a sentence.
	r, err := store.Recall(ctx, memory.DefaultNamespace, memory.Query{Text: `"東京タワー" OR NEAR(*`})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, h := range r.Hits {
		fmt.Println(h.Key, r.Mode)
	}
	// Output:
	// office keyword
}
