package git

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/talonhq/talon/tool"
	"github.com/talonhq/talon/workspace"
)

// The operations git_operations offers.
const (
	OpStatus   = "status"
	OpDiff     = "diff"
	OpLog      = "log"
	OpShow     = "show"
	OpBranch   = "branch"
	OpAdd      = "add"
	OpCommit   = "commit"
	OpCheckout = "checkout"
	OpSwitch   = "switch"
	OpStash    = "stash"
	OpRestore  = "restore"
)

// The stash actions.
const (
	StashList  = "list"
	StashPush  = "push"
	StashPop   = "pop"
	StashApply = "apply"
	StashDrop  = "drop"
)

// Limits on the arguments.
const (
	// MaxPaths is the most paths one call may name.
	MaxPaths = 1000
	// MaxPathBytes is the longest path accepted.
	MaxPathBytes = 4096
	// MaxMessageBytes is the longest commit or stash message.
	MaxMessageBytes = 64 << 10
	// MaxRefBytes is the longest ref or branch name.
	MaxRefBytes = 256
	// DefaultMaxCount is how many commits log shows when max_count is
	// not given.
	DefaultMaxCount = 20
	// MaxMaxCount is the largest max_count.
	MaxMaxCount = 1000
)

var operations = []string{OpStatus, OpDiff, OpLog, OpShow, OpBranch, OpAdd, OpCommit, OpCheckout, OpSwitch, OpStash, OpRestore}

var stashActions = []string{StashList, StashPush, StashPop, StashApply, StashDrop}

// fieldsOf lists the fields each operation takes besides operation.
var fieldsOf = map[string][]string{
	OpStatus:   {"paths"},
	OpDiff:     {"paths", "ref", "staged"},
	OpLog:      {"paths", "ref", "max_count"},
	OpShow:     {"paths", "ref"},
	OpBranch:   {"branch", "create", "ref"},
	OpAdd:      {"paths"},
	OpCommit:   {"message", "paths"},
	OpCheckout: {"ref", "branch", "create", "paths"},
	OpSwitch:   {"branch", "create", "ref"},
	OpStash:    {"stash_action", "message", "paths", "ref"},
	OpRestore:  {"paths", "staged", "ref"},
}

