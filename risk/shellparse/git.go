package shellparse

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/talonhq/talon/tool"
)

// git's tables. git 2.39 accepts abbreviated long options for the commands
// built on parse-options (status, branch, describe, ls-tree, reset, ...)
// and not for log, diff and show. The tables are not complete, so an
// abbreviation is read only when it selects an option that raises the tier
// (git diff --textc is --textconv); one that could be several options is
// ambiguous (git log --outp=x could be --output) and any other is not
// understood. Every one of them is high.

// gitDiffOpts are the diff options of diff, log and show.
const gitDiffOpts = `
	p u|patch s|no-patch U=|unified= output=!w output-indicator-new= output-indicator-old=
	output-indicator-context= raw patch-with-raw indent-heuristic no-indent-heuristic minimal
	patience histogram anchored= diff-algorithm= stat=? stat-width= stat-name-width=
	stat-graph-width= stat-count= compact-summary numstat shortstat X=?|dirstat=? cumulative
	dirstat-by-file=? summary patch-with-stat z name-only name-status submodule=? color=? no-color
	color-moved=? no-color-moved color-moved-ws= no-color-moved-ws word-diff=? word-diff-regex=
	color-words=? no-renames rename-empty no-rename-empty check ws-error-highlight= full-index
	binary abbrev=? no-abbrev B=?|break-rewrites=? M=?|find-renames=? C=?|find-copies=?
	find-copies-harder D|irreversible-delete l= diff-filter= S= G= find-object= pickaxe-all
	pickaxe-regex O= skip-to= rotate-to= R relative=? no-relative a|text ignore-cr-at-eol
	ignore-space-at-eol b|ignore-space-change w|ignore-all-space ignore-blank-lines
	I=|ignore-matching-lines= inter-hunk-context= W|function-context no-function-context exit-code
	quiet ext-diff!r no-ext-diff textconv!r no-textconv ignore-submodules=? src-prefix= dst-prefix=
	no-prefix line-prefix= ita-invisible-in-index ita-visible-in-index h help!r`

// gitRevOpts are the commit selection and formatting options of log and
// show.
const gitRevOpts = `
	n=|max-count= skip= since= after= since-as-filter= until= before= author= committer=
	grep-reflog= grep= all-match invert-grep i|regexp-ignore-case basic-regexp E|extended-regexp
	F|fixed-strings P|perl-regexp remove-empty merges no-merges min-parents= max-parents=
	no-min-parents no-max-parents first-parent exclude-first-parent-only not all branches=? tags=?
	remotes=? glob= exclude= reflog single-worktree ignore-missing bisect cherry-mark cherry-pick
	left-only right-only cherry g|walk-reflogs merge boundary simplify-by-decoration show-pulls
	full-history dense sparse simplify-merges ancestry-path=? date-order author-date-order
	topo-order reverse no-walk=? do-walk pretty=? format= abbrev-commit no-abbrev-commit oneline
	encoding= expand-tabs=? no-expand-tabs notes=? no-notes show-notes=? standard-notes
	no-standard-notes show-signature!r relative-date date= parents children left-right graph
	no-graph c cc m diff-merges= no-diff-merges combined-all-paths remerge-diff follow decorate=?
	no-decorate decorate-refs= decorate-refs-exclude= clear-decorations source mailmap no-mailmap
	use-mailmap no-use-mailmap full-diff log-size L=`

var gitWhy = map[string]string{
	"ext-diff": "runs the external diff program that configuration names",
	"textconv": "runs the textconv programs that configuration names",
	"help":     "opens the manual with a viewer program",
}

var gitWhyRev = map[string]string{
	"ext-diff":       gitWhy["ext-diff"],
	"textconv":       gitWhy["textconv"],
	"help":           gitWhy["help"],
	"show-signature": "runs gpg to check signatures",
}

