package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// GitNoProgram is the value a setting that names a program gets when git
// has no value of its own that means "none": a path below /dev/null,
// which no file can have, so nothing starts and git reports that the
// program could not run.
const GitNoProgram = "/dev/null/talon-disabled-git-program"

// GitSetting is one git config key that names a program git would run,
// or that lets such a program run, with the value the spawner gives it.
type GitSetting struct {
	// Key is the key as git-config(1) writes it: "<name>" stands for any
	// subsection and a final "*" for any variable of the section.
	Key string
	// Value is the value every git the spawner starts runs with: git's
	// own "none" where it has one (core.pager=cat, core.editor=:), else
	// [GitNoProgram].
	Value string
	// Always is set for keys given on every run, whether or not any
	// config file sets them. The others are given only when the config
	// git would read sets them, since their names depend on it (a diff
	// driver's textconv) or since setting them would change what an
	// ordinary run does (diff.external).
	Always bool
	// Names says what the key names, for people.
	Names string

	// when selects the values that name a program (an alias starting
	// with "!"); nil means every value.
	when func(value string) bool
	// group names settings given together: a filter driver's clean,
	// smudge, process and required keys.
	group string
	// argvOnly marks keys that are never given (includes are followed
	// instead) but refused on git's command line.
	argvOnly bool
	// coveredBy names the setting that keeps the program from running
	// here, for keys that are not given themselves.
	coveredBy string
}