// inputSchema is flat: providers refuse allOf, anyOf, oneOf and if/then at
// the top level of a tool schema, so which fields an operation takes is
// checked by the tool, with errors that name the field.
var inputSchema = json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{`+
	`"operation":{"type":"string","enum":%s},`+
	`"paths":{"type":"array","items":{"type":"string","minLength":1,"maxLength":%d},"maxItems":%d},`+
	`"message":{"type":"string","maxLength":%d},`+
	`"ref":{"type":"string","maxLength":%d},`+
	`"branch":{"type":"string","maxLength":%d},`+
	`"create":{"type":"boolean","default":false},`+
	`"staged":{"type":"boolean","default":false},`+
	`"max_count":{"type":"integer","minimum":1,"maximum":%d,"default":%d},`+
	`"stash_action":{"type":"string","enum":%s,"default":"list"}},`+
	`"required":["operation"],"additionalProperties":false}`,
	jsonList(operations), MaxPathBytes, MaxPaths, MaxMessageBytes, MaxRefBytes, MaxRefBytes,
	MaxMaxCount, DefaultMaxCount, jsonList(stashActions)))

func jsonList(s []string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// rawArgs are the arguments as the model sent them.
type rawArgs struct {
	Operation   string   `json:"operation"`
	Paths       []string `json:"paths"`
	Message     string   `json:"message"`
	Ref         string   `json:"ref"`
	Branch      string   `json:"branch"`
	Create      bool     `json:"create"`
	Staged      bool     `json:"staged"`
	MaxCount    *int     `json:"max_count"`
	StashAction string   `json:"stash_action"`
}

// present lists the fields that carry a value other than their default.
func (r rawArgs) present() []string {
	var out []string
	add := func(name string, set bool) {
		if set {
			out = append(out, name)
		}
	}
	add("paths", len(r.Paths) > 0)
	add("message", r.Message != "")
	add("ref", r.Ref != "")
	add("branch", r.Branch != "")
	add("create", r.Create)
	add("staged", r.Staged)
	add("max_count", r.MaxCount != nil)
	add("stash_action", r.StashAction != "")
	return out
}

// call is a checked request: every value in it is safe to put in argv.
type call struct {
	op       string
	stash    string   // stash action, for OpStash
	paths    []string // workspace-relative, forward slashes
	abs      []string // where the paths really lead, for the assessment
	message  string
	ref      string
	branch   string
	create   bool
	staged   bool
	maxCount int
}

// decode reads the arguments strictly: unknown fields and trailing data are
// errors. Empty arguments and null mean {}.
func decode(raw json.RawMessage) (rawArgs, error) {
	var r rawArgs
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		raw = []byte("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return r, fmt.Errorf(`%w: %v: pass an object like {"operation": "status"}`, ErrInvalidArguments, err)
	}
	if dec.More() {
		return r, fmt.Errorf("%w: unexpected data after the arguments object", ErrInvalidArguments)
	}
	return r, nil
}

// check turns decoded arguments into a call. Mistakes wrap
// [ErrInvalidArguments]; values that could make git run code, reach a
// remote or leave the workspace wrap [ErrRefused].
func check(root *workspace.Root, r rawArgs) (call, error) {
	c := call{op: r.Operation}
	allowed, ok := fieldsOf[r.Operation]
	if !ok {
		if r.Operation == "" {
			return c, fmt.Errorf("%w: operation is required: use one of %s", ErrInvalidArguments, strings.Join(operations, ", "))
		}
		if isRemote(r.Operation) {
			return c, fmt.Errorf("%w: operation %q reaches a remote, which git_operations never does: use the shell tool, where policy decides", ErrRefused, r.Operation)
		}
		return c, fmt.Errorf("%w: unknown operation %q: use one of %s", ErrInvalidArguments, r.Operation, strings.Join(operations, ", "))
	}
	for _, f := range r.present() {
		if !slices.Contains(allowed, f) {
			return c, fmt.Errorf("%w: %s does not apply to %s: remove it (%s takes %s)", ErrInvalidArguments, f, r.Operation, r.Operation, strings.Join(allowed, ", "))
		}
	}
	if err := checkRef("ref", r.Ref); err != nil {
		return c, err
	}
	if r.Branch != "" {
		if err := checkBranch(r.Branch); err != nil {
			return c, err
		}
	}
	if len(r.Paths) > MaxPaths {
		return c, fmt.Errorf("%w: %d paths given; the limit is %d: split the call", ErrInvalidArguments, len(r.Paths), MaxPaths)
	}
	for _, p := range r.Paths {
		rel, abs, err := workspacePath(root, p)
		if err != nil {
			return c, err
		}
		c.paths = append(c.paths, rel)
		c.abs = append(c.abs, abs)
	}
	if len(r.Message) > MaxMessageBytes {
		return c, fmt.Errorf("%w: message is %d bytes; the limit is %d", ErrInvalidArguments, len(r.Message), MaxMessageBytes)
	}
	if strings.IndexByte(r.Message, 0) >= 0 {
		return c, fmt.Errorf("%w: message contains a NUL byte: remove it", ErrInvalidArguments)
	}
	c.message, c.ref, c.branch, c.create, c.staged = r.Message, r.Ref, r.Branch, r.Create, r.Staged

	switch c.op {
	case OpLog:
		c.maxCount = DefaultMaxCount
		if r.MaxCount != nil {
			if *r.MaxCount < 1 || *r.MaxCount > MaxMaxCount {
				return c, fmt.Errorf("%w: max_count %d is out of range: use 1 to %d", ErrInvalidArguments, *r.MaxCount, MaxMaxCount)
			}
			c.maxCount = *r.MaxCount
		}
	case OpBranch:
		if c.create && c.branch == "" {
			return c, fmt.Errorf(`%w: branch with create needs the new branch's name in branch, for example {"operation": "branch", "create": true, "branch": "fix/login"}`, ErrInvalidArguments)
		}
		if !c.create && (c.branch != "" || c.ref != "") {
			return c, fmt.Errorf("%w: branch without create lists the branches and takes no branch or ref: to create a branch, set create to true", ErrInvalidArguments)
		}
	case OpAdd:
		if len(c.paths) == 0 {
			return c, fmt.Errorf(`%w: add needs paths: list the files or directories to stage, or ["."] for everything`, ErrInvalidArguments)
		}
	case OpCommit:
		if strings.TrimSpace(c.message) == "" {
			return c, fmt.Errorf("%w: commit needs a message: describe the change in message", ErrInvalidArguments)
		}
	case OpCheckout:
		switch {
		case c.create:
			if c.branch == "" {
				return c, fmt.Errorf("%w: checkout with create needs the new branch's name in branch (and optionally its start point in ref)", ErrInvalidArguments)
			}
			if len(c.paths) > 0 {
				return c, fmt.Errorf("%w: checkout with create takes no paths: create the branch first, then restore paths", ErrInvalidArguments)
			}
		case len(c.paths) > 0:
			if c.branch != "" {
				return c, fmt.Errorf("%w: checkout of paths takes the source in ref, not branch", ErrInvalidArguments)
			}
		default:
			if c.ref != "" && c.branch != "" {
				return c, fmt.Errorf("%w: checkout takes either ref or branch, not both: set create to true to make branch at ref", ErrInvalidArguments)
			}
			if c.ref == "" && c.branch == "" {
				return c, fmt.Errorf("%w: checkout needs what to check out in ref (a branch, tag or commit), or paths to restore from the index", ErrInvalidArguments)
			}
			if c.ref == "" {
				c.ref, c.branch = c.branch, ""
			}
		}
	case OpSwitch:
		if c.branch == "" {
			return c, fmt.Errorf(`%w: switch needs the branch name in branch, for example {"operation": "switch", "branch": "main"}`, ErrInvalidArguments)
		}
		if c.ref != "" && !c.create {
			return c, fmt.Errorf("%w: switch takes a ref only as the start point of a new branch: set create to true, or use checkout to check out a commit", ErrInvalidArguments)
		}
	case OpStash:
		c.stash = r.StashAction
		if c.stash == "" {
			c.stash = StashList
		}
		if !slices.Contains(stashActions, c.stash) {
			return c, fmt.Errorf("%w: unknown stash_action %q: use one of %s", ErrInvalidArguments, c.stash, strings.Join(stashActions, ", "))
		}
		switch c.stash {
		case StashList:
			if c.message != "" || len(c.paths) > 0 || c.ref != "" {
				return c, fmt.Errorf("%w: stash list takes no message, paths or ref", ErrInvalidArguments)
			}
		case StashPush:
			if c.ref != "" {
				return c, fmt.Errorf("%w: stash push takes no ref: it saves the current changes", ErrInvalidArguments)
			}
		default:
			if c.message != "" || len(c.paths) > 0 {
				return c, fmt.Errorf("%w: stash %s takes only a ref such as stash@{1} (default: the latest stash)", ErrInvalidArguments, c.stash)
			}
		}
	case OpRestore:
		if len(c.paths) == 0 {
			return c, fmt.Errorf("%w: restore needs paths: list the files to restore", ErrInvalidArguments)
		}
	}
	given := slices.Clone(r.Paths)
	if p, ok := refPath(c.ref); ok {
		// REV:PATH reads a file's content as the revision has it: policy
		// sees the path as if the file were read.
		c.abs = append(c.abs, filepath.Join(root.Dir(), filepath.FromSlash(p)))
		given = append(given, c.ref)
	}
	for i, abs := range c.abs {
		if err := root.Check(given[i], abs, !c.readOnly()); err != nil {
			return c, fmt.Errorf("%w: %v", ErrRefused, err)
		}
	}
	return c, nil
}

