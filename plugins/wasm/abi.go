package wasm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/talonhq/talon/tool"
)

// Names fixed by ABI v1 (plugins/ABI.md).
const (
	// HostModule is the import module of the host functions.
	HostModule = "talon_host_v1"
	wasiModule = "wasi_snapshot_preview1"
	// abortModule is where AssemblyScript imports abort from.
	abortModule = "env"

	exportInitialize = "_initialize"
	exportABIVersion = "talon_abi_version"
	exportAlloc      = "talon_alloc"
	exportFree       = "talon_free"
	exportDescribe   = "talon_describe"
	exportCall       = "talon_call"
	exportMemory     = "memory"
)

// Limits of the guest's documents that do not depend on the manifest.
const (
	// maxDescribeBytes bounds talon_describe's document.
	maxDescribeBytes = 1 << 20
	// maxTools bounds how many tools one plugin may describe.
	maxTools = 128
)

var (
	// ErrBadResponse is wrapped by every refusal of a document a guest
	// returned: a pointer or length outside its memory, a document over its
	// cap, or JSON that does not have the ABI's shape.
	ErrBadResponse = errors.New("bad response from plugin")
	// ErrABIVersion is returned by Load for a module whose
	// talon_abi_version is not 1.
	ErrABIVersion = errors.New("unsupported ABI version")
	// ErrMissingExport is returned by Load for a module without one of the
	// exports ABI v1 requires, or with one of the wrong type.
	ErrMissingExport = errors.New("missing or mistyped export")
	// ErrImport is returned by Load for a module that imports something the
	// host does not provide.
	ErrImport = errors.New("unsupported import")
	// ErrTimeout is wrapped by a call stopped at its deadline.
	ErrTimeout = errors.New("timed out")
	// ErrTrap is wrapped by a call whose guest trapped or exited.
	ErrTrap = errors.New("plugin crashed")
	// ErrOutputTooLarge is wrapped by a response over max_output_bytes.
	ErrOutputTooLarge = errors.New("output over the cap")
	// ErrClosed is returned by calls after the plugin was closed.
	ErrClosed = errors.New("plugin closed")
	// ErrBusy is returned when no instance frees up before the call's
	// deadline.
	ErrBusy = errors.New("every instance is busy")
)

// pack builds the u64 a guest returns: ptr<<32 | len.
func pack(ptr, n uint32) uint64 { return uint64(ptr)<<32 | uint64(n) }

// span checks a packed pointer/length returned by a guest against the size
// of its memory and a cap, and returns the two halves. ptr 0 with length 0
// is refused too: a guest that has nothing to say must still return a
// document.
func span(packed uint64, memSize uint32, limit int) (ptr, n uint32, err error) {
	ptr, n = uint32(packed>>32), uint32(packed)
	if ptr == 0 && n == 0 {
		return 0, 0, fmt.Errorf("%w: it returned no document (pointer and length 0)", ErrBadResponse)
	}
	if limit >= 0 && uint64(n) > uint64(limit) {
		return 0, 0, fmt.Errorf("%w: the document is %d bytes, the limit is %d", ErrOutputTooLarge, n, limit)
	}
	if ptr == 0 {
		return 0, 0, fmt.Errorf("%w: it returned a null pointer", ErrBadResponse)
	}
	if uint64(ptr)+uint64(n) > uint64(memSize) {
		return 0, 0, fmt.Errorf("%w: bytes %d..%d lie outside its %d bytes of memory", ErrBadResponse, ptr, uint64(ptr)+uint64(n), memSize)
	}
	return ptr, n, nil
}

// describeDoc is talon_describe's document: the shape of MCP's tools/list
// result, plus an optional tier per tool.
type describeDoc struct {
	Tools []toolDoc `json:"tools"`
}

type toolDoc struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
	// Tier is "low", "medium" or "high"; absent means high.
	Tier string `json:"tier"`
}

// describedTool is one tool as the host accepted it.
type describedTool struct {
	Name        string
	Description string
	Input       json.RawMessage
	Tier        tool.Tier
}