// gitSettings is the one table of git config keys that name programs,
// from git-config(1) of git 2.39 (and hook.<name>.command of later
// versions). git_operations takes its -c settings from it and the
// spawner its overrides; docs/sandbox.md lists it.
var gitSettings = []GitSetting{
	{Key: "core.fsmonitor", Value: "false", Always: true, Names: "the file system monitor hook"},
	{Key: "core.hooksPath", Value: "/dev/null", Always: true, Names: "the hooks directory: no hook can be found"},
	{Key: "core.pager", Value: "cat", Always: true, Names: "the pager (cat means none)"},
	{Key: "core.editor", Value: ":", Always: true, Names: "the editor (: keeps the text as it is)"},
	{Key: "sequence.editor", Value: ":", Always: true, Names: "the rebase todo editor"},
	{Key: "core.askPass", Value: "", Always: true, Names: "the password prompt (empty also skips SSH_ASKPASS)"},
	{Key: "credential.helper", Value: "", Always: true, Names: "credential helpers (empty clears the list)"},
	{Key: "protocol.ext.allow", Value: "never", Always: true, Names: "ext:: remotes, which run a command"},
	{Key: "protocol.file.allow", Value: "never", Always: true, Names: "local clones, fetches and pushes: git drops GIT_CONFIG_COUNT for the other repository's upload-pack or receive-pack, which would run its hooks and config"},
	{Key: "commit.gpgSign", Value: "false", Always: true, Names: "signing commits with gpg.program"},
	{Key: "tag.gpgSign", Value: "false", Always: true, Names: "signing tags with gpg.program"},
	{Key: "push.gpgSign", Value: "false", Always: true, Names: "signing pushes with gpg.program"},
	{Key: "merge.verifySignatures", Value: "false", Always: true, Names: "verifying signatures with gpg.program"},
	{Key: "log.showSignature", Value: "false", Always: true, Names: "verifying signatures with gpg.program"},
	{Key: "gpg.program", Value: GitNoProgram, Always: true, Names: "the signing program"},
	{Key: "gpg.openpgp.program", Value: GitNoProgram, Always: true, Names: "the OpenPGP signing program"},
	{Key: "gpg.x509.program", Value: GitNoProgram, Always: true, Names: "the X.509 signing program"},
	{Key: "gpg.ssh.program", Value: GitNoProgram, Always: true, Names: "the SSH signing program"},
	{Key: "gpg.ssh.defaultKeyCommand", Value: GitNoProgram, Always: true, Names: "the command that picks an SSH signing key"},
	{Key: "gpg.<format>.program", Value: GitNoProgram, Names: "a signing program"},
	{Key: "credential.<url>.helper", Value: "", Names: "a credential helper for one URL"},
	{Key: "core.sshCommand", Value: "ssh", Names: "the ssh command (GIT_SSH and GIT_SSH_COMMAND are removed)"},
	{Key: "core.gitProxy", Value: "none", Names: "the git:// proxy command (GIT_PROXY_COMMAND is set empty, which ignores it)"},
	{Key: "core.alternateRefsCommand", Value: GitNoProgram, Names: "the command that lists an alternate's refs"},
	{Key: "diff.external", Value: GitNoProgram, Names: "the external diff program (GIT_EXTERNAL_DIFF is removed)"},
	{Key: "diff.<driver>.command", Value: GitNoProgram, Names: "a diff driver's external diff program"},
	{Key: "diff.<driver>.textconv", Value: GitNoProgram, Names: "a diff driver's text conversion program"},
	{Key: "diff.tool", Value: GitNoProgram, Names: "the difftool"},
	{Key: "diff.guitool", Value: GitNoProgram, Names: "the graphical difftool"},
	{Key: "difftool.<tool>.cmd", Value: GitNoProgram, Names: "a difftool command"},
	{Key: "difftool.<tool>.path", Value: GitNoProgram, Names: "a difftool program"},
	{Key: "filter.<driver>.clean", Value: "", group: "filter", Names: "a filter driver's clean program"},
	{Key: "filter.<driver>.smudge", Value: "", group: "filter", Names: "a filter driver's smudge program"},
	{Key: "filter.<driver>.process", Value: "", group: "filter", Names: "a filter driver's long-running process"},
	{Key: "filter.<driver>.required", Value: "true", group: "filter", Names: "with the programs emptied, git fails on a filtered file instead of reading it unfiltered"},
	{Key: "merge.<driver>.driver", Value: GitNoProgram, Names: "a merge driver program"},
	{Key: "merge.tool", Value: GitNoProgram, Names: "the mergetool"},
	{Key: "merge.guitool", Value: GitNoProgram, Names: "the graphical mergetool"},
	{Key: "mergetool.<tool>.cmd", Value: GitNoProgram, Names: "a mergetool command"},
	{Key: "mergetool.<tool>.path", Value: GitNoProgram, Names: "a mergetool program"},
	{Key: "pager.*", Value: "false", Names: "a pager for one command"},
	{Key: "alias.*", Value: GitNoProgram, when: gitAliasRuns, Names: "an alias that runs a shell command (!) or sets git's own options (-c)"},
	{Key: "interactive.diffFilter", Value: GitNoProgram, Names: "the filter of git add -p"},
	{Key: "remote.<name>.uploadpack", coveredBy: "protocol.file.allow", Names: "the program a fetch runs on the remote host, or here for a local remote (the first value wins, so it cannot be given)"},
	{Key: "remote.<name>.receivepack", coveredBy: "protocol.file.allow", Names: "the program a push runs on the remote host, or here for a local remote (the first value wins, so it cannot be given)"},
	{Key: "remote.<name>.vcs", Value: GitNoProgram, Names: "a remote helper git-remote-<vcs>"},
	{Key: "uploadpack.packObjectsHook", Value: GitNoProgram, Names: "the program upload-pack runs instead of pack-objects"},
	{Key: "submodule.<name>.update", Value: "none", when: gitBang, Names: "a submodule update command (!)"},
	{Key: "tar.<format>.command", Value: GitNoProgram, Names: "git archive's compressor"},
	{Key: "trailer.<token>.command", Value: GitNoProgram, Names: "a trailer command"},
	{Key: "trailer.<token>.cmd", Value: GitNoProgram, Names: "a trailer command"},
	{Key: "hook.<name>.command", Value: GitNoProgram, Names: "a configured hook (git 2.46 and later)"},
	{Key: "web.browser", Value: GitNoProgram, Names: "the web browser"},
	{Key: "help.browser", Value: GitNoProgram, Names: "the browser of git help"},
	{Key: "instaweb.browser", Value: GitNoProgram, Names: "the browser of git instaweb"},
	{Key: "instaweb.httpd", Value: GitNoProgram, Names: "the web server of git instaweb"},
	{Key: "browser.<tool>.cmd", Value: GitNoProgram, Names: "a browser command"},
	{Key: "browser.<tool>.path", Value: GitNoProgram, Names: "a browser program"},
	{Key: "man.<tool>.cmd", Value: GitNoProgram, Names: "a man page viewer command"},
	{Key: "man.<tool>.path", Value: GitNoProgram, Names: "a man page viewer program"},
	{Key: "guitool.<name>.cmd", Value: GitNoProgram, Names: "a git gui tool"},
	{Key: "imap.tunnel", Value: GitNoProgram, Names: "the tunnel of git imap-send"},
	{Key: "sendemail.smtpServer", Value: GitNoProgram, when: gitAbsolute, Names: "a sendmail program (a full path)"},
	{Key: "sendemail.<identity>.smtpServer", Value: GitNoProgram, when: gitAbsolute, Names: "a sendmail program (a full path)"},
	{Key: "sendemail.toCmd", Value: GitNoProgram, Names: "a recipients command"},
	{Key: "sendemail.ccCmd", Value: GitNoProgram, Names: "a recipients command"},
	{Key: "sendemail.headerCmd", Value: GitNoProgram, Names: "a headers command"},
	{Key: "sendemail.<identity>.toCmd", Value: GitNoProgram, Names: "a recipients command"},
	{Key: "sendemail.<identity>.ccCmd", Value: GitNoProgram, Names: "a recipients command"},
	{Key: "sendemail.<identity>.headerCmd", Value: GitNoProgram, Names: "a headers command"},
	{Key: "trace2.normalTarget", Value: "0", Names: "a trace file (GIT_TRACE* naming files are removed)"},
	{Key: "trace2.perfTarget", Value: "0", Names: "a trace file"},
	{Key: "trace2.eventTarget", Value: "0", Names: "a trace file"},
	{Key: "include.path", argvOnly: true, Names: "an included file: followed when the config is read, refused on the command line"},
	{Key: "includeIf.<condition>.path", argvOnly: true, Names: "an included file: followed when the config is read, refused on the command line"},
}

