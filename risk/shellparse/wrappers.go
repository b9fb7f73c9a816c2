package shellparse

import (
	"strconv"
	"strings"
	"time"

	"mvdan.cc/sh/v3/syntax"
)

// unwrapFunc consumes a wrapper's own arguments, records their effect and
// returns the inner command line.
type unwrapFunc func(w *walker, args []string, ef *effects) (rest []string, ok bool)

// wrappers are the transparent wrappers. talon runs the inner command
// itself and reproduces env, timeout and nice; nohup, stdbuf and time
// change nothing that matters to a captured, non-interactive run and are
// dropped.
var wrappers map[string]unwrapFunc

func init() {
	wrappers = map[string]unwrapFunc{
		"env":     unwrapEnv,
		"nice":    unwrapNice,
		"nohup":   unwrapNohup,
		"stdbuf":  unwrapStdbuf,
		"timeout": unwrapTimeout,
		"time":    unwrapTime,
	}
}

// scriptShells are the shells whose -c SCRIPT is analysed in place.
var scriptShells = map[string]bool{"sh": true, "bash": true, "zsh": true, "dash": true}

// shellBuiltins only exist inside a shell; without one they cannot run.
var shellBuiltins = map[string]bool{
	".": true, ":": true, "alias": true, "bg": true, "builtin": true, "caller": true,
	"cd": true, "command": true, "compgen": true, "complete": true, "declare": true,
	"dirs": true, "disown": true, "enable": true, "eval": true, "exec": true,
	"exit": true, "export": true, "fc": true, "fg": true, "getopts": true,
	"hash": true, "history": true, "jobs": true, "let": true, "local": true,
	"logout": true, "mapfile": true, "popd": true, "pushd": true, "read": true,
	"readarray": true, "readonly": true, "return": true, "set": true,
	"shift": true, "shopt": true, "source": true, "suspend": true, "times": true,
	"trap": true, "type": true, "typeset": true, "ulimit": true, "umask": true,
	"unalias": true, "unset": true, "wait": true,
}

func (w *walker) badOption(wrapper, opt string) ([]string, bool) {
	w.fail("%s option %+q cannot be analysed", wrapper, opt)
	return nil, false
}

// unwrapEnv: env [-i] [-u NAME]... [NAME=value]... COMMAND...
func unwrapEnv(w *walker, args []string, ef *effects) ([]string, bool) {
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			i++
			return envAssigns(w, args[i:], ef)
		case a == "-i" || a == "-" || a == "--ignore-environment":
			ef.clearAll()
		case a == "-u" || a == "--unset":
			i++
			if i >= len(args) {
				w.fail("env %s without a name cannot be analysed", a)
				return nil, false
			}
			if !envName(w, args[i]) {
				return nil, false
			}
			ef.del(args[i])
		case strings.HasPrefix(a, "--unset="):
			if !envName(w, a[len("--unset="):]) {
				return nil, false
			}
			ef.del(a[len("--unset="):])
		case strings.HasPrefix(a, "-u") && len(a) > 2:
			if !envName(w, a[2:]) {
				return nil, false
			}
			ef.del(a[2:])
		case strings.HasPrefix(a, "-"):
			return w.badOption("env", a)
		default:
			return envAssigns(w, args[i:], ef)
		}
	}
	return nil, true
}

func envAssigns(w *walker, args []string, ef *effects) ([]string, bool) {
	for i, a := range args {
		name, value, ok := strings.Cut(a, "=")
		if !ok {
			return args[i:], true
		}
		if !envName(w, name) {
			return nil, false
		}
		ef.set(name, value)
	}
	return nil, true
}

func envName(w *walker, name string) bool {
	if syntax.ValidName(name) {
		return true
	}
	w.fail("the variable name %+q cannot be analysed", name)
	return false
}

// unwrapNice: nice [-n N | -nN | --adjustment=N | -N] COMMAND...
func unwrapNice(w *walker, args []string, ef *effects) ([]string, bool) {
	n := 10
	i := 0
	if len(args) > 0 {
		a := args[0]
		val, has := "", false
		switch {
		case a == "--":
		case a == "-n" || a == "--adjustment":
			if len(args) < 2 {
				w.fail("nice %s without a number cannot be analysed", a)
				return nil, false
			}
			val, has, i = args[1], true, 2
		case strings.HasPrefix(a, "--adjustment="):
			val, has, i = a[len("--adjustment="):], true, 1
		case strings.HasPrefix(a, "-n"):
			val, has, i = a[2:], true, 1
		case len(a) > 1 && a[0] == '-' && isDigits(a[1:]):
			val, has, i = a[1:], true, 1
		case strings.HasPrefix(a, "-"):
			return w.badOption("nice", a)
		}
		if has {
			v, err := strconv.Atoi(val)
			if err != nil || v < -1000 || v > 1000 {
				w.fail("nice adjustment %+q is not a number", val)
				return nil, false
			}
			n = v
		}
	}
	if i < len(args) && args[i] == "--" {
		i++
	}
	ef.addNice(n)
	return args[i:], true
}

