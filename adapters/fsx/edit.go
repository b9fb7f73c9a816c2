package fsx

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/talonhq/talon/tool"
	"github.com/talonhq/talon/workspace"
)

// DefaultEditMaxFileBytes is the largest file file_edit changes when
// [EditFileOptions.MaxFileBytes] is zero.
const DefaultEditMaxFileBytes = 10 << 20

// EditFileOptions configures [EditFile]. The zero value is the default.
type EditFileOptions struct {
	// MaxFileBytes is the largest file edited; zero means
	// [DefaultEditMaxFileBytes].
	MaxFileBytes int64
}

// EditFile is the file_edit tool: it replaces an exact string in a text
// file, once (the string must be unique) or everywhere (replace_all). The
// file is replaced atomically and keeps its permission bits.
type EditFile struct {
	root     *workspace.Root
	maxBytes int64
}

var (
	_ tool.Tool     = (*EditFile)(nil)
	_ tool.Assessor = (*EditFile)(nil)
	_ tool.Profiled = (*EditFile)(nil)
)

// ForProfile returns the tool refusing the profile's forbidden_paths too.
func (t *EditFile) ForProfile(p tool.ProfileSettings) (tool.Tool, error) {
	root, err := t.root.WithForbidden(p.ForbiddenPaths)
	if err != nil {
		return nil, err
	}
	c := *t
	c.root = root
	return &c, nil
}

// NewEditFile returns the file_edit tool confined to root.
func NewEditFile(root *workspace.Root, opts EditFileOptions) *EditFile {
	maxBytes := opts.MaxFileBytes
	if maxBytes <= 0 {
		maxBytes = DefaultEditMaxFileBytes
	}
	return &EditFile{root: root, maxBytes: maxBytes}
}

const editSchema = `{"type":"object","properties":{` +
	`"path":{"type":"string","minLength":1},` +
	`"old_string":{"type":"string"},` +
	`"new_string":{"type":"string"},` +
	`"replace_all":{"type":"boolean","default":false}},` +
	`"required":["path","old_string","new_string"],"additionalProperties":false}`

// Spec describes file_edit.
func (t *EditFile) Spec() tool.Spec {
	return tool.Spec{
		Name:        "file_edit",
		Input:       json.RawMessage(editSchema),
		Tier:        tool.Medium,
		Attribution: tool.Attribution{Kind: tool.KindBuiltin, Alias: "file_edit"},
	}
}

// EditFileData is file_edit's Output.Data.
type EditFileData struct {
	// Path is workspace-relative, with forward slashes.
	Path string `json:"path"`
	// Replacements is how many occurrences were replaced.
	Replacements int `json:"replacements"`
}

type editArgs struct {
	Path       string  `json:"path"`
	OldString  *string `json:"old_string"`
	NewString  *string `json:"new_string"`
	ReplaceAll bool    `json:"replace_all"`
}

// Assess reports the file the call edits and a one-line plan. A path
// outside the workspace denies the call.
func (t *EditFile) Assess(raw json.RawMessage) (tool.Assessment, error) {
	var a editArgs
	if err := tool.DecodeArgs(raw, &a); err != nil {
		return tool.Assessment{}, fmt.Errorf("decode file_edit arguments: %w", err)
	}
	as := tool.Assessment{Tier: tool.Medium}
	name := a.Path
	if real := assessPath(t.root, a.Path, t.root.Resolve, &as); real != "" {
		name = t.root.Rel(real)
	}
	oldLen, newLen := 0, 0
	if a.OldString != nil {
		oldLen = len(*a.OldString)
	}
	if a.NewString != nil {
		newLen = len(*a.NewString)
	}
	which := "the one occurrence"
	if a.ReplaceAll {
		which = "every occurrence"
	}
	as.Plan = &tool.Plan{Summary: fmt.Sprintf("edit %s: replace %s of old_string (%s) with new_string (%s)",
		name, which, plural(oldLen, "byte", "bytes"), plural(newLen, "byte", "bytes"))}
	return as, nil
}

