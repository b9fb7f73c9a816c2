package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/talonhq/talon/workspace"
)

const benchUsage = `usage: go run ./xtask bench report [flags]

Reads go test -bench output and writes a Markdown report: every ratio of a
benchmark to its baseline, the targets from ARCHITECTURE.md, pass or fail,
and every benchmark's figures. A benchmark missing from the input makes its
rows "not measured", never an error.

flags:
  -in FILE      benchmark output to read; repeat for several files
                (default bench/bench.txt and bench/extism.txt)
  -out FILE     the report to write, - for stdout (default bench/REPORT.md)
  -check        exit 1 when a measured figure misses its target
`

// benchInputs collects repeated -in flags.
type benchInputs []string

func (f *benchInputs) String() string { return strings.Join(*f, ",") }

func (f *benchInputs) Set(v string) error {
	*f = append(*f, v)
	return nil
}

func runBench(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, benchUsage)
		return exitUsage
	}
	sub, args := args[0], args[1:]
	switch sub {
	case "report":
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, benchUsage)
		return exitOK
	default:
		fmt.Fprintf(stderr, "xtask bench: unknown subcommand %q\n", sub)
		fmt.Fprint(stderr, benchUsage)
		return exitUsage
	}
	flags := flag.NewFlagSet("bench report", flag.ContinueOnError)
	flags.SetOutput(stderr)
	flags.Usage = func() { fmt.Fprint(stderr, benchUsage) }
	var inputs benchInputs
	flags.Var(&inputs, "in", "benchmark output to read (repeatable)")
	out := flags.String("out", filepath.Join("bench", "REPORT.md"), "the report to write, - for stdout")
	check := flags.Bool("check", false, "exit 1 when a measured figure misses its target")
	if err := flags.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if flags.NArg() > 0 {
		fmt.Fprintf(stderr, "xtask bench report: unexpected argument %q; see go run ./xtask bench help\n", flags.Arg(0))
		return exitUsage
	}
	if len(inputs) == 0 {
		inputs = benchInputs{filepath.Join("bench", "bench.txt"), filepath.Join("bench", "extism.txt")}
	}
	env := benchEnv{Now: time.Now(), GoVersion: runtime.Version(), NumCPU: runtime.NumCPU()}
	return benchReport(inputs, *out, *check, env, stdout, stderr)
}

// benchReport reads the inputs, writes the report to out and prints a one
// line summary. An input that does not exist is a warning: its rows are
// not measured.
func benchReport(inputs []string, out string, check bool, env benchEnv, stdout, stderr io.Writer) int {
	set := newBenchSet()
	for _, in := range inputs {
		f, err := os.Open(in)
		if errors.Is(err, fs.ErrNotExist) {
			fmt.Fprintf(stderr, "xtask bench report: warning: %s does not exist; its benchmarks are not measured (run scripts/bench.sh to produce it)\n", in)
			continue
		}
		if err != nil {
			fmt.Fprintf(stderr, "xtask bench report: %v\n", err)
			return exitFailed
		}
		err = set.Parse(f)
		_ = f.Close()
		if err != nil {
			fmt.Fprintf(stderr, "xtask bench report: %s: %v\n", in, err)
			return exitFailed
		}
		env.Inputs = append(env.Inputs, filepath.ToSlash(in))
	}
	if len(env.Inputs) == 0 {
		fmt.Fprintf(stderr, "xtask bench report: none of %s exists; run scripts/bench.sh first\n", strings.Join(inputs, ", "))
		return exitFailed
	}
	var buf bytes.Buffer
	outcomes, err := benchWriteReport(&buf, set, env)
	if err != nil {
		fmt.Fprintf(stderr, "xtask bench report: %v\n", err)
		return exitFailed
	}
	if out == "-" {
		_, err = stdout.Write(buf.Bytes())
	} else {
		err = benchWriteFile(out, buf.Bytes())
	}
	if err != nil {
		fmt.Fprintf(stderr, "xtask bench report: %v\n", err)
		return exitFailed
	}
	counts := map[string]int{}
	var failed []string
	for _, o := range outcomes {
		counts[o.Verdict]++
		if o.Verdict == verdictFail {
			failed = append(failed, fmt.Sprintf("  %s: %s, target %s", o.Row.Title, o.Row.format(o.Value), o.Row.target()))
		}
	}
	where := out
	if out == "-" {
		where = "stdout"
	}
	summary := fmt.Sprintf("xtask bench report: wrote %s: %d pass, %d fail, %d informational, %d not measured\n",
		where, counts[verdictPass], counts[verdictFail], counts[verdictInfo], counts[verdictNotMeasured])
	if out == "-" {
		fmt.Fprint(stderr, summary)
	} else {
		fmt.Fprint(stdout, summary)
	}
	if check && len(failed) > 0 {
		fmt.Fprintf(stderr, "xtask bench report: %d figures miss their target:\n%s\n", len(failed), strings.Join(failed, "\n"))
		return exitFailed
	}
	return exitOK
}

// benchWriteFile replaces name with data atomically, creating the
// directory if needed.
func benchWriteFile(name string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
	return workspace.WriteFileAtomic(name, data, 0o644)
}
