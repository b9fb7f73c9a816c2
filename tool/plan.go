package tool

import (
	"fmt"
	"slices"
)

// PlanDiff names the first difference between the plan a call was approved
// with and the plan it would run now, or returns "" when they match: the
// check every tool that binds approvals to a plan makes before it runs
// anything. quote renders an argument vector for the message.
func PlanDiff(approved, now *Plan, quote func([]string) string) string {
	if len(approved.Commands) != len(now.Commands) {
		return fmt.Sprintf("%d commands were approved, %d would run", len(approved.Commands), len(now.Commands))
	}
	one := len(now.Commands) == 1
	for i, a := range approved.Commands {
		n := now.Commands[i]
		which := fmt.Sprintf("command %d", i+1)
		switch {
		case !slices.Equal(a.Argv, n.Argv):
			if one {
				return "the arguments changed to " + quote(n.Argv)
			}
			return fmt.Sprintf("the arguments of %s changed to %s", which, quote(n.Argv))
		case a.Binary != n.Binary:
			if one {
				which = "the program"
			}
			return fmt.Sprintf("%s now resolves to %s instead of %s", which, n.Binary, a.Binary)
		case a.Dir != n.Dir:
			if one {
				which = "it"
			}
			return fmt.Sprintf("%s would run in %s instead of %s", which, n.Dir, a.Dir)
		case !slices.Equal(a.Env, n.Env):
			if one {
				return "the environment changed"
			}
			return fmt.Sprintf("the environment of %s changed", which)
		}
	}
	if approved.Summary != now.Summary {
		return "the command line changed"
	}
	return ""
}
