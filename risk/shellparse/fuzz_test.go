//go:build unix

package shellparse

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/talonhq/talon/tool"
)

// FuzzAnalyze checks that Analyze never panics, never allows a line it
// cannot analyse, that the canonical rendering of a program analyses back
// to the same program and verdict, and that a line rated low names no word
// outside its commands' tables.
func FuzzAnalyze(f *testing.F) {
	for _, v := range vectors {
		f.Add(v.line)
	}
	for _, v := range grammarVectors {
		f.Add(v.line)
	}
	for _, s := range []string{
		"a|b|c&&d||e;f", "LANG=C TZ=UTC env -i -u LC_ALL LC_CTYPE=C timeout 1 nice -n -3 ls >/dev/null 2>&1 <a.go",
		"cat <<-'E'\n\t\tx\n\tE\n", "sh -c \"sh -c 'ls | wc -l' | head -1\"", "sed -n -e '1{p;q}' -e '$!d'",
		"printf '%s\\n' $'\\u2028' \"\\\\\"", "ls {a,b}{c,d}", "find . -name '*[' -o -name ']'",
		"sort -S 1k --com=sh", "git -C sub log --oneline -- a.go", "uniq -c -- a.go", "date -u +%s",
	} {
		f.Add(s)
	}
	env := newTestEnv(f)
	a := env.analyzer(f, nil)
	f.Fuzz(func(t *testing.T, line string) {
		start := time.Now()
		an := a.Analyze(line)
		if d := time.Since(start); d > 2*time.Second {
			t.Fatalf("Analyze(%q) took %v", line, d)
		}
		if an == nil {
			t.Fatal("nil analysis")
		}
		if !an.Analysable {
			if an.Allowed || an.Program != nil || an.Tier != tool.High {
				t.Fatalf("not analysable but allowed=%v program=%v tier=%v: %q", an.Allowed, an.Program, an.Tier, line)
			}
			return
		}
		if an.Program == nil || len(an.Program.Steps) == 0 {
			t.Fatalf("analysable without a program: %q", line)
		}
		rendered := an.Program.String()
		again := a.Analyze(rendered)
		if !again.Analysable {
			t.Fatalf("rendering of %q is not analysable: %q: %q", line, rendered, again.Reasons)
		}
		if !reflect.DeepEqual(again.Program, an.Program) {
			t.Fatalf("rendering changes the program:\nline     %q\nrendered %q\ngot  %#v\nwant %#v", line, rendered, again.Program, an.Program)
		}
		if again.Tier != an.Tier || again.Allowed != an.Allowed {
			t.Fatalf("rendering changes the verdict of %q", line)
		}
		if an.Tier != tool.Low {
			return
		}
		for _, c := range again.Program.Commands() {
			if err := understood(c.Argv); err != nil {
				t.Fatalf("%q is low but %v", line, err)
			}
			for _, kv := range c.Assign {
				if name, _, _ := strings.Cut(kv, "="); !InertVar(name) {
					t.Fatalf("%q is low but assigns %s", line, name)
				}
			}
		}
	})
}

// understood checks a low command against its table, independently of the
// tier the analysis gave it: every word must be read by the command's
// grammar as an option that only reads, an operand, or a value.
func understood(argv []string) error {
	base := filepath.Base(argv[0])
	switch base {
	case "find":
		if tier, why := classifyFind(argv); tier != tool.Low {
			return fmt.Errorf("find is not understood: %s", why)
		}
		return nil
	case "sed":
		return readsOnly(sedGrammar, argv[1:])
	case "git":
		return gitUnderstood(argv)
	}
	g := grammars[base]
	if g == nil {
		return fmt.Errorf("%s has no table", base)
	}
	return readsOnly(g, argv[1:])
}

func readsOnly(g *grammar, args []string) error {
	if g.lenient {
		return fmt.Errorf("%s is read leniently and cannot be low", g.cmd)
	}
	p := g.parse(args)
	if p.bad != "" {
		return fmt.Errorf("%s", p.bad)
	}
	for _, u := range p.uses {
		if u.sp.opt.effect != reads {
			return fmt.Errorf("%s %s is in its table as %s", g.cmd, u.word, u.sp.opt.reason())
		}
		if u.abbreviated() && !g.complete {
			return fmt.Errorf("%s %s is an abbreviation in an incomplete table", g.cmd, u.word)
		}
	}
	if g.maxOperands >= 0 && len(p.operands) > g.maxOperands {
		return fmt.Errorf("%s has %d operands", g.cmd, len(p.operands))
	}
	return nil
}

// gitUnderstood skips git's global options and reads the subcommand with
// its table.
func gitUnderstood(argv []string) error {
	i := 1
	for ; i < len(argv); i++ {
		a := argv[i]
		switch {
		case a == "-C" || a == "--git-dir" || a == "--work-tree" || a == "--namespace":
			i++
		case a == "-c" || strings.HasPrefix(a, "-c") || strings.HasPrefix(a, "--exec-path") || strings.HasPrefix(a, "--config-env") || a == "-p" || a == "--paginate":
			return fmt.Errorf("git %s is low", a)
		case strings.HasPrefix(a, "-"):
		default:
			cmds := gitCmds
			for {
				c, ok := cmds[argv[i]]
				if !ok || c.g == nil {
					return fmt.Errorf("git %s has no table", argv[i])
				}
				if c.subs != nil && i+1 < len(argv) && !strings.HasPrefix(argv[i+1], "-") {
					cmds, i = c.subs, i+1
					continue
				}
				return readsOnly(c.g, argv[i+1:])
			}
		}
	}
	return nil
}

// FuzzRule compiles operator patterns and matches them against a command:
// neither panics, and a pattern that compiles matches the command its own
// words make when they hold no pattern characters.
func FuzzRule(f *testing.F) {
	for _, s := range []string{"git push **", "make test", "/usr/bin/* -x ?", `a \*`, "** x", "", "./x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, pat string) {
		r, err := ParseRule(RuleAllow, pat)
		if err != nil {
			return
		}
		words := strings.Fields(pat)
		c := Command{Argv: words, Binary: "/usr/bin/" + words[0]}
		got := r.Match(c)
		if !strings.ContainsAny(pat, `*?\/`) && !got {
			t.Fatalf("%q does not match its own words", pat)
		}
	})
}
