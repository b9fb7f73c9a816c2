package agents

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/talonhq/talon/internal/spelling"
	"github.com/talonhq/talon/tool"
)

// MaxFileBytes bounds an agent file.
const MaxFileBytes = 1 << 20

// File is one parsed agent file: the settings of its front matter and the
// prompt template of its body.
type File struct {
	// Path is where the file was read from, as given to [ParseFile].
	Path string
	// Name is the front matter's name; "" when absent.
	Name        string
	Description string
	Model       string
	// InputSchema is the JSON Schema of the agent's arguments; nil when
	// the file has none.
	InputSchema json.RawMessage
	Tools       []string
	Subagents   []string
	// MaxRounds, TimeoutSeconds and MaxOutputBytes are 0 when absent.
	MaxRounds      int
	TimeoutSeconds int
	MaxOutputBytes int
	Prompt         *Template
	// Body is the prompt's source text.
	Body string

	// lines remembers where each key is, for later messages.
	lines map[string]int
}

// Line returns the line of a front matter key, or 0.
func (f *File) Line(key string) int { return f.lines[key] }

// FileError is a problem in an agent file.
type FileError struct {
	Path string
	// Line is 1-based; 0 when the problem is about the whole file.
	Line int
	Msg  string
	// err is a sentinel the problem wraps, if any.
	err error
}

// Unwrap returns the sentinel the problem is an instance of, if any.
func (e *FileError) Unwrap() error { return e.err }

func (e *FileError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.Path, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.Path, e.Msg)
}

// ErrNoFrontMatter is wrapped by [ParseFile] for a file that does not start
// with a front matter.
var ErrNoFrontMatter = errors.New("no front matter")

// frontMatterKeys are the settings an agent file may have, in the order
// the documentation lists them.
var frontMatterKeys = []string{"name", "description", "model", "input_schema", "tools", "subagents", "max_rounds", "timeout_seconds", "max_output_bytes"}

// ParseFile parses an agent file: a YAML front matter between two ---
// lines, then the prompt template.
//
// # Errors
//
// Every problem is a [*FileError] naming the file and the line: a file
// over [MaxFileBytes], one without front matter (wrapping
// [ErrNoFrontMatter]), YAML that does not parse, an unknown key (with a
// suggestion), a value of the wrong type, an input_schema that is not a
// JSON Schema of an object, a placeholder that does not exist.
func ParseFile(path string, data []byte) (f *File, err error) {
	defer func() {
		if r := recover(); r != nil {
			f, err = nil, &FileError{Path: path, Msg: fmt.Sprintf("the front matter cannot be read (%v); fix the YAML", r)}
		}
	}()
	fm, fmLine, body, bodyLine, err := split(path, data)
	if err != nil {
		return nil, err
	}
	f = &File{Path: path, lines: map[string]int{}}
	pairs, err := mapping(path, fm, fmLine)
	if err != nil {
		return nil, err
	}
	for _, kv := range pairs {
		k, v := kv[0], kv[1]
		line := fmLine + v.Line - 1
		f.lines[k.Value] = fmLine + k.Line - 1
		if v.Kind != yaml.ScalarNode {
			// A block value starts on the line after its key.
			line = f.lines[k.Value]
		}
		fail := func(format string, a ...any) error {
			return &FileError{Path: path, Line: line, Msg: fmt.Sprintf(format, a...)}
		}
		if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
			continue
		}
		switch k.Value {
		case "name", "description", "model":
			if v.Kind != yaml.ScalarNode {
				return nil, fail("%s must be a string", k.Value)
			}
			switch k.Value {
			case "name":
				f.Name = v.Value
			case "description":
				f.Description = strings.TrimSpace(v.Value)
			default:
				f.Model = v.Value
			}
		case "tools", "subagents":
			list, err := stringList(v)
			if err != nil {
				return nil, fail("%s %v; write it like %s: [file_read, glob_search]", k.Value, err, k.Value)
			}
			if k.Value == "tools" {
				f.Tools = list
			} else {
				f.Subagents = list
			}
		case "max_rounds", "timeout_seconds", "max_output_bytes":
			var n int
			if v.Kind != yaml.ScalarNode || v.Tag != "!!int" || v.Decode(&n) != nil {
				return nil, fail("%s must be a whole number, found %s", k.Value, describe(v))
			}
			if n <= 0 {
				return nil, fail("%s = %d must be positive; leave it out for the default", k.Value, n)
			}
			switch k.Value {
			case "max_rounds":
				f.MaxRounds = n
			case "timeout_seconds":
				f.TimeoutSeconds = n
			default:
				f.MaxOutputBytes = n
			}
		case "input_schema":
			schema, err := jsonSchema(v)
			if err != nil {
				return nil, fail("input_schema %v", err)
			}
			f.InputSchema = schema
		default:
			return nil, &FileError{Path: path, Line: f.lines[k.Value], Msg: fmt.Sprintf("unknown key %q%s; the keys are %s",
				k.Value, didYouMean(k.Value, frontMatterKeys), strings.Join(frontMatterKeys, ", "))}
		}
	}
	f.Body = body
	if f.Prompt, err = ParseTemplate(body, bodyLine); err != nil {
		var le *lineError
		if errors.As(err, &le) {
			return nil, &FileError{Path: path, Line: le.line, Msg: le.msg}
		}
		return nil, &FileError{Path: path, Msg: err.Error()}
	}
	if strings.TrimSpace(body) == "" {
		return nil, &FileError{Path: path, Line: bodyLine, Msg: "the prompt is empty; write the instructions after the front matter, with {{ input }} where the task goes"}
	}
	if f.InputSchema != nil {
		props := schemaProperties(f.InputSchema)
		for _, field := range f.Prompt.Fields() {
			if _, ok := props[field]; !ok {
				return nil, &FileError{Path: path, Line: f.lines["input_schema"], Msg: fmt.Sprintf(
					"the prompt reads {{ input.%s }}, which input_schema does not declare; add it to properties", field)}
			}
		}
	}
	return f, nil
}

