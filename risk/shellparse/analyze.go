package shellparse

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"

	"github.com/talonhq/talon/tool"
)

// Analyze classifies one line. It never panics, and a line that is not
// analysable is never allowed.
func (a *Analyzer) Analyze(line string) *Analysis {
	w := &walker{a: a}
	steps := w.script(line, effects{}, 0)
	if len(w.bad) > 0 {
		return notAnalysable(w.bad)
	}
	if len(steps) == 0 {
		return notAnalysable([]string{"the line has no command"})
	}
	// One allocation for the verdict and its program.
	both := &struct {
		an   Analysis
		prog Program
	}{prog: Program{Steps: steps}}
	an := &both.an
	*an = Analysis{Tier: tool.Low, Analysable: true, Allowed: true, Program: &both.prog, Paths: w.paths}
	n := 0
	for _, st := range steps {
		for _, c := range st.Pipeline {
			n += len(c.Reasons)
		}
	}
	an.Reasons = make([]string, 0, n)
	for _, st := range steps {
		for _, c := range st.Pipeline {
			an.Tier = tool.MaxTier(an.Tier, c.Tier)
			an.Allowed = an.Allowed && c.Allowed
			for _, r := range c.Reasons {
				if !slices.Contains(an.Reasons, r) {
					an.Reasons = append(an.Reasons, r)
				}
			}
		}
	}
	return an
}

// effects is what leading assignments, wrappers and an enclosing sh -c
// contribute to the command they stand in front of.
type effects struct {
	clear   bool
	unset   []string
	assign  []string
	timeout time.Duration
	nice    int
	redirs  []Redirect
	wraps   int
}

func (e effects) clone() effects {
	e.unset = slices.Clone(e.unset)
	e.assign = slices.Clone(e.assign)
	e.redirs = slices.Clone(e.redirs)
	return e
}

// onlyEnv reports whether the effects can be distributed over several
// commands without changing what happens.
func (e effects) onlyEnv() bool {
	return e.timeout == 0 && e.nice == 0 && len(e.redirs) == 0
}

func (e *effects) set(name, value string) {
	e.unset = slices.DeleteFunc(e.unset, func(n string) bool { return n == name })
	prefix := name + "="
	for i, kv := range e.assign {
		if strings.HasPrefix(kv, prefix) {
			e.assign[i] = prefix + value
			return
		}
	}
	e.assign = append(e.assign, prefix+value)
}

func (e *effects) del(name string) {
	prefix := name + "="
	e.assign = slices.DeleteFunc(e.assign, func(kv string) bool { return strings.HasPrefix(kv, prefix) })
	if !e.clear && !slices.Contains(e.unset, name) {
		e.unset = append(e.unset, name)
	}
}

func (e *effects) clearAll() {
	e.clear, e.assign, e.unset = true, nil, nil
}

func (e *effects) addTimeout(d time.Duration) {
	if d > 0 && (e.timeout == 0 || d < e.timeout) {
		e.timeout = d
	}
}

func (e *effects) addNice(n int) {
	e.nice = min(max(e.nice+n, -20), 19)
}

// walker holds the state of one analysis.
type walker struct {
	a *Analyzer
	// cfg is the expansion configuration; see config.
	cfg        *expand.Config
	bad        []string
	paths      []string
	nargs      int
	dirReads   int
	dirEntries int
}

// config returns the expansion configuration, made on first use: most
// lines hold only plain words and never expand anything.
func (w *walker) config() *expand.Config {
	if w.cfg == nil {
		w.cfg = &expand.Config{Env: w.a.expandEnv, ReadDir2: w.readDir}
	}
	return w.cfg
}

// fail records why the line is not analysable.
func (w *walker) fail(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if !slices.Contains(w.bad, msg) {
		w.bad = append(w.bad, msg)
	}
}

// script parses and walks a whole line or sh -c script; in is what an
// enclosing sh -c passes to every command of it.
func (w *walker) script(src string, in effects, depth int) []Step {
	if strings.IndexByte(src, 0) >= 0 {
		w.fail("the line contains a NUL byte")
		return nil
	}
	p := w.a.parsers.Get().(*syntax.Parser)
	f, err := p.Parse(strings.NewReader(src), "")
	w.a.parsers.Put(p)
	if err != nil {
		w.fail("the line does not parse as a shell command: %v", err)
		return nil
	}
	var steps []Step
	for i, st := range f.Stmts {
		op := ";"
		if i == 0 {
			op = ""
		}
		steps = w.list(st, op, in, depth, steps)
	}
	return steps
}

// plain rejects statement modifiers that need a shell.
func (w *walker) plain(st *syntax.Stmt) bool {
	switch {
	case st.Background:
		w.fail("running a command in the background (&) cannot be analysed")
	case st.Coprocess, st.Disown:
		w.fail("coprocesses and disowned jobs cannot be analysed")
	case st.Negated:
		w.fail("negating a status with ! cannot be analysed")
	default:
		return true
	}
	return false
}

