package commandtool

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/rs/zerolog"

	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/tool"
)

// Options configure how command tools are built. The zero value of each
// field is its documented default.
type Options struct {
	// Workspace is the working directory of a tool without cwd, and the
	// base of a relative cwd; "" means talon's working directory.
	Workspace string
	// LookupEnv reads talon's environment, for ${VAR} and for the minimal
	// environment of a tool without env; nil means os.LookupEnv.
	LookupEnv func(string) (string, bool)
	// MaxOutputBytes caps stdout and stderr, each; zero means
	// [DefaultMaxOutput] (16 MiB).
	MaxOutputBytes int
	// Logger receives one debug line per finished call; the zero value
	// logs nothing.
	Logger zerolog.Logger
}

// safeEnv are the variables a tool without env gets from talon's
// environment.
var safeEnv = []string{"PATH", "HOME", "LANG", "TERM", "TMPDIR"}

// Severity grades a [Problem].
type Severity int

const (
	// SeverityError: the table cannot become a tool; loading fails.
	SeverityError Severity = iota + 1
	// SeverityWarning: the tool cannot run on this machine (its program
	// or working directory is missing); loading skips it with a warning.
	SeverityWarning
	// SeverityNote: worth knowing, nothing is wrong.
	SeverityNote
)

// String returns "error", "warning" or "note".
func (s Severity) String() string {
	switch s {
	case SeverityWarning:
		return "warning"
	case SeverityNote:
		return "note"
	default:
		return "error"
	}
}

// Problem is one finding about a [tools.commands.<name>] table.
type Problem struct {
	// Tool is the configured name.
	Tool string
	// Key is the config key the problem is about, e.g.
	// ["tools", "commands", "rg", "command"].
	Key      []string
	Severity Severity
	Msg      string
}

// Error renders the problem as its message.
func (p Problem) Error() string { return p.Msg }

// New builds the command tool configured as [tools.commands.<name>].
//
// # Errors
//
// A table with errors (see [Check]) wraps [ErrInvalid]; a program or cwd
// missing on this machine wraps [ErrUnavailable]. Both name the tool and
// say what to fix.
func New(name string, ct config.CommandTool, opts Options) (*Tool, error) {
	t, problems := build(name, ct, opts)
	if err := problemsError(problems, SeverityError, ErrInvalid); err != nil {
		return nil, err
	}
	if err := problemsError(problems, SeverityWarning, ErrUnavailable); err != nil {
		return nil, err
	}
	return t, nil
}

func problemsError(problems []Problem, sev Severity, sentinel error) error {
	var msgs []string
	for _, p := range problems {
		if p.Severity == sev {
			msgs = append(msgs, p.Msg)
		}
	}
	if len(msgs) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s", sentinel, strings.Join(msgs, "; "))
}

// Check returns every problem of one [tools.commands.<name>] table without
// building anything that runs: the name, the command and its templates,
// parameters, ${VAR} references, env, cwd, the program's resolution, the
// tier and the timeout. `talon lint` prints them.
func Check(name string, ct config.CommandTool, opts Options) []Problem {
	_, problems := build(name, ct, opts)
	return problems
}

// QualifiedName returns the model-visible name of the command tool called
// name: tool__<name>, sanitized ("my.tool" -> "tool__my_tool").
//
// # Errors
//
// An empty name, or a qualified name over 64 characters, is an error that
// names it.
func QualifiedName(name string) (string, error) {
	if strings.TrimSpace(name) == "" {
		return "", errors.New("a command tool has an empty name: name the table [tools.commands.<name>]")
	}
	q := tool.SanitizeName(Prefix + name)
	if err := tool.ValidateName(q); err != nil {
		return "", fmt.Errorf("command tool %q becomes %s, %d characters long; the limit is 64: choose a shorter name", name, q, len(q))
	}
	return q, nil
}

