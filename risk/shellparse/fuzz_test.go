//go:build unix

package shellparse

import (
	"reflect"
	"testing"
	"time"

	"github.com/talonhq/talon/tool"
)

// FuzzAnalyze checks that Analyze never panics, never allows a line it
// cannot analyse, and that the canonical rendering of a program analyses
// back to the same program.
func FuzzAnalyze(f *testing.F) {
	for _, v := range vectors {
		f.Add(v.line)
	}
	for _, s := range []string{
		"a|b|c&&d||e;f", "x=1 y=2 env -i -u z w=3 timeout 1 nice -n -3 ls >/dev/null 2>&1 <a.go",
		"cat <<-'E'\n\t\tx\n\tE\n", "sh -c \"sh -c 'ls | wc -l' | head -1\"", "sed -n -e '1{p;q}' -e '$!d'",
		"printf '%s\\n' $'\\u2028' \"\\\\\"", "ls {a,b}{c,d}", "find . -name '*[' -o -name ']'",
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
	})
}
