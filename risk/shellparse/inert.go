package shellparse

import (
	"slices"
	"strings"
)

// inertVars are the only variables a line may assign (or unset with env
// -u): they change how text is printed and nothing else. None names a
// program, a file, a search path or a configuration. A trailing '*'
// matches a prefix.
var inertVars = []string{
	"LANG", "LANGUAGE", "LC_*", "TZ", "TERM", "COLUMNS", "LINES",
	"NO_COLOR", "CLICOLOR", "CLICOLOR_FORCE", "FORCE_COLOR",
}

// InertVars returns the names a command line may assign, for
// documentation and for other places that take variables from a model (a
// trailing '*' matches a prefix).
func InertVars() []string { return slices.Clone(inertVars) }

// InertVar reports whether a command line may set name: whether it is one
// of [InertVars]. Every other variable can name a program, a file or a
// configuration that the command would obey (GIT_CONFIG_*, PAGER, EDITOR,
// LD_PRELOAD, HOME, TMPDIR, ...).
func InertVar(name string) bool {
	for _, v := range inertVars {
		if prefix, ok := strings.CutSuffix(v, "*"); ok {
			if strings.HasPrefix(name, prefix) && len(name) > len(prefix) && validName(name) {
				return true
			}
		} else if name == v {
			return true
		}
	}
	return false
}

// inertList renders the list for reasons: "LANG, LANGUAGE, LC_*, ...".
func inertList() string { return strings.Join(inertVars, ", ") }

// validName reports a portable variable name.
func validName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return s != ""
}

// Export gives every command of p the variables of assign (NAME=value
// pairs) unless the command starts from an empty environment (env -i) or
// sets or unsets the name itself: what a shell's exported variables do.
// The rendered line shows them as leading assignments, so an approval
// covers their values. The caller checks each name first
// ([Analyzer.RefuseVar]).
func (p *Program) Export(assign []string) {
	if p == nil || len(assign) == 0 {
		return
	}
	for i := range p.Steps {
		for j := range p.Steps[i].Pipeline {
			c := &p.Steps[i].Pipeline[j]
			if c.ClearEnv {
				continue
			}
			var add []string
			for _, kv := range assign {
				name, _, _ := strings.Cut(kv, "=")
				if slices.Contains(c.Unset, name) || slices.ContainsFunc(c.Assign, func(have string) bool {
					return strings.HasPrefix(have, name+"=")
				}) {
					continue
				}
				add = append(add, kv)
			}
			if len(add) > 0 {
				c.Assign = append(add, c.Assign...)
			}
		}
	}
}
