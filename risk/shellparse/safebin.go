package shellparse

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/talonhq/talon/tool"
)

// ArgKind is the kind of value a safe bin flag takes.
type ArgKind uint8

// The kinds of flag values.
const (
	// ArgText is any value.
	ArgText ArgKind = iota
	// ArgNumber is an optionally signed integer with an optional unit
	// suffix of up to three letters ("5", "-3", "+2", "10K").
	ArgNumber
	// ArgList is a cut-style list of numbers and ranges ("1,3-5").
	ArgList
	// ArgChar is exactly one character.
	ArgChar
)

func (k ArgKind) valid(v string) bool {
	switch k {
	case ArgNumber:
		v = strings.TrimLeft(v, "+-")
		digits := len(v) - len(strings.TrimLeft(v, "0123456789"))
		return digits > 0 && len(v)-digits <= 3 && strings.Trim(v[digits:], "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") == ""
	case ArgList:
		return v != "" && strings.Trim(v, "0123456789,-") == ""
	case ArgChar:
		return utf8.RuneCountInString(v) == 1
	default:
		return true
	}
}

// SafeBin is the profile of a stdin filter. A command qualifies when it is
// found through PATH under its bare name, every argument is a flag of the
// profile with a valid value, it takes no file operands (Operands allows
// non-path operands such as tr's sets), and it neither reads nor writes a
// file through a redirection; a command talon has an option table for
// must pass that table too (a profile narrows the table, never widens
// it). A qualifying safe bin is low risk and allowed even when
// AllowedCommands does not list it.
type SafeBin struct {
	// Flags are the flags without a value ("-c", "--count").
	Flags []string
	// ValueFlags are the flags that take a value, with its kind. A short
	// flag's value may be attached (-n5) or the next argument; a long
	// flag's may follow '=' or be the next argument.
	ValueFlags map[string]ArgKind
	// NumericFlag accepts the historic -N form (head -5).
	NumericFlag bool
	// Operands is how many operands are accepted. An operand that
	// contains '/' or names an existing file in the working directory
	// disqualifies, and so does every operand beyond this count.
	Operands int
	// MinOperands is how many operands must be given.
	MinOperands int
	// AnyFlag accepts flags without a value that Flags does not list,
	// unless DeniedFlags names them: the shape of an operator's
	// safe_bin_profiles entry, which lists the flags that take values and
	// the flags that are refused. A flag given a value with '=' must be
	// in ValueFlags either way.
	AnyFlag bool
	// DeniedFlags are refused whatever else the profile says; a short
	// flag is refused inside a cluster too.
	DeniedFlags []string
}

// runsCode says why a command can never be a safe bin: shells,
// interpreters and the commands talon classifies high because they run
// programs or write files. It returns "" for the others.
func runsCode(name string) string {
	if _, ok := interpreter(name); ok {
		return "runs programs in an interpreter"
	}
	if why, ok := highRisk[name]; ok {
		return why
	}
	if name == "talon" {
		return "is talon itself"
	}
	return ""
}

// trustedSafeDir reports whether bin, as PATH lookup found it, lies
// directly in one of the trusted directories.
func (a *Analyzer) trustedSafeDir(bin string) bool {
	return slices.Contains(a.safeDirs, filepath.Dir(bin))
}

// DefaultSafeBins returns the safe bins used when [Options.SafeBins] is
// nil: cut, uniq, head, tail, tr and wc.
func DefaultSafeBins() map[string]SafeBin {
	headTail := SafeBin{
		Flags:       []string{"-q", "--quiet", "--silent", "-v", "--verbose", "-z", "--zero-terminated"},
		ValueFlags:  map[string]ArgKind{"-n": ArgNumber, "--lines": ArgNumber, "-c": ArgNumber, "--bytes": ArgNumber},
		NumericFlag: true,
	}
	return map[string]SafeBin{
		"cut": {
			Flags: []string{"-s", "--only-delimited", "-z", "--zero-terminated", "--complement", "-n"},
			ValueFlags: map[string]ArgKind{
				"-b": ArgList, "--bytes": ArgList, "-c": ArgList, "--characters": ArgList,
				"-f": ArgList, "--fields": ArgList, "-d": ArgChar, "--delimiter": ArgChar,
				"--output-delimiter": ArgText,
			},
		},
		"uniq": {
			Flags: []string{"-c", "--count", "-d", "--repeated", "-D", "-u", "--unique", "-i", "--ignore-case", "-z", "--zero-terminated"},
			ValueFlags: map[string]ArgKind{
				"-f": ArgNumber, "--skip-fields": ArgNumber, "-s": ArgNumber, "--skip-chars": ArgNumber,
				"-w": ArgNumber, "--check-chars": ArgNumber,
			},
		},
		"head": headTail,
		"tail": headTail,
		"tr": {
			Flags:    []string{"-c", "-C", "--complement", "-d", "--delete", "-s", "--squeeze-repeats", "-t", "--truncate-set1"},
			Operands: 2,
		},
		"wc": {
			Flags: []string{"-c", "--bytes", "-m", "--chars", "-l", "--lines", "-w", "--words", "-L", "--max-line-length"},
		},
	}
}

