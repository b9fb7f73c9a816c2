package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/pelletier/go-toml/v2"

	"github.com/talonhq/talon/internal/spelling"
	"github.com/talonhq/talon/tool"
)

// FileName is the manifest's name inside a plugin directory.
const FileName = "plugin.toml"

// MaxSize is the largest plugin.toml [Read] accepts.
const MaxSize = 64 << 10

var (
	// ErrInvalid is wrapped by every error Parse reports about the content
	// of a manifest.
	ErrInvalid = errors.New("invalid plugin manifest")
	// ErrTooLarge is returned by Read for a plugin.toml over MaxSize.
	ErrTooLarge = errors.New("plugin manifest too large")
)

// Error is one problem in a plugin.toml. Line and Col are 1-based and 0 when
// the place is unknown; Key is the dotted key, "" for a syntax error. File is
// set by [Read]. It wraps [ErrInvalid].
//
// Where a manifest has several problems, Parse returns an [errors.Join] of
// *Error values in file order; errors.As finds the first.
type Error struct {
	File string
	Line int
	Col  int
	Key  string
	Msg  string
}

// Error renders the problem as "file:line:col: msg".
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		if b.Len() > 0 {
			b.WriteByte(':')
		}
		b.WriteString(strconv.Itoa(e.Line))
		if e.Col > 0 {
			b.WriteByte(':')
			b.WriteString(strconv.Itoa(e.Col))
		}
	}
	if b.Len() > 0 {
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Unwrap returns [ErrInvalid].
func (e *Error) Unwrap() error { return ErrInvalid }

// lazyRegexp compiles a pattern on first use: every talon command links
// this package, and most never read a manifest.
func lazyRegexp(pattern string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })
}

var (
	nameRE   = lazyRegexp(`^[a-z][a-z0-9_-]{0,63}$`)
	sha256RE = lazyRegexp(`^[0-9a-f]{64}$`)
	labelRE  = lazyRegexp(`^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$`)
)

// Parse decodes plugin.toml strictly (an unknown key is an error naming it,
// with a suggestion when it looks like a typo) and validates it:
//
//   - name matches ^[a-z][a-z0-9_-]{0,63}$;
//   - kind is "wasm", "extism" or "process";
//   - abi_version is [ABIVersion] for wasm, [ExtismVersion] for extism and
//     [ProtocolVersion] for process;
//   - [[tools]] only in an extism manifest, each with a valid, unique tool
//     name, a known tier and an object input_schema;
//   - entry is a relative slash-separated path without "..";
//   - sha256 is 64 lowercase hex digits;
//   - every limit is zero (the default) or positive;
//   - permissions.http.allowed_hosts are host names or "*.suffix" patterns,
//     without scheme, port or path;
//   - fs_read and fs_write are relative paths without "..";
//   - secrets and config_read are non-empty names.
//
// # Errors
//
// Every problem is an [*Error] with its line and column when known; several
// are joined in file order.
func Parse(data []byte) (*Manifest, error) {
	m := new(Manifest)
	if err := decodeStrict(data, m); err != nil {
		return nil, decodeErrors(err)
	}
	var errs []*Error
	for _, p := range m.problems() {
		e := &Error{Key: p.key, Msg: p.msg}
		e.Line, e.Col = locate(data, p.key)
		errs = append(errs, e)
	}
	sort.SliceStable(errs, func(i, j int) bool {
		if errs[i].Line != errs[j].Line {
			return errs[i].Line < errs[j].Line
		}
		return errs[i].Col < errs[j].Col
	})
	if err := joinErrors(errs); err != nil {
		return nil, err
	}
	return m, nil
}

// Read reads and parses dir/plugin.toml, returning the manifest and the
// bytes it was parsed from (consent and signatures bind to them).
//
// # Errors
//
// A missing file wraps [fs.ErrNotExist]; a file over [MaxSize] wraps
// [ErrTooLarge]; parse errors are [*Error] values naming the file.
func Read(dir string) (*Manifest, []byte, error) {
	file := filepath.Join(dir, FileName)
	f, err := os.Open(file)
	if err != nil {
		return nil, nil, fmt.Errorf("read plugin manifest: %w", err)
	}
	defer func() { _ = f.Close() }()
	data, err := io.ReadAll(io.LimitReader(f, MaxSize+1))
	if err != nil {
		return nil, nil, fmt.Errorf("read plugin manifest: %w", err)
	}
	if len(data) > MaxSize {
		return nil, nil, fmt.Errorf("%s: %w: the limit is %d bytes; shorten it", file, ErrTooLarge, MaxSize)
	}
	m, err := Parse(data)
	if err != nil {
		return nil, nil, withFile(file, err)
	}
	return m, data, nil
}

