package git

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/talonhq/talon/tool"
)

func TestOperations(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string)
		args  string
		want  []string // substrings of the text
		fail  bool
		check func(t *testing.T, dir string)
	}{
		{
			name:  "status",
			setup: func(t *testing.T, dir string) { writeFile(t, filepath.Join(dir, "new.txt"), "n\n") },
			args:  `{"operation":"status"}`,
			want:  []string{"## main", "?? new.txt"},
		},
		{
			name: "status of paths",
			setup: func(t *testing.T, dir string) {
				writeFile(t, filepath.Join(dir, "new.txt"), "n\n")
				writeFile(t, filepath.Join(dir, "a.txt"), "changed\n")
			},
			args: `{"operation":"status","paths":["a.txt"]}`,
			want: []string{" M a.txt"},
		},
		{
			name:  "diff of the working tree",
			setup: func(t *testing.T, dir string) { writeFile(t, filepath.Join(dir, "b.txt"), "beta\ngamma\n") },
			args:  `{"operation":"diff"}`,
			want:  []string{"diff --git a/b.txt b/b.txt", "+gamma"},
		},
		{
			name: "diff staged",
			setup: func(t *testing.T, dir string) {
				writeFile(t, filepath.Join(dir, "b.txt"), "beta\nstaged\n")
				gitIn(t, dir, "add", "b.txt")
			},
			args: `{"operation":"diff","staged":true}`,
			want: []string{"+staged"},
		},
		{
			name: "diff against a ref",
			args: `{"operation":"diff","ref":"HEAD~1","paths":["a.txt"]}`,
			want: []string{"+alpha two"},
		},
		{
			name: "log",
			args: `{"operation":"log","max_count":1}`,
			want: []string{"Author: Test Author <author@example.com>", "    second"},
		},
		{
			name: "log of a path from a ref",
			args: `{"operation":"log","ref":"HEAD~1","paths":["b.txt"]}`,
			want: []string{"    first"},
		},
		{
			name: "show",
			args: `{"operation":"show","ref":"HEAD"}`,
			want: []string{"    second", "+alpha two"},
		},
		{
			name: "show defaults to HEAD",
			args: `{"operation":"show"}`,
			want: []string{"    second"},
		},
		{
			name: "branch listing",
			setup: func(t *testing.T, dir string) {
				gitIn(t, dir, "branch", "feature")
			},
			args: `{"operation":"branch"}`,
			want: []string{"* main", "  feature"},
		},
		{
			name: "branch create at a ref",
			args: `{"operation":"branch","create":true,"branch":"fix/login","ref":"HEAD~1"}`,
			want: []string{"done: git branch --end-of-options fix/login HEAD~1"},
			check: func(t *testing.T, dir string) {
				if out := gitIn(t, dir, "branch", "--list"); !strings.Contains(out, "fix/login") {
					t.Errorf("branch not created: %s", out)
				}
			},
		},
		{
			name:  "add",
			setup: func(t *testing.T, dir string) { writeFile(t, filepath.Join(dir, "new.txt"), "n\n") },
			args:  `{"operation":"add","paths":["new.txt"]}`,
			check: func(t *testing.T, dir string) {
				if out := gitIn(t, dir, "status", "--short"); !strings.Contains(out, "A  new.txt") {
					t.Errorf("not staged: %q", out)
				}
			},
		},
		{
			name: "commit",
			setup: func(t *testing.T, dir string) {
				writeFile(t, filepath.Join(dir, "new.txt"), "n\n")
				gitIn(t, dir, "add", "new.txt")
			},
			args: `{"operation":"commit","message":"add new.txt\n\nWith a body."}`,
			want: []string{"add new.txt", "1 file changed"},
			check: func(t *testing.T, dir string) {
				if out := gitIn(t, dir, "log", "-1", "--format=%an <%ae>%n%B"); !strings.Contains(out, "Test Author <author@example.com>\nadd new.txt\n\nWith a body.") {
					t.Errorf("commit = %q", out)
				}
			},
		},
		{
			name: "commit of paths only",
			setup: func(t *testing.T, dir string) {
				writeFile(t, filepath.Join(dir, "a.txt"), "a3\n")
				writeFile(t, filepath.Join(dir, "b.txt"), "b3\n")
			},
			args: `{"operation":"commit","message":"only a","paths":["a.txt"]}`,
			check: func(t *testing.T, dir string) {
				if out := gitIn(t, dir, "status", "--short"); strings.TrimSpace(out) != "M b.txt" {
					t.Errorf("status after commit = %q", out)
				}
			},
		},
		{
			name: "commit with nothing staged fails",
			args: `{"operation":"commit","message":"nothing"}`,
			want: []string{"nothing to commit", "[exit status 1]", "add operation"},
			fail: true,
		},
		{
			name:  "checkout a branch",
			setup: func(t *testing.T, dir string) { gitIn(t, dir, "branch", "feature", "HEAD~1") },
			args:  `{"operation":"checkout","ref":"feature"}`,
			check: func(t *testing.T, dir string) {
				if b := strings.TrimSpace(gitIn(t, dir, "branch", "--show-current")); b != "feature" {
					t.Errorf("on %q", b)
				}
				if got, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(got) != "alpha\n" {
					t.Errorf("a.txt = %q", got)
				}
			},
		},
		{
			name: "checkout create",
			args: `{"operation":"checkout","create":true,"branch":"topic","ref":"HEAD~1"}`,
			check: func(t *testing.T, dir string) {
				if b := strings.TrimSpace(gitIn(t, dir, "branch", "--show-current")); b != "topic" {
					t.Errorf("on %q", b)
				}
			},
		},
		{
			name:  "checkout paths from a ref",
			setup: func(t *testing.T, dir string) { writeFile(t, filepath.Join(dir, "a.txt"), "scratch\n") },
			args:  `{"operation":"checkout","ref":"HEAD~1","paths":["a.txt"]}`,
			check: func(t *testing.T, dir string) {
				if got, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(got) != "alpha\n" {
					t.Errorf("a.txt = %q", got)
				}
			},
		},
		{
			name: "checkout refuses to lose local changes",
			setup: func(t *testing.T, dir string) {
				gitIn(t, dir, "branch", "feature", "HEAD~1")
				writeFile(t, filepath.Join(dir, "a.txt"), "local\n")
			},
			args: `{"operation":"checkout","ref":"feature"}`,
			want: []string{"would be overwritten", "stash local changes"},
			fail: true,
		},
		{
			name:  "switch",
			setup: func(t *testing.T, dir string) { gitIn(t, dir, "branch", "feature") },
			args:  `{"operation":"switch","branch":"feature"}`,
			want:  []string{"Switched to branch 'feature'"},
		},
		{
			name: "switch create",
			args: `{"operation":"switch","branch":"new/work","create":true,"ref":"HEAD~1"}`,
			want: []string{"Switched to a new branch 'new/work'"},
		},
		{
			name:  "stash push and list",
			setup: func(t *testing.T, dir string) { writeFile(t, filepath.Join(dir, "a.txt"), "wip\n") },
			args:  `{"operation":"stash","stash_action":"push","message":"wip on a"}`,
			want:  []string{"Saved working directory"},
			check: func(t *testing.T, dir string) {
				if out := gitIn(t, dir, "stash", "list"); !strings.Contains(out, "wip on a") {
					t.Errorf("stash list = %q", out)
				}
			},
		},
		{
			name: "stash list",
			setup: func(t *testing.T, dir string) {
				writeFile(t, filepath.Join(dir, "a.txt"), "wip\n")
				gitIn(t, dir, "stash", "push", "-m", "saved work")
			},
			args: `{"operation":"stash"}`,
			want: []string{"stash@{0}: On main: saved work"},
		},
		{
			name: "stash pop",
			setup: func(t *testing.T, dir string) {
				writeFile(t, filepath.Join(dir, "a.txt"), "wip\n")
				gitIn(t, dir, "stash", "push")
			},
			args: `{"operation":"stash","stash_action":"pop","ref":"stash@{0}"}`,
			check: func(t *testing.T, dir string) {
				if got, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(got) != "wip\n" {
					t.Errorf("a.txt = %q", got)
				}
			},
		},
		{
			name: "stash apply and drop",
			setup: func(t *testing.T, dir string) {
				writeFile(t, filepath.Join(dir, "a.txt"), "wip\n")
				gitIn(t, dir, "stash", "push")
				gitIn(t, dir, "stash", "apply")
			},
			args: `{"operation":"stash","stash_action":"drop"}`,
			want: []string{"Dropped"},
		},
		{
			name:  "restore the working tree",
			setup: func(t *testing.T, dir string) { writeFile(t, filepath.Join(dir, "b.txt"), "scratch\n") },
			args:  `{"operation":"restore","paths":["b.txt"]}`,
			check: func(t *testing.T, dir string) {
				if got, _ := os.ReadFile(filepath.Join(dir, "b.txt")); string(got) != "beta\n" {
					t.Errorf("b.txt = %q", got)
				}
			},
		},
		{
			name: "restore staged keeps the file",
			setup: func(t *testing.T, dir string) {
				writeFile(t, filepath.Join(dir, "b.txt"), "staged\n")
				gitIn(t, dir, "add", "b.txt")
			},
			args: `{"operation":"restore","paths":["b.txt"],"staged":true}`,
			check: func(t *testing.T, dir string) {
				if out := gitIn(t, dir, "status", "--short"); strings.TrimSpace(out) != "M b.txt" {
					t.Errorf("status = %q", out)
				}
			},
		},
		{
			name: "restore from a ref",
			args: `{"operation":"restore","paths":["a.txt"],"ref":"HEAD~1"}`,
			check: func(t *testing.T, dir string) {
				if got, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(got) != "alpha\n" {
					t.Errorf("a.txt = %q", got)
				}
			},
		},
		{
			name: "unknown ref fails",
			args: `{"operation":"show","ref":"no-such-ref"}`,
			want: []string{"[exit status 128]"},
			fail: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := newRepo(t)
			if tt.setup != nil {
				tt.setup(t, dir)
			}
			res := run(t, newTool(t, dir, Options{}), tt.args)
			if res.Success == tt.fail {
				t.Fatalf("success = %v, want %v: %s%s", res.Success, !tt.fail, res.Output.Text, res.Error)
			}
			text := res.Output.Text
			for _, w := range tt.want {
				if !strings.Contains(text, w) {
					t.Errorf("text does not contain %q:\n%s", w, text)
				}
			}
			if _, ok := res.Output.Data.(Data); !ok {
				t.Errorf("Data = %T", res.Output.Data)
			}
			if tt.check != nil {
				tt.check(t, dir)
			}
		})
	}
}

