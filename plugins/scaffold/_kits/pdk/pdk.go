package pdk

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"sync"
)

// ABIVersion is the ABI this package implements.
const ABIVersion = 1

// Tier is a tool's risk class as the plugin declares it. The host raises
// it to at least what the plugin's grants imply.
type Tier string

// The tiers.
const (
	Low    Tier = "low"
	Medium Tier = "medium"
	High   Tier = "high"
)

// Handler runs one call with the tool's JSON arguments. A returned error
// becomes a failed result carrying its text.
type Handler func(args json.RawMessage) (Result, error)

// Tool is one tool of the plugin.
type Tool struct {
	// Name is the model-visible name: ^[a-zA-Z0-9_-]{1,64}$.
	Name string
	// Description is the English text shown to the model; the plugin's
	// locales/<lang>/*.ftl may translate it (id tool-<name>).
	Description string
	// InputSchema is the JSON Schema of the arguments, an object schema;
	// nil means {"type":"object"}.
	InputSchema json.RawMessage
	// Tier is the risk floor; empty means High.
	Tier    Tier
	Handler Handler
}

var (
	mu    sync.RWMutex
	tools = map[string]Tool{}
)

// Register adds a tool. Call it from init. It panics on a duplicate name
// or a nil handler, which are programming errors.
func Register(t Tool) {
	mu.Lock()
	defer mu.Unlock()
	if t.Handler == nil {
		panic(fmt.Sprintf("pdk: tool %q has no handler", t.Name))
	}
	if _, dup := tools[t.Name]; dup {
		panic(fmt.Sprintf("pdk: tool %q registered twice", t.Name))
	}
	tools[t.Name] = t
}

// Handle adapts a function of typed arguments to a [Handler]: the JSON
// arguments are decoded into T first, and a decoding error is a failed
// result.
func Handle[T any](fn func(T) (Result, error)) Handler {
	return func(args json.RawMessage) (Result, error) {
		var in T
		if len(args) > 0 {
			if err := json.Unmarshal(args, &in); err != nil {
				return Result{}, fmt.Errorf("bad arguments: %w", err)
			}
		}
		return fn(in)
	}
}

// Result is a tool's outcome, shaped like MCP's CallToolResult.
type Result struct {
	Content           []Content `json:"content"`
	StructuredContent any       `json:"structuredContent,omitempty"`
	IsError           bool      `json:"isError,omitempty"`
}

// Content is one item of a result.
type Content struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// Text is a successful result carrying text.
func Text(s string) Result { return Result{Content: []Content{{Type: "text", Text: s}}} }

// JSON is a successful result carrying v as structured content, with its
// JSON encoding as the text.
func JSON(v any) (Result, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return Result{}, err
	}
	return Result{Content: []Content{{Type: "text", Text: string(b)}}, StructuredContent: json.RawMessage(b)}, nil
}

// Errorf is a failed result; the text is what the model reads.
func Errorf(format string, a ...any) Result {
	return Result{Content: []Content{{Type: "text", Text: fmt.Sprintf(format, a...)}}, IsError: true}
}

// describeDoc mirrors talon_describe's document.
type describeDoc struct {
	Tools []toolDoc `json:"tools"`
}

type toolDoc struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
	Tier        Tier            `json:"tier,omitempty"`
}

// describe returns talon_describe's document: every registered tool,
// sorted by name.
func describe() []byte {
	mu.RLock()
	defer mu.RUnlock()
	doc := describeDoc{Tools: []toolDoc{}}
	for _, t := range tools {
		schema := t.InputSchema
		if len(schema) == 0 {
			schema = json.RawMessage(`{"type":"object"}`)
		}
		doc.Tools = append(doc.Tools, toolDoc{Name: t.Name, Description: t.Description, InputSchema: schema, Tier: t.Tier})
	}
	sort.Slice(doc.Tools, func(i, j int) bool { return doc.Tools[i].Name < doc.Tools[j].Name })
	b, err := json.Marshal(doc)
	if err != nil {
		return []byte(`{"tools":[]}`)
	}
	return b
}

// callDoc mirrors talon_call's request.
type callDoc struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// handle runs talon_call's request document and returns its response
// document. A handler's panic is recovered into a failed result, so one
// bad call does not take the instance down.
func handle(req []byte) (out []byte) {
	var c callDoc
	if err := json.Unmarshal(req, &c); err != nil {
		return encode(Errorf("the call document is not valid JSON: %v", err))
	}
	return encode(Invoke(c.Name, c.Arguments))
}

// Invoke runs a registered tool as the host would and returns its
// result. Tests call it natively.
func Invoke(name string, args json.RawMessage) (res Result) {
	mu.RLock()
	t, ok := tools[name]
	mu.RUnlock()
	if !ok {
		return Errorf("unknown tool %q", name)
	}
	defer func() {
		if r := recover(); r != nil {
			res = Errorf("tool %s panicked: %v", name, r)
		}
	}()
	r, err := t.Handler(args)
	if err != nil {
		return Errorf("%v", err)
	}
	if r.Content == nil {
		r.Content = []Content{}
	}
	return r
}

func encode(r Result) []byte {
	b, err := json.Marshal(r)
	if err != nil {
		b, _ = json.Marshal(Errorf("encode the result: %v", err))
	}
	return b
}

// ErrHost is wrapped by every error a host function returned: a grant
// that is missing, a refused request, a failure on the host's side.
var ErrHost = errors.New("host refused")

// ErrNotSet is returned by [Config] for a key the plugin may read
// (permissions.config_read) that the operator did not set: an optional
// setting left at the plugin's default.
var ErrNotSet = errors.New("not set by the operator")

// reply is a host function's response document.
type reply struct {
	Value json.RawMessage `json:"value"`
	Error string          `json:"error"`
}

// request calls host function fn with req and returns its value.
func request(fn string, req []byte) (json.RawMessage, error) {
	out, err := hostRequest(fn, req)
	if err != nil {
		return nil, err
	}
	var r reply
	if err := json.Unmarshal(out, &r); err != nil {
		return nil, fmt.Errorf("%s: bad response from the host: %w", fn, err)
	}
	if r.Error != "" {
		return nil, fmt.Errorf("%w: %s", ErrHost, r.Error)
	}
	return r.Value, nil
}