// withFile sets File on every *Error in err.
func withFile(file string, err error) error {
	for _, e := range unwrapAll(err) {
		var me *Error
		if errors.As(e, &me) {
			me.File = file
		}
	}
	return err
}

type problem struct{ key, msg string }

// problems lists what is wrong with a decoded manifest, in field order.
func (m *Manifest) problems() []problem {
	var ps []problem
	fail := func(key, format string, a ...any) {
		ps = append(ps, problem{key, fmt.Sprintf(format, a...)})
	}
	switch {
	case m.Name == "":
		fail("name", `name is missing; set name = "<plugin>" (lowercase letters, digits, '-' and '_')`)
	case !nameRE().MatchString(m.Name):
		fail("name", "name %q must match ^[a-z][a-z0-9_-]{0,63}$: start with a lowercase letter, then use lowercase letters, digits, '-' and '_'", m.Name)
	}
	who := m.Name
	if who == "" || !nameRE().MatchString(who) {
		who = "this plugin"
	}
	switch m.Kind {
	case KindWASM:
		if m.ABIVersion != ABIVersion {
			fail("abi_version", "plugin %s speaks ABI v%d; this talon speaks v%d: install a build of %s for ABI v%d",
				who, m.ABIVersion, ABIVersion, who, ABIVersion)
		}
	case KindProcess:
		if m.ABIVersion != ProtocolVersion {
			fail("abi_version", "plugin %s speaks plugin protocol v%d; this talon speaks v%d: install a build of %s for protocol v%d",
				who, m.ABIVersion, ProtocolVersion, who, ProtocolVersion)
		}
	case KindExtism:
		if m.ABIVersion != ExtismVersion {
			fail("abi_version", "plugin %s asks for version %d of talon's Extism mapping; this talon speaks v%d: set abi_version = %d (see plugins/MANIFEST.md)",
				who, m.ABIVersion, ExtismVersion, ExtismVersion)
		}
		if len(m.Permissions.Secrets) > 0 {
			fail("permissions.secrets", "permissions.secrets: an Extism plugin has no way to read secrets; ask for the value as config (permissions.config_read) instead")
		}
	case "":
		fail("kind", `kind is missing; set kind = "wasm", "extism" or "process"`)
	default:
		fail("kind", `kind %q is not a plugin kind; use "wasm", "extism" or "process"`, m.Kind)
	}
	ps = append(ps, m.toolProblems()...)
	if m.Entry == "" {
		fail("entry", `entry is missing; set entry to the module or binary, relative to the plugin directory (e.g. "plugin.wasm")`)
	} else if msg := relativePathProblem(m.Entry); msg != "" {
		fail("entry", "entry %q %s", m.Entry, msg)
	} else if path.Clean(m.Entry) == "." {
		fail("entry", "entry %q names the plugin directory; name the module or binary in it", m.Entry)
	}
	if !sha256RE().MatchString(m.SHA256) {
		fail("sha256", "sha256 %q must be the 64 lowercase hex digits of the entry's SHA-256; compute it with `sha256sum` or run talon plugins sign", m.SHA256)
	}
	for _, h := range m.Permissions.HTTP.AllowedHosts {
		if msg := hostPatternProblem(h, false); msg != "" {
			fail("permissions.http.allowed_hosts", "permissions.http.allowed_hosts has %q: %s", h, msg)
		}
	}
	for _, f := range []struct {
		key   string
		paths []string
	}{{"permissions.fs_read", m.Permissions.FSRead}, {"permissions.fs_write", m.Permissions.FSWrite}} {
		for _, p := range f.paths {
			if msg := relativePathProblem(p); msg != "" {
				fail(f.key, "%s has %q, which %s", f.key, p, msg)
			}
		}
	}
	for _, f := range []struct {
		key   string
		names []string
	}{{"permissions.secrets", m.Permissions.Secrets}, {"permissions.config_read", m.Permissions.ConfigRead}} {
		for _, n := range f.names {
			if strings.TrimSpace(n) == "" || n != strings.TrimSpace(n) {
				fail(f.key, "%s has %q; use names without surrounding spaces", f.key, n)
			}
		}
	}
	for _, l := range []struct {
		key string
		v   int
	}{
		{"limits.timeout_ms", m.Limits.TimeoutMS},
		{"limits.max_memory_mb", m.Limits.MaxMemoryMB},
		{"limits.max_output_bytes", m.Limits.MaxOutputBytes},
		{"limits.max_instances", m.Limits.MaxInstances},
		{"limits.idle_timeout_ms", m.Limits.IdleTimeoutMS},
		{"limits.start_timeout_ms", m.Limits.StartTimeoutMS},
	} {
		if l.v < 0 {
			fail(l.key, "%s is %d; use 0 for the default or a positive number", l.key, l.v)
		}
	}
	return ps
}

