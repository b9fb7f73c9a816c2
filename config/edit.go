package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/talonhq/talon/workspace"
)

// SetInText sets the dotted key to value in the TOML text src and returns
// the edited text. Only the value's span changes; a comment after it on the
// same line is kept. When the key is absent it is added at the end of its
// table, and a missing table is created (before its first sub-table, else at
// the end of the text).
//
// value is a TOML inline value: '[]', '"en"', 'true', '7', '{ level = "full" }'.
// A bare word that is not valid TOML (en, supervised) is taken as a string.
//
// # Errors
//
// The key must be part of the schema ([ErrUnknownKey], with a suggestion);
// a key inside an inline table or an array of tables cannot be edited in
// place ([ErrNotEditable]). The edited text must decode strictly and pass
// [Config.Validate]; otherwise nothing is returned and the error says why.
func SetInText(src []byte, key, value string) ([]byte, error) {
	return setInText("", src, key, value)
}

func setInText(name string, src []byte, key, value string) ([]byte, error) {
	path, err := parseKeyArg(key)
	if err != nil {
		return nil, err
	}
	if _, miss := schemaType(path); miss != nil {
		if miss.throughArray {
			if len(path) > 1 && path[0] == "plugins" && path[1] == "entries" {
				return nil, fmt.Errorf("%w: %s is inside [[plugins.entries]]; use `talon plugins config NAME KEY VALUE` for a plugin's config, or enable/disable NAME",
					ErrNotEditable, quoteString(formatKey(path)))
			}
			return nil, fmt.Errorf("%w: %s is inside an array of tables; edit the file by hand",
				ErrNotEditable, quoteString(formatKey(path)))
		}
		at := min(miss.at, len(path)-1)
		return nil, fmt.Errorf("%w %s%s; check the spelling",
			ErrUnknownKey, quoteString(formatKey(path)), didYouMean(path[at], miss.candidates))
	}
	val, err := normalizeValue(value)
	if err != nil {
		return nil, err
	}
	out, err := setValue(name, src, path, val, "")
	if err != nil {
		return nil, err
	}
	if _, _, err := Parse(name, out); err != nil {
		if _, _, before := Parse(name, src); before != nil {
			return nil, fmt.Errorf("set %s: the file does not load even before the edit; fix it first: %w", formatKey(path), before)
		}
		return nil, fmt.Errorf("set %s = %s: the edited file would not load: %w", formatKey(path), val, err)
	}
	return out, nil
}

// SetInFile sets key to value in the config file at path, keeping comments
// and layout (see [SetInText]). The file is replaced atomically: the edited
// text goes to a temporary file in the same directory, is synced and renamed
// over the original, keeping its mode. A symbolic link is followed and its
// target edited. On any error the file is left untouched.
func SetInFile(path, key, value string) error {
	target, err := filepath.EvalSymlinks(path)
	if err != nil {
		return fmt.Errorf("set %s in %s: %w; create the file with talon config init", key, path, err)
	}
	info, err := os.Stat(target)
	if err != nil {
		return fmt.Errorf("set %s in %s: %w", key, path, err)
	}
	src, err := os.ReadFile(target)
	if err != nil {
		return fmt.Errorf("set %s in %s: %w", key, path, err)
	}
	out, err := setInText(path, src, key, value)
	if err != nil {
		return err
	}
	if err := WriteFileAtomic(target, out, info.Mode().Perm()); err != nil {
		return fmt.Errorf("set %s in %s: %w", key, path, err)
	}
	return nil
}

// WriteFileAtomic writes data to path so that a reader sees either the old
// content or the new, never a mix: the data goes to a temporary file in the
// same directory, is synced, given mode perm and renamed over path. When path
// is a symbolic link to an existing file, the target is replaced and the link
// kept. On error, path is left as it was.
func WriteFileAtomic(path string, data []byte, perm fs.FileMode) error {
	if target, err := filepath.EvalSymlinks(path); err == nil {
		path = target
	}
	return workspace.WriteFileAtomic(path, data, perm)
}