// gitCmd is how one git subcommand is judged.
type gitCmd struct {
	// tier is the tier when every word is understood and none raises it.
	tier tool.Tier
	// why is the reason of a subcommand that is high whatever its words.
	why string
	// g reads the words after the subcommand; nil means they do not
	// matter (a high subcommand).
	g *grammar
	// check decides from the parsed words, when set.
	check func(a *Analyzer, dir string, p *parsed) (tool.Tier, string)
	// subs are the sub-subcommands (stash list, remote add), by name;
	// "" is the subcommand alone or followed by options.
	subs map[string]gitCmd
}

var gitCmds map[string]gitCmd

// lenient marks a table read by scan: words it does not know keep the
// subcommand's tier (it already asks); only its own options count.
func lenient(g *grammar) *grammar {
	g.lenient = true
	return g
}

func gitTable(cmd, opts string, why map[string]string, numeric bool) *grammar {
	return spec{cmd: cmd, opts: opts, why: why, numeric: numeric, endOfOptions: true}.compile()
}

func compileGitTables() {
	low := func(g *grammar) gitCmd { return gitCmd{tier: tool.Low, g: g} }
	medium := func(g *grammar) gitCmd { return gitCmd{tier: tool.Medium, g: lenient(g)} }
	highWhy := func(why string) gitCmd { return gitCmd{tier: tool.High, why: why} }
	const remoteWhy = "talks to a remote repository"
	gitCmds = map[string]gitCmd{
		"status": low(gitTable("git status", `s|short b|branch show-stash porcelain=? long v|verbose
			u=?|untracked-files=? ignore-submodules=? ignored=? z column=? no-column ahead-behind
			no-ahead-behind renames no-renames find-renames=? h help!r`, gitWhy, false)),
		"log":  low(gitTable("git log", gitDiffOpts+gitRevOpts, gitWhyRev, true)),
		"show": low(gitTable("git show", gitDiffOpts+gitRevOpts, gitWhyRev, true)),
		"diff": low(gitTable("git diff", gitDiffOpts+` cached staged merge-base no-index 1|base 2|ours
			3|theirs 0`, gitWhy, false)),
		"rev-parse": low(gitTable("git rev-parse", `verify q|quiet sq short=? abbrev-ref=? symbolic
			symbolic-full-name all branches=? tags=? remotes=? glob= exclude= exclude-hidden=
			disambiguate= local-env-vars resolve-git-dir= git-dir git-common-dir absolute-git-dir
			is-inside-git-dir is-inside-work-tree is-bare-repository is-shallow-repository
			show-toplevel show-prefix show-cdup show-superproject-working-tree shared-index-path
			show-object-format=? git-path= since= after= until= before= default= prefix= revs-only
			no-revs flags no-flags not sq-quote keep-dashdash stop-at-non-option path-format= h`, nil, false)),
		"ls-files": low(gitTable("git ls-files", `c|cached d|deleted m|modified o|others i|ignored
			s|stage u|unmerged k|killed z t v f directory no-empty-directory eol x=|exclude=
			X=|exclude-from= exclude-per-directory= exclude-standard error-unmatch with-tree= full-name
			recurse-submodules abbrev=? debug deduplicate sparse format= h help!r`, gitWhy, false)),
		"blame": low(gitTable("git blame", `b root show-stats score-debug f|show-name n|show-number
			p|porcelain line-porcelain l t s e|show-email w L= S= reverse=? first-parent progress
			no-progress M=? C=? since= incremental encoding= contents= date= abbrev=? ignore-rev=
			ignore-revs-file= color-lines color-by-age minimal c textconv!r no-textconv h help!r`, gitWhy, false)),
		"describe": low(gitTable("git describe", `all tags contains abbrev= candidates= exact-match
			debug long match= exclude= always first-parent dirty=? broken=? h help!r`, gitWhy, false)),
		"shortlog": low(gitTable("git shortlog", `n|numbered s|summary e|email c|committer w=?
			format= group= all since= after= until= before= author= no-merges merges first-parent
			branches=? tags=? remotes=? max-count= skip= reverse h help!r`, gitWhy, false)),
		"ls-tree": low(gitTable("git ls-tree", `d r t l|long z name-only name-status object-only
			full-name full-tree abbrev=? format= h help!r`, gitWhy, false)),
		"version": low(gitTable("git version", `build-options h`, nil, false)),
		"rev-list": low(gitTable("git rev-list", gitRevOpts+` count objects objects-edge timestamp
			header h help!r`, gitWhyRev, true)),
		"cat-file": low(spec{cmd: "git cat-file", endOfOptions: true, maxOperands: 2, opts: `e p t s
			allow-unknown-type use-mailmap mailmap batch=? batch-check=? batch-command=?
			batch-all-objects z buffer follow-symlinks unordered textconv!r filters!r path= h help!r`,
			why: map[string]string{"textconv": gitWhy["textconv"], "filters": "runs the filter programs that configuration names",
				"help": gitWhy["help"]}}.compile()),
		"grep": low(gitTable("git grep", `cached no-index untracked exclude-standard no-exclude-standard
			recurse-submodules v|invert-match i|ignore-case w|word-regexp a|text I textconv!r no-textconv
			r|recursive max-depth= E|extended-regexp G|basic-regexp F|fixed-strings P|perl-regexp
			n|line-number column h H full-name l|files-with-matches name-only L|files-without-match
			z|null o|only-matching c|count color=? no-color break heading C=|context= B=|before-context=
			A=|after-context= threads= p|show-function W|function-context f= e= and or not q|quiet
			all-match O=?|open-files-in-pager=?!r ext-grep m=|max-count= help!r`,
			map[string]string{"textconv": gitWhy["textconv"], "O": "runs a pager program on the files",
				"help": gitWhy["help"]}, true)),
		"config": {tier: tool.Low, check: gitConfigReads, g: gitTable("git config", `global system local
			worktree f=|file= blob= get get-all get-regexp get-urlmatch l|list get-color get-colorbool
			t=|type= bool int bool-or-int bool-or-str path expiry-date z|null name-only includes
			no-includes show-origin show-scope default= fixed-value
			replace-all!x add!x unset!x unset-all!x rename-section!x remove-section!x e|edit!r h help!r`,
			map[string]string{"replace-all": gitConfigWhy, "add": gitConfigWhy, "unset": gitConfigWhy,
				"unset-all": gitConfigWhy, "rename-section": gitConfigWhy, "remove-section": gitConfigWhy,
				"e": "opens an editor", "help": gitWhy["help"]}, false)},
		"help": {tier: tool.Low, g: spec{cmd: "git help", operands: gitHelpOperands, opts: `a|all g|guides
			no-external-commands no-aliases verbose c|config m|man!r w|web!r i|info!r`,
			why: map[string]string{"m": gitWhy["help"], "w": gitWhy["help"], "i": gitWhy["help"]}}.compile()},
		"branch": {tier: tool.Low, check: gitListOrCreate("--list"), g: gitTable("git branch", `
			a|all r|remotes v|verbose l|list show-current color=? no-color column=? no-column
			i|ignore-case abbrev=? no-abbrev sort= format= contains= no-contains= merged= no-merged=
			points-at= omit-empty q|quiet
			d|delete!l D!d f|force!d m|move!l M!d c|copy!l C!d u=|set-upstream-to=!l unset-upstream!l
			t=?|track=?!l no-track!l create-reflog!l recurse-submodules!l edit-description!r h help!r`,
			map[string]string{"D": "deletes a branch whether or not it was merged",
				"f": "overwrites or deletes a branch whatever its state", "M": "renames over an existing branch",
				"C": "copies over an existing branch", "edit-description": "opens an editor", "help": gitWhy["help"]}, false)},
		"tag": {tier: tool.Low, check: gitListOrCreate("--list"), g: gitTable("git tag", `
			l|list n=? sort= contains= no-contains= merged= no-merged= points-at= format= column=?
			no-column i|ignore-case color=? omit-empty
			v|verify!r a|annotate!l m=|message=!l F=|file=!l e|edit!l cleanup=!l create-reflog!l
			s|sign!r u=|local-user=!r no-sign!l f|force!l d|delete!l trailer=!l h help!r`,
			map[string]string{"v": "runs gpg to check signatures", "s": "runs gpg to sign",
				"u": "runs gpg to sign", "help": gitWhy["help"]}, false)},
		"checkout": {tier: tool.Medium, check: gitCheckout, g: gitTable("git checkout", `
			b=!l B=!l orphan=!l l!l t|track=?!l no-track!l d|detach!l guess no-guess overlay
			no-overlay q|quiet progress no-progress recurse-submodules=? no-recurse-submodules
			ignore-skip-worktree-bits ignore-other-worktrees overwrite-ignore no-overwrite-ignore
			f|force!d m|merge!d conflict=!d p|patch!d 2|ours!d 3|theirs!d pathspec-from-file=!d
			pathspec-file-nul h help!r`,
			map[string]string{"f": "throws away local changes", "m": "merges local changes into the checkout",
				"conflict": "recreates conflicted files", "p": "discards changes to files",
				"2": "discards changes to files", "3": "discards changes to files",
				"pathspec-from-file": "restores files, discarding their changes", "help": gitWhy["help"]}, false)},
		"switch": {tier: tool.Medium, g: gitTable("git switch", `c=|create=!l C=|force-create=!l
			d|detach!l guess no-guess f|force|discard-changes!d m|merge!d conflict=!l q|quiet progress
			no-progress t=?|track=?!l no-track orphan=!l ignore-other-worktrees overwrite-ignore
			no-overwrite-ignore recurse-submodules=? no-recurse-submodules h help!r`,
			map[string]string{"f": "throws away local changes", "m": "merges local changes into the switch", "help": gitWhy["help"]}, false)},
		"reset": {tier: tool.Medium, g: gitTable("git reset", `q|quiet no-refresh refresh mixed soft
			hard!d merge!d keep!d recurse-submodules=? no-recurse-submodules p|patch N|intent-to-add
			pathspec-from-file= pathspec-file-nul h help!r`,
			map[string]string{"hard": "discards uncommitted changes", "merge": "discards uncommitted changes",
				"keep": "moves the branch and can discard commits", "help": gitWhy["help"]}, false)},
		"commit": medium(gitTable("git commit", `m=|message= F=|file= C=|reuse-message=
			c=|reedit-message= t=|template= u=?|untracked-files=? S=?|gpg-sign=?!r`,
			map[string]string{"S": "runs gpg to sign"}, false)),
		"add":  medium(gitTable("git add", `chmod= pathspec-from-file=`, nil, false)),
		"init": medium(gitTable("git init", `template=!r b=|initial-branch=`, map[string]string{"template": "copies hooks from a template directory"}, false)),
		"merge": medium(gitTable("git merge", `m=|message= F=|file= s=|strategy=!r X=|strategy-option=
			S=?|gpg-sign=?!r log=? cleanup= into-name=`,
			map[string]string{"s": "runs a merge strategy program", "S": "runs gpg to sign"}, false)),
		"rebase": medium(gitTable("git rebase", `x=|exec=!r i|interactive!r S=?|gpg-sign=?!r
			s=|strategy=!r X=|strategy-option= onto= C= whitespace= empty= r=?|rebase-merges=?`,
			map[string]string{"x": "runs commands after each commit", "i": "opens an editor on the todo list",
				"S": "runs gpg to sign", "s": "runs a merge strategy program"}, false)),
		"cherry-pick": medium(gitTable("git cherry-pick", `m=|mainline= strategy=!r X=|strategy-option=
			S=?|gpg-sign=?!r cleanup=`, map[string]string{"strategy": "runs a merge strategy program", "S": "runs gpg to sign"}, false)),
		"revert": medium(gitTable("git revert", `m=|mainline= strategy=!r X=|strategy-option=
			S=?|gpg-sign=?!r cleanup=`, map[string]string{"strategy": "runs a merge strategy program", "S": "runs gpg to sign"}, false)),
		"mv": medium(gitTable("git mv", `f|force!d`, map[string]string{"f": "overwrites an existing file"}, false)),
		"rm": medium(gitTable("git rm", `f|force!d pathspec-from-file=`, map[string]string{"f": "deletes files with uncommitted changes"}, false)),
		"stash": {tier: tool.Medium, g: lenient(gitTable("git stash", `m=|message= pathspec-from-file=`, nil, false)),
			subs: map[string]gitCmd{
				"list":   {tier: tool.Low, g: gitTable("git stash list", "", nil, false)},
				"show":   medium(gitTable("git stash show", "", nil, false)),
				"drop":   highWhy("deletes stashed changes for good"),
				"clear":  highWhy("deletes stashed changes for good"),
				"push":   medium(gitTable("git stash push", `m=|message= pathspec-from-file=`, nil, false)),
				"save":   medium(gitTable("git stash save", "", nil, false)),
				"pop":    medium(gitTable("git stash pop", "", nil, false)),
				"apply":  medium(gitTable("git stash apply", "", nil, false)),
				"branch": medium(gitTable("git stash branch", "", nil, false)),
				"create": medium(gitTable("git stash create", "", nil, false)),
				"store":  medium(gitTable("git stash store", `m=|message=`, nil, false)),
			}},
		"remote": {tier: tool.Low, g: gitTable("git remote", `v|verbose`, nil, false),
			subs: map[string]gitCmd{
				"get-url":      {tier: tool.Low, g: gitTable("git remote get-url", `push all`, nil, false)},
				"add":          medium(gitTable("git remote add", `t= m= f|fetch!n`, map[string]string{"f": "fetches from the new remote"}, false)),
				"rename":       medium(gitTable("git remote rename", "", nil, false)),
				"remove":       medium(gitTable("git remote remove", "", nil, false)),
				"rm":           medium(gitTable("git remote rm", "", nil, false)),
				"set-head":     medium(gitTable("git remote set-head", `a|auto!n`, map[string]string{"a": "asks the remote for its default branch"}, false)),
				"set-branches": medium(gitTable("git remote set-branches", "", nil, false)),
				"set-url":      medium(gitTable("git remote set-url", "", nil, false)),
				"show":         highWhy(remoteWhy),
				"update":       highWhy(remoteWhy),
				"prune":        highWhy(remoteWhy),
			}},
		"reflog": {tier: tool.Low, g: gitTable("git reflog", gitDiffOpts+gitRevOpts, gitWhyRev, true),
			subs: map[string]gitCmd{
				"show":   {tier: tool.Low, g: gitTable("git reflog show", gitDiffOpts+gitRevOpts, gitWhyRev, true)},
				"exists": {tier: tool.Low, g: gitTable("git reflog exists", "", nil, false)},
				"expire": highWhy("deletes reflog entries for good"),
				"delete": highWhy("deletes reflog entries for good"),
			}},
		"push":          highWhy("changes a remote repository"),
		"pull":          highWhy(remoteWhy + " and merges what it fetched"),
		"fetch":         highWhy(remoteWhy),
		"clone":         highWhy(remoteWhy),
		"ls-remote":     highWhy(remoteWhy),
		"archive":       highWhy("writes an archive or talks to a remote repository"),
		"submodule":     highWhy("talks to remote repositories and runs the update commands configuration names"),
		"clean":         highWhy("deletes untracked files"),
		"restore":       highWhy("discards changes to files"),
		"gc":            highWhy("prunes unreachable objects for good"),
		"prune":         highWhy("prunes unreachable objects for good"),
		"update-ref":    highWhy("rewrites refs directly"),
		"filter-branch": highWhy("rewrites history"),
		"filter-repo":   highWhy("rewrites history"),
		"replace":       highWhy("rewrites what objects git shows"),
		"worktree":      highWhy("creates or deletes working trees"),
		"bisect":        highWhy("runs commands and moves HEAD"),
	}
}