// gitAliasRuns reports an alias git runs through the shell ("!...") or
// that starts with options, where "-c" would override the spawner's
// settings.
func gitAliasRuns(v string) bool {
	v = strings.TrimLeft(v, " \t")
	return strings.HasPrefix(v, "!") || strings.HasPrefix(v, "-")
}

func gitBang(v string) bool { return strings.HasPrefix(strings.TrimLeft(v, " \t"), "!") }

func gitAbsolute(v string) bool {
	v = strings.TrimSpace(v)
	return strings.HasPrefix(v, "/") && v != GitNoProgram
}

// GitSettings returns the table of config keys that name programs, in
// the order the spawner gives them.
func GitSettings() []GitSetting { return slices.Clone(gitSettings) }

// GitOverrides returns the "key=value" settings every git the spawner
// starts runs with (the [GitSetting.Always] keys), in order: what
// git_operations passes with -c.
func GitOverrides() []string {
	var out []string
	for _, s := range gitSettings {
		if s.Always {
			out = append(out, s.Key+"="+s.Value)
		}
	}
	return out
}

// gitEnvSet are the variables every git runs with: each wins over the
// config keys of the same program.
var gitEnvSet = []string{
	"GIT_PAGER=cat",
	"GIT_EDITOR=:",
	"GIT_SEQUENCE_EDITOR=:",
	"GIT_PROXY_COMMAND=", // set and empty: core.gitProxy is not read
}

// gitEnvRemoved are variables that name a program or replace the
// spawner's settings; GIT_CONFIG_KEY_n and GIT_CONFIG_VALUE_n go too, and
// GIT_TRACE* variables that name a file or socket.
var gitEnvRemoved = []string{
	"GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT",
	"GIT_EXTERNAL_DIFF", "GIT_SSH", "GIT_SSH_COMMAND", "GIT_ASKPASS",
	"GIT_EXEC_PATH", "GIT_ALLOW_PROTOCOL", "GIT_MAN_VIEWER",
}

var (
	// ErrGit reports a git the spawner would not start, because its
	// command line or its config would let it run a program it names.
	ErrGit = errors.New("git refused by the spawner")
)

// gitProbeTimeout bounds the config read before a git starts.
const gitProbeTimeout = 30 * time.Second

// gitProbeTail is the config read: every key of every scope, includes
// followed, with where each came from.
var gitProbeTail = []string{"config", "--list", "--includes", "--show-scope", "--show-origin", "-z"}

// hardenGit makes cmd, when its program is git, unable to run a program
// its config names: it reads the config git would read (through the
// spawner, under the same environment), then gives the child an
// environment whose GIT_CONFIG_COUNT settings switch every such key off
// and which lacks every variable naming a program. A command line that
// would override those settings, and a git without an environment of its
// own, are refused by setting cmd.Err. It is called once for every
// process the spawner starts, before the sandbox wraps it.
func hardenGit(st *state, cmd *exec.Cmd) {
	if cmd.Err != nil || cmd.Process != nil || cmd.Path == "" {
		return
	}
	path := cmd.Path
	if !filepath.IsAbs(path) && cmd.Dir != "" {
		path = filepath.Join(cmd.Dir, path)
	}
	if !isGit(path, cmd.Env) {
		return
	}
	if cmd.Env == nil {
		cmd.Err = fmt.Errorf("%w: %s is started only with an environment of its own, so the spawner can switch off the settings that name programs; set the command's Env before it is prepared (or use sandbox.Run)", ErrGit, filepath.Base(path))
		return
	}
	inv, err := parseGitArgs(cmd.Args, cmd.Env)
	if err != nil {
		cmd.Err = err
		return
	}
	env := gitEnv(cmd.Env, nil)
	if inv.probe {
		cmd.Env = env
		return
	}
	bin := gitBinary(path, cmd.Env)
	if bin == "" {
		cmd.Env = env // nothing to read the config with; the fixed settings apply
		return
	}
	key := gitCacheKey(st, bin, cmd.Dir, inv.loc, env)
	if o, ok := gitCacheGet(st, key); ok {
		cmd.Env = gitEnv(cmd.Env, o)
		return
	}
	started := time.Now()
	read, err := readGitConfig(st, bin, cmd.Dir, inv.loc, env)
	if err != nil {
		cmd.Err = err
		return
	}
	o := gitFoundOverrides(read.entries)
	gitCachePut(st, key, o, read.witnesses(bin, cmd.Dir, inv.loc, env), started)
	cmd.Env = gitEnv(cmd.Env, o)
}