// ParseValue reads a value as `talon config set` takes it: exactly one TOML
// value, or a bare word taken as a string. It returns the value decoded and
// its TOML text.
func ParseValue(value string) (any, string, error) {
	text, err := normalizeValue(value)
	if err != nil {
		return nil, "", err
	}
	var m map[string]any
	if err := decodeLoose([]byte("v = "+text+"\n"), &m); err != nil {
		return nil, "", fmt.Errorf("%q is not a TOML value: %w", value, err)
	}
	return m["v"], text, nil
}

// normalizeValue checks that value is one TOML inline value, or turns a bare
// word into a string.
func normalizeValue(value string) (string, error) {
	v := strings.TrimSpace(value)
	if v == "" {
		return "", errors.New(`empty value; write a TOML value such as '"en"', '[]', 'true' or '7'`)
	}
	if isInlineValue(v) {
		return v, nil
	}
	if !strings.ContainsAny(v[:1], "\"'[{") && !strings.ContainsAny(v, "\r\n") {
		return quoteString(v), nil
	}
	return "", fmt.Errorf("%q is not a TOML value; quote strings (\"en\"), close brackets ([\"a\", \"b\"]) and write one value", v)
}

// isInlineValue reports whether v is exactly one valid TOML value.
func isInlineValue(v string) bool {
	text := []byte("v = " + v + "\n")
	doc, err := scanDocument(text)
	if err != nil || len(doc.entries) != 1 {
		return false
	}
	e := doc.entries[0]
	if e.kind != entryKeyval || e.valStart != 4 || e.valEnd != 4+len(v) {
		return false
	}
	return decodeLoose(text, new(map[string]any)) == nil
}

// editError reports a text that cannot be edited.
func editError(name string, src []byte, err error) error {
	var se *scanError
	if errors.As(err, &se) {
		line, col := lineCol(src, se.off)
		return &Error{File: name, Line: line, Col: col, Msg: "cannot edit: " + se.msg + "; fix the syntax first"}
	}
	return err
}

// setValue replaces or inserts path = val in src. comment, when not empty, is
// written after an inserted value.
func setValue(name string, src []byte, path []string, val, comment string) ([]byte, error) {
	doc, err := scanDocument(src)
	if err != nil {
		return nil, editError(name, src, err)
	}
	if e, ok := doc.find(path); ok {
		return splice(src, e.valStart, e.valEnd, val), nil
	}
	return doc.insert(path, val, comment)
}

// insert adds path = val, which doc does not have yet.
func (d *document) insert(path []string, val, comment string) ([]byte, error) {
	src := d.src
	key := formatKey(path)
	for _, e := range d.entries {
		line, _ := lineCol(src, e.keyStart)
		switch {
		case e.kind == entryKeyval && !e.inArray && len(e.path) < len(path) && hasPrefix(path, e.path):
			return nil, fmt.Errorf("%w: %s is part of the inline value of %s on line %d; edit that line by hand",
				ErrNotEditable, quoteString(key), quoteString(formatKey(e.path)), line)
		case e.kind == entryArrayTable && hasPrefix(path, e.path):
			return nil, fmt.Errorf("%w: %s is inside the array of tables on line %d; edit the file by hand",
				ErrNotEditable, quoteString(key), line)
		case !e.inArray && len(e.path) > len(path) && hasPrefix(e.path, path),
			e.kind != entryKeyval && !e.inArray && slices.Equal(e.path, path):
			return nil, fmt.Errorf("%w: %s is a table in the file (line %d); set its keys one by one",
				ErrNotEditable, quoteString(key), line)
		}
	}
	nl := d.newline()
	stmt := func(rel []string) string {
		s := formatKey(rel) + " = " + val
		if comment != "" {
			s += "  # " + comment
		}
		return s + nl
	}
	parent := path[:len(path)-1]
	if len(parent) == 0 {
		if off, ok := d.sectionEnd(-1); ok {
			return d.insertLine(off, stmt(path)), nil
		}
		return d.insertTop(stmt(path)), nil
	}
	for i, e := range d.entries {
		if e.kind == entryTable && !e.inArray && slices.Equal(e.path, parent) {
			off, _ := d.sectionEnd(i)
			return d.insertLine(off, stmt(path[len(parent):])), nil
		}
	}
	// The parent may be defined by dotted keys in an enclosing section.
	after, section := -1, 0
	for _, e := range d.entries {
		if e.kind == entryKeyval && !e.inArray && len(e.rel) > 1 && hasPrefix(e.path, parent) &&
			len(e.path)-len(e.rel) < len(parent) {
			after, section = e.end, len(e.path)-len(e.rel)
		}
	}
	if after >= 0 {
		return d.insertLine(after, stmt(path[section:])), nil
	}
	header := "[" + formatKey(parent) + "]" + nl + stmt(path[len(parent):])
	for _, e := range d.entries {
		if e.kind != entryKeyval && len(e.path) > len(parent) && hasPrefix(e.path, parent) {
			off := d.attachedStart(e)
			return splice(src, off, off, header+nl), nil
		}
	}
	return d.appendBlock(header), nil
}