func TestLogMaxCount(t *testing.T) {
	dir := newRepo(t)
	res := run(t, newTool(t, dir, Options{}), `{"operation":"log","max_count":1}`)
	if strings.Contains(res.Output.Text, "first") {
		t.Fatalf("max_count 1 showed two commits:\n%s", res.Output.Text)
	}
}

func TestAssessTiers(t *testing.T) {
	needGit(t)
	dir := t.TempDir()
	op := newTool(t, dir, Options{})
	tests := []struct {
		name string
		args string
		tier tool.Tier
	}{
		{name: "status", args: `{"operation":"status"}`, tier: tool.Low},
		{name: "diff", args: `{"operation":"diff","staged":true}`, tier: tool.Low},
		{name: "log", args: `{"operation":"log"}`, tier: tool.Low},
		{name: "show", args: `{"operation":"show","ref":"HEAD~2"}`, tier: tool.Low},
		{name: "branch list", args: `{"operation":"branch"}`, tier: tool.Low},
		{name: "stash list", args: `{"operation":"stash"}`, tier: tool.Low},
		{name: "stash list explicit", args: `{"operation":"stash","stash_action":"list"}`, tier: tool.Low},
		{name: "branch create", args: `{"operation":"branch","create":true,"branch":"x"}`, tier: tool.Medium},
		{name: "add", args: `{"operation":"add","paths":["."]}`, tier: tool.Medium},
		{name: "commit", args: `{"operation":"commit","message":"m"}`, tier: tool.Medium},
		{name: "checkout", args: `{"operation":"checkout","ref":"main"}`, tier: tool.Medium},
		{name: "switch", args: `{"operation":"switch","branch":"main"}`, tier: tool.Medium},
		{name: "stash push", args: `{"operation":"stash","stash_action":"push"}`, tier: tool.Medium},
		{name: "stash pop", args: `{"operation":"stash","stash_action":"pop"}`, tier: tool.Medium},
		{name: "stash apply", args: `{"operation":"stash","stash_action":"apply"}`, tier: tool.Medium},
		{name: "stash drop", args: `{"operation":"stash","stash_action":"drop"}`, tier: tool.Medium},
		{name: "restore", args: `{"operation":"restore","paths":["a"]}`, tier: tool.Medium},
		{name: "restore staged", args: `{"operation":"restore","paths":["a"],"staged":true}`, tier: tool.Medium},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			as, err := op.Assess(json.RawMessage(tt.args))
			if err != nil {
				t.Fatal(err)
			}
			if as.Tier != tt.tier || as.Denied {
				t.Fatalf("tier = %v denied = %v, want %v", as.Tier, as.Denied, tt.tier)
			}
			if as.Plan == nil || len(as.Plan.Commands) != 2 {
				t.Fatalf("plan = %+v", as.Plan)
			}
			argv := as.Plan.Commands[1].Argv
			for _, want := range []string{"core.fsmonitor=false", "core.hooksPath=/dev/null", "--git-dir=.git", "--work-tree=."} {
				if !slices.Contains(argv, want) {
					t.Errorf("argv %q lacks %s", argv, want)
				}
			}
			if argv[0] != "git" || argv[1] != "-C" || argv[2] != op.root.Dir() {
				t.Errorf("argv does not start with git -C <workspace>: %q", argv)
			}
			if !filepath.IsAbs(as.Plan.Commands[1].Binary) {
				t.Errorf("binary %q is not absolute", as.Plan.Commands[1].Binary)
			}
			if len(as.Paths) == 0 {
				t.Error("no paths reported")
			}
		})
	}
}

