package shellparse

import (
	"slices"
	"strings"

	"github.com/talonhq/talon/secret"
	"github.com/talonhq/talon/tool"
)

// ChildEnv says which environment the commands of a [Program] get: the
// named variables from talon's own environment (PATH replaced by the given
// one), then each command's own `env -i`, `env -u` and assignments. The shell
// and background processes share it, so a plan lists the same names
// whichever runs it.
type ChildEnv struct {
	// Names are the variables passed through from talon's environment.
	Names []string
	// PATH is the child's PATH.
	PATH string
}

// For returns one command's environment as NAME=value pairs.
func (e ChildEnv) For(c Command) []string {
	var env []string
	if !c.ClearEnv {
		for _, n := range e.Names {
			if slices.Contains(c.Unset, n) {
				continue
			}
			if n == "PATH" {
				env = append(env, "PATH="+e.PATH)
				continue
			}
			if v, ok := secret.Lookup(n); ok {
				env = append(env, n+"="+v)
			}
		}
	}
	for _, kv := range c.Assign {
		name, _, _ := strings.Cut(kv, "=")
		env = slices.DeleteFunc(env, func(e string) bool { return strings.HasPrefix(e, name+"=") })
		env = append(env, kv)
	}
	return env
}

// PlanWith is [Program.Plan] with, for every command, the sorted names of
// the whole environment it gets under e.
func (p *Program) PlanWith(dir string, e ChildEnv) *tool.Plan {
	plan := p.Plan(dir)
	for i, c := range p.Commands() {
		env := e.For(c)
		names := make([]string, len(env))
		for j, kv := range env {
			names[j], _, _ = strings.Cut(kv, "=")
		}
		slices.Sort(names)
		plan.Commands[i].Env = names
	}
	return plan
}