// isGit reports whether the program at path is git: named git, the same
// file as the git found in the child's or talon's PATH (which catches
// git-upload-pack and the other links to git), or one of git's helpers
// in its git-core directory.
func isGit(path string, env []string) bool {
	base := filepath.Base(path)
	if runtime.GOOS == "windows" {
		base = strings.TrimSuffix(strings.ToLower(base), ".exe")
	}
	if base == "git" || filepath.Base(filepath.Dir(path)) == "git-core" {
		return true
	}
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	for _, p := range []string{pathGit(envValue(env, "PATH")), pathGit(os.Getenv("PATH"))} {
		if p == "" {
			continue
		}
		if g, err := os.Stat(p); err == nil && os.SameFile(fi, g) {
			return true
		}
	}
	return false
}

// pathGits remembers where git was found in each search path, so that a
// spawn of another program costs a few stats, not a search of PATH.
var pathGits struct {
	mu sync.Mutex
	m  map[string]string
}

// pathGit is lookGit remembered: a git that is gone is looked up again.
func pathGit(pathList string) string {
	pathGits.mu.Lock()
	p, ok := pathGits.m[pathList]
	pathGits.mu.Unlock()
	if ok {
		if _, err := os.Stat(p); p == "" || err == nil {
			return p
		}
	}
	p = lookGit(pathList)
	pathGits.mu.Lock()
	defer pathGits.mu.Unlock()
	if pathGits.m == nil || len(pathGits.m) >= 64 {
		pathGits.m = map[string]string{}
	}
	pathGits.m[pathList] = p
	return p
}

// lookGit finds git in a search path, absolute entries only.
func lookGit(pathList string) string {
	name := "git"
	if runtime.GOOS == "windows" {
		name = "git.exe"
	}
	for _, dir := range filepath.SplitList(pathList) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			return p
		}
	}
	return ""
}

// gitBinary is the git that reads the config for the program at path:
// the program itself when it is named git, else the git next to it, else
// the one in the child's or talon's PATH.
func gitBinary(path string, env []string) string {
	if b := filepath.Base(path); b == "git" || b == "git.exe" {
		return path
	}
	if p := lookGit(filepath.Dir(path)); p != "" {
		return p
	}
	if p := lookGit(envValue(env, "PATH")); p != "" {
		return p
	}
	return lookGit(os.Getenv("PATH"))
}

func envValue(env []string, name string) string {
	v := ""
	for _, kv := range env {
		if k, val, ok := strings.Cut(kv, "="); ok && k == name {
			v = val // the last one wins, as in exec.Cmd
		}
	}
	return v
}

// gitInvocation is what the spawner reads from git's command line.
type gitInvocation struct {
	// loc are the options that choose the repository (-C, --git-dir,
	// --work-tree, --bare), in order, as the config read repeats them.
	loc []string
	// probe is set for the spawner's own config read.
	probe bool
}