// Execute performs the replacement.
func (t *EditFile) Execute(ctx context.Context, raw json.RawMessage) (tool.Result, error) {
	if err := ctx.Err(); err != nil {
		return tool.Result{}, err
	}
	var a editArgs
	if err := tool.DecodeArgs(raw, &a); err != nil {
		return argsFailure(err, `{"path": "main.go", "old_string": "foo()", "new_string": "bar()"}`), nil
	}
	switch {
	case a.Path == "":
		return tool.Failure("path is required: give a file path relative to the workspace"), nil
	case a.OldString == nil || a.NewString == nil:
		return tool.Failure("old_string and new_string are required: pass the exact text to replace and its replacement"), nil
	case *a.OldString == "":
		return tool.Failure("old_string is empty: pass the exact text to replace, with enough surrounding lines to be unique; to create a file use file_write"), nil
	case *a.OldString == *a.NewString:
		return tool.Failure("old_string and new_string are identical: there is nothing to change"), nil
	}
	// An edit changes the file: a path no tool may change is refused by
	// its rule before it is read (reading a repository's config is
	// allowed, changing it is not).
	if _, err := t.root.ResolveForWrite(a.Path); errors.Is(err, workspace.ErrProtected) || errors.Is(err, workspace.ErrForbidden) {
		return pathFailure(a.Path, err), nil
	}
	f, err := t.root.Open(a.Path)
	if err != nil {
		return pathFailure(a.Path, err), nil
	}
	real := f.Name()
	rel := t.root.Rel(real)
	content, res := t.readEditable(f, rel)
	_ = f.Close()
	if res != nil {
		return *res, nil
	}
	if looksBinary(content[:min(len(content), sniffLen)], len(content) > sniffLen) {
		return tool.Failure("%s looks like a binary file: file_edit only edits text files", rel), nil
	}

	old, repl := []byte(*a.OldString), []byte(*a.NewString)
	count := bytes.Count(content, old)
	switch {
	case count == 0:
		return tool.Failure("old_string was not found in %s: it must match exactly, including whitespace and indentation; check the text with file_read", rel), nil
	case count > 1 && !a.ReplaceAll:
		return tool.Failure("old_string occurs %d times in %s: add surrounding lines to make it unique, or set replace_all to true to replace every occurrence", count, rel), nil
	}
	updated := bytes.Replace(content, old, repl, -1)
	if _, _, err := t.root.WriteFile(real, updated, newFileMode); err != nil {
		return writeFailure(t.root, real, err), nil
	}
	return tool.Result{Success: true, Output: tool.Output{
		Text: fmt.Sprintf("replaced %s in %s", plural(count, "occurrence", "occurrences"), rel),
		Data: EditFileData{Path: rel, Replacements: count},
	}}, nil
}

// readEditable reads the open file f, which must be a regular file of at
// most the size limit; a failed result says why not.
func (t *EditFile) readEditable(f *os.File, rel string) ([]byte, *tool.Result) {
	fail := func(format string, args ...any) ([]byte, *tool.Result) {
		r := tool.Failure(format, args...)
		return nil, &r
	}
	fi, err := f.Stat()
	switch {
	case err != nil:
		return fail("cannot read %s: %v", rel, err)
	case fi.IsDir():
		return fail("%s is a directory: give the path of a file to edit", rel)
	case !fi.Mode().IsRegular():
		return fail("%s is not a regular file: file_edit only edits text files", rel)
	case fi.Size() > t.maxBytes:
		return fail("%s is %d bytes; file_edit changes files up to %d bytes: use file_write to replace it whole", rel, fi.Size(), t.maxBytes)
	}
	b, err := io.ReadAll(io.LimitReader(f, t.maxBytes+1))
	if err != nil {
		return fail("cannot read %s: %v", rel, err)
	}
	if int64(len(b)) > t.maxBytes {
		return fail("cannot read %s: it grew past %d bytes while being read", rel, t.maxBytes)
	}
	return b, nil
}