// unwrapNohup: nohup [--] COMMAND...
func unwrapNohup(w *walker, args []string, _ *effects) ([]string, bool) {
	if len(args) > 0 && args[0] == "--" {
		return args[1:], true
	}
	if len(args) > 0 && strings.HasPrefix(args[0], "-") {
		return w.badOption("nohup", args[0])
	}
	return args, true
}

// unwrapStdbuf: stdbuf [-i|-o|-e MODE]... COMMAND...
func unwrapStdbuf(w *walker, args []string, _ *effects) ([]string, bool) {
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		var mode string
		switch {
		case a == "--":
			return args[i+1:], true
		case a == "-i" || a == "-o" || a == "-e":
			i++
			if i >= len(args) {
				w.fail("stdbuf %s without a mode cannot be analysed", a)
				return nil, false
			}
			mode = args[i]
		case len(a) > 2 && (strings.HasPrefix(a, "-i") || strings.HasPrefix(a, "-o") || strings.HasPrefix(a, "-e")):
			mode = a[2:]
		case strings.HasPrefix(a, "--input=") || strings.HasPrefix(a, "--output=") || strings.HasPrefix(a, "--error="):
			_, mode, _ = strings.Cut(a, "=")
		case strings.HasPrefix(a, "-"):
			return w.badOption("stdbuf", a)
		default:
			return args[i:], true
		}
		if mode == "" || strings.Trim(mode, "0123456789LKMGkmgBb") != "" {
			w.fail("stdbuf mode %+q cannot be analysed", mode)
			return nil, false
		}
	}
	return nil, true
}

// unwrapTimeout: timeout [-s SIG] [-k D] [-v] [--foreground]
// [--preserve-status] DURATION COMMAND...
//
// talon ends a command whose timeout expires with SIGKILL to its process
// group and reports status 124; -s, -k and --preserve-status are accepted
// but not reproduced.
func unwrapTimeout(w *walker, args []string, ef *effects) ([]string, bool) {
	i := 0
opts:
	for ; i < len(args); i++ {
		a := args[i]
		var val string
		switch {
		case a == "--":
			i++
			break opts
		case a == "-s" || a == "--signal" || a == "-k" || a == "--kill-after":
			i++
			if i >= len(args) {
				w.fail("timeout %s without a value cannot be analysed", a)
				return nil, false
			}
			val = args[i]
		case strings.HasPrefix(a, "--signal=") || strings.HasPrefix(a, "--kill-after="):
			_, val, _ = strings.Cut(a, "=")
		case len(a) > 2 && (strings.HasPrefix(a, "-s") || strings.HasPrefix(a, "-k")):
			val = a[2:]
		case a == "-v" || a == "--verbose" || a == "--foreground" || a == "--preserve-status":
			continue
		case len(a) > 1 && a[0] == '-':
			return w.badOption("timeout", a)
		default:
			break opts
		}
		if !isWordish(val) {
			w.fail("timeout option value %+q cannot be analysed", val)
			return nil, false
		}
	}
	if i >= len(args) {
		w.fail("timeout without a duration cannot be analysed")
		return nil, false
	}
	d, ok := parseDuration(args[i])
	if !ok {
		w.fail("timeout duration %+q cannot be analysed; use a number of seconds with an optional s, m, h or d suffix", args[i])
		return nil, false
	}
	ef.addTimeout(d)
	return args[i+1:], true
}

// isWordish reports a non-empty run of ASCII letters, digits and dots.
func isWordish(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '.') {
			return false
		}
	}
	return true
}

// unwrapTime: time [-p] COMMAND...
func unwrapTime(w *walker, args []string, _ *effects) ([]string, bool) {
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-p" || a == "--portability":
		case a == "--":
			return args[i+1:], true
		case strings.HasPrefix(a, "-"):
			return w.badOption("time", a)
		default:
			return args[i:], true
		}
	}
	return nil, true
}

// parseDuration parses timeout(1) durations exactly: digits, an optional
// fraction of up to nine digits, and an optional s, m, h or d suffix.
func parseDuration(s string) (time.Duration, bool) {
	unit := time.Second
	if s != "" {
		switch s[len(s)-1] {
		case 's':
			s = s[:len(s)-1]
		case 'm':
			unit, s = time.Minute, s[:len(s)-1]
		case 'h':
			unit, s = time.Hour, s[:len(s)-1]
		case 'd':
			unit, s = 24*time.Hour, s[:len(s)-1]
		}
	}
	whole, frac, _ := strings.Cut(s, ".")
	if whole == "" && frac == "" || !isDigits(whole) && whole != "" || !isDigits(frac) && frac != "" || len(frac) > 9 || len(whole) > 9 {
		return 0, false
	}
	var n int64
	if whole != "" {
		n, _ = strconv.ParseInt(whole, 10, 64)
	}
	ns := n * int64(time.Second)
	if frac != "" {
		f, _ := strconv.ParseInt((frac + "000000000")[:9], 10, 64)
		ns += f
	}
	// Multiply by the unit in whole seconds to stay exact.
	mult := int64(unit / time.Second)
	if ns > int64(MaxTimeout)/mult {
		return 0, false
	}
	return time.Duration(ns * mult), true
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