// parseGitArgs reads git's global options. For a program that is not
// invoked as git (a helper such as git-upload-pack) there are none.
//
// # Errors
//
// A -c or --config-env that sets a key of the table to anything but the
// spawner's value, an include, a clone --config of such a key, and
// --exec-path=DIR return [ErrGit].
func parseGitArgs(argv []string, env []string) (gitInvocation, error) {
	var inv gitInvocation
	if len(argv) == 0 {
		return inv, nil
	}
	if b := filepath.Base(argv[0]); b != "git" && !strings.EqualFold(b, "git.exe") {
		return inv, nil // a helper, or git run under a dashed name: no global options
	}
	args := argv[1:]
	setsConfig := false
	for len(args) > 0 {
		a := args[0]
		if !strings.HasPrefix(a, "-") || a == "-" {
			break
		}
		name, value, hasValue := strings.Cut(a, "=")
		takes := func() (string, bool) {
			if hasValue {
				return value, true
			}
			if len(args) < 2 {
				return "", false
			}
			args = args[1:]
			return args[0], true
		}
		switch name {
		case "-C":
			if hasValue {
				return inv, nil // not an option git knows; it fails on its own
			}
			v, ok := takes()
			if !ok {
				return inv, nil
			}
			inv.loc = append(inv.loc, "-C", v)
		case "--git-dir", "--work-tree":
			v, ok := takes()
			if !ok {
				return inv, nil
			}
			inv.loc = append(inv.loc, name+"="+v)
		case "--bare":
			inv.loc = append(inv.loc, "--bare")
		case "-c":
			if hasValue {
				return inv, nil
			}
			v, ok := takes()
			if !ok {
				return inv, nil
			}
			setsConfig = true
			if err := checkGitArgConfig("-c", v); err != nil {
				return inv, err
			}
		case "--config-env":
			v, ok := takes()
			if !ok {
				return inv, nil
			}
			setsConfig = true
			key, envName, _ := strings.Cut(v, "=")
			if err := checkGitArgConfig("--config-env", key+"="+envValue(env, envName)); err != nil {
				return inv, err
			}
		case "--exec-path":
			if hasValue {
				return inv, fmt.Errorf("%w: --exec-path=%s would run git's own programs from that directory; remove the option", ErrGit, value)
			}
		case "--namespace", "--super-prefix", "--attr-source":
			if _, ok := takes(); !ok {
				return inv, nil
			}
		}
		args = args[1:]
	}
	if len(args) == 0 {
		return inv, nil
	}
	sub, rest := args[0], args[1:]
	if sub == "config" && !setsConfig && slices.Equal(rest, gitProbeTail[1:]) {
		inv.probe = true
	}
	if sub == "clone" {
		if err := checkCloneConfig(rest); err != nil {
			return inv, err
		}
	}
	return inv, nil
}

// checkCloneConfig refuses `git clone -c KEY=VALUE` (and --config) for a
// key of the table: clone writes it to the new repository and uses it at
// once, before any config read could see it. Long options are matched by
// their prefixes and short ones in clusters, as git's option parser does.
func checkCloneConfig(args []string) error {
	for i := 0; i < len(args); i++ {
		a := args[i]
		next := func() (string, bool) {
			if i+1 >= len(args) {
				return "", false
			}
			i++
			return args[i], true
		}
		var v string
		switch {
		case a == "--":
			return nil
		case strings.HasPrefix(a, "--"):
			name, val, hasVal := strings.Cut(a, "=")
			if len(name) < 5 || !strings.HasPrefix("--config", name) { // --con is the shortest unambiguous prefix
				continue
			}
			if !hasVal {
				var ok bool
				if val, ok = next(); !ok {
					return nil
				}
			}
			v = val
		case strings.HasPrefix(a, "-") && len(a) > 1:
			c := strings.IndexFunc(a[1:], func(r rune) bool { return !strings.ContainsRune("lsqvn", r) })
			if c < 0 || a[1+c] != 'c' {
				continue // flags only, or an option that takes the rest as its value
			}
			v = a[2+c:]
			if v == "" {
				var ok bool
				if v, ok = next(); !ok {
					return nil
				}
			}
		default:
			continue
		}
		if err := checkGitArgConfig("clone --config", v); err != nil {
			return err
		}
	}
	return nil
}

// checkGitArgConfig refuses a command-line setting "key[=value]" of a
// table key whose value could name a program. Command-line settings are
// read after the spawner's, so they would win.
func checkGitArgConfig(opt, setting string) error {
	key, value, hasValue := strings.Cut(setting, "=")
	if !hasValue {
		value = "true" // a key alone is a true boolean
	}
	s, ok := matchGitSetting(key)
	if !ok {
		return nil
	}
	if s.coveredBy != "" || !s.argvOnly && (value == s.Value || s.when != nil && !s.when(value)) {
		return nil
	}
	return fmt.Errorf("%w: the command line sets %s (%s) with %s; talon runs git with every setting that names a program switched off: remove the option", ErrGit, key, s.Names, opt)
}

// gitKey is a config key split as git splits it: the section and the
// variable are case-insensitive (kept lowercased), the subsection is not.
type gitKey struct {
	section, sub, name string
	hasSub             bool
}

func splitGitKey(key string) (gitKey, bool) {
	first := strings.IndexByte(key, '.')
	last := strings.LastIndexByte(key, '.')
	if first <= 0 || last == len(key)-1 {
		return gitKey{}, false
	}
	k := gitKey{section: strings.ToLower(key[:first]), name: strings.ToLower(key[last+1:])}
	if first != last {
		k.sub, k.hasSub = key[first+1:last], true
	}
	return k, true
}

