package fsx

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/talonhq/talon/tool"
	"github.com/talonhq/talon/workspace"
)

// Limits of file_read.
const (
	// DefaultReadMaxBytes caps the text one file_read call returns when
	// [ReadFileOptions.MaxBytes] is zero.
	DefaultReadMaxBytes = 262144
	// DefaultReadLimit is the number of lines returned when the call gives
	// no limit.
	DefaultReadLimit = 2000
	// MaxReadLimit is the largest limit a call may ask for.
	MaxReadLimit = 10000
)

// ReadFileOptions configures [ReadFile]. The zero value is the default.
type ReadFileOptions struct {
	// MaxBytes caps the line text one call reads into memory and returns;
	// zero means [DefaultReadMaxBytes].
	MaxBytes int
}

// ReadFile is the file_read tool: it returns a range of lines of a text
// file, each prefixed with its line number.
type ReadFile struct {
	root     *workspace.Root
	maxBytes int
}

var (
	_ tool.Tool     = (*ReadFile)(nil)
	_ tool.Assessor = (*ReadFile)(nil)
	_ tool.Profiled = (*ReadFile)(nil)
)

// NewReadFile returns the file_read tool confined to root.
func NewReadFile(root *workspace.Root, opts ReadFileOptions) *ReadFile {
	maxBytes := opts.MaxBytes
	if maxBytes <= 0 {
		maxBytes = DefaultReadMaxBytes
	}
	return &ReadFile{root: root, maxBytes: maxBytes}
}

// ForProfile returns the tool refusing the profile's forbidden_paths too.
func (t *ReadFile) ForProfile(p tool.ProfileSettings) (tool.Tool, error) {
	root, err := t.root.WithForbidden(p.ForbiddenPaths)
	if err != nil {
		return nil, err
	}
	c := *t
	c.root = root
	return &c, nil
}

const readSchema = `{"type":"object","properties":{` +
	`"path":{"type":"string","minLength":1},` +
	`"offset":{"type":"integer","minimum":1,"default":1},` +
	`"limit":{"type":"integer","minimum":1,"maximum":10000,"default":2000}},` +
	`"required":["path"],"additionalProperties":false}`

// Spec describes file_read.
func (t *ReadFile) Spec() tool.Spec {
	return tool.Spec{
		Name:        "file_read",
		Input:       json.RawMessage(readSchema),
		Tier:        tool.Low,
		Attribution: tool.Attribution{Kind: tool.KindBuiltin, Alias: "file_read"},
	}
}

// ReadFileData is file_read's Output.Data.
type ReadFileData struct {
	// Path is workspace-relative, with forward slashes.
	Path string `json:"path"`
	// Offset is the first line returned (1-based).
	Offset int `json:"offset"`
	// Lines is how many lines were returned.
	Lines int `json:"lines"`
	// TotalLines is the file's line count, when the call saw the whole file
	// or the file is no larger than the byte cap.
	TotalLines *int `json:"total_lines,omitempty"`
	// Truncated says the file goes on after the returned lines.
	Truncated bool `json:"truncated"`
}

type readArgs struct {
	Path   string `json:"path"`
	Offset *int   `json:"offset"`
	Limit  *int   `json:"limit"`
}

// Assess reports the resolved path the call reads. A path outside the
// workspace denies the call.
func (t *ReadFile) Assess(raw json.RawMessage) (tool.Assessment, error) {
	var a readArgs
	if err := tool.DecodeArgs(raw, &a); err != nil {
		return tool.Assessment{}, fmt.Errorf("decode file_read arguments: %w", err)
	}
	as := tool.Assessment{Tier: tool.Low}
	assessPath(t.root, a.Path, t.root.Resolve, &as)
	return as, nil
}

// Execute reads the requested lines.
func (t *ReadFile) Execute(ctx context.Context, raw json.RawMessage) (tool.Result, error) {
	var a readArgs
	if err := tool.DecodeArgs(raw, &a); err != nil {
		return argsFailure(err, `{"path": "README.md", "offset": 1, "limit": 200}`), nil
	}
	if a.Path == "" {
		return tool.Failure("path is required: give a file path relative to the workspace"), nil
	}
	offset, limit := 1, DefaultReadLimit
	if a.Offset != nil {
		if *a.Offset < 1 {
			return tool.Failure("offset must be 1 or more: the first line of a file is line 1"), nil
		}
		offset = *a.Offset
	}
	if a.Limit != nil {
		if *a.Limit < 1 || *a.Limit > MaxReadLimit {
			return tool.Failure("limit must be between 1 and %d lines", MaxReadLimit), nil
		}
		limit = *a.Limit
	}
	f, err := t.root.Open(a.Path)
	if err != nil {
		return pathFailure(a.Path, err), nil
	}
	defer f.Close()
	rel := t.root.Rel(f.Name())
	fi, err := f.Stat()
	if err != nil {
		return tool.Failure("cannot open %s: %v", rel, err), nil
	}
	if fi.IsDir() {
		return tool.Failure("%s is a directory: file_read reads files; use glob_search to list the files in it", rel), nil
	}
	if !fi.Mode().IsRegular() {
		return tool.Failure("%s is not a regular file: file_read reads text files only", rel), nil
	}
	return t.read(ctx, bufio.NewReaderSize(f, 64<<10), fi.Size(), rel, offset, limit)
}

