package shellparse

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"mvdan.cc/sh/v3/syntax"

	"github.com/talonhq/talon/tool"
)

// String renders the program as a canonical shell line: every word
// re-quoted, wrappers reduced to the env, timeout and nice that talon
// reproduces, and here-documents with quoted delimiters after the line.
// Analysing the result yields the same program, so the rendering is what
// approvers see and what an approval binds to.
func (p *Program) String() string {
	if p == nil {
		return ""
	}
	var b strings.Builder
	var docs []string
	for i, st := range p.Steps {
		if i > 0 {
			if st.Op == ";" {
				b.WriteString("; ")
			} else {
				b.WriteString(" " + st.Op + " ")
			}
		}
		for j, c := range st.Pipeline {
			if j > 0 {
				b.WriteString(" | ")
			}
			docs = c.render(&b, docs)
		}
	}
	for _, d := range docs {
		b.WriteByte('\n')
		b.WriteString(d)
	}
	return b.String()
}

// String renders one command the way [Program.String] does, here-document
// bodies included.
func (c Command) String() string {
	var b strings.Builder
	for _, d := range c.render(&b, nil) {
		b.WriteByte('\n')
		b.WriteString(d)
	}
	return b.String()
}

func (c Command) render(b *strings.Builder, docs []string) []string {
	if c.ClearEnv || len(c.Unset) > 0 {
		b.WriteString("env")
		if c.ClearEnv {
			b.WriteString(" -i")
		}
		for _, u := range c.Unset {
			b.WriteString(" -u " + quote(u))
		}
		for _, kv := range c.Assign {
			b.WriteString(" " + assignment(kv))
		}
		b.WriteByte(' ')
	} else {
		for _, kv := range c.Assign {
			b.WriteString(assignment(kv) + " ")
		}
	}
	if c.Timeout > 0 {
		b.WriteString("timeout " + formatDuration(c.Timeout) + " ")
	}
	if c.Nice != 0 {
		b.WriteString("nice -n " + strconv.Itoa(c.Nice) + " ")
	}
	for i, a := range c.Argv {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(quote(a))
	}
	for _, r := range c.Redirects {
		b.WriteByte(' ')
		switch r.Op {
		case "<<":
			delim := heredocDelimiter(r.Target)
			b.WriteString("<<'" + delim + "'")
			docs = append(docs, r.Target+delim)
		case "<":
			b.WriteString("<" + quote(r.Target))
		default:
			if r.Fd != 1 {
				b.WriteString(strconv.Itoa(r.Fd))
			}
			if r.Op == ">&" {
				b.WriteString(">&" + r.Target)
			} else {
				b.WriteString(r.Op + quote(r.Target))
			}
		}
	}
	return docs
}

func assignment(kv string) string {
	name, value, _ := strings.Cut(kv, "=")
	return name + "=" + quote(value)
}

// quote quotes one word for bash. Words never hold NUL bytes, the only
// thing bash cannot quote.
func quote(s string) string {
	q, err := syntax.Quote(s, syntax.LangBash)
	if err != nil {
		return strconv.Quote(s)
	}
	return q
}

// heredocDelimiter picks a delimiter that is not a line of the body.
func heredocDelimiter(body string) string {
	lines := strings.Split(body, "\n")
	delim := "EOF"
	for n := 1; slices.Contains(lines, delim); n++ {
		delim = "EOF" + strconv.Itoa(n)
	}
	return delim
}

// formatDuration renders a duration in seconds exactly, as timeout(1)
// reads it.
func formatDuration(d time.Duration) string {
	s := strconv.FormatInt(int64(d/time.Second), 10)
	if frac := int64(d % time.Second); frac != 0 {
		f := strconv.FormatInt(frac+int64(time.Second), 10)[1:]
		s += "." + strings.TrimRight(f, "0")
	}
	return s + "s"
}

// Plan returns the program as a [tool.Plan] for the given working
// directory: the canonical line as Summary, and each command's argv,
// resolved binary and the names of the variables the line sets.
func (p *Program) Plan(dir string) *tool.Plan {
	plan := &tool.Plan{Summary: p.String()}
	if p == nil {
		return plan
	}
	for _, st := range p.Steps {
		for _, c := range st.Pipeline {
			var env []string
			for _, kv := range c.Assign {
				name, _, _ := strings.Cut(kv, "=")
				env = append(env, name)
			}
			plan.Commands = append(plan.Commands, tool.PlannedCommand{
				Argv:   slices.Clone(c.Argv),
				Binary: c.Binary,
				Dir:    dir,
				Env:    env,
			})
		}
	}
	return plan
}

// Commands returns every command of the program in execution order.
func (p *Program) Commands() []Command {
	if p == nil {
		return nil
	}
	var out []Command
	for _, st := range p.Steps {
		out = append(out, st.Pipeline...)
	}
	return out
}
