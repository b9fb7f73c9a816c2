package tool

import (
	"strings"
	"testing"
)

func TestPlanDiff(t *testing.T) {
	quote := func(a []string) string { return strings.Join(a, " ") }
	one := func(f func(*PlannedCommand)) *Plan {
		c := PlannedCommand{Argv: []string{"ls", "-l"}, Binary: "/bin/ls", Dir: "/ws", Env: []string{"PATH"}}
		if f != nil {
			f(&c)
		}
		return &Plan{Summary: "ls -l", Commands: []PlannedCommand{c}}
	}
	two := func(f func(*PlannedCommand)) *Plan {
		p := one(nil)
		c := PlannedCommand{Argv: []string{"wc"}, Binary: "/bin/wc", Dir: "/ws"}
		if f != nil {
			f(&c)
		}
		p.Commands = append(p.Commands, c)
		return p
	}
	tests := []struct {
		name     string
		approved *Plan
		now      *Plan
		want     string
	}{
		{name: "same", approved: one(nil), now: one(nil), want: ""},
		{name: "argv", approved: one(nil), now: one(func(c *PlannedCommand) { c.Argv = []string{"ls", "-la"} }), want: "the arguments changed to ls -la"},
		{name: "binary", approved: one(nil), now: one(func(c *PlannedCommand) { c.Binary = "/tmp/ls" }), want: "the program now resolves to /tmp/ls instead of /bin/ls"},
		{name: "dir", approved: one(nil), now: one(func(c *PlannedCommand) { c.Dir = "/" }), want: "it would run in / instead of /ws"},
		{name: "env", approved: one(nil), now: one(func(c *PlannedCommand) { c.Env = nil }), want: "the environment changed"},
		{name: "summary", approved: one(nil), now: &Plan{Summary: "ls  -l", Commands: one(nil).Commands}, want: "the command line changed"},
		{name: "count", approved: one(nil), now: two(nil), want: "1 commands were approved, 2 would run"},
		{name: "second argv", approved: two(nil), now: two(func(c *PlannedCommand) { c.Argv = []string{"wc", "-l"} }), want: "the arguments of command 2 changed to wc -l"},
		{name: "second binary", approved: two(nil), now: two(func(c *PlannedCommand) { c.Binary = "/x/wc" }), want: "command 2 now resolves to /x/wc instead of /bin/wc"},
		{name: "second env", approved: two(nil), now: two(func(c *PlannedCommand) { c.Env = []string{"HOME"} }), want: "the environment of command 2 changed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := PlanDiff(tt.approved, tt.now, quote); got != tt.want {
				t.Fatalf("PlanDiff = %q, want %q", got, tt.want)
			}
		})
	}
}