// newline returns the line ending the text uses.
func (d *document) newline() string {
	if i := bytes.IndexByte(d.src, '\n'); i > 0 && d.src[i-1] == '\r' {
		return "\r\n"
	}
	return "\n"
}

// sectionEnd returns where a new key of a section goes: after its last
// key/value, else after its header. The root without keys has no such place.
func (d *document) sectionEnd(section int) (int, bool) {
	last := -1
	for _, e := range d.entries {
		if e.kind == entryKeyval && e.section == section {
			last = e.end
		}
	}
	switch {
	case last >= 0:
		return last, true
	case section >= 0:
		return d.entries[section].end, true
	default:
		return 0, false
	}
}

// attachedStart returns where the comment block directly above e starts
// (e's own line when there is none).
func (d *document) attachedStart(e entry) int {
	floor := 0
	for _, p := range d.entries {
		if p.end <= e.lineStart && p.end > floor {
			floor = p.end
		}
	}
	off := e.lineStart
	for off > floor {
		prevStart := strings.LastIndexByte(string(d.src[:off-1]), '\n') + 1
		if prevStart < floor {
			break
		}
		line := strings.TrimSpace(string(d.src[prevStart : off-1]))
		if !strings.HasPrefix(line, "#") {
			break
		}
		off = prevStart
	}
	return off
}

// insertTop inserts a line before the first statement (and the comments
// attached to it), separated from a following table by a blank line.
func (d *document) insertTop(line string) []byte {
	if len(d.entries) == 0 {
		return d.appendBlock(line)
	}
	first := d.entries[0]
	off := d.attachedStart(first)
	if first.kind != entryKeyval {
		line += d.newline()
	}
	return splice(d.src, off, off, line)
}

// insertLine inserts line at off, starting a new line if off is not at one.
func (d *document) insertLine(off int, line string) []byte {
	if off > 0 && d.src[off-1] != '\n' {
		line = d.newline() + line
	}
	return splice(d.src, off, off, line)
}

// appendBlock appends block at the end, after a blank line when the text is
// not empty.
func (d *document) appendBlock(block string) []byte {
	nl := d.newline()
	var b strings.Builder
	b.Write(d.src)
	if len(d.src) > 0 {
		if d.src[len(d.src)-1] != '\n' {
			b.WriteString(nl)
		}
		if !strings.HasSuffix(b.String(), nl+nl) {
			b.WriteString(nl)
		}
	}
	b.WriteString(block)
	return []byte(b.String())
}

func splice(src []byte, start, end int, text string) []byte {
	out := make([]byte, 0, len(src)-(end-start)+len(text))
	out = append(out, src[:start]...)
	out = append(out, text...)
	return append(out, src[end:]...)
}
