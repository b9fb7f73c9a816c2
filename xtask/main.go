package main

import (
	"fmt"
	"io"
	"os"
)

// Exit statuses shared by every task.
const (
	exitOK      = 0
	exitFailed  = 1 // the task ran and found problems, or could not finish
	exitUsage   = 2
	programName = "xtask"
)

// command is one task: go run ./xtask <name> args...
type command struct {
	name    string
	summary string
	run     func(args []string, stdout, stderr io.Writer) int
}

// commands lists the tasks in the order usage shows them.
var commands = []command{
	{name: "fluent", summary: "check, fill and count the Fluent message files under locales/", run: runFluent},
	{name: "bench", summary: "turn go test -bench output into bench/REPORT.md: ratios, targets, pass or fail", run: runBench},
	{name: "generate", summary: "print the build tags of a feature selection for a target (build/*.toml)", run: runGenerate},
	{name: "release", summary: "print the release matrix, or cross-compile and archive every leg into dist/", run: runRelease},
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run dispatches args to a task and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		usage(stdout)
		return exitOK
	}
	for _, c := range commands {
		if c.name == args[0] {
			return c.run(args[1:], stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "%s: unknown command %q\n", programName, args[0])
	usage(stderr)
	return exitUsage
}

func usage(w io.Writer) {
	fmt.Fprintf(w, "usage: go run ./xtask <command> [arguments]\n\ncommands:\n")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
}