// ParseLocalized reads a localized agent file, <agent>.<lang>.md: a front
// matter with description only.
func ParseLocalized(path string, data []byte) (desc string, err error) {
	defer func() {
		if r := recover(); r != nil {
			desc, err = "", &FileError{Path: path, Msg: fmt.Sprintf("the front matter cannot be read (%v); fix the YAML", r)}
		}
	}()
	fm, fmLine, _, _, err := split(path, data)
	if err != nil {
		return "", err
	}
	pairs, err := mapping(path, fm, fmLine)
	if err != nil {
		return "", err
	}
	for _, kv := range pairs {
		k, v := kv[0], kv[1]
		if k.Value != "description" {
			return "", &FileError{Path: path, Line: fmLine + k.Line - 1, Msg: fmt.Sprintf(
				"a localized agent file holds only description, not %q; settings belong in the agent's own file", k.Value)}
		}
		if v.Kind != yaml.ScalarNode {
			return "", &FileError{Path: path, Line: fmLine + v.Line - 1, Msg: "description must be a string"}
		}
		desc = strings.TrimSpace(v.Value)
	}
	if desc == "" {
		return "", &FileError{Path: path, Msg: "no description; a localized agent file sets description"}
	}
	return desc, nil
}

// split cuts a file into its front matter and body, with the line each
// starts on.
func split(path string, data []byte) (fm []byte, fmLine int, body string, bodyLine int, err error) {
	if len(data) > MaxFileBytes {
		return nil, 0, "", 0, &FileError{Path: path, Msg: fmt.Sprintf("the file is %d bytes; an agent file may have at most %d", len(data), MaxFileBytes)}
	}
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	lines := strings.SplitAfter(string(data), "\n")
	if len(lines) == 0 || strings.TrimRight(lines[0], " \t\r\n") != "---" {
		return nil, 0, "", 0, &FileError{Path: path, Line: 1, err: ErrNoFrontMatter, Msg: fmt.Sprintf(
			"%v: an agent file starts with a --- line, its settings in YAML and another --- line, then the prompt", ErrNoFrontMatter)}
	}
	for i := 1; i < len(lines); i++ {
		if t := strings.TrimRight(lines[i], " \t\r\n"); t == "---" || t == "..." {
			return []byte(strings.Join(lines[1:i], "")), 2, strings.Join(lines[i+1:], ""), i + 2, nil
		}
	}
	return nil, 0, "", 0, &FileError{Path: path, Line: 1, Msg: "the front matter has no closing --- line; add one before the prompt"}
}