// matchGitSetting finds the table's entry for a config key.
func matchGitSetting(key string) (GitSetting, bool) {
	k, ok := splitGitKey(key)
	if !ok {
		return GitSetting{}, false
	}
	for _, s := range gitSettings {
		p, _ := splitGitKey(s.Key)
		if p.section != k.section {
			continue
		}
		switch {
		case p.name == "*" && !p.hasSub: // alias.*: any key of the section
			return s, true
		case p.name != k.name:
			continue
		case !p.hasSub && !k.hasSub:
			return s, true
		case p.hasSub && k.hasSub && strings.HasPrefix(p.sub, "<"):
			return s, true
		case p.hasSub && k.hasSub && strings.EqualFold(p.sub, k.sub):
			return s, true // gpg.openpgp.program; subsections compare as git's docs spell them
		}
	}
	return GitSetting{}, false
}

// gitConfigEntry is one line of the config read.
type gitConfigEntry struct {
	scope, origin, key, value string
}

// gitRead is what a config read found: the entries, and where git's
// setup put the repository (empty outside one), from GIT_TRACE_SETUP.
type gitRead struct {
	entries                    []gitConfigEntry
	cwd, gitDir, commonDir, wt string
}

// readGitConfig runs `git config --list --includes` the way the command
// would find its config: same directory, same repository options, the
// hardened environment, through the spawner.
func readGitConfig(st *state, bin, dir string, loc []string, env []string) (gitRead, error) {
	ctx, cancel := context.WithTimeout(context.Background(), gitProbeTimeout)
	defer cancel()
	out := runWith(ctx, Cmd{
		Argv:      slices.Concat([]string{"git"}, loc, gitProbeTail),
		Binary:    bin,
		Dir:       dir,
		Env:       append(slices.Clone(env), "GIT_TRACE_SETUP=2"),
		MaxStdout: 8 << 20,
		MaxStderr: 64 << 10,
		Overflow:  Kill,
	}, st)
	read, msg := parseGitSetup(out.Stderr)
	switch {
	case out.Err != nil:
		return read, fmt.Errorf("%w: reading git's config before it runs: %w", ErrGit, out.Err)
	case out.Overflowed:
		return read, fmt.Errorf("%w: git's config is larger than 8 MiB; shorten it", ErrGit)
	case out.TimedOut:
		return read, fmt.Errorf("%w: reading git's config took longer than %s; check the files it includes", ErrGit, gitProbeTimeout)
	case out.ExitCode != 0:
		if msg == "" {
			msg = "no message"
		}
		return read, fmt.Errorf("%w: git could not read its config (exit status %d: %s); fix the config git names, then run it again", ErrGit, out.ExitCode, msg)
	}
	read.entries = parseGitConfigList(out.Stdout)
	return read, nil
}

// parseGitSetup takes the "setup: " trace lines out of git's standard
// error, and returns what is left.
func parseGitSetup(stderr string) (gitRead, string) {
	var r gitRead
	var rest []string
	for _, line := range strings.Split(stderr, "\n") {
		i := strings.Index(line, "setup: ")
		if i < 0 || !strings.Contains(line[:i], "trace.c:") {
			if strings.TrimSpace(line) != "" {
				rest = append(rest, line)
			}
			continue
		}
		name, value, _ := strings.Cut(line[i+len("setup: "):], ": ")
		switch name {
		case "cwd":
			r.cwd = value
		case "git_dir":
			r.gitDir = value
		case "git_common_dir":
			r.commonDir = value
		case "worktree":
			r.wt = value
		}
	}
	return r, strings.Join(rest, "\n")
}

// parseGitConfigList reads `git config --list --show-scope --show-origin
// -z`: scope NUL origin NUL key [LF value] NUL, repeated.
func parseGitConfigList(s string) []gitConfigEntry {
	fields := strings.Split(s, "\x00")
	var out []gitConfigEntry
	for i := 0; i+2 < len(fields); i += 3 {
		key, value, _ := strings.Cut(fields[i+2], "\n")
		out = append(out, gitConfigEntry{scope: fields[i], origin: fields[i+1], key: key, value: value})
	}
	return out
}

// gitOverride is one setting given through GIT_CONFIG_KEY_n/VALUE_n.
type gitOverride struct{ key, value string }

// gitFoundOverrides are the settings for the program keys the config
// sets, besides the fixed ones: each key (and a filter's whole group) is
// set to the table's value. Command-scope entries are the spawner's own.
func gitFoundOverrides(found []gitConfigEntry) []gitOverride {
	var out []gitOverride
	seen := map[string]bool{}
	add := func(key, value string) {
		k, _ := splitGitKey(key)
		id := k.section + "\x00" + k.sub + "\x00" + k.name
		if !seen[id] {
			seen[id] = true
			out = append(out, gitOverride{key, value})
		}
	}
	for _, e := range found {
		if e.scope == "command" {
			continue
		}
		s, ok := matchGitSetting(e.key)
		if !ok || s.Always || s.argvOnly || s.coveredBy != "" || s.when != nil && !s.when(e.value) {
			continue
		}
		if s.group == "" {
			add(e.key, s.Value)
			continue
		}
		k, _ := splitGitKey(e.key)
		for _, g := range gitSettings {
			if g.group == s.group {
				p, _ := splitGitKey(g.Key)
				add(k.section+"."+k.sub+"."+p.name, g.Value)
			}
		}
	}
	return out
}