// list walks an and-or list, appending its steps.
func (w *walker) list(st *syntax.Stmt, op string, in effects, depth int, steps []Step) []Step {
	if !w.plain(st) {
		return steps
	}
	switch c := st.Cmd.(type) {
	case *syntax.BinaryCmd:
		if len(st.Redirs) > 0 {
			w.fail("redirections of a whole command list cannot be analysed")
			return steps
		}
		switch c.Op {
		case syntax.AndStmt, syntax.OrStmt:
			steps = w.list(c.X, op, in, depth, steps)
			return w.list(c.Y, c.Op.String(), in, depth, steps)
		case syntax.Pipe, syntax.PipeAll:
			cmds, _ := w.pipeline(st, in, depth)
			if cmds == nil {
				return steps
			}
			return append(steps, Step{Op: op, Pipeline: cmds})
		}
		w.fail("the operator %s cannot be analysed", c.Op)
		return steps
	case *syntax.TimeClause:
		if len(st.Redirs) > 0 || c.Stmt == nil {
			w.fail("this use of time cannot be analysed; put time directly before one command")
			return steps
		}
		in.wraps++
		if in.wraps > MaxWrapperDepth {
			w.fail("more than %d wrappers (env, nice, nohup, stdbuf, timeout, time) in front of one command cannot be analysed", MaxWrapperDepth)
			return steps
		}
		return w.list(c.Stmt, op, in, depth, steps)
	}
	frag := w.fragment(st, in, depth)
	if len(frag) == 0 {
		return steps
	}
	if len(frag) > 1 && (op == "&&" || op == "||") {
		w.fail("a sh -c script of several commands after %s cannot be analysed; write its commands on the line itself", op)
		return steps
	}
	frag[0].Op = op
	return append(steps, frag...)
}

// pipeline walks a pipeline. single reports whether its last command stood
// alone (was not spliced from a sh -c script).
func (w *walker) pipeline(st *syntax.Stmt, in effects, depth int) (cmds []Command, single bool) {
	if !w.plain(st) {
		return nil, false
	}
	if c, ok := st.Cmd.(*syntax.BinaryCmd); ok && (c.Op == syntax.Pipe || c.Op == syntax.PipeAll) {
		if len(st.Redirs) > 0 {
			w.fail("redirections of a whole pipeline cannot be analysed")
			return nil, false
		}
		left, lsingle := w.pipeline(c.X, in, depth)
		right, rsingle := w.pipeline(c.Y, in, depth)
		if left == nil || right == nil {
			return nil, false
		}
		if c.Op == syntax.PipeAll {
			if !lsingle {
				w.fail("|& after a sh -c script of several commands cannot be analysed")
				return nil, false
			}
			last := &left[len(left)-1]
			last.Redirects = append(slices.Clip(last.Redirects), Redirect{Fd: 2, Op: ">&", Target: "1"})
		}
		return append(left, right...), rsingle
	}
	if _, ok := st.Cmd.(*syntax.TimeClause); ok {
		w.fail("time inside a pipeline cannot be analysed")
		return nil, false
	}
	frag := w.fragment(st, in, depth)
	if len(frag) == 0 {
		return nil, false
	}
	if len(frag) != 1 {
		w.fail("a sh -c script of several steps inside a pipeline cannot be analysed")
		return nil, false
	}
	return frag[0].Pipeline, len(frag[0].Pipeline) == 1
}

// fragment walks one statement that is neither a list nor a pipeline.
func (w *walker) fragment(st *syntax.Stmt, in effects, depth int) []Step {
	switch c := st.Cmd.(type) {
	case *syntax.CallExpr:
		return w.call(st, c, in, depth)
	case nil:
		w.fail("a redirection without a command cannot be analysed")
	default:
		w.fail("%s cannot be analysed", describe(c))
	}
	return nil
}

// describe names a compound command for a reason.
func describe(c syntax.Command) string {
	switch c := c.(type) {
	case *syntax.Subshell:
		return "a subshell ( ... )"
	case *syntax.Block:
		return "a block { ...; }"
	case *syntax.FuncDecl:
		return "a function definition"
	case *syntax.IfClause:
		return "an if statement"
	case *syntax.WhileClause:
		if c.Until {
			return "an until loop"
		}
		return "a while loop"
	case *syntax.ForClause:
		if c.Select {
			return "a select loop"
		}
		return "a for loop"
	case *syntax.CaseClause:
		return "a case statement"
	case *syntax.ArithmCmd:
		return "an arithmetic command (( ))"
	case *syntax.TestClause:
		return "a test expression [[ ]]"
	case *syntax.DeclClause:
		if c.Variant != nil {
			return fmt.Sprintf("the shell builtin %s", c.Variant.Value)
		}
		return "a declaration"
	case *syntax.LetClause:
		return "the shell builtin let"
	case *syntax.CoprocClause:
		return "coproc"
	default:
		return "this shell construct"
	}
}

