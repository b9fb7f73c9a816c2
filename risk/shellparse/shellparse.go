package shellparse

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"

	"github.com/talonhq/talon/tool"
)

var (
	// ErrInvalidPattern reports an allowed_commands pattern that cannot be
	// used: it does not compile, is empty, or names a relative path.
	ErrInvalidPattern = errors.New("invalid allowed_commands pattern")
	// ErrInvalidSafeBin reports a safe bin entry that cannot be used.
	ErrInvalidSafeBin = errors.New("invalid safe bin")

	// errGlobBudget stops pathname expansion that reads too much.
	errGlobBudget = errors.New("the glob patterns read too many directories; name the files instead")
)

// Limits of the analysis. Beyond them a line is not analysable.
const (
	// MaxWrapperDepth is how many transparent wrappers (env, nice, nohup,
	// stdbuf, timeout, time) may stand in front of one command.
	MaxWrapperDepth = 4
	// MaxScriptDepth is how deeply sh -c scripts may nest.
	MaxScriptDepth = 3
	// MaxArgs bounds the arguments of a whole line after brace and
	// pathname expansion.
	MaxArgs = 4096
	// MaxTimeout is the longest duration a timeout wrapper may name.
	MaxTimeout = 100 * 24 * time.Hour
)

// defaultAllowedCommands is SPEC §4's default allowed_commands.
var defaultAllowedCommands = []string{
	"git", "ls", "cat", "grep", "find", "echo", "pwd", "wc", "head", "tail",
	"date", "df", "du", "uname", "uptime", "hostname", "sort", "uniq", "cut",
	"tr", "diff", "stat", "file", "which", "mkdir", "touch",
}

// defaultForbiddenEnv lists the variables a line may never set: they change
// which program runs or what code it loads. A trailing * matches a prefix.
var defaultForbiddenEnv = []string{
	"PATH", "LD_*", "DYLD_*", "BASH_ENV", "ENV", "NODE_OPTIONS", "PYTHONPATH", "PERL5OPT",
}

// DefaultAllowedCommands returns a fresh copy of the allowlist used when
// [Options.AllowedCommands] is nil.
func DefaultAllowedCommands() []string { return slices.Clone(defaultAllowedCommands) }

// DefaultForbiddenEnv returns a fresh copy of the variable names a line may
// never assign when [Options.ForbiddenEnv] is nil.
func DefaultForbiddenEnv() []string { return slices.Clone(defaultForbiddenEnv) }

// Options configures an [Analyzer]. The zero value is the documented
// default for every field.
type Options struct {
	// AllowedCommands are the allowlist patterns. A pattern containing '/'
	// is an absolute doublestar glob over the resolved binary; any other
	// pattern is a glob over the name of a command found through PATH
	// lookup; "*" allows every command. Nil means
	// [DefaultAllowedCommands]; an empty non-nil slice allows nothing.
	AllowedCommands []string
	// SafeBins are the stdin filters that are low risk and allowed without
	// being listed in AllowedCommands when used only with the flags of
	// their profile. Nil means [DefaultSafeBins]; an empty non-nil map
	// disables them.
	SafeBins map[string]SafeBin
	// PATH is the search path used to resolve commands, which must be the
	// PATH the child processes get. "" means the PATH of this process.
	PATH string
	// Dir is the working directory of the commands: ./x, relative
	// binaries, relative redirections and glob patterns resolve against
	// it. "" means the current directory.
	Dir string
	// Home is what ~ expands to. "" means the home directory of this
	// process's user.
	Home string
	// ForbiddenEnv are variables a line may not assign even when they are
	// inert ([InertVar]; every other variable is refused anyway); a
	// trailing '*' matches a prefix. Nil means [DefaultForbiddenEnv].
	ForbiddenEnv []string
	// Self are the paths of talon's own executable: a command whose
	// binary is the same file, like any command named talon, is refused.
	// Nil means the running executable ([os.Executable]); a path that
	// does not exist is skipped.
	Self []string
	// SafeBinTrustedDirs are the directories a safe bin must be found in
	// through PATH lookup: a safe bin that PATH finds anywhere else is
	// judged like any other command. Nil means
	// [DefaultSafeBinTrustedDirs]; each must be absolute.
	SafeBinTrustedDirs []string
}

// defaultSafeBinTrustedDirs are where the system's own filters live.
var defaultSafeBinTrustedDirs = []string{"/bin", "/usr/bin"}

// DefaultSafeBinTrustedDirs returns a fresh copy of the directories used
// when [Options.SafeBinTrustedDirs] is nil: /bin and /usr/bin.
func DefaultSafeBinTrustedDirs() []string { return slices.Clone(defaultSafeBinTrustedDirs) }

