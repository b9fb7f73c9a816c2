package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/talonhq/talon/tool"
)

// ForgetTool is the memory_forget tool: it deletes one memory of the
// caller's profile by its key. There is deliberately no way to forget a
// whole category or a search result at once: each deletion names the
// memory it removes, so an approver sees exactly what goes.
type ForgetTool struct{ base }

var (
	_ tool.Tool     = (*ForgetTool)(nil)
	_ tool.Assessor = (*ForgetTool)(nil)
	_ tool.Profiled = (*ForgetTool)(nil)
)

// NewForgetTool returns memory_forget over s.
func NewForgetTool(s *Store, opts ToolOptions) *ForgetTool {
	return &ForgetTool{newBase(s, opts)}
}

var forgetSchema = fmt.Sprintf(`{"type":"object","properties":{`+
	`"key":{"type":"string","minLength":1,"maxLength":%d}},`+
	`"required":["key"],"additionalProperties":false}`, MaxKeyBytes)

// Spec describes memory_forget. Its description comes from the message
// catalog (tool-memory-forget).
func (t *ForgetTool) Spec() tool.Spec { return spec(ForgetName, forgetSchema, tool.Medium) }

// ForProfile returns the tool that forgets in the profile's namespace.
func (t *ForgetTool) ForProfile(p tool.ProfileSettings) (tool.Tool, error) {
	return &ForgetTool{t.forProfile(p)}, nil
}

// ForgetData is memory_forget's Output.Data.
type ForgetData struct {
	Key string `json:"key"`
}

type forgetArgs struct {
	Key string `json:"key"`
}

const forgetExample = `{"key": "user-editor"}`

// Assess names the memory the call deletes.
func (t *ForgetTool) Assess(raw json.RawMessage) (tool.Assessment, error) {
	var a forgetArgs
	if err := tool.DecodeArgs(raw, &a); err != nil {
		return tool.Assessment{}, fmt.Errorf("decode memory_forget arguments: %w", err)
	}
	return tool.Assessment{Tier: tool.Medium, Reasons: []string{fmt.Sprintf("forgets memory %s of profile %s", a.Key, t.ns)}}, nil
}

// Execute deletes the memory.
func (t *ForgetTool) Execute(ctx context.Context, raw json.RawMessage) (tool.Result, error) {
	if err := ctx.Err(); err != nil {
		return tool.Result{}, err
	}
	var a forgetArgs
	if err := tool.DecodeArgs(raw, &a); err != nil {
		return argsFailure(err, forgetExample), nil
	}
	if a.Key == "" {
		return tool.Failure("key is required: name the memory to forget, for example %s; memory_recall lists keys", forgetExample), nil
	}
	err := t.store.Forget(ctx, t.ns, a.Key)
	if errors.Is(err, ErrNotFound) {
		return tool.Failure("no memory has the key %q, so nothing was forgotten: find keys with memory_recall, by keywords in query or with mode recent", a.Key), nil
	}
	if err != nil {
		return t.failure(ctx, ForgetName, err)
	}
	return tool.Result{Success: true, Output: tool.Output{
		Text: "forgot memory " + a.Key,
		Data: ForgetData{Key: a.Key},
	}}, nil
}
