//go:build unix

package sandbox

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// gitFixture is a repository in a temp dir, with a home of its own (a
// global config that names the committer) and a planted program: evil
// is a script that creates marker, the proof that git ran it.
type gitFixture struct {
	root, repo, home, marker, evil string
	env                            []string
}

func needGitBinary(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	return p
}

// newGitFixture makes a repository on main with two commits of f.txt
// (the work tree changes it again, so diff has something to show) and a
// branch side that changes f.txt the other way.
func newGitFixture(t testing.TB) *gitFixture {
	t.Helper()
	needGitBinary(t)
	root := t.TempDir()
	f := &gitFixture{
		root: root, repo: filepath.Join(root, "repo"), home: filepath.Join(root, "home"),
		marker: filepath.Join(root, "PWNED"), evil: filepath.Join(root, "evil"),
	}
	f.env = []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + f.home, "XDG_CONFIG_HOME=" + filepath.Join(f.home, ".config"),
		"GIT_CONFIG_NOSYSTEM=1", "LC_ALL=C", "GIT_TERMINAL_PROMPT=0",
	}
	gitWrite(t, filepath.Join(f.home, ".gitconfig"), "[user]\n\tname = Hardened Tester\n\temail = tester@example.com\n[init]\n\tdefaultBranch = main\n")
	// The program answers as each of its roles expects and then ends:
	// stdin to stdout as a filter or pager, a file's text as a textconv
	// or an editor, nothing otherwise (ssh, a proxy, a helper).
	gitWrite(t, f.evil, "#!/bin/sh\ntouch '"+f.marker+"'\n[ $# -eq 0 ] && exec cat\n[ -f \"$1\" ] && cat \"$1\"\nexit 0\n")
	if err := os.Chmod(f.evil, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(f.repo, 0o755); err != nil {
		t.Fatal(err)
	}
	f.git(t, "init", "-q")
	gitWrite(t, filepath.Join(f.repo, "f.txt"), "one\n")
	f.git(t, "add", "f.txt")
	f.git(t, "commit", "-qm", "first")
	gitWrite(t, filepath.Join(f.repo, "f.txt"), "one\ntwo\n")
	f.git(t, "commit", "-qam", "second")
	f.git(t, "branch", "side", "HEAD~1")
	f.git(t, "checkout", "-q", "side")
	gitWrite(t, filepath.Join(f.repo, "f.txt"), "one\nsideways\n")
	f.git(t, "commit", "-qam", "side")
	f.git(t, "checkout", "-q", "main")
	gitWrite(t, filepath.Join(f.repo, "f.txt"), "one\ntwo\nthree\n")
	return f
}