// toolProblems checks [[tools]]: only an Extism plugin has them; names
// are valid tool names, each once; an export, when given, is a plain
// name; a tier is low, medium or high; an input_schema is a JSON Schema
// of an object.
func (m *Manifest) toolProblems() []problem {
	var ps []problem
	fail := func(format string, a ...any) {
		ps = append(ps, problem{"tools", fmt.Sprintf(format, a...)})
	}
	if len(m.Tools) > 0 && m.Kind != KindExtism {
		fail("[[tools]] maps the exports of an Extism module to tools; kind %q plugins describe their tools themselves: remove [[tools]] or set kind = \"extism\"", m.Kind)
		return ps
	}
	seen := map[string]bool{}
	exports := map[string]string{}
	for i, t := range m.Tools {
		if err := tool.ValidateName(t.Name); err != nil {
			fail("[[tools]] #%d: name: %v", i+1, err)
			continue
		}
		if seen[t.Name] {
			fail("[[tools]] names %q twice; give each tool one table", t.Name)
		}
		seen[t.Name] = true
		if t.Export != "" {
			if strings.TrimSpace(t.Export) != t.Export || strings.ContainsRune(t.Export, 0) {
				fail("[[tools]] %q: export %q must be the exported function's exact name", t.Name, t.Export)
			} else if other, dup := exports[t.Export]; dup {
				fail("[[tools]] %q and %q both map export %q; give each tool its own export", other, t.Name, t.Export)
			}
			exports[t.Export] = t.Name
		}
		if t.Tier != "" {
			if _, err := tool.ParseTier(t.Tier); err != nil {
				fail("[[tools]] %q: tier %q: use \"low\", \"medium\" or \"high\"", t.Name, t.Tier)
			}
		}
		if _, err := ToolSchema(t); err != nil {
			fail("[[tools]] %q: input_schema %v", t.Name, err)
		}
	}
	return ps
}

// ToolSchema returns the JSON Schema of a [[tools]] table's input_schema,
// compact, or {"type":"object"} when it has none.
//
// # Errors
//
// The schema must be an object schema ("type", when present, is
// "object") that compiles.
func ToolSchema(t Tool) (json.RawMessage, error) {
	if len(t.InputSchema) == 0 {
		return json.RawMessage(`{"type":"object"}`), nil
	}
	if typ, ok := t.InputSchema["type"]; ok && typ != "object" {
		return nil, errors.New(`must have type = "object"`)
	}
	raw, err := json.Marshal(t.InputSchema)
	if err != nil {
		return nil, fmt.Errorf("is not JSON: %w", err)
	}
	if _, err := tool.CompileSchema("plugin-tool-"+t.Name, raw); err != nil {
		return nil, fmt.Errorf("does not compile: %w", err)
	}
	return raw, nil
}

// relativePathProblem says why p is not a relative, slash-separated path
// that stays inside its base, or "" when it is one.
func relativePathProblem(p string) string {
	switch {
	case p == "":
		return "is empty; use a relative path such as \"data\" or \".\""
	case strings.ContainsRune(p, 0):
		return "contains a NUL byte; use a plain relative path"
	case strings.Contains(p, `\`):
		return `uses '\'; separate directories with '/'`
	case path.IsAbs(p) || filepath.IsAbs(p):
		return "is absolute; use a path relative to its base"
	}
	for _, part := range strings.Split(p, "/") {
		if part == ".." {
			return "contains \"..\"; use a path that stays inside its base"
		}
	}
	return ""
}

// hostPatternProblem says why h is not a host name or "*.suffix" pattern
// ("*" too when star is true), or "" when it is one. Names must be
// lowercase.
func hostPatternProblem(h string, star bool) string {
	if star && h == "*" {
		return ""
	}
	if strings.Contains(h, "://") {
		return "drop the scheme; write the host name only, e.g. \"api.example.com\""
	}
	if strings.ContainsAny(h, "/?#") {
		return "drop the path; write the host name only, e.g. \"api.example.com\""
	}
	if strings.Contains(h, ":") {
		return "drop the port; write the host name only (ports are not restricted per host)"
	}
	name := strings.TrimPrefix(h, "*.")
	if name == "" || len(name) > 253 {
		return "write a host name such as \"api.example.com\" or a pattern such as \"*.example.com\""
	}
	if name != strings.ToLower(name) {
		return "write host names in lowercase"
	}
	for _, label := range strings.Split(name, ".") {
		if !labelRE().MatchString(label) {
			if strings.Contains(label, "*") {
				return "'*' may only start a pattern, as in \"*.example.com\""
			}
			return "write a host name such as \"api.example.com\" or a pattern such as \"*.example.com\""
		}
	}
	return ""
}

// decodeStrict decodes data into v, refusing unknown keys. A panic inside
// the decoder is reported as an error: the input is untrusted.
func decodeStrict(data []byte, v any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("toml decoder failed: %v", r)
		}
	}()
	return toml.NewDecoder(bytes.NewReader(data)).DisallowUnknownFields().Decode(v)
}

