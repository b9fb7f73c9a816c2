package git

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/talonhq/talon/sandbox"
	"github.com/talonhq/talon/tool"
)

// safety are the -c settings every command runs with: the spawner's
// settings for config keys that name programs (sandbox.GitOverrides, the
// one table of them), which the spawner also gives every git it starts,
// and the tool's own: no transport at all, no submodules, no background
// gc, no guessed identity, no color. Command-line settings win over every
// config file, so a repository's own config cannot turn these back on.
var safety = func() []string {
	var a []string
	for _, kv := range sandbox.GitOverrides() {
		a = append(a, "-c", kv)
	}
	return append(a,
		"-c", "protocol.allow=never", // no transport, so no remote and no ext::
		"-c", "submodule.recurse=false",
		"-c", "gc.auto=0", // no background gc or maintenance processes
		"-c", "maintenance.auto=false",
		"-c", "user.useConfigOnly=true", // never guess an identity from the host
		"-c", "color.ui=false",
	)
}()

// probePattern selects the config keys checked before each operation: the
// identity, and settings that name programs git would run and that cannot
// be switched off by a fixed -c (their names are the repository's choice).
const probePattern = `^(user\.(name|email)|filter\..+\.(clean|smudge|process)|merge\..+\.driver|hook\..+\.command)$`

// envNames are the variables git runs with, in order.
var envNames = []string{"PATH", "LC_ALL", "GIT_CONFIG_NOSYSTEM", "GIT_CONFIG_GLOBAL", "GIT_ATTR_NOSYSTEM", "GIT_TERMINAL_PROMPT"}

// env is git's whole environment: nothing of talon's is handed down but
// PATH.
func (t *Operations) env() []string {
	return []string{
		"PATH=" + t.opts.PATH,
		"LC_ALL=C",
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_ATTR_NOSYSTEM=1",
		"GIT_TERMINAL_PROMPT=0",
	}
}

// prefix is the start of every argument vector: the workspace as both the
// working tree and the place of .git, and the safety settings. Reading
// operations take no optional locks, so they never write the index.
func (t *Operations) prefix(readOnly bool) []string {
	a := []string{"git", "-C", t.root.Dir(), "--no-pager", "--literal-pathspecs", "--git-dir=.git", "--work-tree=."}
	if readOnly {
		a = append(a, "--no-optional-locks")
	}
	return append(a, safety...)
}

// plan is what a call runs: the config probe, then the operation.
func (t *Operations) plan(c call) (*tool.Plan, error) {
	bin, err := t.binary()
	if err != nil {
		return nil, err
	}
	names := slices.Clone(envNames)
	sort.Strings(names)
	cmd := func(argv []string) tool.PlannedCommand {
		return tool.PlannedCommand{Argv: argv, Binary: bin, Dir: t.root.Dir(), Env: slices.Clone(names)}
	}
	probe := append(t.prefix(true), "config", "--null", "--get-regexp", probePattern)
	op := append(t.prefix(c.readOnly()), c.args()...)
	return &tool.Plan{
		Summary:  summary(c),
		Commands: []tool.PlannedCommand{cmd(probe), cmd(op)},
	}, nil
}

// summary renders the operation's own arguments, as an approver reads
// them: "git commit --no-verify --no-gpg-sign '--message=fix login'".
func summary(c call) string {
	return quoteArgv(append([]string{"git"}, c.args()...))
}

// binary finds git: the configured program, or "git" in PATH.
func (t *Operations) binary() (string, error) {
	if t.opts.Binary != "" {
		abs, err := filepath.Abs(t.opts.Binary)
		if err != nil {
			return "", fmt.Errorf("%w at %s: %v", ErrNoGit, t.opts.Binary, err)
		}
		if !executable(abs) {
			return "", fmt.Errorf("%w at %s: point the git binary at an executable file", ErrNoGit, abs)
		}
		return abs, nil
	}
	for _, dir := range filepath.SplitList(t.opts.PATH) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue // a relative PATH entry would depend on the directory
		}
		p := filepath.Join(dir, "git")
		if executable(p) {
			return p, nil
		}
	}
	return "", fmt.Errorf("%w (not found in PATH): install git, or use the shell tool", ErrNoGit)
}

func executable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// outcome is what one git command did.
type outcome = sandbox.Outcome

