package patch

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/talonhq/talon/tool"
	"github.com/talonhq/talon/workspace"
)

// Name is the tool's model-visible name.
const Name = "apply_patch"

// Limits.
const (
	// MaxPatchBytes is the largest patch accepted.
	MaxPatchBytes = 1 << 20
	// MaxSections is the most file sections one patch may have.
	MaxSections = 1000
	// MaxStrip is the largest strip.
	MaxStrip = 32
	// DefaultStrip is strip when the call does not give it: git's a/ and b/.
	DefaultStrip = 1
	// DefaultMaxFileBytes is the largest file changed when
	// [Options.MaxFileBytes] is zero.
	DefaultMaxFileBytes = 10 << 20
	// maxTotalBytes bounds what one call reads into memory.
	maxTotalBytes = 128 << 20
)

var (
	// ErrInvalidArguments is wrapped by errors about the call's arguments.
	ErrInvalidArguments = errors.New("invalid apply_patch arguments")
	// ErrMalformed is wrapped when the patch cannot be parsed.
	ErrMalformed = errors.New("the patch cannot be parsed")
	// ErrRefused is wrapped when a name in the patch leads outside the
	// workspace or into .git.
	ErrRefused = errors.New("refused")
	// ErrRejected is wrapped by [*RejectError]: the patch does not apply
	// to the files as they are.
	ErrRejected = errors.New("the patch does not apply")
	// ErrWriteFailed is wrapped by [*CommitError]: writing the files
	// failed after the patch applied in memory.
	ErrWriteFailed = errors.New("writing the patched files failed")
)

// Options configures [ApplyPatch]. The zero value is the default.
type Options struct {
	// MaxFileBytes is the largest file the patch may change; zero means
	// [DefaultMaxFileBytes].
	MaxFileBytes int64
	// Logger receives one debug line per applied patch; the zero value
	// logs nothing.
	Logger zerolog.Logger
}

// ApplyPatch is the apply_patch tool. It is safe for concurrent use; calls
// are serialized so two patches never interleave their writes.
type ApplyPatch struct {
	root     *workspace.Root
	maxBytes int64
	log      zerolog.Logger
	fs       fileSystem
	mu       sync.Mutex
}

var (
	_ tool.Tool     = (*ApplyPatch)(nil)
	_ tool.Assessor = (*ApplyPatch)(nil)
	_ tool.Profiled = (*ApplyPatch)(nil)
)

// fileSystem is what the write phase does to the disk, replaceable in tests
// to make a write fail midway.
type fileSystem struct {
	write  func(path string, data []byte, perm fs.FileMode) error
	remove func(path string) error
	chmod  func(path string, perm fs.FileMode) error
	mkdir  func(path string, perm fs.FileMode) error
}

// rootFileSystem changes files through root: every path is resolved in
// the workspace's open directory and checked against its protected paths
// and forbidden patterns again as it is used.
func rootFileSystem(root *workspace.Root) fileSystem {
	return fileSystem{
		write: func(path string, data []byte, perm fs.FileMode) error {
			_, _, err := root.WriteFile(path, data, perm)
			return err
		},
		remove: root.Remove,
		chmod:  root.Chmod,
		mkdir:  root.Mkdir,
	}
}

// New returns the apply_patch tool confined to root.
func New(root *workspace.Root, opts Options) *ApplyPatch {
	maxBytes := opts.MaxFileBytes
	if maxBytes <= 0 {
		maxBytes = DefaultMaxFileBytes
	}
	return &ApplyPatch{root: root, maxBytes: maxBytes, log: opts.Logger, fs: rootFileSystem(root)}
}

// ForProfile returns the tool refusing the profile's forbidden_paths too.
func (a *ApplyPatch) ForProfile(p tool.ProfileSettings) (tool.Tool, error) {
	root, err := a.root.WithForbidden(p.ForbiddenPaths)
	if err != nil {
		return nil, err
	}
	return &ApplyPatch{root: root, maxBytes: a.maxBytes, log: a.log, fs: rootFileSystem(root)}, nil
}

