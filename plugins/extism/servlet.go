package extism

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/talonhq/talon/plugins"
	"github.com/talonhq/talon/plugins/manifest"
	"github.com/talonhq/talon/tool"
)

// The documents of an MCP servlet: describe returns a ListToolsResult,
// call takes a CallToolRequest and returns a CallToolResult.

// maxDescribeBytes bounds describe's document; maxTools how many tools
// one plugin may describe.
const (
	maxDescribeBytes = 1 << 20
	maxTools         = 128
)

type listToolsResult struct {
	Tools []describedTool `json:"tools"`
}

type describedTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
	// Tier is talon's extension, as in ABI v1; absent means high unless
	// plugin.toml's [[tools]] sets it.
	Tier string `json:"tier"`
}

// DecodeDescribe checks a servlet's describe document: a JSON object whose
// tools (at least one, at most 128) have valid, unique names, an object
// input schema and, when given, a known tier. Other fields (MCP's title,
// annotations, outputSchema, nextCursor) are ignored.
//
// # Errors
//
// Every problem wraps [ErrBadResponse].
func DecodeDescribe(b []byte) ([]tool.Spec, error) {
	var doc listToolsResult
	if err := strictJSON(b, &doc); err != nil {
		return nil, fmt.Errorf("%w: describe: %v", ErrBadResponse, err)
	}
	if len(doc.Tools) == 0 {
		return nil, fmt.Errorf("%w: describe lists no tools", ErrBadResponse)
	}
	if len(doc.Tools) > maxTools {
		return nil, fmt.Errorf("%w: describe lists %d tools, the limit is %d", ErrBadResponse, len(doc.Tools), maxTools)
	}
	seen := map[string]bool{}
	out := make([]tool.Spec, 0, len(doc.Tools))
	for i, t := range doc.Tools {
		if err := tool.ValidateName(t.Name); err != nil {
			return nil, fmt.Errorf("%w: describe: tool %d: %v", ErrBadResponse, i, err)
		}
		if seen[t.Name] {
			return nil, fmt.Errorf("%w: describe lists tool %q twice", ErrBadResponse, t.Name)
		}
		seen[t.Name] = true
		schema, err := objectSchema(t.InputSchema)
		if err != nil {
			return nil, fmt.Errorf("%w: describe: tool %q: inputSchema %v", ErrBadResponse, t.Name, err)
		}
		tier := tool.High
		if t.Tier != "" {
			if tier, err = tool.ParseTier(t.Tier); err != nil {
				return nil, fmt.Errorf("%w: describe: tool %q: %v", ErrBadResponse, t.Name, err)
			}
		}
		out = append(out, tool.Spec{Name: t.Name, Description: t.Description, Input: schema, Tier: tier})
	}
	return out, nil
}

// objectSchema returns a compact copy of a tool's input schema, which must
// be a JSON object whose "type", when present, is "object"; absent is
// {"type":"object"}.
func objectSchema(raw json.RawMessage) (json.RawMessage, error) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return json.RawMessage(`{"type":"object"}`), nil
	}
	var m struct {
		Type json.RawMessage `json:"type"`
	}
	if t[0] != '{' || json.Unmarshal(t, &m) != nil {
		return nil, errors.New("is not a JSON object")
	}
	if m.Type != nil {
		var s string
		if json.Unmarshal(m.Type, &s) != nil || s != "object" {
			return nil, errors.New(`must have "type": "object"`)
		}
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, t); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// callRequest is the CallToolRequest a servlet's call export receives.
type callRequest struct {
	Params callParams `json:"params"`
}

type callParams struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// encodeCall is call's input for one tool call.
func encodeCall(name string, args json.RawMessage) ([]byte, error) {
	return json.Marshal(callRequest{Params: callParams{Name: name, Arguments: args}})
}