// mapping decodes a front matter into its key and value nodes, in order.
func mapping(path string, fm []byte, fmLine int) ([][2]*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(fm)).Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		return nil, &FileError{Path: path, Line: yamlLine(err, fmLine), Msg: "the front matter is not valid YAML: " + yamlMsg(err) + "; fix the syntax"}
	}
	if len(doc.Content) == 0 {
		return nil, nil
	}
	m := doc.Content[0]
	if m.Kind != yaml.MappingNode {
		return nil, &FileError{Path: path, Line: fmLine + m.Line - 1, Msg: "the front matter must be a mapping of keys (name: ..., model: ...)"}
	}
	var out [][2]*yaml.Node
	seen := map[string]bool{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return nil, &FileError{Path: path, Line: fmLine + k.Line - 1, Msg: "front matter keys must be plain words"}
		}
		if seen[k.Value] {
			return nil, &FileError{Path: path, Line: fmLine + k.Line - 1, Msg: fmt.Sprintf("%s is set twice; keep one", k.Value)}
		}
		seen[k.Value] = true
		out = append(out, [2]*yaml.Node{k, v})
	}
	return out, nil
}

// yamlLine finds the line a yaml error names, in file lines.
func yamlLine(err error, fmLine int) int {
	var n int
	msg := err.Error()
	if i := strings.Index(msg, "line "); i >= 0 {
		if _, serr := fmt.Sscanf(msg[i:], "line %d", &n); serr == nil && n > 0 {
			return fmLine + n - 1
		}
	}
	return fmLine
}

// yamlMsg strips the library's prefix and line from a yaml error.
func yamlMsg(err error) string {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if i := strings.Index(msg, ": "); i >= 0 && strings.HasPrefix(msg, "line ") {
		msg = msg[i+2:]
	}
	return msg
}

func stringList(v *yaml.Node) ([]string, error) {
	if v.Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("must be a list of names, found %s", describe(v))
	}
	out := make([]string, 0, len(v.Content))
	for _, e := range v.Content {
		if e.Kind != yaml.ScalarNode || e.Tag == "!!null" || strings.TrimSpace(e.Value) == "" {
			return nil, fmt.Errorf("must hold names only, found %s", describe(e))
		}
		out = append(out, strings.TrimSpace(e.Value))
	}
	return out, nil
}

// describe names what a node holds, for messages.
func describe(v *yaml.Node) string {
	switch v.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	}
	switch v.Tag {
	case "!!str":
		return fmt.Sprintf("the text %q", clip(v.Value))
	case "!!null":
		return "nothing"
	}
	return fmt.Sprintf("%q", clip(v.Value))
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// jsonSchema converts an input_schema node to JSON and checks it is a JSON
// Schema describing an object.
func jsonSchema(v *yaml.Node) (json.RawMessage, error) {
	if v.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("must be a mapping (a JSON Schema with type: object), found %s", describe(v))
	}
	var val any
	if err := v.Decode(&val); err != nil {
		return nil, fmt.Errorf("cannot be read: %s", yamlMsg(err))
	}
	val, err := jsonValue(val, 0)
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(val)
	if err != nil {
		return nil, fmt.Errorf("cannot be written as JSON: %v", err)
	}
	if m, _ := val.(map[string]any); m["type"] != "object" {
		return nil, errors.New("must describe an object: set type: object and list the fields under properties")
	}
	if _, err := tool.CompileSchema("agent", raw); err != nil {
		return nil, fmt.Errorf("is not a valid JSON Schema: %v", err)
	}
	return raw, nil
}

// jsonValue turns decoded YAML into values JSON can hold: string keys
// only, finite numbers.
func jsonValue(v any, depth int) (any, error) {
	if depth > 64 {
		return nil, errors.New("is nested too deeply")
	}
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			c, err := jsonValue(e, depth+1)
			if err != nil {
				return nil, err
			}
			v[k] = c
		}
		return v, nil
	case map[any]any:
		m := make(map[string]any, len(v))
		for k, e := range v {
			s, ok := k.(string)
			if !ok {
				return nil, fmt.Errorf("has a key that is not text (%v); JSON Schema keys are names", k)
			}
			c, err := jsonValue(e, depth+1)
			if err != nil {
				return nil, err
			}
			m[s] = c
		}
		return m, nil
	case []any:
		for i, e := range v {
			c, err := jsonValue(e, depth+1)
			if err != nil {
				return nil, err
			}
			v[i] = c
		}
		return v, nil
	case string, bool, nil, int, int64, uint64, float64:
		return v, nil
	}
	return fmt.Sprint(v), nil
}

// schemaProperties returns the properties an object schema declares.
func schemaProperties(raw json.RawMessage) map[string]any {
	var s struct {
		Properties map[string]any `json:"properties"`
	}
	_ = json.Unmarshal(raw, &s)
	return s.Properties
}

func didYouMean(name string, candidates []string) string {
	if s := spelling.Closest(name, candidates); s != "" {
		return fmt.Sprintf(" (did you mean %q?)", s)
	}
	return ""
}