// call walks a simple command.
func (w *walker) call(st *syntax.Stmt, ce *syntax.CallExpr, in effects, depth int) []Step {
	ef := in.clone()
	for _, as := range ce.Assigns {
		if as.Name == nil || as.Append || as.Naked || as.Index != nil || as.Array != nil {
			w.fail("array, indexed and += assignments cannot be analysed")
			return nil
		}
		if !syntax.ValidName(as.Name.Value) {
			w.fail("the assignment to %+q cannot be analysed: it is not a valid variable name", as.Name.Value)
			return nil
		}
		val, ok := w.assignValue(as.Value)
		if !ok {
			return nil
		}
		ef.set(as.Name.Value, val)
	}
	if len(ce.Args) == 0 {
		w.fail("an assignment without a command only sets a shell variable and cannot be analysed")
		return nil
	}
	fields, pattern, ok := w.expandArgs(ce.Args)
	redirs, rok := w.redirects(st.Redirs)
	if !ok || !rok {
		return nil
	}
	if len(fields) == 0 {
		w.fail("the command expands to nothing")
		return nil
	}
	ef.redirs = append(ef.redirs, redirs...)
	return w.resolve(fields, pattern, ef, depth)
}

// resolve unwraps transparent wrappers and sh -c, then builds the command.
func (w *walker) resolve(fields []string, pattern []bool, ef effects, depth int) []Step {
	for {
		name := fields[0]
		if pattern[0] {
			w.fail("the command name %+q comes from a glob or brace pattern; write it literally", name)
			return nil
		}
		if !w.checkName(name) {
			return nil
		}
		if strings.ContainsRune(name, '/') && !filepath.IsAbs(name) {
			break
		}
		base := filepath.Base(name)
		if unwrap, ok := wrappers[base]; ok {
			ef.wraps++
			if ef.wraps > MaxWrapperDepth {
				w.fail("more than %d wrappers (env, nice, nohup, stdbuf, timeout, time) in front of one command cannot be analysed", MaxWrapperDepth)
				return nil
			}
			// A copy whose address is taken only here, so that the
			// common path does not move ef to the heap.
			e := ef
			rest, ok := unwrap(w, fields[1:], &e)
			if !ok {
				return nil
			}
			ef = e
			if len(rest) == 0 {
				w.fail("%s without a command cannot be analysed", base)
				return nil
			}
			pattern = pattern[len(fields)-len(rest):]
			fields = rest
			continue
		}
		if scriptShells[base] && len(fields) >= 2 && fields[1] == "-c" {
			return w.shellScript(base, fields, ef, depth)
		}
		if !strings.ContainsRune(name, '/') && shellBuiltins[name] {
			w.fail("%q is a shell builtin; talon runs commands without a shell", name)
			return nil
		}
		break
	}
	return []Step{{Pipeline: []Command{w.command(fields, ef)}}}
}

// shellScript recurses into sh -c SCRIPT. The script's own commands are
// what runs, so they replace the sh -c command in the program.
func (w *walker) shellScript(shell string, fields []string, ef effects, depth int) []Step {
	if len(fields) != 3 {
		if len(fields) < 3 {
			w.fail("%s -c without a script cannot be analysed", shell)
		} else {
			w.fail("%s -c with arguments after the script cannot be analysed", shell)
		}
		return nil
	}
	if depth+1 > MaxScriptDepth {
		w.fail("sh -c scripts nested more than %d deep cannot be analysed", MaxScriptDepth)
		return nil
	}
	inner := ef.clone()
	steps := w.script(fields[2], inner, depth+1)
	if len(steps) == 0 {
		if len(w.bad) == 0 {
			w.fail("%s -c with an empty script cannot be analysed", shell)
		}
		return nil
	}
	if !ef.onlyEnv() && (len(steps) != 1 || len(steps[0].Pipeline) != 1) {
		w.fail("redirections, timeout or nice around a %s -c script of several commands cannot be analysed", shell)
		return nil
	}
	return steps
}

// command builds and judges one command.
func (w *walker) command(fields []string, ef effects) Command {
	c := Command{
		Argv:      slices.Clip(fields),
		Assign:    nilIfEmpty(ef.assign),
		ClearEnv:  ef.clear,
		Unset:     nilIfEmpty(ef.unset),
		Timeout:   ef.timeout,
		Nice:      ef.nice,
		Redirects: nilIfEmpty(ef.redirs),
	}
	w.a.judge(&c)
	return c
}

func nilIfEmpty[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return s
}