const gitConfigWhy = "changes configuration, which can name programs git runs"

// gitConfigReads: git config is low only when it reads (--get, --get-all,
// --get-regexp, --get-urlmatch, --list, --get-color, --get-colorbool);
// NAME VALUE without them sets a value.
func gitConfigReads(_ *Analyzer, _ string, p *parsed) (tool.Tier, string) {
	for _, read := range []string{"--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list", "--get-color", "--get-colorbool"} {
		if p.has(read) {
			return tool.Low, ""
		}
	}
	return tool.High, fmt.Sprintf("%q is high risk (%s)", "git config", gitConfigWhy)
}

// gitHelpOperands: git help NAME opens a manual page.
func gitHelpOperands(ops []string) (effect, string, string) {
	if len(ops) > 0 {
		return runs, ops[0], gitWhy["help"]
	}
	return reads, "", ""
}

// gitListOrCreate is branch's and tag's rule: without options that change
// anything, operands are new names unless listing was asked for.
func gitListOrCreate(list string) func(*Analyzer, string, *parsed) (tool.Tier, string) {
	return func(_ *Analyzer, _ string, p *parsed) (tool.Tier, string) {
		if len(p.operands) == 0 || p.has(list) {
			return tool.Low, ""
		}
		return tool.Medium, ""
	}
}