// safeBin reports whether c qualifies as a safe stdin filter.
func (a *Analyzer) safeBin(c *Command) bool {
	sb, ok := a.safe[c.Argv[0]]
	if !ok {
		return false
	}
	for _, r := range c.Redirects {
		switch r.Op {
		case "<", ">", ">>":
			if r.Target != devNull {
				return false
			}
		}
	}
	if !sb.accepts(c.Argv[1:], a.dir) {
		return false
	}
	// A safe bin that talon has a table for must also be understood by
	// it: the profile narrows the table, never widens it.
	loadTables()
	if g := grammars[c.Argv[0]]; g != nil {
		if tier, _ := g.judge(c.Argv); tier != tool.Low {
			return false
		}
	}
	return true
}

func (sb SafeBin) accepts(args []string, dir string) bool {
	operands := 0
	operand := func(op string) bool {
		if op == "-" {
			return true
		}
		operands++
		if operands > sb.Operands || strings.ContainsRune(op, '/') {
			return false
		}
		if op == "" {
			return true
		}
		_, err := os.Lstat(filepath.Join(dir, op))
		return err != nil
	}
	// flag reports whether a flag without a value is accepted.
	flag := func(name string) bool {
		if slices.Contains(sb.DeniedFlags, name) {
			return false
		}
		return sb.AnyFlag || slices.Contains(sb.Flags, name)
	}
	for i := 0; i < len(args); i++ {
		arg := args[i]
		switch {
		case arg == "--":
			for _, op := range args[i+1:] {
				if !operand(op) {
					return false
				}
			}
			return operands >= sb.MinOperands
		case arg == "-" || !strings.HasPrefix(arg, "-"):
			if !operand(arg) {
				return false
			}
		case strings.HasPrefix(arg, "--"):
			name, val, hasVal := strings.Cut(arg, "=")
			if slices.Contains(sb.DeniedFlags, name) {
				return false
			}
			if kind, ok := sb.ValueFlags[name]; ok {
				if !hasVal {
					i++
					if i >= len(args) {
						return false
					}
					val = args[i]
				}
				if !kind.valid(val) {
					return false
				}
				continue
			}
			if hasVal || !flag(name) {
				return false
			}
		default:
			if sb.NumericFlag && isDigits(arg[1:]) {
				continue
			}
			if sb.AnyFlag && len(arg) > 2 && !listedCluster(sb, arg) {
				// Without a list of every flag, "-ofile" could be -o with
				// a value: flags must then be written one by one.
				return false
			}
			for j := 1; j < len(arg); j++ {
				f := "-" + arg[j:j+1]
				if slices.Contains(sb.DeniedFlags, f) {
					return false
				}
				if kind, ok := sb.ValueFlags[f]; ok {
					val := arg[j+1:]
					if val == "" {
						i++
						if i >= len(args) {
							return false
						}
						val = args[i]
					}
					if !kind.valid(val) {
						return false
					}
					break
				}
				if !flag(f) {
					return false
				}
			}
		}
	}
	return operands >= sb.MinOperands
}

// listedCluster reports whether every letter of a short cluster is a flag
// or value flag the profile names.
func listedCluster(sb SafeBin, arg string) bool {
	for j := 1; j < len(arg); j++ {
		f := "-" + arg[j:j+1]
		if _, ok := sb.ValueFlags[f]; ok {
			return true
		}
		if !slices.Contains(sb.Flags, f) {
			return false
		}
	}
	return true
}