// refPath returns the path a revision names a file or tree by
// ("HEAD:notes/a.md", ":notes/a.md", ":2:notes/a.md", "HEAD:" for the
// top level), relative to the top level of the repository, which is the
// workspace. A ":/text" search, and colons inside "^{...}", name no path.
func refPath(ref string) (string, bool) {
	if ref == "" || strings.HasPrefix(ref, ":/") {
		return "", false
	}
	depth := 0
	for i := 0; i < len(ref); i++ {
		switch ref[i] {
		case '{':
			depth++
		case '}':
			if depth > 0 {
				depth--
			}
		case ':':
			if depth > 0 {
				continue
			}
			p := ref[i+1:]
			if i == 0 && len(p) >= 2 && p[0] >= '0' && p[0] <= '3' && p[1] == ':' {
				p = p[2:] // :STAGE:PATH
			}
			return path.Clean("/" + p)[1:], true
		}
	}
	return "", false
}

// isRemote reports operation names that reach a remote.
func isRemote(op string) bool {
	switch strings.ToLower(op) {
	case "push", "pull", "fetch", "clone", "remote", "ls-remote", "submodule", "archive", "send-email", "request-pull":
		return true
	}
	return false
}

// checkRef refuses a revision that git could read as an option or as a
// URL, and one that no revision can be.
func checkRef(field, ref string) error {
	if ref == "" {
		return nil
	}
	if len(ref) > MaxRefBytes {
		return fmt.Errorf("%w: %s is %d bytes long; the limit is %d", ErrInvalidArguments, field, len(ref), MaxRefBytes)
	}
	if strings.HasPrefix(ref, "-") {
		return fmt.Errorf("%w: %s %q starts with '-', which git would read as an option (such as -c, --exec or --upload-pack): give a branch, tag or commit", ErrRefused, field, ref)
	}
	if strings.Contains(ref, "::") || strings.Contains(ref, "://") {
		return fmt.Errorf("%w: %s %q looks like a remote URL (ext::, scheme://): git_operations works on local refs only", ErrRefused, field, ref)
	}
	if !utf8.ValidString(ref) {
		return fmt.Errorf("%w: %s is not valid UTF-8", ErrInvalidArguments, field)
	}
	for _, r := range ref {
		if unicode.IsControl(r) || r == unicode.ReplacementChar {
			return fmt.Errorf("%w: %s %q contains a control character: remove it", ErrRefused, field, ref)
		}
	}
	return nil
}