// decodeErrors turns what go-toml reports into *Error values.
func decodeErrors(err error) error {
	var strict *toml.StrictMissingError
	if errors.As(err, &strict) {
		errs := make([]*Error, 0, len(strict.Errors))
		for i := range strict.Errors {
			de := &strict.Errors[i]
			line, col := de.Position()
			key := []string(de.Key())
			kind := "key"
			if strings.Contains(de.Error(), "table") {
				kind = "table"
			}
			errs = append(errs, &Error{Line: line, Col: col, Key: strings.Join(key, "."), Msg: fmt.Sprintf(
				"unknown %s %q%s; remove it or fix the spelling", kind, strings.Join(key, "."), suggest(key))})
		}
		return joinErrors(errs)
	}
	var de *toml.DecodeError
	if errors.As(err, &de) {
		line, col := de.Position()
		key := strings.Join([]string(de.Key()), ".")
		msg := strings.TrimPrefix(de.Error(), "toml: ")
		if key != "" {
			return &Error{Line: line, Col: col, Key: key, Msg: fmt.Sprintf("wrong value for %q: %s; fix the value", key, msg)}
		}
		return &Error{Line: line, Col: col, Msg: "invalid TOML: " + msg + "; fix the syntax"}
	}
	return &Error{Msg: "cannot decode: " + err.Error() + "; fix the file"}
}

// suggest returns a " (did you mean ...?)" clause for an unknown key, or "".
func suggest(key []string) string {
	t := reflect.TypeFor[Manifest]()
	for i, part := range key {
		if t.Kind() != reflect.Struct {
			return ""
		}
		var names []string
		var next reflect.Type
		for j := range t.NumField() {
			f := t.Field(j)
			tag, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
			names = append(names, tag)
			if tag == part {
				next = f.Type
			}
		}
		if next == nil || i == len(key)-1 {
			if s := spelling.Closest(part, names); s != "" && s != part {
				return fmt.Sprintf(" (did you mean %q?)", s)
			}
			return ""
		}
		t = next
	}
	return ""
}

// locate finds the line and column of a dotted key ("limits.timeout_ms")
// in a manifest's text, or 0, 0. It understands the plain layout manifests
// use: [table] headers and key = value lines; a key in a multi-line value
// may be missed, and then the error has no position.
func locate(data []byte, key string) (int, int) {
	table := ""
	if i := strings.LastIndexByte(key, '.'); i >= 0 {
		table, key = key[:i], key[i+1:]
	}
	current := ""
	for n, line := range strings.Split(string(data), "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "[") {
			h := strings.Trim(trimmed, "[] \t")
			if i := strings.IndexByte(h, ']'); i >= 0 {
				h = h[:i]
			}
			current = strings.ReplaceAll(h, " ", "")
			continue
		}
		k, _, ok := strings.Cut(trimmed, "=")
		if !ok {
			continue
		}
		k = strings.ReplaceAll(strings.TrimSpace(k), " ", "")
		if k == key && current == table || current == "" && k == table+"."+key && table != "" {
			return n + 1, len(line) - len(strings.TrimLeft(line, " \t")) + 1
		}
		if current != "" && table != current && strings.HasPrefix(table, current+".") && k == strings.TrimPrefix(table, current+".")+"."+key {
			return n + 1, len(line) - len(strings.TrimLeft(line, " \t")) + 1
		}
	}
	return 0, 0
}

// joinErrors returns nil, the only error, or an errors.Join of all of them.
func joinErrors(errs []*Error) error {
	switch len(errs) {
	case 0:
		return nil
	case 1:
		return errs[0]
	}
	all := make([]error, len(errs))
	for i, e := range errs {
		all[i] = e
	}
	return errors.Join(all...)
}

// unwrapAll returns the errors joined in err, or err alone.
func unwrapAll(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// ValidName reports whether s may name a plugin: lowercase letters,
// digits, _ and -, starting with a letter, at most 64 characters.
func ValidName(s string) bool { return nameRE().MatchString(s) }