// gitEnv is env without the variables that name programs or carry
// config, plus the fixed variables and every setting: the fixed ones,
// then found.
func gitEnv(env []string, found []gitOverride) []string {
	out := make([]string, 0, len(env)+len(gitEnvSet)+2*len(gitSettings)+2*len(found)+1)
	for _, kv := range env {
		name, value, _ := strings.Cut(kv, "=")
		if gitEnvDropped(name, value) {
			continue
		}
		out = append(out, kv)
	}
	out = append(out, gitEnvSet...)
	n := 0
	put := func(key, value string) {
		out = append(out, "GIT_CONFIG_KEY_"+strconv.Itoa(n)+"="+key, "GIT_CONFIG_VALUE_"+strconv.Itoa(n)+"="+value)
		n++
	}
	for _, s := range gitSettings {
		if s.Always {
			put(s.Key, s.Value)
		}
	}
	for _, o := range found {
		put(o.key, o.value)
	}
	return append(out, "GIT_CONFIG_COUNT="+strconv.Itoa(n))
}

// gitEnvDropped reports a variable the child does not get.
func gitEnvDropped(name, value string) bool {
	if !strings.HasPrefix(name, "GIT_") {
		return false
	}
	switch {
	case slices.Contains(gitEnvRemoved, name),
		strings.HasPrefix(name, "GIT_CONFIG_KEY_"), strings.HasPrefix(name, "GIT_CONFIG_VALUE_"):
		return true
	case strings.HasPrefix(name, "GIT_TRACE"):
		return !gitTraceInert(value)
	}
	for _, kv := range gitEnvSet {
		if k, _, _ := strings.Cut(kv, "="); k == name {
			return true
		}
	}
	return false
}

// gitTraceInert reports a GIT_TRACE* value that writes nowhere but the
// child's own descriptors: empty, a boolean, or a descriptor number.
func gitTraceInert(v string) bool {
	switch strings.ToLower(v) {
	case "", "0", "1", "2", "false", "true":
		return true
	}
	n, err := strconv.Atoi(v)
	return err == nil && n > 2 && n < 10
}

// fileID identifies one version of a file; the zero value is a missing
// file.
type fileID struct {
	exists       bool
	dev, ino     uint64
	size         int64
	mode         uint32
	mtime, ctime int64
}

// gitWitness is a file a config read depended on, as it was.
type gitWitness struct {
	path string
	id   fileID
}

// gitCached is a config read's result and the files it depended on.
type gitCached struct {
	// st is the sandbox the read ran under. Holding it keeps its address,
	// which is part of the key, from being reused by another.
	st        *state
	overrides []gitOverride
	witnesses []gitWitness
}

// gitCache keeps the results of recent config reads, so that a git spawn
// costs one config read only when a file git would read has changed.
var gitCache struct {
	mu sync.Mutex
	m  map[string]gitCached
}

const (
	// gitCacheMax bounds the cache; a full cache is emptied.
	gitCacheMax = 256
	// gitRacy is how recent a change may be for a result not to be
	// cached: a file changed within it could change again with the same
	// times on a file system that keeps coarse ones.
	gitRacy = 2 * time.Second
)

// gitCacheKey is everything a config read depends on besides files: the
// sandbox (which decides what the read can see), git, the directory, the
// repository options and the environment.
func gitCacheKey(st *state, bin, dir string, loc, env []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%p\x00%s\x00%s\x00%d\x00", st, bin, dir, len(loc))
	for _, s := range slices.Concat(loc, env) {
		b.WriteString(s)
		b.WriteByte(0)
	}
	return b.String()
}

func gitCacheGet(st *state, key string) ([]gitOverride, bool) {
	if !gitCacheable {
		return nil, false
	}
	gitCache.mu.Lock()
	c, ok := gitCache.m[key]
	gitCache.mu.Unlock()
	if !ok || c.st != st {
		return nil, false
	}
	for _, w := range c.witnesses {
		if statID(w.path) != w.id {
			return nil, false
		}
	}
	return c.overrides, true
}