// gitCheckout: with -b, -B or --orphan it creates a branch; with paths
// (after --, several operands, or one that names a file) it restores
// files and discards their changes; with one revision it switches.
func gitCheckout(a *Analyzer, dir string, p *parsed) (tool.Tier, string) {
	if p.has("-b") || p.has("-B") || p.has("--orphan") {
		if len(p.operands) <= 1 && p.dashdash < 0 {
			return tool.Medium, ""
		}
	}
	switch {
	case p.dashdash >= 0:
		return tool.High, fmt.Sprintf("%q is high risk (restores files, discarding their changes)", "git checkout --")
	case len(p.operands) > 1:
		return tool.High, fmt.Sprintf("%q is high risk (restores files, discarding their changes)", "git checkout "+p.operands[1])
	case len(p.operands) == 1:
		op := p.operands[0]
		if op == "." || strings.ContainsAny(op, "*?[:") || pathExists(dir, op) {
			return tool.High, fmt.Sprintf("%q is high risk (%q names files: it restores them, discarding their changes)", "git checkout "+op, op)
		}
	}
	return tool.Medium, ""
}

func pathExists(dir, p string) bool {
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	_, err := os.Lstat(p)
	return err == nil
}

// classifyGit reads git's global options, then its subcommand.
func (a *Analyzer) classifyGit(argv []string) (tool.Tier, string) {
	dir := a.dir
	i := 1
global:
	for ; i < len(argv); i++ {
		arg := argv[i]
		name, val, hasVal := strings.Cut(arg, "=")
		switch {
		case arg == "-C":
			i++
			if i < len(argv) {
				if filepath.IsAbs(argv[i]) {
					dir = argv[i]
				} else {
					dir = filepath.Join(dir, argv[i])
				}
			}
		case arg == "--no-pager" || arg == "-P" || arg == "--no-optional-locks" ||
			arg == "--no-replace-objects" || arg == "--literal-pathspecs" || arg == "--glob-pathspecs" ||
			arg == "--noglob-pathspecs" || arg == "--icase-pathspecs" ||
			arg == "--html-path" || arg == "--man-path" || arg == "--info-path":
		case name == "--git-dir" || name == "--work-tree" || name == "--namespace":
			if !hasVal {
				i++
				if i >= len(argv) {
					return tool.High, fmt.Sprintf("%q of git needs a value", arg)
				}
				val = argv[i]
			}
			if name != "--namespace" && !insideWorkspace(val) {
				return high("git "+name+"="+val, "names a repository outside the working directory")
			}
		case arg == "--version" || arg == "-v":
			return tool.Low, lowRisk("git " + arg)
		case arg == "--help" || arg == "-h":
			if i+1 < len(argv) {
				return high("git "+arg+" "+argv[i+1], gitWhy["help"])
			}
			return tool.Low, lowRisk("git " + arg)
		case arg == "-p" || arg == "--paginate":
			return high("git "+arg, "runs the pager program")
		case strings.HasPrefix(arg, "-c") || strings.HasPrefix(arg, "--config-env") || strings.HasPrefix(arg, "--exec-path"):
			return high("git "+arg, "sets configuration that can run commands")
		case strings.HasPrefix(arg, "-"):
			return tool.High, fmt.Sprintf("%q is not an option talon knows for git", arg)
		default:
			break global
		}
	}
	if i >= len(argv) {
		return tool.Low, lowRisk("git")
	}
	loadTables()
	return a.gitSub(gitCmds, "git", argv[i], argv[i+1:], dir)
}