// checkBranch applies git's rules for branch names (git check-ref-format
// --branch), refusing anything git could read as an option.
func checkBranch(name string) error {
	if err := checkRef("branch", name); err != nil {
		return err
	}
	bad := func(why string) error {
		return fmt.Errorf("%w: branch %q is not a valid branch name: %s", ErrInvalidArguments, name, why)
	}
	switch {
	case name == "@" || name == "HEAD":
		return bad("it is reserved")
	case strings.Contains(name, ".."):
		return bad(`it contains ".."`)
	case strings.Contains(name, "@{"):
		return bad(`it contains "@{"`)
	case strings.Contains(name, "//"), strings.HasPrefix(name, "/"), strings.HasSuffix(name, "/"):
		return bad("its slashes must separate non-empty parts")
	case strings.HasSuffix(name, "."):
		return bad(`it ends with "."`)
	case strings.ContainsAny(name, " ~^:?*[\\\t"):
		return bad(`it contains a space or one of ~ ^ : ? * [ \`)
	}
	for _, part := range strings.Split(name, "/") {
		if strings.HasPrefix(part, ".") || strings.HasSuffix(part, ".lock") {
			return bad(`no part may start with "." or end with ".lock"`)
		}
	}
	return nil
}

// workspacePath checks one path argument and returns it relative to the
// workspace (forward slashes) and where it really leads. A path that
// leaves the workspace, lexically or through a symbolic link on the way,
// or that lies inside .git, is refused.
func workspacePath(root *workspace.Root, p string) (rel, real string, err error) {
	if p == "" {
		return "", "", fmt.Errorf("%w: a path is empty: give paths relative to the workspace", ErrInvalidArguments)
	}
	if len(p) > MaxPathBytes {
		return "", "", fmt.Errorf("%w: a path is %d bytes long; the limit is %d", ErrInvalidArguments, len(p), MaxPathBytes)
	}
	if strings.IndexByte(p, 0) >= 0 {
		return "", "", fmt.Errorf("%w: path %q contains a NUL byte", ErrRefused, p)
	}
	abs := filepath.Clean(p)
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(root.Dir(), abs)
	}
	if !root.Contains(abs) {
		return "", "", fmt.Errorf("%w: path %q is outside the workspace %s: give paths inside it", ErrRefused, p, root.Dir())
	}
	r, err := filepath.Rel(root.Dir(), abs)
	if err != nil {
		return "", "", fmt.Errorf("%w: path %q: %v", ErrRefused, p, err)
	}
	rel = filepath.ToSlash(r)
	for _, part := range strings.Split(rel, "/") {
		if strings.EqualFold(part, ".git") {
			return "", "", fmt.Errorf("%w: path %q is inside .git: git_operations works on the working tree only", ErrRefused, p)
		}
	}
	real = abs
	if abs != root.Dir() {
		// git never follows a link in the last component, but the
		// directories on the way must really be in the workspace.
		parent, err := root.ResolveForWrite(filepath.Dir(abs))
		if err != nil {
			if errors.Is(err, workspace.ErrOutsideWorkspace) {
				return "", "", fmt.Errorf("%w: %v", ErrRefused, err)
			}
			return "", "", fmt.Errorf("%w: path %q: %v", ErrInvalidArguments, p, err)
		}
		real = filepath.Join(parent, filepath.Base(abs))
	}
	return rel, real, nil
}

// tier is the risk of the call: reading is low, changing the repository
// or the working tree is medium.
func (c call) tier() tool.Tier {
	if c.readOnly() {
		return tool.Low
	}
	return tool.Medium
}

// readOnly reports operations that change neither the repository nor the
// working tree.
func (c call) readOnly() bool {
	switch c.op {
	case OpStatus, OpDiff, OpLog, OpShow:
		return true
	case OpBranch:
		return !c.create
	case OpStash:
		return c.stash == StashList
	}
	return false
}

// mayMerge reports operations that run a three-way merge, and with it any
// merge driver the repository configures.
func (c call) mayMerge() bool {
	return c.op == OpStash && (c.stash == StashPop || c.stash == StashApply)
}

// args is the operation's part of the argument vector, after the common
// prefix. Every value has been checked; paths always follow "--".
func (c call) args() []string {
	var a []string
	dashPaths := func() {
		a = append(a, "--")
		a = append(a, c.paths...)
	}
	inspect := []string{"--no-color", "--no-ext-diff", "--no-textconv"}
	switch c.op {
	case OpStatus:
		a = append(a, "status", "--short", "--branch")
		dashPaths()
	case OpDiff:
		a = append(a, "diff")
		a = append(a, inspect...)
		if c.staged {
			a = append(a, "--cached")
		}
		if c.ref != "" {
			a = append(a, "--end-of-options", c.ref)
		}
		dashPaths()
	case OpLog:
		a = append(a, "log")
		a = append(a, inspect...)
		a = append(a, "--pretty=medium", "--date=iso", "--max-count="+strconv.Itoa(c.maxCount))
		if c.ref != "" {
			a = append(a, "--end-of-options", c.ref)
		}
		dashPaths()
	case OpShow:
		a = append(a, "show")
		a = append(a, inspect...)
		ref := c.ref
		if ref == "" {
			ref = "HEAD"
		}
		a = append(a, "--pretty=medium", "--date=iso", "--end-of-options", ref)
		dashPaths()
	case OpBranch:
		if !c.create {
			return append(a, "branch", "--list", "--no-color", "-v")
		}
		a = append(a, "branch", "--end-of-options", c.branch)
		if c.ref != "" {
			a = append(a, c.ref)
		}
	case OpAdd:
		a = append(a, "add")
		dashPaths()
	case OpCommit:
		a = append(a, "commit", "--no-verify", "--no-gpg-sign", "--message="+c.message)
		if len(c.paths) > 0 {
			dashPaths()
		}
	case OpCheckout:
		// checkout reads "--" after --end-of-options as a revision, so
		// it relies on refs never starting with "-" (checked).
		a = append(a, "checkout")
		if c.create {
			a = append(a, "-b", c.branch)
		}
		if c.ref != "" {
			a = append(a, c.ref)
		}
		dashPaths()
	case OpSwitch:
		a = append(a, "switch")
		if c.create {
			a = append(a, "--create="+c.branch, "--end-of-options")
			if c.ref != "" {
				a = append(a, c.ref)
			}
		} else {
			a = append(a, "--end-of-options", c.branch)
		}
	case OpStash:
		a = append(a, "stash", c.stash)
		switch c.stash {
		case StashPush:
			if c.message != "" {
				a = append(a, "--message="+c.message)
			}
			if len(c.paths) > 0 {
				dashPaths()
			}
		case StashPop, StashApply, StashDrop:
			if c.ref != "" {
				a = append(a, c.ref)
			}
		}
	case OpRestore:
		a = append(a, "restore")
		if c.staged {
			a = append(a, "--staged")
		}
		if c.ref != "" {
			a = append(a, "--source="+c.ref)
		}
		dashPaths()
	}
	return a
}

// name is the operation as shown in messages: "stash pop", "branch", ...
func (c call) name() string {
	if c.op == OpStash {
		return "stash " + c.stash
	}
	return c.op
}