// Analyzer classifies shell lines. It is immutable and safe for concurrent
// use.
type Analyzer struct {
	allowAll  bool
	bare      []string
	bareExact map[string]bool
	paths     []string
	safe      map[string]SafeBin
	forbidden []string
	self      []os.FileInfo
	safeDirs  []string
	path      string
	dir       string
	home      string
	expandEnv expand.Environ
	// parsers and cache are shared by the copies [Analyzer.In] makes.
	parsers *sync.Pool
	cache   *lookupCache
}

// New builds an Analyzer.
//
// # Errors
//
// An allowlist pattern that does not compile, is empty, or contains '/'
// without being absolute wraps [ErrInvalidPattern] and names the pattern. A
// safe bin with an empty or path-like name wraps [ErrInvalidSafeBin].
func New(opts Options) (*Analyzer, error) {
	a := &Analyzer{path: opts.PATH, dir: opts.Dir, home: opts.Home, cache: &lookupCache{ttl: lookupTTL}, parsers: &sync.Pool{}}
	if a.path == "" {
		a.path = os.Getenv("PATH")
	}
	if a.dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("find the working directory: %w; set Options.Dir", err)
		}
		a.dir = wd
	}
	if abs, err := filepath.Abs(a.dir); err == nil {
		a.dir = abs
	}
	if a.home == "" {
		a.home, _ = os.UserHomeDir()
	}
	patterns := opts.AllowedCommands
	if patterns == nil {
		patterns = defaultAllowedCommands
	}
	for _, p := range patterns {
		switch {
		case p == "":
			return nil, fmt.Errorf("%w: an empty pattern matches nothing; remove it", ErrInvalidPattern)
		case !doublestar.ValidatePattern(p):
			return nil, fmt.Errorf("%w %q: it does not compile; fix its brackets or braces", ErrInvalidPattern, p)
		case p == "*":
			a.allowAll = true
		case strings.ContainsRune(p, '/'):
			if !strings.HasPrefix(p, "/") {
				return nil, fmt.Errorf("%w %q: a pattern with '/' matches resolved binaries and must be absolute; write the full path", ErrInvalidPattern, p)
			}
			a.paths = append(a.paths, p)
		case !strings.ContainsAny(p, `*?[{\`):
			if a.bareExact == nil {
				a.bareExact = make(map[string]bool)
			}
			a.bareExact[p] = true
		default:
			a.bare = append(a.bare, p)
		}
	}
	if opts.SafeBins == nil {
		a.safe = DefaultSafeBins()
	} else {
		a.safe = maps.Clone(opts.SafeBins)
	}
	for name := range a.safe {
		if name == "" || strings.ContainsAny(name, "/*?[") {
			return nil, fmt.Errorf("%w %q: name a command found through PATH, without '/' or wildcards", ErrInvalidSafeBin, name)
		}
		if why := runsCode(name); why != "" {
			return nil, fmt.Errorf("%w %q: it %s, so it is never a stdin filter; allow it in allowed_commands and let a person approve it", ErrInvalidSafeBin, name, why)
		}
	}
	a.safeDirs = opts.SafeBinTrustedDirs
	if a.safeDirs == nil {
		a.safeDirs = defaultSafeBinTrustedDirs
	}
	a.safeDirs = slices.Clone(a.safeDirs)
	for i, d := range a.safeDirs {
		if !filepath.IsAbs(d) {
			return nil, fmt.Errorf("%w: trusted directory %q is not absolute; write the full path", ErrInvalidSafeBin, d)
		}
		a.safeDirs[i] = filepath.Clean(d)
	}
	a.forbidden = opts.ForbiddenEnv
	if a.forbidden == nil {
		a.forbidden = defaultForbiddenEnv
	}
	a.forbidden = slices.Clone(a.forbidden)
	self := opts.Self
	if self == nil {
		if exe, err := os.Executable(); err == nil {
			self = []string{exe}
		}
	}
	for _, p := range self {
		if fi, err := os.Stat(p); err == nil {
			a.self = append(a.self, fi)
		}
	}
	env := []string{"PWD=" + a.dir}
	if a.home != "" {
		env = append(env, "HOME="+a.home)
	}
	a.expandEnv = expand.ListEnviron(env...)
	a.parsers.New = func() any { return syntax.NewParser(syntax.Variant(syntax.LangBash)) }
	return a, nil
}

// Dir returns the working directory the analyzer resolves against.
func (a *Analyzer) Dir() string { return a.dir }

// In returns a copy of a for commands that run in dir: ./x, relative
// redirections and glob patterns resolve against dir. dir must be
// absolute (otherwise a itself is returned); confining it is the
// caller's job (the shell's workdir goes through workspace.Root). The
// copy shares a's caches.
func (a *Analyzer) In(dir string) *Analyzer {
	if dir == a.dir || !filepath.IsAbs(dir) {
		return a
	}
	b := *a
	b.dir = filepath.Clean(dir)
	env := []string{"PWD=" + b.dir}
	if b.home != "" {
		env = append(env, "HOME="+b.home)
	}
	b.expandEnv = expand.ListEnviron(env...)
	return &b
}

// PATH returns the search path the analyzer resolves commands with.
func (a *Analyzer) PATH() string { return a.path }

// Analysis is the verdict on one line.
type Analysis struct {
	// Tier is the highest tier of any command; High when not analysable.
	Tier tool.Tier `json:"tier"`
	// Analysable is false when the line uses shell features whose effect
	// cannot be known without running a shell. Such a line is High, never
	// allowed, and has no Program.
	Analysable bool `json:"analysable"`
	// Allowed reports that every command passed the allowlist gate.
	Allowed bool `json:"allowed"`
	// Reasons are human sentences explaining the tier and every refusal.
	Reasons []string `json:"reasons,omitempty"`
	// Paths are the absolute files the line's redirections read or write.
	Paths []string `json:"paths,omitempty"`
	// Program is the execution plan; nil when not analysable.
	Program *Program `json:"program,omitempty"`
}

// Program is an analysed line: the steps run left to right.
type Program struct {
	Steps []Step `json:"steps"`
}

// Step is one pipeline and the operator that joins it to the step before.
type Step struct {
	// Op is "" for the first step, then ";", "&&" or "||": a step after
	// "&&" runs only when the last status was zero, after "||" only when
	// it was not.
	Op string `json:"op,omitempty"`
	// Pipeline are the commands of the step, stdout of each feeding stdin
	// of the next. The step's status is the last command's.
	Pipeline []Command `json:"pipeline"`
}

// Command is one process of a [Program].
type Command struct {
	// Argv is the argument vector, argv[0] as written (after unwrapping
	// transparent wrappers and expansion).
	Argv []string `json:"argv"`
	// Binary is the resolved absolute path that runs, "" when the command
	// was not found.
	Binary string `json:"binary,omitempty"`
	// Assign are NAME=value pairs added to the child's environment, from
	// leading assignments and env NAME=value arguments.
	Assign []string `json:"assign,omitempty"`
	// ClearEnv starts the child from an empty environment (env -i) before
	// Assign is applied.
	ClearEnv bool `json:"clear_env,omitempty"`
	// Unset are names removed from the child's environment (env -u).
	Unset []string `json:"unset,omitempty"`
	// Timeout ends the command after this long (a timeout wrapper); zero
	// means none beyond the call's own.
	Timeout time.Duration `json:"timeout,omitempty"`
	// Nice is the niceness increment (a nice wrapper).
	Nice int `json:"nice,omitempty"`
	// Redirects are applied in order after the pipeline is wired.
	Redirects []Redirect `json:"redirects,omitempty"`
	// Tier is the command's own tier.
	Tier tool.Tier `json:"tier"`
	// Allowed reports that the command passed the allowlist gate, either
	// through AllowedCommands or as a safe bin.
	Allowed bool `json:"allowed"`
	// SafeBin reports that the command qualified as a safe stdin filter.
	SafeBin bool `json:"safe_bin,omitempty"`
	// OffList reports a command refused only because allowed_commands
	// does not name it (and it is no safe bin): it was found, assigns
	// only inert variables and is not talon. A profile that asks instead
	// of denying such commands looks at it.
	OffList bool `json:"off_list,omitempty"`
	// Reasons explain the tier and any refusal.
	Reasons []string `json:"reasons,omitempty"`
}

// Redirect is one permitted redirection.
type Redirect struct {
	// Fd is 0, 1 or 2.
	Fd int `json:"fd"`
	// Op is ">" (truncate), ">>" (append), "<" (read), ">&" (duplicate the
	// descriptor named by Target) or "<<" (Target is the literal stdin
	// text of a here-document or here-string).
	Op string `json:"op"`
	// Target is a path, a descriptor number for ">&", or text for "<<".
	Target string `json:"target"`
}

// notAnalysable builds the verdict for a line that cannot be analysed.
func notAnalysable(reasons []string) *Analysis {
	return &Analysis{Tier: tool.High, Reasons: reasons}
}