// insideWorkspace accepts a relative path that stays below the working
// directory.
func insideWorkspace(p string) bool {
	if p == "" || filepath.IsAbs(p) || strings.HasPrefix(p, "-") {
		return false
	}
	for _, part := range strings.Split(filepath.ToSlash(p), "/") {
		if part == ".." {
			return false
		}
	}
	return true
}

// gitSub judges one subcommand (or sub-subcommand) and its words.
func (a *Analyzer) gitSub(cmds map[string]gitCmd, parent, sub string, rest []string, dir string) (tool.Tier, string) {
	c, ok := cmds[sub]
	if !ok {
		if parent == "git" {
			return high(parent+" "+sub, "unknown git subcommand")
		}
		return high(parent+" "+sub, "unknown "+parent+" subcommand")
	}
	if c.g == nil {
		return high(parent+" "+sub, c.why)
	}
	if c.subs != nil && len(rest) > 0 && !strings.HasPrefix(rest[0], "-") {
		return a.gitSub(c.subs, c.g.cmd, rest[0], rest[1:], dir)
	}
	var p parsed
	if c.g.lenient {
		p = c.g.scan(rest)
	} else {
		p = c.g.parse(rest)
	}
	tier, why := c.g.verdict(&p)
	if tier == tool.High {
		return tier, why
	}
	if c.check != nil {
		if ctier, cwhy := c.check(a, dir, &p); ctier > tier {
			tier, why = ctier, cwhy
		}
	}
	if c.tier > tier {
		tier, why = c.tier, ""
	}
	switch {
	case tier == tool.Low:
		why = c.g.low
	case why != "":
	case tier == tool.Medium:
		why = mediumRisk(c.g.cmd)
	default:
		why = strconv.Quote(c.g.cmd) + " is high risk"
	}
	return tier, why
}

