package shellparse

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

func TestScratch(t *testing.T) {
	lines := []string{"cat <<'E'\n$x\nE\n", "cat <<E\n$x \\$y `a`\nE\n", "time -p ls | wc", "ls |& wc", "x >&2 2>&1 &>f >&f 3>x <&0 {fd}>x", "{ls,-la}", "FOO=1 A+=2 B[1]=x ls", "a\\\nb", "ls # c", "! ls", "ls &", "coproc ls"}
	for _, l := range lines {
		f, err := syntax.NewParser().Parse(strings.NewReader(l), "")
		if err != nil {
			t.Log(l, err)
			continue
		}
		for _, st := range f.Stmts {
			fmt.Printf("%q: %T bg=%v neg=%v cop=%v redirs:", l, st.Cmd, st.Background, st.Negated, st.Coprocess)
			for _, r := range st.Redirs {
				n := ""
				if r.N != nil {
					n = r.N.Value
				}
				fmt.Printf(" [N=%q op=%v word=%d]", n, r.Op, len(r.Word.Parts))
				if r.Hdoc != nil {
					for _, p := range r.Hdoc.Parts {
						fmt.Printf(" hdocpart %T", p)
					}
				}
			}
			fmt.Println()
			if tc, ok := st.Cmd.(*syntax.TimeClause); ok {
				fmt.Printf("  time posix=%v stmt=%T\n", tc.PosixFormat, tc.Stmt.Cmd)
			}
			if ce, ok := st.Cmd.(*syntax.CallExpr); ok {
				for _, a := range ce.Assigns {
					fmt.Printf("  assign %s app=%v idx=%v\n", a.Name.Value, a.Append, a.Index != nil)
				}
			}
			if bc, ok := st.Cmd.(*syntax.BinaryCmd); ok {
				fmt.Printf("  bin %v\n", bc.Op)
			}
		}
	}
	_ = os.Stdout
	for _, s := range []string{"if", "A=b", "~x", "{", "!", "a*", "x\x00y", "\xff", "time", "[[", "}", "a b", "", "-", "coproc", "a\nb", "é", "\u200b"} {
		q, err := syntax.Quote(s, syntax.LangBash)
		t.Logf("%q -> %q %v kw=%v", s, q, err, syntax.IsKeyword(s))
	}
}
