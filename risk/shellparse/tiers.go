package shellparse

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
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

func lowRisk(subject string) string { return strconv.Quote(subject) + " is low risk (read-only)" }

func mediumRisk(subject string) string {
	return strconv.Quote(subject) + " is medium risk (changes local state)"
}

func high(subject, why string) (tool.Tier, string) {
	return tool.High, fmt.Sprintf("%q is high risk (%s)", subject, why)
}

// classify returns a command's tier from the tables and its reason.
func (a *Analyzer) classify(argv []string, bin string) (tool.Tier, string) {
	name := argv[0]
	base := filepath.Base(name)
	if strings.ContainsRune(name, '/') {
		if found, _, _ := a.lookup(base); found == "" || found != bin {
			return high(name, "runs a program by path that PATH lookup does not find")
		}
	}
	switch base {
	case "git":
		return a.classifyGit(argv)
	case "find":
		return classifyFind(argv)
	case "sed":
		return classifySed(argv)
	case "npm":
		return classifyPackage(argv, set("install", "i", "ci", "add", "remove", "rm", "uninstall", "un", "publish"))
	case "pnpm":
		return classifyPackage(argv, set("install", "i", "add", "remove", "rm", "uninstall", "publish"))
	case "yarn":
		return classifyPackage(argv, set("install", "add", "remove", "publish"))
	case "cargo":
		return classifyPackage(argv, set("add", "install", "publish"))
	}
	loadTables()
	if g := grammars[base]; g != nil {
		return g.judge(argv)
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

// InlineEval says whether argv runs code written in its own arguments,
// and which word does: an interpreter's inline-code flag (python -c,
// node -e, perl -e, ...), a shell with -c, awk's program, sed with a
// program that runs commands or writes files, xargs, find -exec and its
// kin, git -c. Such a command line is the program itself, so an approval
// of it is never kept as a rule.
func InlineEval(argv []string) (string, bool) {
	if len(argv) == 0 {
		return "", false
	}
	base := filepath.Base(argv[0])
	switch base {
	case "awk", "gawk", "mawk", "nawk":
		return base + " runs the program in its arguments", true
	case "xargs":
		return "xargs runs commands built from its input", true
	case "sed":
		if tier, _ := classifySed(argv); tier != tool.Low {
			return "sed with a program that runs commands or writes files", true
		}
	case "find":
		for _, a := range argv[1:] {
			switch a {
			case "-exec", "-execdir", "-ok", "-okdir":
				return "find " + a + " runs a command", true
			}
		}
	case "git":
		for _, a := range argv[1:] {
			if !strings.HasPrefix(a, "-") {
				break
			}
			if strings.HasPrefix(a, "-c") || strings.HasPrefix(a, "--config-env") || strings.HasPrefix(a, "--exec-path") {
				return "git " + a + " sets configuration that can run commands", true
			}
		}
	}
	if scriptShells[base] || highRisk[base] == whyShell {
		for _, a := range argv[1:] {
			if a == "--" || !strings.HasPrefix(a, "-") {
				break
			}
			if !strings.HasPrefix(a, "--") && strings.ContainsRune(a, 'c') {
				return base + " " + a + " runs the script in its arguments", true
			}
		}
	}
	if ev, ok := interpreter(base); ok {
		if flag := ev.evalFlag(argv[1:]); flag != "" {
			return base + " " + flag + " evaluates inline code", true
		}
	}
	return "", false
}