var inputSchema = json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{`+
	`"patch":{"type":"string","minLength":1,"maxLength":%d},`+
	`"strip":{"type":"integer","minimum":0,"maximum":%d,"default":%d}},`+
	`"required":["patch"],"additionalProperties":false}`, MaxPatchBytes, MaxStrip, DefaultStrip))

var outputSchema = json.RawMessage(`{"type":"object","properties":{` +
	`"files":{"type":"array","items":{"type":"object","properties":{` +
	`"path":{"type":"string"},"from":{"type":"string"},"action":{"type":"string"},` +
	`"hunks":{"type":"integer"},"added":{"type":"integer"},"removed":{"type":"integer"}}}},` +
	`"hunks":{"type":"integer"}}}`)

// Spec describes apply_patch. Its description comes from the message
// catalog (tool-apply-patch).
func (a *ApplyPatch) Spec() tool.Spec {
	return tool.Spec{
		Name:        Name,
		Input:       inputSchema,
		Output:      outputSchema,
		Tier:        tool.Medium,
		Attribution: tool.Attribution{Kind: tool.KindBuiltin, Alias: Name},
	}
}

// FileChange is what the patch does to one file.
type FileChange struct {
	// Path is workspace-relative, with forward slashes.
	Path string `json:"path"`
	// From is the source of a rename or copy.
	From string `json:"from,omitempty"`
	// Action is modify, create, delete, rename or copy.
	Action  string `json:"action"`
	Hunks   int    `json:"hunks"`
	Added   int    `json:"added"`
	Removed int    `json:"removed"`
}

// Data is the result's Output.Data.
type Data struct {
	Files []FileChange `json:"files"`
	Hunks int          `json:"hunks"`
}

// RejectError lists everything that kept the patch from applying. Nothing
// was written.
type RejectError struct {
	Rejects []Reject
}

func (e *RejectError) Error() string {
	var b strings.Builder
	n := len(e.Rejects)
	fmt.Fprintf(&b, "the patch does not apply, so nothing was changed (%s):", plural(n, "problem", "problems"))
	for _, r := range e.Rejects {
		b.WriteString("\n")
		b.WriteString(r.String())
	}
	b.WriteString("\nre-read the files and make the patch from their current content")
	return b.String()
}

// Unwrap returns [ErrRejected].
func (e *RejectError) Unwrap() error { return ErrRejected }

// CommitError reports a failure of the write phase.
type CommitError struct {
	// File is the workspace-relative file whose write or removal failed.
	File string
	Err  error
	// Unrestored lists what could not be put back; empty means the
	// workspace is as it was before the call.
	Unrestored []string
}

func (e *CommitError) Error() string {
	if len(e.Unrestored) == 0 {
		return fmt.Sprintf("%v: %s: %v; every file changed before it was restored, so the workspace is as it was: fix the cause (a read-only file or a full disk) and apply the patch again",
			ErrWriteFailed, e.File, e.Err)
	}
	return fmt.Sprintf("%v: %s: %v; restoring the earlier files failed too, so the workspace is partly patched: check %s",
		ErrWriteFailed, e.File, e.Err, strings.Join(e.Unrestored, "; "))
}

// Unwrap returns [ErrWriteFailed] and the cause.
func (e *CommitError) Unwrap() []error { return []error{ErrWriteFailed, e.Err} }

type args struct {
	patch string
	strip int
}

// decodeArgs reads the arguments strictly and checks them.
func decodeArgs(raw json.RawMessage) (args, error) {
	var r struct {
		Patch *string `json:"patch"`
		Strip *int    `json:"strip"`
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		raw = []byte("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return args{}, fmt.Errorf(`%w: %v: pass an object like {"patch": "--- a/x\n+++ b/x\n@@ ..."}`, ErrInvalidArguments, err)
	}
	if dec.More() {
		return args{}, fmt.Errorf("%w: unexpected data after the arguments object", ErrInvalidArguments)
	}
	if r.Patch == nil || strings.TrimSpace(*r.Patch) == "" {
		return args{}, fmt.Errorf("%w: patch is required: pass a unified diff", ErrInvalidArguments)
	}
	if len(*r.Patch) > MaxPatchBytes {
		return args{}, fmt.Errorf("%w: the patch is %d bytes; the limit is %d: split it into several patches", ErrInvalidArguments, len(*r.Patch), MaxPatchBytes)
	}
	a := args{patch: *r.Patch, strip: DefaultStrip}
	if r.Strip != nil {
		if *r.Strip < 0 || *r.Strip > MaxStrip {
			return args{}, fmt.Errorf("%w: strip %d is out of range: use 0 to %d (1 removes git's a/ and b/)", ErrInvalidArguments, *r.Strip, MaxStrip)
		}
		a.strip = *r.Strip
	}
	return a, nil
}

// Assess applies the patch in memory and reports every file it touches and
// a plan summary that identifies the patch. A name outside the workspace
// denies the call.
//
// # Errors
//
// Invalid arguments, a patch that cannot be parsed, and a patch that does
// not apply ([*RejectError]): the call fails before anyone is asked.
func (a *ApplyPatch) Assess(raw json.RawMessage) (tool.Assessment, error) {
	ar, err := decodeArgs(raw)
	if err != nil {
		return tool.Assessment{}, err
	}
	dr, err := a.dryRun(ar)
	if errors.Is(err, ErrRefused) {
		return tool.Assessment{Tier: tool.Medium, Denied: true, Reasons: []string{err.Error()}, Paths: []string{a.root.Dir()}}, nil
	}
	if err != nil {
		return tool.Assessment{}, err
	}
	return tool.Assessment{
		Tier:    tool.Medium,
		Reasons: []string{"apply_patch changes files in the workspace"},
		Paths:   dr.paths(),
		Plan:    &tool.Plan{Summary: dr.summary(ar)},
	}, nil
}

// Execute applies the patch: in memory first, then, when every hunk
// applied, to the files. When the context carries an approved plan whose
// summary differs from the patch's now, nothing is written.
func (a *ApplyPatch) Execute(ctx context.Context, raw json.RawMessage) (tool.Result, error) {
	if err := ctx.Err(); err != nil {
		return tool.Result{}, err
	}
	ar, err := decodeArgs(raw)
	if err != nil {
		return tool.Failure("%v", err), nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	start := time.Now()
	dr, err := a.dryRun(ar)
	if err != nil {
		if errors.Is(err, ErrRefused) || errors.Is(err, ErrMalformed) || errors.Is(err, ErrInvalidArguments) {
			return tool.Failure("%v; nothing was changed", err), nil
		}
		return tool.Failure("%v", err), nil
	}
	summary := dr.summary(ar)
	if approved := tool.ApprovedPlan(ctx); approved != nil && approved.Summary != summary {
		return tool.Failure("the patch no longer matches the approved plan (approved: %s; now: %s), so nothing was changed: ask for approval again", approved.Summary, summary), nil
	}
	if err := ctx.Err(); err != nil {
		return tool.Result{}, err
	}
	if err := a.commit(dr.files); err != nil {
		return tool.Failure("%v", err), nil
	}
	a.log.Debug().Int("files", len(dr.changes)).Int("hunks", dr.hunks).Dur("duration", time.Since(start)).Msg("patch applied")
	return tool.Result{Success: true, Output: tool.Output{Text: dr.report(), Data: Data{Files: dr.changes, Hunks: dr.hunks}}}, nil
}

// patchID identifies a patch and its strip in plans.
func patchID(ar args) string {
	sum := sha256.Sum256([]byte(ar.patch))
	return hex.EncodeToString(sum[:6])
}

// actions in the order summaries list them.
var actions = []struct{ name, letter, past string }{
	{"modify", "M", "modified"},
	{"create", "A", "created"},
	{"delete", "D", "deleted"},
	{"rename", "R", "renamed"},
	{"copy", "C", "copied"},
}

// summaryNames is how many files a summary names.
const summaryNames = 10

// summary is the plan's one line: "modify 2 files, create 1, delete 1:
// M a.go, M b.go, A c.go, D d.go (patch 3f2a9c1b7d0e, strip 1)".
func (d *dryRun) summary(ar args) string {
	var counts []string
	for _, act := range actions {
		n := 0
		for _, c := range d.changes {
			if c.Action == act.name {
				n++
			}
		}
		switch {
		case n == 0:
		case len(counts) == 0:
			counts = append(counts, fmt.Sprintf("%s %s", act.name, plural(n, "file", "files")))
		default:
			counts = append(counts, fmt.Sprintf("%s %d", act.name, n))
		}
	}
	var list []string
	for _, c := range d.changes {
		if len(list) == summaryNames {
			list = append(list, fmt.Sprintf("and %d more", len(d.changes)-summaryNames))
			break
		}
		list = append(list, letter(c.Action)+" "+c.display())
	}
	return fmt.Sprintf("%s: %s (patch %s, strip %d)", strings.Join(counts, ", "), strings.Join(list, ", "), patchID(ar), ar.strip)
}

func letter(action string) string {
	for _, a := range actions {
		if a.name == action {
			return a.letter
		}
	}
	return "?"
}

func (c FileChange) display() string {
	if c.From != "" {
		return c.From + " -> " + c.Path
	}
	return c.Path
}

// report is the text of a successful call.
func (d *dryRun) report() string {
	var b strings.Builder
	fmt.Fprintf(&b, "applied %s to %s", plural(d.hunks, "hunk", "hunks"), plural(len(d.changes), "file", "files"))
	for _, c := range d.changes {
		past := c.Action
		for _, a := range actions {
			if a.name == c.Action {
				past = a.past
			}
		}
		fmt.Fprintf(&b, "\n%s %s", past, c.display())
		if c.Added > 0 || c.Removed > 0 {
			fmt.Fprintf(&b, " (+%d -%d)", c.Added, c.Removed)
		}
	}
	return b.String()
}

// paths are the real locations of every file the patch touches, sorted.
func (d *dryRun) paths() []string {
	out := make([]string, 0, len(d.files))
	for _, f := range d.files {
		out = append(out, f.real)
	}
	slices.Sort(out)
	return out
}

func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}