func TestRefusedArguments(t *testing.T) {
	dir := newRepo(t)
	marker := filepath.Join(t.TempDir(), "pwned")
	op := newTool(t, dir, Options{})
	tests := []struct {
		name string
		args string
		want string
	}{
		{name: "ref -c", args: `{"operation":"log","ref":"-c"}`, want: "starts with '-'"},
		{name: "ref --exec", args: `{"operation":"diff","ref":"--exec=touch ` + marker + `"}`, want: "option"},
		{name: "ref --upload-pack", args: `{"operation":"show","ref":"--upload-pack=touch ` + marker + `"}`, want: "option"},
		{name: "ref --output", args: `{"operation":"diff","ref":"--output=` + marker + `"}`, want: "starts with '-'"},
		{name: "checkout ref option", args: `{"operation":"checkout","ref":"-f"}`, want: "starts with '-'"},
		{name: "restore source option", args: `{"operation":"restore","paths":["a.txt"],"ref":"--worktree"}`, want: "starts with '-'"},
		{name: "branch option", args: `{"operation":"switch","branch":"-D"}`, want: "starts with '-'"},
		{name: "ext url", args: `{"operation":"checkout","ref":"ext::sh -c touch% ` + marker + `"}`, want: "remote URL"},
		{name: "scheme url", args: `{"operation":"diff","ref":"https://example.com/repo.git"}`, want: "remote URL"},
		{name: "path above", args: `{"operation":"add","paths":["../outside.txt"]}`, want: "outside the workspace"},
		{name: "absolute path outside", args: `{"operation":"restore","paths":["/etc/passwd"]}`, want: "outside the workspace"},
		{name: "path into .git", args: `{"operation":"add","paths":[".git/config"]}`, want: "inside .git"},
		{name: "path into .GIT", args: `{"operation":"add","paths":["sub/.GIT/hooks"]}`, want: "inside .git"},
		{name: "control character", args: `{"operation":"show","ref":"HEAD\u001b[31m"}`, want: "control character"},
		{name: "push", args: `{"operation":"push"}`, want: "remote"},
		{name: "fetch", args: `{"operation":"fetch"}`, want: "remote"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			as, err := op.Assess(json.RawMessage(tt.args))
			if err != nil && !errors.Is(err, ErrRefused) {
				t.Fatalf("Assess: %v", err)
			}
			if err == nil && (!as.Denied || len(as.Reasons) == 0 || !strings.Contains(as.Reasons[0], tt.want)) {
				t.Fatalf("assessment = %+v, want denied with %q", as, tt.want)
			}
			res := run(t, op, tt.args)
			if res.Success || !strings.Contains(res.Error, tt.want) {
				t.Fatalf("result = %+v, want a failure containing %q", res, tt.want)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Fatal("the marker was written: git ran a program")
			}
		})
	}
}

