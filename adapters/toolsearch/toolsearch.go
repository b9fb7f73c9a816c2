// Package toolsearch provides tool_search: with [runtime]
// deferred_builtin_tools on, most built-ins are listed by name only, and
// tool_search returns their full definitions — by keywords, or
// "select:name1,name2" — and activates them for the caller's session.
// Finding a tool never grants permission to call it.
package toolsearch

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/talonhq/talon/tool"
	"github.com/talonhq/talon/toolfactory"
)

// Name is the tool's name.
const Name = "tool_search"

// DefaultLimit and MaxLimit bound how many definitions one search returns.
const (
	DefaultLimit = 5
	MaxLimit     = 20
)

func init() {
	toolfactory.Register(toolfactory.Factory{Name: Name, Tier: tool.Low, New: func(env toolfactory.Env) (tool.Tool, error) {
		return &Search{d: env.Discovery}, nil
	}})
}

// Search is tool_search.
type Search struct{ d toolfactory.Discovery }

var _ tool.Tool = (*Search)(nil)

// Spec describes tool_search.
func (s *Search) Spec() tool.Spec {
	return tool.Spec{
		Name: Name,
		Input: json.RawMessage(`{"type":"object","properties":{` +
			`"query":{"type":"string","minLength":1,"maxLength":500},` +
			fmt.Sprintf(`"limit":{"type":"integer","minimum":1,"maximum":%d,"default":%d}`, MaxLimit, DefaultLimit) +
			`},"required":["query"],"additionalProperties":false}`),
		Tier:        tool.Low,
		Attribution: tool.Attribution{Kind: tool.KindBuiltin, Alias: Name},
	}
}

// Definition is one tool as tool_search returns it.
type Definition struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// Execute searches and activates.
func (s *Search) Execute(ctx context.Context, raw json.RawMessage) (tool.Result, error) {
	var a struct {
		Query string `json:"query"`
		Limit int    `json:"limit"`
	}
	if err := tool.DecodeArgs(raw, &a); err != nil {
		return tool.Failure(`invalid arguments: %v: pass an object like {"query": "schedule a job"} or {"query": "select:cron_add"}`, err), nil
	}
	if s.d == nil {
		return tool.Failure("tool_search is not available outside the runtime"), nil
	}
	if a.Limit <= 0 {
		a.Limit = DefaultLimit
	}
	call, _ := tool.CallFrom(ctx)
	specs, err := s.d.Search(ctx, call, a.Query, min(a.Limit, MaxLimit))
	if err != nil {
		return tool.Result{}, err
	}
	if len(specs) == 0 {
		return tool.Result{Success: true, Output: tool.Output{
			Text: fmt.Sprintf("no tool matches %q; try other keywords, or select:NAME with a name from this tool's description", a.Query),
			Data: []Definition{},
		}}, nil
	}
	defs := make([]Definition, len(specs))
	var b strings.Builder
	for i, sp := range specs {
		defs[i] = Definition{Name: sp.Name, Description: sp.Description, InputSchema: sp.Input}
		fmt.Fprintf(&b, "%s\n%s\ninput schema: %s\n\n", sp.Name, sp.Description, sp.Input)
	}
	b.WriteString("These tools are now available in this session.")
	return tool.Result{Success: true, Output: tool.Output{Text: b.String(), Data: defs}}, nil
}