// scan reads args leniently: options the table knows are read as parse
// reads them; other words are skipped. An abbreviation that could be an
// option with an effect counts as the most dangerous of them.
func (g *grammar) scan(args []string) parsed {
	p := parsed{dashdash: -1}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--" || a == "--end-of-options":
			p.dashdash = len(p.operands)
			p.operands = append(p.operands, args[i+1:]...)
			return p
		case len(a) < 2 || a[0] != '-':
			p.operands = append(p.operands, a)
		case a[1] == '-':
			name, _, hasVal := strings.Cut(a[2:], "=")
			var worst *spelling
			for _, sp := range g.long {
				if strings.HasPrefix(sp.name, name) && name != "" &&
					(worst == nil || sp.opt.effect.tier() > worst.opt.effect.tier() || sp.name == name) {
					worst = sp
					if sp.name == name {
						break
					}
				}
			}
			if worst == nil {
				continue
			}
			u := use{word: a, as: a[:2+len(name)], sp: worst}
			if worst.arg == argRequired && !hasVal && i+1 < len(args) {
				i++
				u.value = args[i]
			}
			p.uses = append(p.uses, u)
		default:
			for j := 1; j < len(a); j++ {
				sp := g.short[a[j]&127]
				if sp == nil || a[j] >= 128 {
					continue
				}
				p.uses = append(p.uses, use{word: a, as: dashed(a[j]), sp: sp})
				if sp.arg == argRequired && j+1 == len(a) && i+1 < len(args) {
					i++
					break
				}
				if sp.arg != argNone {
					break
				}
			}
		}
	}
	return p
}