func TestSymlinkOutRefused(t *testing.T) {
	dir := newRepo(t)
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(dir, "out")); err != nil {
		t.Fatal(err)
	}
	op := newTool(t, dir, Options{})
	res := run(t, op, `{"operation":"add","paths":["out/secret.txt"]}`)
	if res.Success || !strings.Contains(res.Error, "outside") {
		t.Fatalf("result = %+v", res)
	}
}

func TestInvalidArguments(t *testing.T) {
	needGit(t)
	op := newTool(t, t.TempDir(), Options{})
	tests := []struct {
		name string
		args string
		want string
	}{
		{name: "no operation", args: `{}`, want: "operation is required"},
		{name: "unknown operation", args: `{"operation":"rebase"}`, want: "unknown operation"},
		{name: "unknown field", args: `{"operation":"status","force":true}`, want: "unknown field"},
		{name: "field of another operation", args: `{"operation":"status","message":"x"}`, want: "message does not apply to status"},
		{name: "commit without message", args: `{"operation":"commit"}`, want: "needs a message"},
		{name: "commit with blank message", args: `{"operation":"commit","message":"  "}`, want: "needs a message"},
		{name: "add without paths", args: `{"operation":"add"}`, want: "add needs paths"},
		{name: "restore without paths", args: `{"operation":"restore"}`, want: "restore needs paths"},
		{name: "switch without branch", args: `{"operation":"switch"}`, want: "switch needs the branch"},
		{name: "switch with ref only", args: `{"operation":"switch","branch":"a","ref":"HEAD"}`, want: "start point"},
		{name: "branch create without name", args: `{"operation":"branch","create":true}`, want: "needs the new branch"},
		{name: "branch ref without create", args: `{"operation":"branch","ref":"HEAD"}`, want: "lists the branches"},
		{name: "checkout nothing", args: `{"operation":"checkout"}`, want: "checkout needs"},
		{name: "checkout both", args: `{"operation":"checkout","ref":"a","branch":"b"}`, want: "either ref or branch"},
		{name: "max_count zero", args: `{"operation":"log","max_count":0}`, want: "out of range"},
		{name: "bad branch name", args: `{"operation":"switch","branch":"a..b"}`, want: "not a valid branch name"},
		{name: "branch with space", args: `{"operation":"switch","branch":"a b"}`, want: "not a valid branch name"},
		{name: "stash list with message", args: `{"operation":"stash","message":"x"}`, want: "stash list takes"},
		{name: "stash pop with paths", args: `{"operation":"stash","stash_action":"pop","paths":["a"]}`, want: "takes only a ref"},
		{name: "unknown stash action", args: `{"operation":"stash","stash_action":"clear"}`, want: "unknown stash_action"},
		{name: "trailing data", args: `{"operation":"status"} {}`, want: "unexpected data"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := op.Assess(json.RawMessage(tt.args))
			if !errors.Is(err, ErrInvalidArguments) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want ErrInvalidArguments with %q", err, tt.want)
			}
			res := run(t, op, tt.args)
			if res.Success || !strings.Contains(res.Error, tt.want) {
				t.Fatalf("result = %+v", res)
			}
		})
	}
}