// build compiles a table into a tool and lists its problems. The tool is
// nil when there is any error or warning.
func build(name string, ct config.CommandTool, opts Options) (*Tool, []Problem) {
	lookup := opts.LookupEnv
	if lookup == nil {
		lookup = os.LookupEnv
	}
	b := &builder{name: name, base: []string{"tools", "commands", name}}
	label := fmt.Sprintf("command tool %q", name)

	qualified, err := QualifiedName(name)
	if err != nil {
		b.add(nil, SeverityError, "%v", err)
	} else if qualified != Prefix+name {
		b.add(nil, SeverityNote, "%s is exposed as %s: characters outside [a-zA-Z0-9_-] become '_'", label, qualified)
	}

	t := &Tool{name: name, log: opts.Logger, maxOutput: opts.MaxOutputBytes}
	if t.maxOutput <= 0 {
		t.maxOutput = DefaultMaxOutput
	}

	// Parameters: an object JSON Schema.
	input, props, required := b.parameters(label, qualified, ct.Parameters)

	// The command: each element a template; command[0] a fixed program.
	if len(ct.Command) == 0 || strings.TrimSpace(ct.Command[0]) == "" {
		b.add([]string{"command"}, SeverityError, "%s has an empty command: set command = [\"program\", \"arg\", ...]", label)
	}
	programOK := false
	for i, src := range ct.Command {
		el, err := parseElement(src)
		if err != nil {
			b.add([]string{"command"}, SeverityError, "%s: command[%d] %v", label, i, err)
			t.argv = append(t.argv, nil)
			continue
		}
		el, expanded := b.expandElement(label, i, el, lookup)
		if i == 0 {
			programOK = expanded && el.fixed()
			if !el.fixed() {
				b.add([]string{"command"}, SeverityError, "%s: command[0] must name a fixed program, not a template: the model never chooses the program", label)
			}
		}
		for _, p := range el.params() {
			switch {
			case !slices.Contains(props, p):
				b.add([]string{"command"}, SeverityError, "%s: command[%d] refers to parameter %q, which parameters.properties does not declare: declare it or fix the name", label, i, p)
			case !slices.Contains(required, p):
				b.add([]string{"command"}, SeverityNote, "%s: command[%d] refers to the optional parameter %q; a call without it fails: add it to parameters.required", label, i, p)
			}
		}
		t.argv = append(t.argv, el)
	}

	// The environment: the allowlist, or the minimal safe set.
	envMap := map[string]string{}
	if ct.Env != nil {
		for _, k := range sortedKeys(ct.Env) {
			if k == "" || strings.ContainsAny(k, "=\x00") {
				b.add([]string{"env"}, SeverityError, "%s: env has the name %q, which is not a variable name: fix it", label, k)
				continue
			}
			v, ok := b.expand(label, []string{"env", k}, "env."+k, ct.Env[k], lookup)
			if ok {
				envMap[k] = v
			}
		}
	} else {
		for _, k := range safeEnv {
			if v, ok := lookup(k); ok {
				envMap[k] = v
			}
		}
	}
	for _, k := range sortedKeys(envMap) {
		t.env = append(t.env, k+"="+envMap[k])
		t.envNames = append(t.envNames, k)
	}
	t.lookPATH, _ = lookup("PATH")
	if p, ok := envMap["PATH"]; ok && ct.Env != nil {
		t.lookPATH = p
	}

	// The working directory.
	ws := opts.Workspace
	if abs, err := filepath.Abs(ws); err == nil {
		ws = abs // "" becomes talon's working directory
	}
	dir, ok := b.expand(label, []string{"cwd"}, "cwd", ct.Cwd, lookup)
	if ok {
		switch {
		case dir == "":
			dir = ws
		case !filepath.IsAbs(dir):
			dir = filepath.Join(ws, dir)
		}
		t.dir = filepath.Clean(dir)
		if fi, err := os.Stat(t.dir); err != nil || !fi.IsDir() {
			b.add([]string{"cwd"}, SeverityWarning, "%s: the working directory %s does not exist: create it or fix cwd", label, t.dir)
		}
	}

	// The program, resolved now and again at every call.
	if programOK && strings.TrimSpace(ct.Command[0]) != "" {
		t.program, _ = t.argv[0].render(args{})
		bin, err := lookPath(t.program, t.lookPATH, t.dir)
		if err != nil {
			where := ""
			if _, set := ct.Env["PATH"]; set && errors.Is(err, errNotFound) {
				where = fmt.Sprintf(" (env.PATH = %s)", t.lookPATH)
			}
			b.add([]string{"command"}, SeverityWarning, "%s: %v%s: install it, or give its absolute path in command[0]", label, err, where)
		}
		t.binary = bin
	}

	// Tier and timeout.
	tier := tool.High
	if ct.Tier != "" {
		if tier, err = tool.ParseTier(ct.Tier); err != nil {
			b.add([]string{"tier"}, SeverityError, "%s: %v", label, err)
		}
	}
	if ct.TimeoutSeconds < 0 {
		b.add([]string{"timeout"}, SeverityError, "%s: timeout = %d is negative: use 0 for the default (%d s) or a positive number of seconds", label, ct.TimeoutSeconds, config.DefaultCommandTimeoutSeconds)
	}
	t.timeout = ct.Timeout()

	desc := strings.TrimSpace(ct.Description)
	if desc == "" {
		b.add([]string{"description"}, SeverityNote, "%s has no description; the model sees a generic one: describe what it does and when to use it", label)
		if len(ct.Command) > 0 {
			desc = fmt.Sprintf("Runs %s with the given parameters (operator command tool).", ct.Command[0])
		}
	}
	t.schema = b.schema
	t.spec = tool.Spec{
		Name:        qualified,
		Description: desc,
		Input:       input,
		Output:      outputSchema,
		Tier:        tier,
		Attribution: tool.Attribution{Kind: tool.KindCommand, Alias: name},
	}
	if len(b.errors()) > 0 || b.has(SeverityWarning) {
		return nil, b.problems
	}
	return t, b.problems
}

