package shellparse

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/talonhq/talon/tool"
)

// Why a known command is high risk.
const (
	whyDestructive = "destructive"
	whyNetwork     = "network access"
	whyPrivilege   = "changes privileges or ownership"
	whySystem      = "changes the system"
	whyRuns        = "runs other commands"
	whyShell       = "runs a shell script"
	whyInterpreter = "runs a program in an interpreter"
	whyEval        = "evaluates inline code"
	whyWrites      = "writes a file"
	whyDetached    = "starts something that outlives the call"
	whyUnknown     = "unknown command"
)

// readOnly commands are low risk: they read and print.
var readOnly = set(
	"ls", "cat", "grep", "egrep", "fgrep", "head", "tail", "wc", "pwd", "echo",
	"df", "du", "uname", "uptime", "cut", "tr", "diff", "stat", "file", "which",
	"printf", "true", "false", "test", "[", "basename", "dirname", "realpath",
	"readlink", "whoami", "id", "nproc", "seq", "printenv", "sha256sum",
	"sha1sum", "md5sum", "cksum", "cmp", "comm", "nl", "rev",
)

// localState commands change local files.
var localState = set("touch", "mkdir", "mv", "cp", "ln")

// highRisk commands, with why.
var highRisk = map[string]string{}

func init() {
	for _, group := range []struct {
		why   string
		names []string
	}{
		{whyDestructive, []string{"rm", "rmdir", "dd", "mkfs", "shred", "wipefs", "fdisk", "parted", "truncate"}},
		{whySystem, []string{"shutdown", "reboot", "halt", "poweroff", "mount", "umount", "iptables",
			"ip6tables", "nft", "systemctl", "service", "kill", "pkill", "killall", "crontab", "launchctl"}},
		{whyPrivilege, []string{"sudo", "su", "doas", "chown", "chmod", "chgrp", "passwd", "useradd", "userdel", "usermod"}},
		{whyNetwork, []string{"curl", "wget", "nc", "ncat", "netcat", "socat", "scp", "sftp", "ssh", "ftp", "telnet", "rsync"}},
		{whyWrites, []string{"tee"}},
		{whyShell, []string{"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "csh", "tcsh"}},
		{whyDetached, []string{"setsid", "daemonize", "screen", "tmux", "at", "batch", "systemd-run", "disown"}},
		{"runs commands built from its input", []string{"xargs"}},
		{"runs the recipes of a Makefile", []string{"make", "gmake"}},
		{"awk programs can run commands and write files", []string{"awk", "gawk", "mawk", "nawk"}},
	} {
		for _, n := range group.names {
			highRisk[n] = group.why
		}
	}
}

func set(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

func lowRisk(subject string) string { return fmt.Sprintf("%q is low risk (read-only)", subject) }

func mediumRisk(subject string) string {
	return fmt.Sprintf("%q is medium risk (changes local state)", subject)
}

func high(subject, why string) (tool.Tier, string) {
	return tool.High, fmt.Sprintf("%q is high risk (%s)", subject, why)
}

// classify returns a command's tier from the tables and its reason.
func (a *Analyzer) classify(argv []string, bin string) (tool.Tier, string) {
	name := argv[0]
	base := filepath.Base(name)
	if strings.ContainsRune(name, '/') {
		if found, _ := a.lookup(base); found == "" || found != bin {
			return high(name, "runs a program by path that PATH lookup does not find")
		}
	}
	switch base {
	case "git":
		return classifyGit(argv)
	case "find":
		return classifyFind(argv)
	case "sed":
		return classifySed(argv)
	case "sort":
		return classifySort(argv)
	case "uniq":
		return classifyUniq(argv)
	case "date":
		return classifyDate(argv)
	case "hostname":
		return classifyHostname(argv)
	case "npm":
		return classifyPackage(argv, set("install", "i", "ci", "add", "remove", "rm", "uninstall", "un", "publish"))
	case "pnpm":
		return classifyPackage(argv, set("install", "i", "add", "remove", "rm", "uninstall", "publish"))
	case "yarn":
		return classifyPackage(argv, set("install", "add", "remove", "publish"))
	case "cargo":
		return classifyPackage(argv, set("add", "install", "publish"))
	}
	if readOnly[base] {
		return tool.Low, lowRisk(base)
	}
	if localState[base] {
		return tool.Medium, mediumRisk(base)
	}
	if why, ok := highRisk[base]; ok {
		return high(base, why)
	}
	if strings.HasPrefix(base, "mkfs.") {
		return high(base, whyDestructive)
	}
	if ev, ok := interpreter(base); ok {
		if flag := ev.evalFlag(argv[1:]); flag != "" {
			return high(base+" "+flag, whyEval)
		}
		return high(base, whyInterpreter)
	}
	return high(base, whyUnknown)
}

// evaluator describes how an interpreter is told to run inline code.
type evaluator struct {
	short  string   // letters of short flags, clusters included
	valued string   // letters of short flags whose value is the rest of the cluster
	long   []string // long flags, alone or with =value
}

var evaluators = map[string]evaluator{
	"python":    {short: "cm", valued: "WX"},
	"node":      {short: "ep", long: []string{"--eval", "--print"}},
	"nodejs":    {short: "ep", long: []string{"--eval", "--print"}},
	"ruby":      {short: "e", valued: "ICEFKTWrx"},
	"perl":      {short: "eE", valued: "IMmxlC0dDi"},
	"php":       {short: "r", long: []string{"--run"}},
	"lua":       {short: "e"},
	"luajit":    {short: "e"},
	"osascript": {short: "e"},
	"deno":      {long: []string{"eval"}},
	"bun":       {short: "e", long: []string{"--eval", "--print"}},
	"Rscript":   {short: "e"},
	"tclsh":     {},
	"pwsh":      {long: []string{"-Command", "-c"}},
	"irb":       {},
}

// interpreter recognises python, python3, python3.12 and the others.
func interpreter(base string) (evaluator, bool) {
	if strings.HasPrefix(base, "python") && strings.Trim(base[len("python"):], "0123456789.") == "" {
		return evaluators["python"], true
	}
	if strings.HasPrefix(base, "perl") && strings.Trim(base[len("perl"):], "0123456789.") == "" {
		return evaluators["perl"], true
	}
	ev, ok := evaluators[base]
	return ev, ok
}

// evalFlag returns the flag that makes the interpreter run inline code,
// looking at options before the script operand.
func (ev evaluator) evalFlag(args []string) string {
	for _, a := range args {
		if a == "--" || a == "-" {
			return ""
		}
		for _, l := range ev.long {
			if a == l || strings.HasPrefix(a, l+"=") {
				return a
			}
		}
		if !strings.HasPrefix(a, "-") {
			if slices.Contains(ev.long, a) {
				return a
			}
			return ""
		}
		if ev.short != "" && !strings.HasPrefix(a, "--") && strings.ContainsAny(shortOpts(a, ev.valued), ev.short) {
			return a
		}
	}
	return ""
}

var gitRead = set("status", "log", "diff", "show", "rev-parse", "ls-files", "blame",
	"describe", "shortlog", "ls-tree", "version", "help")

var gitLocal = set("commit", "push", "reset", "clean", "rebase", "merge", "checkout",
	"switch", "tag", "branch", "add", "restore", "stash", "fetch", "pull", "init", "mv",
	"rm", "cherry-pick", "revert")

// classifyGit reads git's global options and subcommand.
func classifyGit(argv []string) (tool.Tier, string) {
	i := 1
global:
	for ; i < len(argv); i++ {
		a := argv[i]
		switch {
		case a == "-C":
			i++
		case a == "--no-pager" || a == "-P" || a == "-p" || a == "--paginate" ||
			a == "--no-optional-locks" || a == "--no-replace-objects" || a == "--literal-pathspecs" ||
			strings.HasPrefix(a, "--git-dir=") || strings.HasPrefix(a, "--work-tree="):
		case a == "--version" || a == "--help":
			return tool.Low, lowRisk("git " + a)
		case a == "-c" || strings.HasPrefix(a, "-c") || strings.HasPrefix(a, "--config-env") || strings.HasPrefix(a, "--exec-path"):
			return high("git "+a, "sets configuration that can run commands")
		case strings.HasPrefix(a, "-"):
			return high("git "+a, "git option not understood")
		default:
			break global
		}
	}
	if i >= len(argv) {
		return tool.Low, lowRisk("git")
	}
	sub, rest := argv[i], argv[i+1:]
	subject := "git " + sub
	for _, r := range rest {
		if r == "--output" || strings.HasPrefix(r, "--output=") {
			return high(subject+" "+r, whyWrites)
		}
	}
	switch {
	case sub == "branch":
		if gitBranchLists(rest) {
			return tool.Low, lowRisk(subject)
		}
		return tool.Medium, mediumRisk(subject)
	case gitRead[sub]:
		return tool.Low, lowRisk(subject)
	case gitLocal[sub]:
		return tool.Medium, mediumRisk(subject)
	}
	return high(subject, "unknown git subcommand")
}

// gitBranchLists reports a git branch that only lists: no arguments, or
// listing flags only, or --list with patterns.
func gitBranchLists(args []string) bool {
	listing, positional := false, 0
	for _, a := range args {
		switch a {
		case "--list", "-l":
			listing = true
		case "-a", "--all", "-r", "--remotes", "-v", "-vv", "--verbose", "--show-current",
			"--no-color", "--color", "--column", "--no-column", "-i", "--ignore-case", "--no-abbrev", "--omit-empty":
		default:
			if hasAnyPrefix(a, "--sort=", "--format=", "--color=", "--abbrev=", "--contains", "--no-contains", "--merged", "--no-merged", "--points-at") {
				continue
			}
			if strings.HasPrefix(a, "-") {
				return false
			}
			positional++
		}
	}
	return positional == 0 || listing
}

func hasAnyPrefix(s string, prefixes ...string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// classifyFind: low unless an action runs commands, deletes or writes.
func classifyFind(argv []string) (tool.Tier, string) {
	for _, a := range argv[1:] {
		switch a {
		case "-exec", "-execdir", "-ok", "-okdir":
			return high("find "+a, whyRuns)
		case "-delete":
			return high("find "+a, whyDestructive)
		case "-fprint", "-fprint0", "-fprintf", "-fls":
			return high("find "+a, whyWrites)
		}
	}
	return tool.Low, lowRisk("find")
}

// classifySort: -o writes a file, --compress-program runs one.
func classifySort(argv []string) (tool.Tier, string) {
	for _, a := range argv[1:] {
		switch {
		case a == "--":
			return tool.Low, lowRisk("sort")
		case a == "--output" || strings.HasPrefix(a, "--output="):
			return high("sort "+a, whyWrites)
		case strings.HasPrefix(a, "--compress-program"):
			return high("sort "+a, whyRuns)
		case strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.ContainsRune(shortOpts(a, "kStT"), 'o'):
			return high("sort -o", whyWrites)
		}
	}
	return tool.Low, lowRisk("sort")
}

// shortOpts returns the option letters of a short cluster, stopping at the
// first letter in valued (whose value is the rest of the cluster).
func shortOpts(cluster, valued string) string {
	for i := 1; i < len(cluster); i++ {
		if strings.IndexByte(valued, cluster[i]) >= 0 {
			return cluster[1 : i+1]
		}
	}
	return cluster[1:]
}

// classifyUniq: a second operand is an output file.
func classifyUniq(argv []string) (tool.Tier, string) {
	operands := 0
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		switch {
		case a == "-f" || a == "-s" || a == "-w":
			i++
		case a == "-" || !strings.HasPrefix(a, "-"):
			operands++
		}
	}
	if operands >= 2 {
		return high("uniq", whyWrites)
	}
	return tool.Low, lowRisk("uniq")
}

// classifyDate: -s and --set change the clock.
func classifyDate(argv []string) (tool.Tier, string) {
	for _, a := range argv[1:] {
		if a == "--set" || strings.HasPrefix(a, "--set=") ||
			strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.ContainsRune(shortOpts(a, "dfrI"), 's') {
			return high("date "+a, whySystem)
		}
	}
	return tool.Low, lowRisk("date")
}

// classifyHostname: an operand or a file sets the host name.
func classifyHostname(argv []string) (tool.Tier, string) {
	for _, a := range argv[1:] {
		if !strings.HasPrefix(a, "-") || a == "-F" || a == "-b" || a == "--boot" || strings.HasPrefix(a, "--file") {
			return high("hostname "+a, whySystem)
		}
	}
	return tool.Low, lowRisk("hostname")
}

// classifyPackage: the listed subcommands change local state; every other
// one (run, exec, test, build) may run package scripts.
func classifyPackage(argv []string, local map[string]bool) (tool.Tier, string) {
	base := filepath.Base(argv[0])
	for _, a := range argv[1:] {
		if strings.HasPrefix(a, "-") {
			continue
		}
		if local[a] {
			return tool.Medium, mediumRisk(base + " " + a)
		}
		return high(base+" "+a, "runs package scripts or an unknown subcommand")
	}
	if base == "yarn" {
		return tool.Medium, mediumRisk("yarn")
	}
	return high(base, "runs package scripts or an unknown subcommand")
}
