package fsx

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"syscall"
	"unicode/utf8"

	"github.com/talonhq/talon/tool"
	"github.com/talonhq/talon/workspace"
)

// sniffLen is how much of a file decides whether it is text.
const sniffLen = 8 << 10

// argsFailure is the result for arguments that could not be decoded.
func argsFailure(err error, example string) tool.Result {
	return tool.Failure("invalid arguments: %v: pass an object like %s", err, example)
}

// pathFailure turns an error from resolving p into a result that says what
// to do next.
func pathFailure(p string, err error) tool.Result {
	switch {
	case errors.Is(err, workspace.ErrOutsideWorkspace),
		errors.Is(err, workspace.ErrEmptyPath),
		errors.Is(err, workspace.ErrInvalidPath),
		errors.Is(err, workspace.ErrDanglingLink),
		errors.Is(err, workspace.ErrProtected),
		errors.Is(err, workspace.ErrForbidden),
		errors.Is(err, workspace.ErrTooManyLinks):
		return tool.Failure("%v", err)
	case errors.Is(err, fs.ErrNotExist):
		return tool.Failure("%s does not exist in the workspace: check the path with glob_search", p)
	case errors.Is(err, syscall.ENOTDIR):
		return tool.Failure("cannot use %s: a part of the path is a file, not a directory", p)
	}
	return tool.Failure("cannot access %s: %v", p, err)
}

// lexicalPath is p made absolute against the workspace without touching
// the disk, for assessments of paths that cannot be resolved.
func lexicalPath(root *workspace.Root, p string) string {
	if p == "" {
		return root.Dir()
	}
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(root.Dir(), p)
}

// assessPath resolves p for an assessment. A path outside the workspace,
// protected or forbidden denies the call; any other failure leaves the
// decision to Execute.
func assessPath(root *workspace.Root, p string, resolve func(string) (string, error), a *tool.Assessment) string {
	real, err := resolve(p)
	if err == nil {
		a.Paths = []string{real}
		return real
	}
	a.Paths = []string{lexicalPath(root, p)}
	if errors.Is(err, workspace.ErrOutsideWorkspace) || errors.Is(err, workspace.ErrInvalidPath) ||
		errors.Is(err, workspace.ErrProtected) || errors.Is(err, workspace.ErrForbidden) {
		a.Denied = true
		a.Reasons = append(a.Reasons, err.Error())
	}
	return ""
}

// looksBinary reports whether the start of a file is not text: it holds a
// NUL byte or is not valid UTF-8. more says the file goes on after b, so a
// character cut at the end of b is not held against it.
func looksBinary(b []byte, more bool) bool {
	if bytes.IndexByte(b, 0) >= 0 {
		return true
	}
	if more {
		b = cutUTF8(b, len(b))
	}
	return !utf8.Valid(b)
}

// cutUTF8 returns the longest prefix of b no longer than n bytes that does
// not end in the middle of a character.
func cutUTF8(b []byte, n int) []byte {
	if len(b) > n {
		b = b[:n]
	}
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return b[:i]
			}
			break
		}
	}
	return b
}

// plural renders "1 match" or "3 matches".
func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}