// lineStatus says how readLine ended.
type lineStatus int

const (
	lineNone    lineStatus = iota // end of file, no line
	lineFull                      // a line ending in '\n'
	lineLast                      // a last line without '\n'
	lineTooLong                   // more than the allowed bytes
)

// readLine reads one line without its newline, holding at most max bytes.
func readLine(br *bufio.Reader, max int) ([]byte, lineStatus, error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(buf)+len(chunk) > max+1 || (err != nil && len(buf)+len(chunk) > max) {
			return append(buf, chunk[:max-len(buf)]...), lineTooLong, nil
		}
		buf = append(buf, chunk...)
		switch {
		case err == nil:
			return buf[:len(buf)-1], lineFull, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			if len(buf) == 0 {
				return nil, lineNone, nil
			}
			return buf, lineLast, nil
		default:
			return nil, lineNone, err
		}
	}
}

// skipLine consumes one line without keeping it. It reports false at the
// end of the file.
func skipLine(br *bufio.Reader) (bool, error) {
	seen := false
	for {
		chunk, err := br.ReadSlice('\n')
		seen = seen || len(chunk) > 0
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			return seen, nil
		default:
			return false, err
		}
	}
}

func (t *ReadFile) read(ctx context.Context, br *bufio.Reader, size int64, rel string, offset, limit int) (tool.Result, error) {
	head, err := br.Peek(sniffLen)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return tool.Failure("cannot read %s: %v", rel, err), nil
	}
	if looksBinary(head, len(head) == sniffLen) {
		return tool.Failure("%s looks like a binary file (a NUL byte or invalid UTF-8 near its start): file_read only reads text files", rel), nil
	}

	// Lines before offset are streamed past, never held.
	consumed := 0
	for consumed+1 < offset {
		if consumed%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return tool.Result{}, err
			}
		}
		ok, err := skipLine(br)
		if err != nil {
			return tool.Failure("cannot read %s: %v", rel, err), nil
		}
		if !ok {
			if consumed == 0 {
				return tool.Failure("offset %d is past the end of %s, which is empty", offset, rel), nil
			}
			return tool.Failure("offset %d is past the end of %s, which has %s: use an offset from 1 to %d",
				offset, rel, plural(consumed, "line", "lines"), consumed), nil
		}
		consumed++
	}

	var out strings.Builder
	used, emitted, atEOF := 0, 0, false
	note := ""
	truncated := false
	for emitted < limit {
		if emitted%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return tool.Result{}, err
			}
		}
		lineNo := offset + emitted
		line, status, err := readLine(br, t.maxBytes-used)
		if err != nil {
			return tool.Failure("cannot read %s: %v", rel, err), nil
		}
		if status == lineNone {
			atEOF = true
			break
		}
		if status == lineTooLong {
			truncated = true
			if emitted == 0 {
				line = cutUTF8(line, t.maxBytes)
				fmt.Fprintf(&out, "%6d\t%s\n", lineNo, line)
				emitted++
				note = fmt.Sprintf("line %d is longer than max_bytes (%d); showing its first %d bytes; read on with offset %d",
					lineNo, t.maxBytes, len(line), lineNo+1)
			} else {
				note = fmt.Sprintf("output reached max_bytes (%d) before line %d; read on with offset %d",
					t.maxBytes, lineNo, lineNo)
			}
			break
		}
		fmt.Fprintf(&out, "%6d\t%s\n", lineNo, line)
		used += len(line)
		emitted++
		if status == lineLast {
			atEOF = true
			break
		}
	}

	last := offset + emitted - 1
	var total *int
	if !truncated && !atEOF {
		if _, err := br.Peek(1); err == nil {
			truncated = true
		} else {
			atEOF = true
		}
	}
	switch {
	case atEOF:
		n := last
		total = &n
	case size <= int64(t.maxBytes):
		// A small file: counting the rest costs less than the cap.
		n := last
		if rest, err := t.countRest(br); err == nil {
			n += rest
			total = &n
		}
	}
	if truncated && note == "" {
		if total != nil {
			note = fmt.Sprintf("showing lines %d-%d of %d; read on with offset %d", offset, last, *total, last+1)
		} else {
			note = fmt.Sprintf("showing lines %d-%d; the file goes on; read on with offset %d", offset, last, last+1)
		}
	}

	if emitted == 0 && offset > 1 {
		return tool.Failure("offset %d is past the end of %s, which has %s: use an offset from 1 to %d",
			offset, rel, plural(last, "line", "lines"), last), nil
	}
	text := strings.TrimSuffix(out.String(), "\n")
	if emitted == 0 {
		text = fmt.Sprintf("(%s is empty)", rel)
	}
	if note != "" {
		text += "\n\n(" + note + ")"
	}
	return tool.Result{
		Success: true,
		Output: tool.Output{
			Text: text,
			Data: ReadFileData{Path: rel, Offset: offset, Lines: emitted, TotalLines: total, Truncated: truncated},
		},
	}, nil
}

// countRest counts the lines left in br.
func (t *ReadFile) countRest(br *bufio.Reader) (int, error) {
	n := 0
	for {
		ok, err := skipLine(br)
		if err != nil {
			return 0, err
		}
		if !ok {
			return n, nil
		}
		n++
	}
}