// gitCachePut keeps a result unless one of its files (nil: unknown)
// changed since gitRacy before the read started.
func gitCachePut(st *state, key string, o []gitOverride, paths []string, started time.Time) {
	if !gitCacheable || paths == nil {
		return
	}
	c := gitCached{st: st, overrides: o, witnesses: make([]gitWitness, 0, len(paths))}
	seen := map[string]bool{}
	for _, p := range paths {
		if seen[p] {
			continue
		}
		seen[p] = true
		id := statID(p)
		if id.exists && (id.ctime > started.Add(-gitRacy).UnixNano() || id.mtime > started.Add(-gitRacy).UnixNano()) {
			return
		}
		c.witnesses = append(c.witnesses, gitWitness{p, id})
	}
	gitCache.mu.Lock()
	defer gitCache.mu.Unlock()
	if gitCache.m == nil || len(gitCache.m) >= gitCacheMax {
		gitCache.m = map[string]gitCached{}
	}
	gitCache.m[key] = c
}

// witnesses are the files whose change would change what the read found:
// git itself; the system and global files; the directories git's
// discovery looked at on its way to the repository (or to the root); the
// repository's config, worktree config, commondir and HEAD (for onbranch
// includes); every file an entry came from; and every file an include
// names, found or not. nil means the read cannot be cached.
func (r gitRead) witnesses(bin, dir string, loc, env []string) []string {
	home := envValue(env, "HOME")
	xdg := envValue(env, "XDG_CONFIG_HOME")
	if xdg == "" && home != "" {
		xdg = filepath.Join(home, ".config")
	}
	paths := []string{bin, "/etc/gitconfig"}
	for _, p := range []string{envValue(env, "GIT_CONFIG_SYSTEM"), envValue(env, "GIT_CONFIG_GLOBAL")} {
		if p != "" {
			paths = append(paths, p)
		}
	}
	if home != "" {
		paths = append(paths, filepath.Join(home, ".gitconfig"))
	}
	if xdg != "" {
		paths = append(paths, filepath.Join(xdg, "git", "config"))
	}
	start := dir
	if start == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil
		}
		start = wd
	}
	explicit := envValue(env, "GIT_DIR") != "" || envValue(env, "GIT_COMMON_DIR") != ""
	for i := 0; i < len(loc); i++ {
		switch {
		case loc[i] == "-C" && i+1 < len(loc):
			i++
			if loc[i] != "" {
				start = abs(start, loc[i])
			}
		case strings.HasPrefix(loc[i], "--git-dir="):
			explicit = true
		}
	}
	start, err := filepath.EvalSymlinks(start) // git walks up the physical path
	if err != nil || !filepath.IsAbs(start) {
		return nil
	}
	cwd := start
	top := "" // where discovery stopped: the work tree that holds .git, or a bare repository
	if r.cwd != "" {
		if !filepath.IsAbs(r.cwd) || strings.ContainsAny(r.cwd+r.gitDir+r.commonDir+r.wt, "\\\"\n") {
			return nil
		}
		cwd = r.cwd
		gitDir, common := abs(cwd, r.gitDir), abs(cwd, r.commonDir)
		for _, f := range []string{"config", "config.worktree", "commondir", "HEAD"} {
			paths = append(paths, filepath.Join(gitDir, f))
		}
		paths = append(paths, filepath.Join(common, "config"))
		top = gitDir
		if r.wt != "" && r.wt != "(null)" && filepath.Join(r.wt, ".git") == gitDir {
			top = r.wt
		}
	} else if explicit {
		return nil // git read no repository where one was named
	}
	if !explicit {
		// Discovery: every directory from the start up to the one where
		// it stopped must stay without .git (or HEAD, for a bare
		// repository); the one where it stopped keeps its .git.
		d := filepath.Clean(start)
		for {
			paths = append(paths, filepath.Join(d, ".git"), filepath.Join(d, "HEAD"))
			if d == top {
				break
			}
			up := filepath.Dir(d)
			if up == d {
				if top != "" {
					return nil // the repository is not above the start: not the discovery this follows
				}
				break
			}
			d = up
		}
	}
	for _, e := range r.entries {
		origin, ok := strings.CutPrefix(e.origin, "file:")
		if !ok {
			continue
		}
		origin = abs(cwd, origin)
		paths = append(paths, origin)
		k, _ := splitGitKey(e.key)
		if k.name != "path" || (k.section != "include" || k.hasSub) && k.section != "includeif" {
			continue
		}
		switch v := e.value; {
		case strings.HasPrefix(v, "~/"):
			if home == "" {
				return nil
			}
			paths = append(paths, filepath.Join(home, v[2:]))
		case strings.HasPrefix(v, "~"):
			return nil // another user's home
		default:
			paths = append(paths, abs(filepath.Dir(origin), v))
		}
	}
	return paths
}

// abs is p relative to dir, cleaned.
func abs(dir, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(dir, p)
}