// callResult is MCP's CallToolResult.
type callResult struct {
	Content           []content       `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           bool            `json:"isError"`
}

type content struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// DecodeResult turns a servlet's CallToolResult into a tool result: text
// items joined with newlines (other kinds named, not shown), and
// structuredContent as the result's data (and its text, when there is no
// other). isError makes a failed result whose error is the text.
//
// # Errors
//
// A document that is not a JSON object of that shape (no content and no
// structuredContent, an item without a type, trailing data) wraps
// [ErrBadResponse].
func DecodeResult(b []byte) (tool.Result, error) {
	var doc callResult
	if err := strictJSON(b, &doc); err != nil {
		return tool.Result{}, fmt.Errorf("%w: call did not return a CallToolResult: %v", ErrBadResponse, err)
	}
	sc := bytes.TrimSpace(doc.StructuredContent)
	if bytes.Equal(sc, []byte("null")) {
		sc = nil
	}
	if doc.Content == nil && sc == nil {
		return tool.Result{}, fmt.Errorf("%w: call returned neither content nor structuredContent, so it is not a CallToolResult", ErrBadResponse)
	}
	parts := make([]string, 0, len(doc.Content))
	for _, c := range doc.Content {
		switch c.Type {
		case "text":
			parts = append(parts, c.Text)
		case "":
			return tool.Result{}, fmt.Errorf("%w: call returned a content item without a type", ErrBadResponse)
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
	if sc != nil {
		var data any
		if err := json.Unmarshal(sc, &data); err != nil {
			return tool.Result{}, fmt.Errorf("%w: call: structuredContent: %v", ErrBadResponse, err)
		}
		r.Output.Data = data
		if text == "" {
			r.Output.Text = string(sc)
		}
	}
	return r, nil
}

// strictJSON decodes one JSON object and refuses trailing data.
func strictJSON(b []byte, v any) error {
	t := bytes.TrimSpace(b)
	if len(t) == 0 || t[0] != '{' {
		return errors.New("the document is not a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(t))
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("trailing data after the JSON document")
	}
	return nil
}

// describeCacheVersion changes when what the cache holds, or what a
// description depends on, changes.
const describeCacheVersion = "talon-extism-describe-v2"

// recordVersion is the version of a [loadRecord].
const recordVersion = 2

// loadRecord is what a load learned from a module, kept so that later
// loads need not read it: it passed the checks, whether it is a servlet,
// and a servlet's describe document.
type loadRecord struct {
	Version  int             `json:"version"`
	Servlet  bool            `json:"servlet"`
	Describe json.RawMessage `json:"describe,omitempty"`
}

// describeKey names a plugin's entry in the describe cache: the module (by
// its sha256, which the host checks against the bytes before it compiles
// them), the manifest (its hash), the plugin's name and the granted config
// values, which describe may read.
func describeKey(p *manifest.Plugin, moduleSum string) string {
	cfg := []byte("{}")
	if len(p.Grants.Config) > 0 {
		cfg, _ = json.Marshal(p.Grants.Config) // map keys are sorted
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%d\x00%s\x00%s\x00%s\x00", describeCacheVersion, manifest.ExtismVersion, p.Manifest.Name, moduleSum, p.Hash)
	h.Write(cfg)
	return hex.EncodeToString(h.Sum(nil))
}

// recordFile is the cache file for key, "" without a data directory.
func recordFile(dataDir, key string) string {
	if dataDir == "" {
		return ""
	}
	return filepath.Join(dataDir, "cache", "extism-describe", key+".json")
}

// readRecord reads a load's record; one that does not decode is ignored
// with a warning.
func (p *plugin) readRecord(file string) (loadRecord, bool) {
	var rec loadRecord
	if file == "" {
		return rec, false
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return rec, false
	}
	if err := json.Unmarshal(b, &rec); err != nil || rec.Version != recordVersion || (rec.Servlet && len(rec.Describe) == 0) {
		p.log.Warn().Str("attribution", p.attr.String()).Str("file", file).Msg("ignoring an unreadable describe cache; describing the plugin again")
		return loadRecord{}, false
	}
	return rec, true
}

func (p *plugin) writeRecord(file string, rec loadRecord) {
	if file == "" {
		return
	}
	b, err := json.Marshal(rec)
	if err == nil {
		err = plugins.WriteCacheFile(file, b)
	}
	if err != nil {
		p.log.Warn().Str("attribution", p.attr.String()).Err(err).Msg("could not cache the plugin's description")
	}
}

// setTools makes the plugin's tools from a load's record: a servlet's
// described tools, or the [[tools]] of plugin.toml.
func (p *plugin) setTools(rec loadRecord) error {
	p.servlet = rec.Servlet
	if rec.Servlet {
		return p.describedTools(rec.Describe, p.module.declared)
	}
	return p.manifestTools(p.module.declared)
}

// describedTools sets a servlet's tools from its describe document.
// [[tools]] tables set the tier or description of the tools they name.
func (p *plugin) describedTools(doc []byte, annotations []manifest.Tool) error {
	specs, err := DecodeDescribe(doc)
	if err != nil {
		return err
	}
	byName := map[string]int{}
	for i, s := range specs {
		byName[s.Name] = i
	}
	for _, a := range annotations {
		i, ok := byName[a.Name]
		if !ok {
			return fmt.Errorf("%w: plugin.toml's [[tools]] names %q, which describe does not list", ErrNoTools, a.Name)
		}
		if a.Tier != "" {
			if specs[i].Tier, err = tool.ParseTier(a.Tier); err != nil {
				return fmt.Errorf("[[tools]] %q: %w", a.Name, err)
			}
		}
		if a.Description != "" {
			specs[i].Description = a.Description
		}
		if len(a.InputSchema) > 0 {
			if specs[i].Input, err = manifest.ToolSchema(a); err != nil {
				return fmt.Errorf("[[tools]] %q: input_schema %w", a.Name, err)
			}
		}
	}
	p.tools = p.tools[:0]
	for _, s := range specs {
		p.tools = append(p.tools, p.newTool(s, ""))
	}
	return nil
}

// describe calls the servlet's describe export on a first instance within
// the describe deadline (or the plugin's timeout, when shorter). The
// instance is then closed: a plugin's pool starts empty.
func (p *plugin) describe(ctx context.Context, deadline time.Duration) ([]byte, error) {
	deadline = min(deadline, p.limits.Timeout())
	dctx, cancel := context.WithTimeout(ctx, deadline)
	defer cancel()
	inst, err := p.pool.Acquire(dctx)
	if err != nil {
		return nil, p.describeError(ctx, dctx, deadline, err)
	}
	st := &callState{p: p, inst: inst}
	res, err := p.invoke(dctx, st, exportDescribe, nil)
	inst.out.Flush()
	switch {
	case err != nil:
	case res.guestErr != "":
		err = fmt.Errorf("%w: describe failed: %s", ErrBadResponse, res.guestErr)
	case len(res.out) > maxDescribeBytes:
		err = fmt.Errorf("%w: describe returned %d bytes, the limit is %d", ErrBadResponse, len(res.out), maxDescribeBytes)
	}
	if err == nil {
		_, err = DecodeDescribe(res.out)
	}
	p.pool.Release(dctx, inst, false)
	if err != nil {
		return nil, p.describeError(ctx, dctx, deadline, err)
	}
	return res.out, nil
}

func (p *plugin) describeError(ctx, dctx context.Context, deadline time.Duration, err error) error {
	if ctx.Err() == nil && errors.Is(dctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("%w: starting the module and describe took more than %s, the deadline to describe its tools: a plugin must describe its tools without doing work; fix the plugin or remove it", ErrTimeout, deadline)
	}
	return err
}