// builder collects the problems of one table.
type builder struct {
	name     string
	base     []string
	problems []Problem
	schema   *tool.Schema
}

func (b *builder) add(key []string, sev Severity, format string, a ...any) {
	b.problems = append(b.problems, Problem{
		Tool: b.name, Key: append(slices.Clone(b.base), key...), Severity: sev, Msg: fmt.Sprintf(format, a...),
	})
}

func (b *builder) errors() []Problem {
	var out []Problem
	for _, p := range b.problems {
		if p.Severity == SeverityError {
			out = append(out, p)
		}
	}
	return out
}

func (b *builder) has(sev Severity) bool {
	return slices.ContainsFunc(b.problems, func(p Problem) bool { return p.Severity == sev })
}

// expand expands ${VAR} in one value, reporting missing variables.
func (b *builder) expand(label string, key []string, what, s string, lookup func(string) (string, bool)) (string, bool) {
	v, missing, err := expandVars(s, lookup)
	if err != nil {
		b.add(key, SeverityError, "%s: %s %v", label, what, err)
		return "", false
	}
	for _, m := range missing {
		b.add(key, SeverityError, "%s: ${%s} in %s is not set in talon's environment: set it before starting talon, or remove the reference", label, m, what)
	}
	return v, len(missing) == 0
}

// expandElement expands ${VAR} in the literal text of an element; quoted
// literals and rendered values are never expanded. It reports whether
// every reference was found.
func (b *builder) expandElement(label string, i int, el element, lookup func(string) (string, bool)) (element, bool) {
	all := true
	for j, s := range el {
		if s.kind != segText {
			continue
		}
		v, ok := b.expand(label, []string{"command"}, fmt.Sprintf("command[%d]", i), s.text, lookup)
		if ok {
			el[j].text = v
		}
		all = all && ok
	}
	return el, all
}