// TestHostileRepository plants every way a repository's own files could
// make git run a program during the offered operations. None may run.
func TestHostileRepository(t *testing.T) {
	dir := newRepo(t)
	gitIn(t, dir, "branch", "feature", "HEAD~1")
	markers := t.TempDir()
	script := func(name string) string {
		p := filepath.Join(markers, "bin", name)
		body := "#!/bin/sh\necho ran >> " + filepath.Join(markers, name+".ran") + "\ncat >/dev/null 2>&1 || true\n"
		writeFile(t, p, body)
		if err := os.Chmod(p, 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	hooks := []string{"pre-commit", "prepare-commit-msg", "commit-msg", "post-commit", "post-checkout", "post-index-change", "reference-transaction", "pre-auto-gc", "post-rewrite"}
	hooksDir := filepath.Join(dir, ".git", "hooks")
	altHooks := filepath.Join(markers, "althooks")
	for _, h := range hooks {
		src := script(h)
		body, _ := os.ReadFile(src)
		writeFile(t, filepath.Join(hooksDir, h), string(body))
		writeFile(t, filepath.Join(altHooks, h), string(body))
		for _, p := range []string{filepath.Join(hooksDir, h), filepath.Join(altHooks, h)} {
			if err := os.Chmod(p, 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	gitIn(t, dir, "config", "core.fsmonitor", script("fsmonitor"))
	gitIn(t, dir, "config", "core.hooksPath", altHooks)
	gitIn(t, dir, "config", "diff.external", script("extdiff"))
	gitIn(t, dir, "config", "diff.hostile.textconv", script("textconv"))
	gitIn(t, dir, "config", "core.pager", script("pager"))
	gitIn(t, dir, "config", "pager.log", script("pagerlog"))
	gitIn(t, dir, "config", "gpg.program", script("gpg"))
	gitIn(t, dir, "config", "commit.gpgSign", "true")
	gitIn(t, dir, "config", "log.showSignature", "true")
	gitIn(t, dir, "config", "core.editor", script("editor"))
	writeFile(t, filepath.Join(dir, ".gitattributes"), "*.txt diff=hostile\n")

	op := newTool(t, dir, Options{})
	change := func() { writeFile(t, filepath.Join(dir, "a.txt"), "alpha\nalpha two\nmore\n") }
	steps := []struct {
		before func()
		args   string
	}{
		{change, `{"operation":"status"}`},
		{nil, `{"operation":"diff"}`},
		{nil, `{"operation":"log","max_count":2}`},
		{nil, `{"operation":"show"}`},
		{nil, `{"operation":"add","paths":[".gitattributes","a.txt"]}`},
		{nil, `{"operation":"commit","message":"attributes"}`},
		{nil, `{"operation":"branch","create":true,"branch":"side"}`},
		{nil, `{"operation":"checkout","ref":"feature"}`},
		{nil, `{"operation":"switch","branch":"main"}`},
		{nil, `{"operation":"checkout","create":true,"branch":"topic"}`},
		{nil, `{"operation":"switch","branch":"main"}`},
		{func() { writeFile(t, filepath.Join(dir, "a.txt"), "wip\n") }, `{"operation":"stash","stash_action":"push","message":"wip"}`},
		{nil, `{"operation":"stash","stash_action":"pop"}`},
		{nil, `{"operation":"restore","paths":["a.txt"]}`},
	}
	for _, st := range steps {
		if st.before != nil {
			st.before()
		}
		if res := run(t, op, st.args); !res.Success {
			t.Errorf("%s failed: %s", st.args, res.Error)
		}
	}
	entries, err := os.ReadDir(markers)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".ran") {
			t.Errorf("%s ran: the repository made git run a program", strings.TrimSuffix(e.Name(), ".ran"))
		}
	}
}

func TestRepositoryProgramsRefused(t *testing.T) {
	tests := []struct {
		name   string
		config [][2]string
		args   string
		want   string
	}{
		{name: "clean filter", config: [][2]string{{"filter.evil.clean", "touch MARKER"}}, args: `{"operation":"status"}`, want: "filter.evil.clean"},
		{name: "smudge filter", config: [][2]string{{"filter.evil.smudge", "touch MARKER"}}, args: `{"operation":"checkout","ref":"HEAD~1"}`, want: "filter.evil.smudge"},
		{name: "process filter", config: [][2]string{{"filter.evil.process", "touch MARKER"}}, args: `{"operation":"add","paths":["a.txt"]}`, want: "filter.evil.process"},
		{name: "merge driver on stash pop", config: [][2]string{{"merge.evil.driver", "touch MARKER"}}, args: `{"operation":"stash","stash_action":"pop"}`, want: "merge.evil.driver"},
		{name: "config hook", config: [][2]string{{"hook.evil.command", "touch MARKER"}}, args: `{"operation":"commit","message":"x"}`, want: "hook.evil.command"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := newRepo(t)
			marker := filepath.Join(t.TempDir(), "marker")
			for _, kv := range tt.config {
				gitIn(t, dir, "config", kv[0], strings.ReplaceAll(kv[1], "MARKER", marker))
			}
			writeFile(t, filepath.Join(dir, ".gitattributes"), "* filter=evil merge=evil\n")
			res := run(t, newTool(t, dir, Options{}), tt.args)
			if res.Success || !strings.Contains(res.Error, tt.want) || !strings.Contains(res.Error, "nothing ran") {
				t.Fatalf("result = %+v, want a refusal naming %s", res, tt.want)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Fatal("the configured program ran")
			}
		})
	}
	t.Run("merge driver does not block status", func(t *testing.T) {
		dir := newRepo(t)
		gitIn(t, dir, "config", "merge.evil.driver", "false")
		if res := run(t, newTool(t, dir, Options{}), `{"operation":"status"}`); !res.Success {
			t.Fatalf("status refused: %s", res.Error)
		}
	})
}

func TestPlanMismatchRefused(t *testing.T) {
	dir := newRepo(t)
	writeFile(t, filepath.Join(dir, "b.txt"), "changed\n")
	gitIn(t, dir, "add", "b.txt")
	op := newTool(t, dir, Options{})
	approvedArgs := json.RawMessage(`{"operation":"commit","message":"approved message"}`)
	as, err := op.Assess(approvedArgs)
	if err != nil {
		t.Fatal(err)
	}
	head := gitIn(t, dir, "rev-parse", "HEAD")

	ctx := tool.WithApprovedPlan(context.Background(), as.Plan)
	res, err := op.Execute(ctx, json.RawMessage(`{"operation":"commit","message":"something else"}`))
	if err != nil {
		t.Fatal(err)
	}
	if res.Success || !strings.Contains(res.Error, "approved plan") {
		t.Fatalf("result = %+v", res)
	}
	if got := gitIn(t, dir, "rev-parse", "HEAD"); got != head {
		t.Fatal("a commit was made although the plan differed")
	}

	other := *as.Plan
	other.Commands = slices.Clone(as.Plan.Commands)
	other.Commands[1].Binary = "/usr/local/bin/not-git"
	res, _ = op.Execute(tool.WithApprovedPlan(context.Background(), &other), approvedArgs)
	if res.Success || !strings.Contains(res.Error, "resolves to") {
		t.Fatalf("binary change not refused: %+v", res)
	}

	res, err = op.Execute(ctx, approvedArgs)
	if err != nil || !res.Success {
		t.Fatalf("the approved call failed: %+v %v", res, err)
	}
}

func TestCommitNeedsRepositoryIdentity(t *testing.T) {
	dir := newRepo(t)
	gitIn(t, dir, "config", "--unset", "user.email")
	writeFile(t, filepath.Join(dir, "b.txt"), "changed\n")
	gitIn(t, dir, "add", "b.txt")
	res := run(t, newTool(t, dir, Options{}), `{"operation":"commit","message":"x"}`)
	if res.Success || !strings.Contains(res.Error, "has no user.email (") {
		t.Fatalf("result = %+v", res)
	}
}

func TestNotRepository(t *testing.T) {
	needGit(t)
	parent := newRepo(t)
	sub := filepath.Join(parent, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	res := run(t, newTool(t, sub, Options{}), `{"operation":"status"}`)
	if res.Success || !strings.Contains(res.Error, "top level") || !strings.Contains(res.Error, "git init") {
		t.Fatalf("result = %+v", res)
	}
}

func TestNoGit(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	op := newTool(t, dir, Options{PATH: t.TempDir()})
	if _, err := op.Assess(json.RawMessage(`{"operation":"status"}`)); !errors.Is(err, ErrNoGit) {
		t.Fatalf("Assess err = %v", err)
	}
	if res := run(t, op, `{"operation":"status"}`); res.Success || !strings.Contains(res.Error, "install git") {
		t.Fatalf("result = %+v", res)
	}
}

func TestOutputCapAndTimeout(t *testing.T) {
	dir := newRepo(t)
	res := run(t, newTool(t, dir, Options{MaxOutputBytes: 64}), `{"operation":"show"}`)
	d, _ := res.Output.Data.(Data)
	if !res.Success || !d.Truncated || len(d.Stdout) != 64 || !strings.Contains(res.Output.Text, "truncated at 64 bytes") {
		t.Fatalf("result = %+v", res)
	}
	res = run(t, newTool(t, dir, Options{Timeout: time.Nanosecond}), `{"operation":"status"}`)
	if res.Success || !strings.Contains(res.Error, "timed out") {
		t.Fatalf("result = %+v", res)
	}
}

func TestCanceled(t *testing.T) {
	dir := newRepo(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := newTool(t, dir, Options{}).Execute(ctx, json.RawMessage(`{"operation":"status"}`)); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
}

func TestParseConfig(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want repoConfig
	}{
		{name: "empty", in: ""},
		{name: "identity", in: "user.name\nA B\x00user.email\na@b\x00", want: repoConfig{userName: "A B", userEmail: "a@b"}},
		{name: "drivers", in: "filter.lfs.clean\ngit-lfs clean -- %f\x00merge.x.driver\nfalse\x00hook.y.command\nz\x00",
			want: repoConfig{filters: []string{"filter.lfs.clean"}, mergeDrivers: []string{"merge.x.driver"}, hooks: []string{"hook.y.command"}}},
		{name: "blank filter is off", in: "filter.lfs.clean\n\x00", want: repoConfig{}},
		{name: "key without value", in: "filter.x.smudge\x00", want: repoConfig{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := parseConfig(tt.in)
			if got.userName != tt.want.userName || got.userEmail != tt.want.userEmail ||
				!slices.Equal(got.filters, tt.want.filters) || !slices.Equal(got.mergeDrivers, tt.want.mergeDrivers) || !slices.Equal(got.hooks, tt.want.hooks) {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestQuoteArgv(t *testing.T) {
	got := quoteArgv([]string{"git", "commit", "--message=it's done", "--", "a b.txt", "c.go", ""})
	want := `git commit '--message=it'\''s done' -- 'a b.txt' c.go ''`
	if got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}

func BenchmarkAssess(b *testing.B) {
	needGit(b)
	op := newTool(b, b.TempDir(), Options{})
	args := json.RawMessage(`{"operation":"commit","message":"fix the login form","paths":["a.go","b/c.go"]}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := op.Assess(args); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkExecuteStatus(b *testing.B) {
	dir := newRepo(b)
	op := newTool(b, dir, Options{})
	args := json.RawMessage(`{"operation":"status"}`)
	for b.Loop() {
		res, err := op.Execute(context.Background(), args)
		if err != nil || !res.Success {
			b.Fatal(res.Error, err)
		}
	}
}