// run starts one planned command through the sandbox, the one spawner of
// tool processes, with the tool's environment, timeout and output caps.
func (t *Operations) run(ctx context.Context, c tool.PlannedCommand) outcome {
	return sandbox.Run(ctx, sandbox.Cmd{
		Argv:      c.Argv,
		Binary:    c.Binary,
		Dir:       c.Dir,
		Env:       t.env(),
		Timeout:   t.opts.Timeout,
		MaxStdout: t.opts.MaxOutputBytes,
		MaxStderr: max(t.opts.MaxOutputBytes/16, 4<<10),
	})
}

// runErr is the caller's cancellation, returned with the result.
func runErr(ctx context.Context, out outcome) error {
	if out.Canceled {
		return ctx.Err()
	}
	return nil
}

// repoConfig is what the probe found.
type repoConfig struct {
	userName, userEmail string
	filters             []string // filter driver keys
	mergeDrivers        []string
	hooks               []string
}

// readConfig runs the probe. A failed probe is a failed result.
func (t *Operations) readConfig(ctx context.Context, probe tool.PlannedCommand) (repoConfig, *tool.Result, error) {
	out := t.run(ctx, probe)
	if out.Canceled {
		return repoConfig{}, &tool.Result{Error: "canceled while reading the repository config"}, ctx.Err()
	}
	switch {
	case out.TimedOut:
		return repoConfig{}, &tool.Result{Error: fmt.Sprintf("reading the repository config timed out after %s; nothing ran", t.opts.Timeout)}, nil
	case out.Err != nil:
		return repoConfig{}, &tool.Result{Error: fmt.Sprintf("git could not run: %v", out.Err)}, nil
	case out.ExitCode == 1 && out.Stdout == "":
		return repoConfig{}, nil, nil // no key matched
	case out.ExitCode != 0:
		return repoConfig{}, &tool.Result{Error: fmt.Sprintf("git could not read the repository config (exit status %d): %s; nothing ran: fix the repository (git's message says how)",
			out.ExitCode, strings.TrimSpace(out.Stderr))}, nil
	}
	return parseConfig(out.Stdout), nil, nil
}

// parseConfig reads `git config --null --get-regexp` output: entries
// "key\nvalue" separated by NUL; a key without a value has no newline.
func parseConfig(s string) repoConfig {
	var cfg repoConfig
	for _, entry := range strings.Split(s, "\x00") {
		if entry == "" {
			continue
		}
		key, value, _ := strings.Cut(entry, "\n")
		lower := strings.ToLower(key)
		switch {
		case lower == "user.name":
			cfg.userName = value
		case lower == "user.email":
			cfg.userEmail = value
		case strings.HasPrefix(lower, "filter."):
			if strings.TrimSpace(value) != "" {
				cfg.filters = appendOnce(cfg.filters, key)
			}
		case strings.HasPrefix(lower, "merge."):
			cfg.mergeDrivers = appendOnce(cfg.mergeDrivers, key)
		case strings.HasPrefix(lower, "hook."):
			cfg.hooks = appendOnce(cfg.hooks, key)
		}
	}
	return cfg
}

func appendOnce(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// refusal says why the repository config rules the call out, or "".
func (cfg repoConfig) refusal(c call) string {
	const tail = "git_operations never runs programs named by the repository's config: remove the setting, or use the shell tool, where policy decides"
	switch {
	case len(cfg.filters) > 0:
		return fmt.Sprintf("the repository config sets %s, a filter program git would run on file contents; %s", strings.Join(cfg.filters, ", "), tail)
	case len(cfg.hooks) > 0:
		return fmt.Sprintf("the repository config sets %s, a hook program; %s", strings.Join(cfg.hooks, ", "), tail)
	case len(cfg.mergeDrivers) > 0 && c.mayMerge():
		return fmt.Sprintf("the repository config sets %s, a merge program git stash %s would run; %s", strings.Join(cfg.mergeDrivers, ", "), c.stash, tail)
	}
	return ""
}

// quoteArgv renders an argument vector for people: plain words as they
// are, anything else in single quotes.
func quoteArgv(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = quoteWord(a)
	}
	return strings.Join(q, " ")
}

func quoteWord(s string) string {
	if s == "" {
		return "''"
	}
	plain := true
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:@,+%^~", r)) {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
