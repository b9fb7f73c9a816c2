package fsx

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"syscall"

	"github.com/talonhq/talon/tool"
	"github.com/talonhq/talon/workspace"
)

// Modes of what the file tools create.
const (
	newFileMode fs.FileMode = 0o644
	newDirMode  fs.FileMode = 0o755
)

// WriteFileOptions configures [WriteFile]. The zero value is the default;
// there is nothing to configure yet.
type WriteFileOptions struct{}

// WriteFile is the file_write tool: it creates or replaces a file with the
// given content, creating missing parent directories inside the workspace.
type WriteFile struct {
	root *workspace.Root
}

var (
	_ tool.Tool     = (*WriteFile)(nil)
	_ tool.Assessor = (*WriteFile)(nil)
	_ tool.Profiled = (*WriteFile)(nil)
)

// ForProfile returns the tool refusing the profile's forbidden_paths too.
func (t *WriteFile) ForProfile(p tool.ProfileSettings) (tool.Tool, error) {
	root, err := t.root.WithForbidden(p.ForbiddenPaths)
	if err != nil {
		return nil, err
	}
	return &WriteFile{root: root}, nil
}

// NewWriteFile returns the file_write tool confined to root.
func NewWriteFile(root *workspace.Root, _ WriteFileOptions) *WriteFile {
	return &WriteFile{root: root}
}

const writeSchema = `{"type":"object","properties":{` +
	`"path":{"type":"string","minLength":1},` +
	`"content":{"type":"string"}},` +
	`"required":["path","content"],"additionalProperties":false}`

// Spec describes file_write.
func (t *WriteFile) Spec() tool.Spec {
	return tool.Spec{
		Name:        "file_write",
		Input:       json.RawMessage(writeSchema),
		Tier:        tool.Medium,
		Attribution: tool.Attribution{Kind: tool.KindBuiltin, Alias: "file_write"},
	}
}

// WriteFileData is file_write's Output.Data.
type WriteFileData struct {
	// Path is workspace-relative, with forward slashes.
	Path string `json:"path"`
	// Bytes is the size of the content written.
	Bytes int `json:"bytes"`
	// Created says the file did not exist before.
	Created bool `json:"created"`
}

type writeArgs struct {
	Path    string  `json:"path"`
	Content *string `json:"content"`
}

// Assess reports the file the call writes and a one-line plan. A path
// outside the workspace denies the call.
func (t *WriteFile) Assess(raw json.RawMessage) (tool.Assessment, error) {
	var a writeArgs
	if err := tool.DecodeArgs(raw, &a); err != nil {
		return tool.Assessment{}, fmt.Errorf("decode file_write arguments: %w", err)
	}
	as := tool.Assessment{Tier: tool.Medium}
	target := assessPath(t.root, a.Path, t.root.ResolveForWrite, &as)
	size := 0
	if a.Content != nil {
		size = len(*a.Content)
	}
	if target == "" {
		as.Plan = &tool.Plan{Summary: fmt.Sprintf("write %s to %s", plural(size, "byte", "bytes"), a.Path)}
		return as, nil
	}
	what := "new file"
	if _, err := t.root.Lstat(target); err == nil {
		what = "overwrites the existing file"
	}
	as.Plan = &tool.Plan{Summary: fmt.Sprintf("write %s to %s (%s)", plural(size, "byte", "bytes"), t.root.Rel(target), what)}
	return as, nil
}

// Execute writes the file.
func (t *WriteFile) Execute(ctx context.Context, raw json.RawMessage) (tool.Result, error) {
	if err := ctx.Err(); err != nil {
		return tool.Result{}, err
	}
	var a writeArgs
	if err := tool.DecodeArgs(raw, &a); err != nil {
		return argsFailure(err, `{"path": "notes/todo.md", "content": "- ship\n"}`), nil
	}
	if a.Path == "" {
		return tool.Failure("path is required: give a file path relative to the workspace"), nil
	}
	if a.Content == nil {
		return tool.Failure("content is required: pass the whole new content of the file (an empty string makes an empty file)"), nil
	}
	real, created, err := t.root.WriteFile(a.Path, []byte(*a.Content), newFileMode)
	if err != nil {
		return writeFailure(t.root, a.Path, err), nil
	}
	rel := t.root.Rel(real)
	n := len(*a.Content)
	how := "new file"
	if !created {
		how = "replaced the previous content"
	}
	return tool.Result{Success: true, Output: tool.Output{
		Text: fmt.Sprintf("wrote %s to %s (%s)", plural(n, "byte", "bytes"), rel, how),
		Data: WriteFileData{Path: rel, Bytes: n, Created: created},
	}}, nil
}

// writeFailure explains why a write of p did not happen.
func writeFailure(root *workspace.Root, p string, err error) tool.Result {
	rel := root.Rel(lexicalPath(root, p))
	switch {
	case errors.Is(err, workspace.ErrIsDirectory):
		return tool.Failure("%s is a directory: give the path of a file to write", rel)
	case errors.Is(err, workspace.ErrNotRegular):
		return tool.Failure("%s is not a regular file: file_write and file_edit only write regular files", rel)
	case errors.Is(err, syscall.ENOTDIR):
		return tool.Failure("cannot write %s: a parent of it is a file, not a directory; choose another path", rel)
	case errors.Is(err, fs.ErrPermission):
		return tool.Failure("cannot write %s: permission denied; the file or its directory is read-only", rel)
	case errors.Is(err, syscall.ENOSPC):
		return tool.Failure("cannot write %s: the disk is full", rel)
	case errors.Is(err, workspace.ErrOutsideWorkspace), errors.Is(err, workspace.ErrEmptyPath),
		errors.Is(err, workspace.ErrInvalidPath), errors.Is(err, workspace.ErrDanglingLink),
		errors.Is(err, workspace.ErrProtected), errors.Is(err, workspace.ErrForbidden),
		errors.Is(err, workspace.ErrTooManyLinks):
		return tool.Failure("%v", err)
	}
	return tool.Failure("cannot write %s: %v", rel, stripPathErr(err))
}

// stripPathErr drops the operation and path of a *fs.PathError, which
// messages already name.
func stripPathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