// parameters checks the input schema and returns it as JSON with its
// property names and required list.
func (b *builder) parameters(label, qualified string, params map[string]any) (json.RawMessage, []string, []string) {
	if params == nil {
		params = map[string]any{"type": "object"}
	}
	raw, err := json.Marshal(params)
	if err != nil {
		b.add([]string{"parameters"}, SeverityError, "%s: parameters cannot be written as JSON: %v", label, err)
		return json.RawMessage(`{"type":"object"}`), nil, nil
	}
	if params["type"] != "object" {
		b.add([]string{"parameters"}, SeverityError, "%s: parameters must be an object JSON Schema with type = \"object\"", label)
		return raw, nil, nil
	}
	name := qualified
	if name == "" {
		name = Prefix + b.name
	}
	if b.schema, err = tool.CompileSchema(name, raw); err != nil {
		b.add([]string{"parameters"}, SeverityError, "%s: parameters is not a valid JSON Schema: %s", label, oneLine(err))
		return raw, nil, nil
	}
	props := []string{}
	if m, ok := params["properties"].(map[string]any); ok {
		props = sortedKeys(m)
	} else if _, set := params["properties"]; set {
		b.add([]string{"parameters"}, SeverityError, "%s: parameters.properties must be a table of parameter schemas", label)
	}
	var required []string
	if r, ok := params["required"].([]any); ok {
		for _, v := range r {
			if s, ok := v.(string); ok {
				required = append(required, s)
			}
		}
	}
	return raw, props, required
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// errNotFound is the program missing from PATH.
var errNotFound = errors.New("not found")

// lookPath resolves a program the way the child's PATH would: a name with
// a slash is a path (relative to dir), a bare name is searched in the
// absolute entries of path. Relative PATH entries are skipped: they would
// make the binary depend on the working directory.
func lookPath(program, path, dir string) (string, error) {
	if program == "" {
		return "", errors.New("the program name is empty")
	}
	if strings.ContainsRune(program, '/') || strings.ContainsRune(program, filepath.Separator) {
		p := program
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		p = filepath.Clean(p)
		if err := executable(p); err != nil {
			return "", fmt.Errorf("program %s: %w", p, err)
		}
		return p, nil
	}
	for _, d := range filepath.SplitList(path) {
		if d == "" || !filepath.IsAbs(d) {
			continue
		}
		p := filepath.Join(d, program)
		if executable(p) == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("program %s is %w in PATH", program, errNotFound)
}

// oneLine flattens a multi-line error (a schema compiler's tree of
// causes) to its first line and its innermost causes.
func oneLine(err error) string {
	lines := strings.Split(strings.TrimSpace(err.Error()), "\n")
	if len(lines) == 1 {
		return lines[0]
	}
	indent := func(s string) int { return len(s) - len(strings.TrimLeft(s, " \t")) }
	var leaves []string
	for i := 1; i < len(lines); i++ {
		if i+1 < len(lines) && indent(lines[i+1]) > indent(lines[i]) {
			continue
		}
		leaves = append(leaves, strings.TrimPrefix(strings.TrimSpace(lines[i]), "- "))
	}
	return strings.TrimSuffix(strings.TrimSpace(lines[0]), ":") + ": " + strings.Join(leaves, "; ")
}

func executable(p string) error {
	fi, err := os.Stat(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return errNotFound
		}
		return err
	}
	switch {
	case fi.IsDir():
		return errors.New("is a directory")
	case runtime.GOOS != "windows" && fi.Mode()&0o111 == 0:
		return errors.New("is not executable")
	}
	return nil
}

// Policy is a compiled [tools] tool_policy: doublestar globs over the
// qualified names of command tools. An empty allow list allows every
// tool; deny wins over allow.
type Policy struct {
	allow, deny []string
}

// NewPolicy compiles a tool_policy.
//
// # Errors
//
// A pattern that does not compile is an error naming it.
func NewPolicy(p config.ToolPolicy) (*Policy, error) {
	for _, list := range [][]string{p.Allow, p.Deny} {
		for _, pat := range list {
			if !doublestar.ValidatePattern(pat) {
				return nil, fmt.Errorf("tool_policy pattern %q does not compile: fix its brackets or braces", pat)
			}
		}
	}
	return &Policy{allow: slices.Clone(p.Allow), deny: slices.Clone(p.Deny)}, nil
}

// Allows reports whether the tool with this qualified name is registered,
// and why not.
func (p *Policy) Allows(qualified string) (bool, string) {
	for _, pat := range p.deny {
		if ok, _ := doublestar.Match(pat, qualified); ok {
			return false, fmt.Sprintf("tool_policy.deny matches it (%q)", pat)
		}
	}
	if len(p.allow) == 0 {
		return true, ""
	}
	for _, pat := range p.allow {
		if ok, _ := doublestar.Match(pat, qualified); ok {
			return true, ""
		}
	}
	return false, "no tool_policy.allow pattern matches it"
}

// Set is the command tools of a config.
type Set struct {
	// Tools are the registered tools, sorted by name.
	Tools []tool.Tool
	// Skipped are the configured tools that were not registered.
	Skipped []Skip
	// Warnings are the reasons of skipped tools the operator did not ask
	// to skip (their program or directory is missing), one line each.
	Warnings []string
}

// Skip is a configured command tool that was not registered.
type Skip struct {
	Name      string // as configured
	Qualified string // tool__<name>
	// ByPolicy is set when tool_policy left it out; otherwise it is
	// unavailable on this machine.
	ByPolicy bool
	Reason   string
}

// Load builds every command tool of cfg that tool_policy lets in. A tool
// whose program or working directory is missing is skipped with a
// warning, so one missing program does not take the others down.
//
// # Errors
//
// Any table with errors (see [Check]) fails the load, wrapping
// [ErrInvalid] and naming every tool and problem; so does a bad
// tool_policy pattern or two tools claiming one name.
func Load(cfg *config.Config, opts Options) (Set, error) {
	var set Set
	if cfg == nil || len(cfg.Tools.Commands) == 0 {
		return set, nil
	}
	pol, err := NewPolicy(cfg.Tools.ToolPolicy)
	if err != nil {
		return set, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	var msgs []string
	claimed := map[string]string{}
	for _, name := range sortedKeys(cfg.Tools.Commands) {
		q, err := QualifiedName(name)
		if err != nil {
			msgs = append(msgs, err.Error())
			continue
		}
		if prev, dup := claimed[q]; dup {
			msgs = append(msgs, fmt.Sprintf("command tools %q and %q both become %s: rename one of them", prev, name, q))
			continue
		}
		claimed[q] = name
		if ok, why := pol.Allows(q); !ok {
			set.Skipped = append(set.Skipped, Skip{Name: name, Qualified: q, ByPolicy: true, Reason: why})
			continue
		}
		t, problems := build(name, cfg.Tools.Commands[name], opts)
		var unavailable []string
		for _, p := range problems {
			switch p.Severity {
			case SeverityError:
				msgs = append(msgs, p.Msg)
			case SeverityWarning:
				unavailable = append(unavailable, p.Msg)
			case SeverityNote:
			}
		}
		if t == nil && len(unavailable) > 0 {
			why := strings.Join(unavailable, "; ")
			set.Skipped = append(set.Skipped, Skip{Name: name, Qualified: q, Reason: why})
			set.Warnings = append(set.Warnings, q+" is not available: "+why)
		}
		if t != nil {
			set.Tools = append(set.Tools, t)
		}
	}
	if len(msgs) > 0 {
		return Set{}, fmt.Errorf("%w: %s", ErrInvalid, strings.Join(msgs, "; "))
	}
	return set, nil
}