// git runs git in the repository the plain way, for the fixture.
func (f *gitFixture) git(t testing.TB, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = f.repo, f.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func (f *gitFixture) config(t testing.TB, key, value string) {
	t.Helper()
	f.git(t, "config", key, value)
}

func (f *gitFixture) pwned() bool {
	_, err := os.Stat(f.marker)
	return err == nil
}

func gitWrite(t testing.TB, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// gitCase plants something that makes git run f.evil, and the git
// command that runs it.
type gitCase struct {
	name  string
	plant func(t testing.TB, f *gitFixture)
	argv  func(f *gitFixture) []string
	env   func(f *gitFixture) []string
	dir   func(f *gitFixture) string
	stdin string
}

func argv(a ...string) func(*gitFixture) []string { return func(*gitFixture) []string { return a } }

func attrs(line string) func(testing.TB, *gitFixture) {
	return func(t testing.TB, f *gitFixture) {
		gitWrite(t, filepath.Join(f.repo, ".git", "info", "attributes"), line+"\n")
	}
}

func plants(ps ...func(testing.TB, *gitFixture)) func(testing.TB, *gitFixture) {
	return func(t testing.TB, f *gitFixture) {
		for _, p := range ps {
			p(t, f)
		}
	}
}

func cfg(key string) func(testing.TB, *gitFixture) {
	return func(t testing.TB, f *gitFixture) { f.config(t, key, f.evil) }
}

func hook(name string) func(testing.TB, *gitFixture) {
	return func(t testing.TB, f *gitFixture) {
		p := filepath.Join(f.repo, ".git", "hooks", name)
		gitWrite(t, p, "#!/bin/sh\nexec '"+f.evil+"' </dev/null\n")
		if err := os.Chmod(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// gitCases are the ways a repository, a config file, the environment or
// the command line can make git run a program. Each runs the program
// when git is started plainly.
var gitCases = []gitCase{
	{name: "fsmonitor in .git/config", plant: cfg("core.fsmonitor"), argv: argv("git", "status")},
	{name: "fsmonitor through include.path", argv: argv("git", "status"), plant: func(t testing.TB, f *gitFixture) {
		inc := filepath.Join(f.root, "included.cfg")
		gitWrite(t, inc, "[core]\n\tfsmonitor = "+f.evil+"\n")
		f.config(t, "include.path", inc)
	}},
	{name: "fsmonitor through includeIf gitdir", argv: argv("git", "status"), plant: func(t testing.TB, f *gitFixture) {
		inc := filepath.Join(f.root, "included.cfg")
		gitWrite(t, inc, "[core]\n\tfsmonitor = "+f.evil+"\n")
		f.config(t, "includeIf.gitdir:"+f.repo+"/.git.path", inc)
	}},
	{name: "fsmonitor in the global config", argv: argv("git", "status"), plant: func(t testing.TB, f *gitFixture) {
		gitWrite(t, filepath.Join(f.home, ".config", "git", "config"), "[core]\n\tfsmonitor = "+f.evil+"\n")
	}},
	{name: "fsmonitor through GIT_CONFIG_GLOBAL", argv: argv("git", "status"),
		plant: func(t testing.TB, f *gitFixture) {
			gitWrite(t, filepath.Join(f.root, "other.gitconfig"), "[core]\n\tfsmonitor = "+f.evil+"\n")
		},
		env: func(f *gitFixture) []string {
			return []string{"GIT_CONFIG_GLOBAL=" + filepath.Join(f.root, "other.gitconfig")}
		}},
	{name: "GIT_CONFIG_COUNT in the environment", argv: argv("git", "status"),
		env: func(f *gitFixture) []string {
			return []string{"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=core.fsmonitor", "GIT_CONFIG_VALUE_0=" + f.evil}
		}},
	{name: "GIT_CONFIG_PARAMETERS in the environment", argv: argv("git", "status"),
		env: func(f *gitFixture) []string {
			return []string{"GIT_CONFIG_PARAMETERS='core.fsmonitor'='" + f.evil + "'"}
		}},
	{name: "GIT_EXTERNAL_DIFF in the environment", argv: argv("git", "diff"),
		env: func(f *gitFixture) []string { return []string{"GIT_EXTERNAL_DIFF=" + f.evil} }},
	{name: "diff.external", plant: cfg("diff.external"), argv: argv("git", "diff")},
	{name: "diff driver textconv", plant: plants(attrs("*.txt diff=x"), cfg("diff.x.textconv")), argv: argv("git", "diff")},
	{name: "diff driver textconv in git show", plant: plants(attrs("*.txt diff=x"), cfg("diff.x.textconv")), argv: argv("git", "show", "HEAD")},
	{name: "diff driver textconv with -C", plant: plants(attrs("*.txt diff=x"), cfg("diff.x.textconv")),
		argv: func(f *gitFixture) []string { return []string{"git", "-C", "repo", "diff"} },
		dir:  func(f *gitFixture) string { return f.root }},
	{name: "diff driver textconv with --git-dir and --work-tree", plant: plants(attrs("*.txt diff=x"), cfg("diff.x.textconv")),
		argv: func(f *gitFixture) []string {
			return []string{"git", "--git-dir=" + filepath.Join(f.repo, ".git"), "--work-tree", f.repo, "diff"}
		},
		dir: func(f *gitFixture) string { return f.root }},
	{name: "diff driver textconv with GIT_DIR", plant: plants(attrs("*.txt diff=x"), cfg("diff.x.textconv")), argv: argv("git", "diff"),
		env: func(f *gitFixture) []string {
			return []string{"GIT_DIR=" + filepath.Join(f.repo, ".git"), "GIT_WORK_TREE=" + f.repo}
		},
		dir: func(f *gitFixture) string { return f.root }},
	{name: "diff driver command", plant: plants(attrs("*.txt diff=x"), cfg("diff.x.command")), argv: argv("git", "diff")},
	{name: "filter clean", plant: plants(attrs("*.txt filter=x"), cfg("filter.x.clean")), argv: argv("git", "add", "f.txt")},
	{name: "filter smudge", argv: argv("git", "checkout", "-q", "side"),
		plant: plants(func(t testing.TB, f *gitFixture) { f.git(t, "checkout", "-q", "--", "f.txt") }, attrs("*.txt filter=x"), cfg("filter.x.smudge"))},
	{name: "filter process", plant: plants(attrs("*.txt filter=x"), cfg("filter.x.process")), argv: argv("git", "add", "f.txt")},
	{name: "merge driver", plant: plants(attrs("*.txt merge=x"), cfg("merge.x.driver"), func(t testing.TB, f *gitFixture) { f.git(t, "commit", "-qam", "third") }),
		argv: argv("git", "merge", "-q", "--no-edit", "side")},
	{name: "pre-commit hook", plant: hook("pre-commit"), argv: argv("git", "commit", "-qam", "hooked")},
	{name: "post-checkout hook", plant: hook("post-checkout"), argv: argv("git", "checkout", "-q", "-b", "other")},
	{name: "core.hooksPath", argv: argv("git", "commit", "-qam", "hooked"), plant: func(t testing.TB, f *gitFixture) {
		p := filepath.Join(f.root, "hooks", "pre-commit")
		gitWrite(t, p, "#!/bin/sh\nexec '"+f.evil+"' </dev/null\n")
		if err := os.Chmod(p, 0o755); err != nil {
			t.Fatal(err)
		}
		f.config(t, "core.hooksPath", filepath.Dir(p))
	}},
	{name: "shell alias", argv: argv("git", "pwn"), plant: func(t testing.TB, f *gitFixture) {
		f.config(t, "alias.pwn", "!sh -c '"+f.evil+" </dev/null'")
	}},
	{name: "alias that sets -c", argv: argv("git", "st"), plant: func(t testing.TB, f *gitFixture) {
		f.config(t, "alias.st", "-c core.fsmonitor="+f.evil+" status")
	}},
	{name: "-c on the command line", argv: func(f *gitFixture) []string { return []string{"git", "-c", "core.fsmonitor=" + f.evil, "status"} }},
	{name: "--config-env on the command line", argv: argv("git", "--config-env=core.fsmonitor=EVIL", "status"),
		env: func(f *gitFixture) []string { return []string{"EVIL=" + f.evil} }},
	{name: "clone --config", dir: func(f *gitFixture) string { return f.root },
		plant: func(t testing.TB, f *gitFixture) {
			gitWrite(t, filepath.Join(f.repo, ".gitattributes"), "*.txt filter=x\n")
			f.git(t, "add", ".gitattributes")
			f.git(t, "commit", "-qm", "attributes")
		},
		argv: func(f *gitFixture) []string {
			return []string{"git", "clone", "-q", "--config", "filter.x.smudge=" + f.evil, f.repo, filepath.Join(f.root, "clone")}
		}},
	{name: "core.editor", plant: cfg("core.editor"), argv: argv("git", "commit", "-qa")},
	{name: "GIT_EDITOR in the environment", argv: argv("git", "commit", "-qa"),
		env: func(f *gitFixture) []string { return []string{"GIT_EDITOR=" + f.evil} }},
	{name: "GIT_SEQUENCE_EDITOR in the environment", argv: argv("git", "rebase", "-q", "-i", "HEAD~1"),
		plant: func(t testing.TB, f *gitFixture) { f.git(t, "stash", "-q") },
		env:   func(f *gitFixture) []string { return []string{"GIT_SEQUENCE_EDITOR=" + f.evil} }},
	{name: "signing program", plant: plants(cfg("gpg.program"), func(t testing.TB, f *gitFixture) { f.config(t, "commit.gpgSign", "true") }),
		argv: argv("git", "commit", "-qam", "signed")},
	{name: "credential helper", plant: cfg("credential.helper"), argv: argv("git", "credential", "fill"),
		stdin: "protocol=https\nhost=example.com\n\n"},
	{name: "credential helper for a URL", plant: cfg("credential.https://example.com.helper"), argv: argv("git", "credential", "fill"),
		stdin: "protocol=https\nhost=example.com\n\n"},
	{name: "GIT_ASKPASS in the environment", argv: argv("git", "credential", "fill"), stdin: "protocol=https\nhost=example.com\n\n",
		env: func(f *gitFixture) []string { return []string{"GIT_ASKPASS=" + f.evil} }},
	{name: "core.askPass", plant: cfg("core.askPass"), argv: argv("git", "credential", "fill"), stdin: "protocol=https\nhost=example.com\n\n"},
	{name: "core.sshCommand", plant: cfg("core.sshCommand"), argv: argv("git", "ls-remote", "ssh://127.0.0.1:1/x")},
	{name: "GIT_SSH_COMMAND in the environment", argv: argv("git", "ls-remote", "ssh://127.0.0.1:1/x"),
		env: func(f *gitFixture) []string { return []string{"GIT_SSH_COMMAND=" + f.evil} }},
	{name: "core.gitProxy", plant: cfg("core.gitProxy"), argv: argv("git", "ls-remote", "git://127.0.0.1:1/x")},
	{name: "GIT_PROXY_COMMAND in the environment", argv: argv("git", "ls-remote", "git://127.0.0.1:1/x"),
		env: func(f *gitFixture) []string { return []string{"GIT_PROXY_COMMAND=" + f.evil} }},
	{name: "ext:: remote allowed by the repository",
		plant: func(t testing.TB, f *gitFixture) { f.config(t, "protocol.ext.allow", "always") },
		argv:  func(f *gitFixture) []string { return []string{"git", "ls-remote", "ext::" + f.evil + " x"} }},
	{name: "GIT_ALLOW_PROTOCOL in the environment",
		argv: func(f *gitFixture) []string { return []string{"git", "ls-remote", "ext::" + f.evil + " x"} },
		env:  func(f *gitFixture) []string { return []string{"GIT_ALLOW_PROTOCOL=ext"} }},
	{name: "remote uploadpack", argv: argv("git", "fetch", "-q", "origin"), plant: func(t testing.TB, f *gitFixture) {
		f.config(t, "remote.origin.url", f.repo)
		f.config(t, "remote.origin.uploadpack", f.evil)
	}},
	{name: "pack-objects hook in the global config", dir: func(f *gitFixture) string { return f.root },
		plant: func(t testing.TB, f *gitFixture) {
			gitWrite(t, filepath.Join(f.home, ".config", "git", "config"), "[uploadpack]\n\tpackObjectsHook = "+f.evil+"\n")
		},
		argv: func(f *gitFixture) []string {
			return []string{"git", "clone", "-q", "--no-local", f.repo, filepath.Join(f.root, "clone")}
		}},
	{name: "archive compressor", argv: argv("git", "archive", "--format=tgz", "HEAD"), plant: cfg("tar.tgz.command")},
	{name: "trailer command", argv: argv("git", "interpret-trailers"), stdin: "subject\n", plant: cfg("trailer.sign.command")},
	{name: "GIT_EXEC_PATH in the environment", argv: argv("git", "pwn"),
		plant: func(t testing.TB, f *gitFixture) {
			p := filepath.Join(f.root, "exec", "git-pwn")
			gitWrite(t, p, "#!/bin/sh\nexec '"+f.evil+"' </dev/null\n")
			if err := os.Chmod(p, 0o755); err != nil {
				t.Fatal(err)
			}
		},
		env: func(f *gitFixture) []string { return []string{"GIT_EXEC_PATH=" + filepath.Join(f.root, "exec")} }},
	{name: "GIT_TRACE naming a file", argv: argv("git", "status"),
		env: func(f *gitFixture) []string { return []string{"GIT_TRACE=" + f.marker} }},
}

// runCase runs the case's git in a new fixture, through the spawner or
// plainly, and reports whether the planted program ran.
func runCase(t *testing.T, c gitCase, spawner bool) (ran bool, out Outcome) {
	t.Helper()
	f := newGitFixture(t)
	if c.plant != nil {
		c.plant(t, f)
	}
	env := slices.Clone(f.env)
	if c.env != nil {
		env = append(env, c.env(f)...)
	}
	dir := f.repo
	if c.dir != nil {
		dir = c.dir(f)
	}
	a := c.argv(f)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if spawner {
		out = Run(ctx, Cmd{Argv: a, Dir: dir, Env: env, Stdin: strings.NewReader(c.stdin), Timeout: 30 * time.Second})
	} else {
		cmd := exec.CommandContext(ctx, "git", a[1:]...)
		cmd.Dir, cmd.Env, cmd.Stdin = dir, env, strings.NewReader(c.stdin)
		b, err := cmd.CombinedOutput()
		out.Stdout = string(b)
		if err != nil {
			out.Err = err
		}
	}
	return f.pwned(), out
}

// TestGitRunsNoPlantedProgram is the regression test of the planted
// programs: each runs when git is started plainly (so the test proves
// what stops it), and none runs when the spawner starts git.
func TestGitRunsNoPlantedProgram(t *testing.T) {
	needGitBinary(t)
	for _, c := range gitCases {
		t.Run(c.name, func(t *testing.T) {
			if ran, out := runCase(t, c, false); !ran {
				t.Fatalf("started plainly, git did not run the planted program, so this case proves nothing:\n%s", out.Stdout)
			}
			if ran, out := runCase(t, c, true); ran {
				t.Errorf("started by the spawner, git ran the planted program (exit %d, err %v)\nstdout: %s\nstderr: %s", out.ExitCode, out.Err, out.Stdout, out.Stderr)
			}
		})
	}
}

// TestGitUnderLandlock runs a few cases with the sandbox on, where the
// config read itself goes through the helper: the planted programs stay
// off and an ordinary commit still takes the global config's committer.
func TestGitUnderLandlock(t *testing.T) {
	needGitBinary(t)
	if landlockABI() < 1 {
		t.Skip("no Landlock on this kernel")
	}
	run := func(t *testing.T, f *gitFixture, a []string, env []string) Outcome {
		helper, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		prev := active.Load()
		Configure(Policy{Helper: helper, Workspace: f.root, TempRoot: t.TempDir()})
		defer func() {
			Cleanup()
			active.Store(prev)
		}()
		return Run(context.Background(), Cmd{Argv: a, Dir: f.repo, Env: env, Timeout: 30 * time.Second})
	}
	for _, name := range []string{"fsmonitor in .git/config", "GIT_CONFIG_COUNT in the environment", "GIT_EXTERNAL_DIFF in the environment", "diff driver textconv", "shell alias"} {
		i := slices.IndexFunc(gitCases, func(c gitCase) bool { return c.name == name })
		c := gitCases[i]
		t.Run(name, func(t *testing.T) {
			f := newGitFixture(t)
			if c.plant != nil {
				c.plant(t, f)
			}
			env := slices.Clone(f.env)
			if c.env != nil {
				env = append(env, c.env(f)...)
			}
			if out := run(t, f, c.argv(f), env); f.pwned() {
				t.Errorf("git ran the planted program under the sandbox: %+v", out)
			}
		})
	}
	t.Run("commit", func(t *testing.T) {
		f := newGitFixture(t)
		if out := run(t, f, []string{"git", "commit", "-qam", "sandboxed"}, f.env); out.Err != nil || out.ExitCode != 0 {
			t.Fatalf("git commit: %+v", out)
		}
		if got := strings.TrimSpace(f.git(t, "log", "-1", "--format=%an %s")); got != "Hardened Tester sandboxed" {
			t.Errorf("the commit is %q", got)
		}
	})
}

// TestGitEveryEntryPoint runs git with a planted fsmonitor and a
// GIT_CONFIG_COUNT in the environment through each way into the spawner.
func TestGitEveryEntryPoint(t *testing.T) {
	needGitBinary(t)
	start := func(name string, fn func(*exec.Cmd) error) func(t *testing.T, f *gitFixture, env []string) {
		return func(t *testing.T, f *gitFixture, env []string) {
			cmd := CommandContext(context.Background(), "git", "status")
			cmd.Dir, cmd.Env = f.repo, env
			if err := fn(cmd); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if err := cmd.Wait(); err != nil {
				t.Fatalf("git status: %v", err)
			}
		}
	}
	for _, tc := range []struct {
		name string
		run  func(t *testing.T, f *gitFixture, env []string)
	}{
		{"Run", func(t *testing.T, f *gitFixture, env []string) {
			if out := Run(context.Background(), Cmd{Argv: []string{"git", "status"}, Dir: f.repo, Env: env}); out.Err != nil || out.ExitCode != 0 {
				t.Fatalf("git status: %v %d %s", out.Err, out.ExitCode, out.Stderr)
			}
		}},
		{"Start", start("Start", Start)},
		{"StartNice", start("StartNice", func(c *exec.Cmd) error { return StartNice(c, 1) })},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newGitFixture(t)
			f.config(t, "core.fsmonitor", f.evil)
			tc.run(t, f, append(slices.Clone(f.env), "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=core.fsmonitor", "GIT_CONFIG_VALUE_0="+f.evil))
			if f.pwned() {
				t.Errorf("%s: git ran the planted fsmonitor", tc.name)
			}
		})
	}
	t.Run("Command", func(t *testing.T) {
		// Command hands the environment over after the spawner has seen
		// the command, so it cannot harden git and refuses to.
		cmd := Command("git", "status")
		if cmd.Err == nil {
			t.Fatal("Command(git) prepared a git it could not harden")
		}
		if !errors.Is(cmd.Err, ErrGit) {
			t.Errorf("Command(git).Err = %v, want ErrGit", cmd.Err)
		}
	})
}

// TestGitOrdinaryRuns checks that hardening changes nothing an ordinary
// repository shows: the same output as plain git, and commits that take
// the committer from the global config.
func TestGitOrdinaryRuns(t *testing.T) {
	needGitBinary(t)
	f := newGitFixture(t)
	for _, a := range [][]string{
		{"status"}, {"status", "--short"}, {"diff"}, {"diff", "--stat", "HEAD~1"}, {"log", "--format=%an %s"},
		{"show", "HEAD"}, {"log", "-p", "-1"}, {"branch", "--list"}, {"config", "user.name"}, {"blame", "f.txt"},
	} {
		want := f.git(t, a...)
		out := Run(context.Background(), Cmd{Argv: append([]string{"git"}, a...), Dir: f.repo, Env: f.env})
		if out.Err != nil || out.ExitCode != 0 {
			t.Errorf("git %s: %v exit %d: %s", strings.Join(a, " "), out.Err, out.ExitCode, out.Stderr)
			continue
		}
		if out.Stdout != want {
			t.Errorf("git %s through the spawner:\n%s\nplainly:\n%s", strings.Join(a, " "), out.Stdout, want)
		}
	}
	out := Run(context.Background(), Cmd{Argv: []string{"git", "commit", "-qam", "through the spawner"}, Dir: f.repo, Env: f.env})
	if out.Err != nil || out.ExitCode != 0 {
		t.Fatalf("git commit: %v exit %d: %s", out.Err, out.ExitCode, out.Stderr)
	}
	if got := strings.TrimSpace(f.git(t, "log", "-1", "--format=%an <%ae> %s")); got != "Hardened Tester <tester@example.com> through the spawner" {
		t.Errorf("the commit is %q, want the global config's committer", got)
	}
	out = Run(context.Background(), Cmd{Argv: []string{"git", "commit", "-q", "--allow-empty", "--amend"}, Dir: f.repo, Env: f.env})
	if out.Err != nil || out.ExitCode != 0 {
		t.Errorf("git commit --amend (the editor keeps the message): %v exit %d: %s", out.Err, out.ExitCode, out.Stderr)
	}
}

// TestGitOnATerminal gives git a terminal, where it would start a pager
// or, for git add -p, a diff filter: none that the config names runs.
func TestGitOnATerminal(t *testing.T) {
	needGitBinary(t)
	for _, tc := range []struct {
		key  string
		args []string
	}{
		{"core.pager", []string{"log", "-1"}},
		{"pager.log", []string{"log", "-1"}},
		{"interactive.diffFilter", []string{"add", "-p"}},
	} {
		t.Run(tc.key, func(t *testing.T) {
			for _, spawner := range []bool{false, true} {
				f := newGitFixture(t)
				f.config(t, tc.key, f.evil)
				tty := openTTY(t)
				var cmd *exec.Cmd
				if spawner {
					cmd = CommandContext(context.Background(), "git", tc.args...)
				} else {
					cmd = exec.Command("git", tc.args...)
				}
				cmd.Dir, cmd.Env = f.repo, append(slices.Clone(f.env), "TERM=xterm")
				cmd.Stdout, cmd.Stderr = tty, tty // stdin is the null device: add -p reads end of input and quits
				start := cmd.Start
				if spawner {
					start = func() error { return Start(cmd) }
				}
				if err := start(); err != nil {
					t.Fatal(err)
				}
				_ = cmd.Wait()
				switch {
				case !spawner && !f.pwned():
					t.Fatalf("started plainly on a terminal, git did not run %s, so this case proves nothing", tc.key)
				case spawner && f.pwned():
					t.Errorf("started by the spawner on a terminal, git ran %s", tc.key)
				}
			}
		})
	}
}

// openTTY opens a pseudo-terminal's follower end (the leader is drained
// and closed with the test), or skips where that is not possible.
func openTTY(t *testing.T) *os.File {
	t.Helper()
	if runtime.GOOS != "linux" || !slices.Contains([]string{"amd64", "arm64", "386", "arm", "riscv64", "loong64", "s390x"}, runtime.GOARCH) {
		t.Skip("opening a pseudo-terminal is only written for Linux here")
	}
	const tiocgptn, tiocsptlck = 0x80045430, 0x40045431
	leader, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	var n, unlock uint32
	if _, _, e := unix.Syscall(unix.SYS_IOCTL, leader.Fd(), tiocsptlck, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		t.Skipf("unlock the pseudo-terminal: %v", e)
	}
	if _, _, e := unix.Syscall(unix.SYS_IOCTL, leader.Fd(), tiocgptn, uintptr(unsafe.Pointer(&n))); e != 0 {
		t.Skipf("number the pseudo-terminal: %v", e)
	}
	follower, err := os.OpenFile("/dev/pts/"+strconv.FormatUint(uint64(n), 10), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("open the pseudo-terminal: %v", err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = io.Copy(io.Discard, leader)
	}()
	t.Cleanup(func() {
		_ = follower.Close()
		_ = leader.Close()
		<-done
	})
	return follower
}

// TestGitConfigCache checks that a cached config read is used only while
// every file it depended on is as it was: each change below, made after
// the read was cached, makes the next spawn read the config again.
func TestGitConfigCache(t *testing.T) {
	if !gitCacheable {
		t.Skip("config reads are not cached on this system")
	}
	bin := needGitBinary(t)
	missing := func(f *gitFixture) string { return filepath.Join(f.root, "later.cfg") }
	for _, tc := range []struct {
		name   string
		dir    func(f *gitFixture) string
		before func(t testing.TB, f *gitFixture)
		change func(t testing.TB, f *gitFixture)
	}{
		{name: "the repository config changes", change: func(t testing.TB, f *gitFixture) { f.config(t, "diff.x.textconv", f.evil) }},
		{name: "the repository config is replaced", change: func(t testing.TB, f *gitFixture) {
			cfg := filepath.Join(f.repo, ".git", "config")
			b, err := os.ReadFile(cfg)
			if err != nil {
				t.Fatal(err)
			}
			fi, _ := os.Stat(cfg)
			gitWrite(t, cfg+".new", string(b)+"[diff \"x\"]\n\ttextconv = "+f.evil+"\n")
			_ = os.Chtimes(cfg+".new", fi.ModTime(), fi.ModTime())
			if err := os.Rename(cfg+".new", cfg); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "a missing include appears",
			before: func(t testing.TB, f *gitFixture) { f.config(t, "include.path", missing(f)) },
			change: func(t testing.TB, f *gitFixture) { gitWrite(t, missing(f), "[diff \"x\"]\n\ttextconv = "+f.evil+"\n") }},
		{name: "a missing conditional include appears",
			before: func(t testing.TB, f *gitFixture) { f.config(t, "includeIf.onbranch:other.path", missing(f)) },
			change: func(t testing.TB, f *gitFixture) { gitWrite(t, missing(f), "[diff \"x\"]\n\ttextconv = "+f.evil+"\n") }},
		{name: "HEAD moves (onbranch includes)", change: func(t testing.TB, f *gitFixture) { f.git(t, "checkout", "-q", "-b", "other") }},
		{name: "a global config appears", change: func(t testing.TB, f *gitFixture) {
			gitWrite(t, filepath.Join(f.home, ".config", "git", "config"), "[diff \"x\"]\n\ttextconv = "+f.evil+"\n")
		}},
		{name: "the global config changes", change: func(t testing.TB, f *gitFixture) {
			gitWrite(t, filepath.Join(f.home, ".gitconfig"), "[diff \"x\"]\n\ttextconv = "+f.evil+"\n")
		}},
		{name: "a repository appears below the old one",
			dir:    func(f *gitFixture) string { return filepath.Join(f.repo, "sub") },
			before: func(t testing.TB, f *gitFixture) { gitWrite(t, filepath.Join(f.repo, "sub", "keep"), "") },
			change: func(t testing.TB, f *gitFixture) {
				cmd := exec.Command("git", "init", "-q", filepath.Join(f.repo, "sub"))
				cmd.Env = f.env
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("git init: %v %s", err, out)
				}
			}},
		{name: "a repository appears outside any", dir: func(f *gitFixture) string { return f.home },
			change: func(t testing.TB, f *gitFixture) {
				cmd := exec.Command("git", "init", "-q", f.home)
				cmd.Env = f.env
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("git init: %v %s", err, out)
				}
			}},
		{name: "git's setup moves to a bare repository", dir: func(f *gitFixture) string { return filepath.Join(f.repo, "sub") },
			before: func(t testing.TB, f *gitFixture) { gitWrite(t, filepath.Join(f.repo, "sub", "keep"), "") },
			change: func(t testing.TB, f *gitFixture) {
				gitWrite(t, filepath.Join(f.repo, "sub", "HEAD"), "ref: refs/heads/main\n")
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newGitFixture(t)
			if tc.before != nil {
				tc.before(t, f)
			}
			dir := f.repo
			if tc.dir != nil {
				dir = tc.dir(f)
			}
			env := gitEnv(f.env, nil)
			read, err := readGitConfig(nil, bin, dir, nil, env)
			if err != nil {
				t.Fatal(err)
			}
			paths := read.witnesses(bin, dir, nil, env)
			if paths == nil {
				t.Fatal("the read cannot be cached")
			}
			key := gitCacheKey(nil, bin, dir, nil, env)
			// A start in the future stands for files older than the racy window.
			gitCachePut(nil, key, gitFoundOverrides(read.entries), paths, time.Now().Add(time.Hour))
			if _, ok := gitCacheGet(nil, key); !ok {
				t.Fatal("the read was not cached")
			}
			tc.change(t, f)
			if _, ok := gitCacheGet(nil, key); ok {
				t.Errorf("the cached read is still used after %s", tc.name)
			}
		})
	}
	t.Run("a recent change is not cached", func(t *testing.T) {
		f := newGitFixture(t)
		env := gitEnv(f.env, nil)
		read, err := readGitConfig(nil, bin, f.repo, nil, env)
		if err != nil {
			t.Fatal(err)
		}
		key := gitCacheKey(nil, bin, f.repo, nil, env)
		gitCachePut(nil, key, nil, read.witnesses(bin, f.repo, nil, env), time.Now())
		if _, ok := gitCacheGet(nil, key); ok {
			t.Error("a read of files changed within the racy window was cached")
		}
	})
}

// BenchmarkGitSpawn measures what hardening costs a git spawn: git status
// in a small repository started plainly, through the spawner (which first
// reads the config with a git of its own), and the config read alone.
func BenchmarkGitSpawn(b *testing.B) {
	bin := needGitBinary(b)
	f := newGitFixture(b)
	prev := active.Load()
	active.Store(nil)
	b.Cleanup(func() { active.Store(prev) })
	time.Sleep(gitRacy + 100*time.Millisecond) // let the fixture's files age past the cache's racy window
	b.Run("plain", func(b *testing.B) {
		for b.Loop() {
			cmd := exec.Command(bin, "status")
			cmd.Dir, cmd.Env = f.repo, f.env
			if err := cmd.Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("spawner", func(b *testing.B) {
		for b.Loop() {
			if out := Run(context.Background(), Cmd{Argv: []string{"git", "status"}, Binary: bin, Dir: f.repo, Env: f.env}); out.ExitCode != 0 || out.Err != nil {
				b.Fatalf("outcome = %+v", out)
			}
		}
	})
	b.Run("spawner-uncached", func(b *testing.B) {
		for b.Loop() {
			gitCache.mu.Lock()
			gitCache.m = nil
			gitCache.mu.Unlock()
			if out := Run(context.Background(), Cmd{Argv: []string{"git", "status"}, Binary: bin, Dir: f.repo, Env: f.env}); out.ExitCode != 0 || out.Err != nil {
				b.Fatalf("outcome = %+v", out)
			}
		}
	})
	b.Run("config-read", func(b *testing.B) {
		env := gitEnv(f.env, nil)
		for b.Loop() {
			if _, err := readGitConfig(nil, bin, f.repo, nil, env); err != nil {
				b.Fatal(err)
			}
		}
	})
	if landlockABI() < 1 {
		return
	}
	helper, _ := os.Executable()
	Configure(Policy{Helper: helper, Workspace: f.root, TempRoot: b.TempDir()})
	defer Cleanup()
	b.Run("sandboxed-spawner", func(b *testing.B) {
		for b.Loop() {
			if out := Run(context.Background(), Cmd{Argv: []string{"git", "status"}, Binary: bin, Dir: f.repo, Env: f.env}); out.ExitCode != 0 || out.Err != nil {
				b.Fatalf("outcome = %+v", out)
			}
		}
	})
	b.Run("sandboxed-spawner-uncached", func(b *testing.B) {
		for b.Loop() {
			gitCache.mu.Lock()
			gitCache.m = nil
			gitCache.mu.Unlock()
			if out := Run(context.Background(), Cmd{Argv: []string{"git", "status"}, Binary: bin, Dir: f.repo, Env: f.env}); out.ExitCode != 0 || out.Err != nil {
				b.Fatalf("outcome = %+v", out)
			}
		}
	})
	b.Run("sandboxed-config-read", func(b *testing.B) {
		env := gitEnv(f.env, nil)
		st := active.Load()
		for b.Loop() {
			if _, err := readGitConfig(st, bin, f.repo, nil, env); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func TestParseGitArgs(t *testing.T) {
	env := []string{"SAFE=false", "EVIL=/tmp/evil"}
	for _, tc := range []struct {
		name    string
		argv    []string
		loc     []string
		probe   bool
		refused string
	}{
		{name: "plain", argv: []string{"git", "status"}},
		{name: "repository options", argv: []string{"git", "-C", "a", "--git-dir=b/.git", "--work-tree", "c", "--bare", "-C", "d", "status"},
			loc: []string{"-C", "a", "--git-dir=b/.git", "--work-tree=c", "--bare", "-C", "d"}},
		{name: "other global options", argv: []string{"git", "--no-pager", "-p", "--namespace", "x", "--literal-pathspecs", "--exec-path", "log"}},
		{name: "the spawner's own value", argv: []string{"git", "-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null", "status"}},
		{name: "a key that names nothing", argv: []string{"git", "-c", "color.ui=always", "-c", "user.name=x", "log"}},
		{name: "an ordinary alias", argv: []string{"git", "-c", "alias.st=status", "st"}},
		{name: "fsmonitor", argv: []string{"git", "-c", "core.fsmonitor=/tmp/evil", "status"}, refused: "core.fsmonitor"},
		{name: "fsmonitor spelled in capitals", argv: []string{"git", "-c", "CORE.FSMONITOR=/tmp/evil", "status"}, refused: "CORE.FSMONITOR"},
		{name: "a key alone is true", argv: []string{"git", "-c", "commit.gpgSign", "commit"}, refused: "commit.gpgSign"},
		{name: "a driver", argv: []string{"git", "-c", "diff.x.textconv=cat", "diff"}, refused: "diff.x.textconv"},
		{name: "a filter", argv: []string{"git", "-c", "filter.lfs.required=false", "add", "."}, refused: "filter.lfs.required"},
		{name: "a shell alias", argv: []string{"git", "-c", "alias.x=!sh", "x"}, refused: "alias.x"},
		{name: "an alias with options", argv: []string{"git", "-c", "alias.x=-c core.pager=less log", "x"}, refused: "alias.x"},
		{name: "an include", argv: []string{"git", "-c", "include.path=/tmp/x", "status"}, refused: "include.path"},
		{name: "a conditional include", argv: []string{"git", "-c", "includeIf.gitdir:/.path=/tmp/x", "status"}, refused: "includeIf.gitdir:/.path"},
		{name: "the file transport", argv: []string{"git", "-c", "protocol.file.allow=always", "fetch", "../x"}, refused: "protocol.file.allow"},
		{name: "--config-env to a safe value", argv: []string{"git", "--config-env=core.fsmonitor=SAFE", "status"}},
		{name: "--config-env to a program", argv: []string{"git", "--config-env", "core.fsmonitor=EVIL", "status"}, refused: "core.fsmonitor"},
		{name: "--exec-path=DIR", argv: []string{"git", "--exec-path=/tmp", "status"}, refused: "--exec-path"},
		{name: "after the subcommand -c is its own", argv: []string{"git", "grep", "-c", "core.fsmonitor=x"}},
		{name: "clone --config", argv: []string{"git", "clone", "--config", "filter.x.smudge=evil", "u"}, refused: "filter.x.smudge"},
		{name: "clone --config=", argv: []string{"git", "clone", "--config=core.hooksPath=h", "u"}, refused: "core.hooksPath"},
		{name: "clone --conf abbreviated", argv: []string{"git", "clone", "--conf", "core.fsmonitor=x", "u"}, refused: "core.fsmonitor"},
		{name: "clone -c", argv: []string{"git", "clone", "-c", "core.fsmonitor=x", "u"}, refused: "core.fsmonitor"},
		{name: "clone -c attached", argv: []string{"git", "clone", "-ccore.fsmonitor=x", "u"}, refused: "core.fsmonitor"},
		{name: "clone -qc clustered", argv: []string{"git", "clone", "-qc", "core.fsmonitor=x", "u"}, refused: "core.fsmonitor"},
		{name: "clone -b takes the rest", argv: []string{"git", "clone", "-bc", "u"}},
		{name: "clone with ordinary config", argv: []string{"git", "clone", "-c", "user.name=x", "u"}},
		{name: "clone after --", argv: []string{"git", "clone", "--", "-c"}},
		{name: "the config read", argv: []string{"git", "-C", "x", "config", "--list", "--includes", "--show-scope", "--show-origin", "-z"},
			loc: []string{"-C", "x"}, probe: true},
		{name: "not the config read", argv: []string{"git", "config", "--list", "--includes", "--show-scope", "--show-origin", "-z", "x"}},
		{name: "the config read with -c is not", argv: []string{"git", "-c", "color.ui=never", "config", "--list", "--includes", "--show-scope", "--show-origin", "-z"}},
		{name: "a helper has no global options", argv: []string{"git-upload-pack", "-c", "core.fsmonitor=x"}},
		{name: "a dashed builtin has none", argv: []string{"/usr/lib/git-core/git-status", "-c", "x"}},
		{name: "a missing value", argv: []string{"git", "-c"}},
		{name: "empty", argv: nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inv, err := parseGitArgs(tc.argv, env)
			if tc.refused != "" {
				if !errors.Is(err, ErrGit) || !strings.Contains(err.Error(), tc.refused) {
					t.Fatalf("err = %v, want ErrGit naming %q", err, tc.refused)
				}
				return
			}
			if err != nil {
				t.Fatalf("err = %v", err)
			}
			if !slices.Equal(inv.loc, tc.loc) || inv.probe != tc.probe {
				t.Errorf("got loc %q probe %v, want %q %v", inv.loc, inv.probe, tc.loc, tc.probe)
			}
		})
	}
}

func TestMatchGitSetting(t *testing.T) {
	for _, tc := range []struct {
		key, want string
	}{
		{"core.fsmonitor", "core.fsmonitor"},
		{"Core.FsMonitor", "core.fsmonitor"},
		{"diff.x.textconv", "diff.<driver>.textconv"},
		{"diff.A.B.textconv", "diff.<driver>.textconv"},
		{"diff.textconv", ""},
		{"diff.x.binary", ""},
		{"gpg.openpgp.program", "gpg.openpgp.program"},
		{"gpg.other.program", "gpg.<format>.program"},
		{"credential.helper", "credential.helper"},
		{"credential.https://example.com.helper", "credential.<url>.helper"},
		{"alias.st", "alias.*"},
		{"alias.a.b", "alias.*"},
		{"pager.log", "pager.*"},
		{"tar.tar.xz.command", "tar.<format>.command"},
		{"includeif.gitdir:/x/.path", "includeIf.<condition>.path"},
		{"user.name", ""},
		{"core", ""},
		{".x", ""},
		{"x.", ""},
	} {
		s, ok := matchGitSetting(tc.key)
		if got := map[bool]string{true: s.Key}[ok]; got != tc.want {
			t.Errorf("matchGitSetting(%q) = %q, want %q", tc.key, got, tc.want)
		}
	}
}

// TestGitSettingsTable keeps the table well formed: every key parses, a
// key given on every run names no subsection to fill in, a key with a
// value predicate accepts the table's own value, and no key is twice.
func TestGitSettingsTable(t *testing.T) {
	seen := map[string]bool{}
	for _, s := range gitSettings {
		k, ok := splitGitKey(s.Key)
		if !ok {
			t.Errorf("%s does not parse", s.Key)
		}
		if s.Always && (strings.Contains(s.Key, "<") || strings.Contains(s.Key, "*")) {
			t.Errorf("%s is given on every run but names no key", s.Key)
		}
		if s.when != nil && s.when(s.Value) {
			t.Errorf("%s: its own value %q counts as a program", s.Key, s.Value)
		}
		if s.Names == "" {
			t.Errorf("%s says nothing about what it names", s.Key)
		}
		if s.coveredBy != "" {
			if c, ok := matchGitSetting(s.coveredBy); !ok || !c.Always {
				t.Errorf("%s is covered by %s, which is not given on every run", s.Key, s.coveredBy)
			}
		}
		id := k.section + "." + strings.ToLower(k.sub) + "." + k.name
		if seen[id] {
			t.Errorf("%s is in the table twice", s.Key)
		}
		seen[id] = true
		if m, _ := matchGitSetting(s.Key); m.Key != s.Key && !strings.Contains(s.Key, "<") {
			t.Errorf("%s is shadowed by %s", s.Key, m.Key)
		}
	}
	if got := GitOverrides(); len(got) == 0 || got[0] != "core.fsmonitor=false" {
		t.Errorf("GitOverrides() = %q", got)
	}
}

func TestGitFoundOverrides(t *testing.T) {
	got := gitFoundOverrides([]gitConfigEntry{
		{scope: "local", key: "core.fsmonitor", value: "x"},                    // given on every run already
		{scope: "command", key: "diff.mine.textconv", value: "x"},              // the spawner's own scope
		{scope: "local", key: "diff.Doc.textconv", value: "x"},                 // the subsection keeps its case
		{scope: "global", key: "filter.lfs.clean", value: "git-lfs clean %f"},  // the whole group
		{scope: "global", key: "filter.lfs.required", value: "true"},           // already in the group
		{scope: "local", key: "alias.st", value: "status"},                     // an ordinary alias
		{scope: "local", key: "alias.x", value: "!sh"},                         // a shell alias
		{scope: "local", key: "submodule.s.update", value: "rebase"},           // an ordinary update
		{scope: "local", key: "remote.origin.uploadpack", value: "evil"},       // covered by the file transport
		{scope: "local", key: "include.path", value: "x"},                      // followed, not given
		{scope: "local", key: "pager.log", value: "less"},                      // a pager
		{scope: "system", key: "credential.https://x.helper", value: "gcloud"}, // one URL's helper
	})
	want := []gitOverride{
		{"diff.Doc.textconv", GitNoProgram},
		{"filter.lfs.clean", ""}, {"filter.lfs.smudge", ""}, {"filter.lfs.process", ""}, {"filter.lfs.required", "true"},
		{"alias.x", GitNoProgram},
		{"pager.log", "false"},
		{"credential.https://x.helper", ""},
	}
	if !slices.Equal(got, want) {
		t.Errorf("gitFoundOverrides:\n got %q\nwant %q", got, want)
	}
}

func TestGitEnv(t *testing.T) {
	env := gitEnv([]string{
		"PATH=/usr/bin", "HOME=/h", "GIT_DIR=/r/.git", "GIT_CONFIG_GLOBAL=/g",
		"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=core.fsmonitor", "GIT_CONFIG_VALUE_0=x", "GIT_CONFIG_PARAMETERS='a'='b'",
		"GIT_EXTERNAL_DIFF=x", "GIT_SSH=x", "GIT_SSH_COMMAND=x", "GIT_ASKPASS=x", "GIT_EXEC_PATH=/x", "GIT_ALLOW_PROTOCOL=ext",
		"GIT_PAGER=less", "GIT_EDITOR=vi", "GIT_SEQUENCE_EDITOR=vi", "GIT_PROXY_COMMAND=x", "GIT_MAN_VIEWER=x",
		"GIT_TRACE=1", "GIT_TRACE_SETUP=/tmp/file", "GIT_TRACE2_EVENT=af_unix:/s", "GIT_TRACE_PACKET=7", "GIT_TRACE_CURL=true",
		"NOT_GIT_SSH=kept",
	}, []gitOverride{{"diff.x.textconv", GitNoProgram}})
	for _, kv := range []string{
		"PATH=/usr/bin", "HOME=/h", "GIT_DIR=/r/.git", "GIT_CONFIG_GLOBAL=/g", "NOT_GIT_SSH=kept",
		"GIT_TRACE=1", "GIT_TRACE_PACKET=7", "GIT_TRACE_CURL=true",
		"GIT_PAGER=cat", "GIT_EDITOR=:", "GIT_SEQUENCE_EDITOR=:", "GIT_PROXY_COMMAND=",
		"GIT_CONFIG_KEY_0=core.fsmonitor", "GIT_CONFIG_VALUE_0=false",
	} {
		if !slices.Contains(env, kv) {
			t.Errorf("the child's environment lacks %s", kv)
		}
	}
	n := len(GitOverrides())
	if envValue(env, "GIT_CONFIG_COUNT") != strconv.Itoa(n+1) || envValue(env, "GIT_CONFIG_KEY_"+strconv.Itoa(n)) != "diff.x.textconv" {
		t.Errorf("the found setting is not the last of GIT_CONFIG_COUNT=%s", envValue(env, "GIT_CONFIG_COUNT"))
	}
	names := map[string]int{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		names[k]++
		for _, gone := range []string{"GIT_CONFIG_PARAMETERS", "GIT_EXTERNAL_DIFF", "GIT_SSH", "GIT_SSH_COMMAND", "GIT_ASKPASS", "GIT_EXEC_PATH", "GIT_ALLOW_PROTOCOL", "GIT_MAN_VIEWER", "GIT_TRACE_SETUP", "GIT_TRACE2_EVENT"} {
			if k == gone {
				t.Errorf("the child's environment keeps %s=%s", k, v)
			}
		}
	}
	for k, n := range names {
		if n > 1 {
			t.Errorf("%s is in the child's environment %d times", k, n)
		}
	}
}

func TestIsGit(t *testing.T) {
	bin := needGitBinary(t)
	dir := t.TempDir()
	link := filepath.Join(dir, "g")
	if err := os.Symlink(bin, link); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "git-tool")
	gitWrite(t, other, "#!/bin/sh\n")
	for _, tc := range []struct {
		path string
		want bool
	}{
		{bin, true},
		{link, true}, // the same file as PATH's git
		{filepath.Join(dir, "git"), true},
		{"/usr/lib/git-core/git-upload-pack", true},
		{other, false}, // a program named git-something is not git
		{"/bin/sh", false},
	} {
		if got := isGit(tc.path, nil); got != tc.want {
			t.Errorf("isGit(%s) = %v, want %v", tc.path, got, tc.want)
		}
	}
}

func FuzzParseGitArgs(f *testing.F) {
	f.Add("git\x00-c\x00core.fsmonitor=x\x00status")
	f.Add("git\x00clone\x00-qc\x00alias.x=!y\x00u")
	f.Add("git\x00--config-env\x00a.b=C\x00-C")
	f.Fuzz(func(t *testing.T, s string) {
		if _, err := parseGitArgs(strings.Split(s, "\x00"), []string{"C=!x"}); err != nil && !errors.Is(err, ErrGit) {
			t.Errorf("error %v is not ErrGit", err)
		}
	})
}

// FuzzParseGitConfigList feeds the config read's parsers what a hostile
// config could make git print; they must not panic, and every entry's
// override must be a key the table names.
func FuzzParseGitConfigList(f *testing.F) {
	f.Add("local\x00file:.git/config\x00diff.x.textconv\ncat\x00", "12:00 trace.c:1 setup: cwd: /r\n")
	f.Add("global\x00file:/h/.gitconfig\x00alias.x\n!sh\x00command\x00command line:\x00core.pager\ncat\x00", "")
	f.Add("\x00\x00\x00", "setup: git_dir: .git")
	f.Fuzz(func(t *testing.T, out, stderr string) {
		entries := parseGitConfigList(out)
		for _, o := range gitFoundOverrides(entries) {
			if _, ok := matchGitSetting(o.key); !ok {
				t.Errorf("override %q is not a key of the table", o.key)
			}
		}
		r, _ := parseGitSetup(stderr)
		r.entries = entries
		_ = r.witnesses("/usr/bin/git", "/", nil, []string{"HOME=/h"})
	})
}

// TestGitDocs keeps the git section of docs/sandbox.md exact: it names
// every key of the table and every variable the spawner removes or sets.
func TestGitDocs(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "docs", "sandbox.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	i := strings.Index(doc, "\n## git\n")
	if i < 0 {
		t.Fatal("docs/sandbox.md has no ## git section")
	}
	doc = doc[i+1:]
	if j := strings.Index(doc[3:], "\n## "); j >= 0 {
		doc = doc[:j+3]
	}
	var want []string
	for _, s := range gitSettings {
		want = append(want, "`"+s.Key+"`")
	}
	for _, v := range gitEnvRemoved {
		want = append(want, "`"+v)
	}
	for _, kv := range gitEnvSet {
		want = append(want, "`"+strings.TrimSuffix(kv, "="))
	}
	want = append(want, GitNoProgram)
	for _, w := range want {
		if !strings.Contains(doc, w) {
			t.Errorf("the git section of docs/sandbox.md does not name %s", w)
		}
	}
}
