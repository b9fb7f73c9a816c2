package memory

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/talonhq/talon/tool"
)

// StoreTool is the memory_store tool: it remembers a text under a key in
// the caller's profile's namespace, replacing what the key held.
type StoreTool struct{ base }

var (
	_ tool.Tool     = (*StoreTool)(nil)
	_ tool.Assessor = (*StoreTool)(nil)
	_ tool.Profiled = (*StoreTool)(nil)
)

// NewStoreTool returns memory_store over s.
func NewStoreTool(s *Store, opts ToolOptions) *StoreTool {
	return &StoreTool{newBase(s, opts)}
}

var storeSchema = fmt.Sprintf(`{"type":"object","properties":{`+
	`"key":{"type":"string","minLength":1,"maxLength":%d},`+
	`"content":{"type":"string","minLength":1,"maxLength":%d},`+
	`"category":{"type":"string","maxLength":%d},`+
	`"tags":{"type":"array","items":{"type":"string","minLength":1,"maxLength":%d},"maxItems":%d}},`+
	`"required":["content"],"additionalProperties":false}`,
	MaxKeyBytes, MaxContentBytes, MaxCategoryBytes, MaxTagBytes, MaxTags)

// Spec describes memory_store. Its description comes from the message
// catalog (tool-memory-store).
func (t *StoreTool) Spec() tool.Spec { return spec(StoreName, storeSchema, tool.Medium) }

// ForProfile returns the tool that stores into the profile's namespace.
func (t *StoreTool) ForProfile(p tool.ProfileSettings) (tool.Tool, error) {
	return &StoreTool{t.forProfile(p)}, nil
}

// StoreData is memory_store's Output.Data.
type StoreData struct {
	// Key is the memory's key, generated when the call gave none.
	Key string `json:"key"`
	// Replaced says the key held a memory before, now overwritten.
	Replaced bool `json:"replaced"`
}

type storeArgs struct {
	Key      string   `json:"key"`
	Content  *string  `json:"content"`
	Category string   `json:"category"`
	Tags     []string `json:"tags"`
}

const storeExample = `{"key": "user-editor", "content": "The user edits Go code in Neovim.", "category": "preferences"}`

// Assess reports what the call would remember, for approvers. It names no
// path: the database is talon's own file, not one the caller chooses.
func (t *StoreTool) Assess(raw json.RawMessage) (tool.Assessment, error) {
	var a storeArgs
	if err := tool.DecodeArgs(raw, &a); err != nil {
		return tool.Assessment{}, fmt.Errorf("decode memory_store arguments: %w", err)
	}
	key := a.Key
	if key == "" {
		key = "a new key"
	}
	content := ""
	if a.Content != nil {
		content = *a.Content
	}
	preview, _ := oneLine(content, 80)
	reason := fmt.Sprintf("remembers %d bytes as %s in the memory of profile %s: %q", len(content), key, t.ns, preview)
	if a.Category != "" {
		reason += fmt.Sprintf(" (category %s)", a.Category)
	}
	return tool.Assessment{Tier: tool.Medium, Reasons: []string{reason}}, nil
}

// Execute stores the memory.
func (t *StoreTool) Execute(ctx context.Context, raw json.RawMessage) (tool.Result, error) {
	if err := ctx.Err(); err != nil {
		return tool.Result{}, err
	}
	var a storeArgs
	if err := tool.DecodeArgs(raw, &a); err != nil {
		return argsFailure(err, storeExample), nil
	}
	if a.Content == nil {
		return tool.Failure("content is required: pass the text to remember, for example %s", storeExample), nil
	}
	m, replaced, err := t.store.Put(ctx, t.ns, Memory{Key: a.Key, Content: *a.Content, Category: a.Category, Tags: a.Tags})
	if err != nil {
		return t.failure(ctx, StoreName, err)
	}
	verb := "stored"
	if replaced {
		verb = "replaced"
	}
	return tool.Result{Success: true, Output: tool.Output{
		Text: fmt.Sprintf("%s memory %s", verb, m.Key),
		Data: StoreData{Key: m.Key, Replaced: replaced},
	}}, nil
}