// decodeDescribe checks talon_describe's document: at least one tool,
// unique valid names, an object schema, a known tier.
func decodeDescribe(b []byte) ([]describedTool, error) {
	var doc describeDoc
	if err := strictJSON(b, &doc); err != nil {
		return nil, fmt.Errorf("%w: talon_describe: %v", ErrBadResponse, err)
	}
	if len(doc.Tools) == 0 {
		return nil, fmt.Errorf("%w: talon_describe lists no tools", ErrBadResponse)
	}
	if len(doc.Tools) > maxTools {
		return nil, fmt.Errorf("%w: talon_describe lists %d tools, the limit is %d", ErrBadResponse, len(doc.Tools), maxTools)
	}
	seen := map[string]bool{}
	out := make([]describedTool, 0, len(doc.Tools))
	for i, t := range doc.Tools {
		if err := tool.ValidateName(t.Name); err != nil {
			return nil, fmt.Errorf("%w: tool %d: %v", ErrBadResponse, i, err)
		}
		if seen[t.Name] {
			return nil, fmt.Errorf("%w: tool %q is described twice", ErrBadResponse, t.Name)
		}
		seen[t.Name] = true
		schema, err := objectSchema(t.InputSchema)
		if err != nil {
			return nil, fmt.Errorf("%w: tool %q: inputSchema %v", ErrBadResponse, t.Name, err)
		}
		tier := tool.High
		if t.Tier != "" {
			if tier, err = tool.ParseTier(t.Tier); err != nil {
				return nil, fmt.Errorf("%w: tool %q: %v", ErrBadResponse, t.Name, err)
			}
		}
		out = append(out, describedTool{Name: t.Name, Description: t.Description, Input: schema, Tier: tier})
	}
	return out, nil
}

// objectSchema returns a compact copy of a tool's input schema, which must
// be a JSON object whose "type", when present, is "object". An absent
// schema is {"type":"object"}.
func objectSchema(raw json.RawMessage) (json.RawMessage, error) {
	if len(bytes.TrimSpace(raw)) == 0 || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return json.RawMessage(`{"type":"object"}`), nil
	}
	var m struct {
		Type json.RawMessage `json:"type"`
	}
	if t := bytes.TrimSpace(raw); t[0] != '{' || json.Unmarshal(t, &m) != nil {
		return nil, errors.New("is not a JSON object")
	}
	if m.Type != nil {
		var s string
		if json.Unmarshal(m.Type, &s) != nil || s != "object" {
			return nil, errors.New(`must have "type": "object"`)
		}
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// callDoc is the document the host passes to talon_call: MCP's tools/call
// params.
type callDoc struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// resultDoc is talon_call's document: MCP's CallToolResult.
type resultDoc struct {
	Content           []contentDoc    `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           bool            `json:"isError"`
}

type contentDoc struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// decodeResult turns talon_call's document into a tool result. Text
// content items are joined with newlines; other kinds are named, not
// shown. structuredContent becomes the result's data.
func decodeResult(b []byte) (tool.Result, error) {
	var doc resultDoc
	if err := json.Unmarshal(b, &doc); err != nil {
		return tool.Result{}, fmt.Errorf("%w: talon_call: %v", ErrBadResponse, err)
	}
	var parts []string
	for _, c := range doc.Content {
		switch c.Type {
		case "text":
			parts = append(parts, c.Text)
		case "":
			return tool.Result{}, fmt.Errorf("%w: talon_call: a content item has no type", ErrBadResponse)
		default:
			parts = append(parts, fmt.Sprintf("[%s content omitted]", c.Type))
		}
	}
	text := strings.Join(parts, "\n")
	if doc.IsError {
		if strings.TrimSpace(text) == "" {
			text = "the plugin reported an error without saying why"
		}
		return tool.Result{Error: text}, nil
	}
	r := tool.Result{Success: true, Output: tool.Output{Text: text}}
	if sc := bytes.TrimSpace(doc.StructuredContent); len(sc) > 0 && !bytes.Equal(sc, []byte("null")) {
		var data any
		if err := json.Unmarshal(sc, &data); err != nil {
			return tool.Result{}, fmt.Errorf("%w: talon_call: structuredContent: %v", ErrBadResponse, err)
		}
		r.Output.Data = data
		if text == "" {
			r.Output.Text = string(sc)
		}
	}
	return r, nil
}

// strictJSON decodes one JSON value and refuses trailing data.
func strictJSON(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("trailing data after the JSON document")
	}
	return nil
}
