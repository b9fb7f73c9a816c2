package shellparse

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// Bounds of pathname expansion for one line, so a pattern such as
// /*/*/*/* cannot make analysis walk the whole file system.
const (
	maxDirReads   = 256
	maxDirEntries = 1 << 16
)

// readDir is the directory reader for pathname expansion, within the
// line's budget.
func (w *walker) readDir(name string) ([]os.DirEntry, error) {
	w.dirReads++
	if w.dirReads > maxDirReads {
		return nil, errGlobBudget
	}
	ents, err := os.ReadDir(name)
	w.dirEntries += len(ents)
	if w.dirEntries > maxDirEntries {
		return nil, errGlobBudget
	}
	return ents, err
}

// braceCount estimates how many words brace expansion makes of word,
// saturating above MaxArgs, so huge expansions are refused before they are
// built.
func braceCount(word *syntax.Word) int {
	cp := *word
	if !syntax.SplitBraces(&cp) {
		return 1
	}
	return partsCount(cp.Parts)
}

func partsCount(parts []syntax.WordPart) int {
	n := 1
	for _, part := range parts {
		be, ok := part.(*syntax.BraceExp)
		if !ok {
			continue
		}
		k := 0
		if be.Sequence {
			k = sequenceCount(be.Elems)
		} else {
			for _, e := range be.Elems {
				k = min(k+partsCount(e.Parts), MaxArgs+1)
			}
		}
		n = min(n*max(k, 1), MaxArgs+1)
	}
	return n
}

// sequenceCount counts {from..to[..step]}; anything it cannot read counts
// as one word, as bash leaves a malformed sequence literal.
func sequenceCount(elems []*syntax.Word) int {
	num := func(w *syntax.Word) (int64, bool) {
		if w == nil || len(w.Parts) != 1 {
			return 0, false
		}
		lit, ok := w.Parts[0].(*syntax.Lit)
		if !ok {
			return 0, false
		}
		if n, err := strconv.ParseInt(lit.Value, 10, 64); err == nil {
			return n, true
		}
		if len(lit.Value) == 1 {
			return int64(lit.Value[0]), true
		}
		return 0, false
	}
	if len(elems) < 2 {
		return 1
	}
	from, ok1 := num(elems[0])
	to, ok2 := num(elems[1])
	if !ok1 || !ok2 {
		return 1
	}
	step := int64(1)
	if len(elems) > 2 {
		if s, ok := num(elems[2]); ok && s != 0 {
			step = s
		}
	}
	span := to - from
	if span < 0 {
		span = -span
	}
	if step < 0 {
		step = -step
	}
	if span < 0 || span/step >= MaxArgs {
		return MaxArgs + 1
	}
	return int(span/step) + 1
}

// checkWord rejects every word part whose value is only known to a running
// shell, recording why.
func (w *walker) checkWord(word *syntax.Word) bool {
	return w.checkParts(word.Parts, false)
}

func (w *walker) checkParts(parts []syntax.WordPart, quoted bool) bool {
	ok := true
	where := ""
	if quoted {
		where = " inside double quotes"
	}
	for _, part := range parts {
		switch p := part.(type) {
		case *syntax.Lit, *syntax.SglQuoted:
		case *syntax.DblQuoted:
			if p.Dollar {
				w.fail("locale strings $\"...\" cannot be analysed")
				ok = false
				continue
			}
			ok = w.checkParts(p.Parts, true) && ok
		case *syntax.ParamExp:
			name := "..."
			if p.Param != nil {
				name = p.Param.Value
			}
			if p.Short {
				w.fail("parameter expansion $%s%s cannot be analysed", name, where)
			} else {
				w.fail("parameter expansion ${%s}%s cannot be analysed", name, where)
			}
			ok = false
		case *syntax.CmdSubst:
			w.fail("command substitution $(...)%s cannot be analysed", where)
			ok = false
		case *syntax.ArithmExp:
			w.fail("arithmetic expansion $((...))%s cannot be analysed", where)
			ok = false
		case *syntax.ProcSubst:
			w.fail("process substitution <(...) cannot be analysed")
			ok = false
		case *syntax.ExtGlob:
			w.fail("extended glob patterns cannot be analysed")
			ok = false
		default:
			w.fail("this kind of word cannot be analysed")
			ok = false
		}
	}
	return ok
}

// checkTilde allows only ~ and ~/... as tilde prefixes: ~user, ~+ and ~-
// depend on the system or the shell's state.
func (w *walker) checkTilde(word *syntax.Word) bool {
	if len(word.Parts) == 0 {
		return true
	}
	lit, ok := word.Parts[0].(*syntax.Lit)
	if !ok || !strings.HasPrefix(lit.Value, "~") {
		return true
	}
	prefix, _, _ := strings.Cut(lit.Value, "/")
	if prefix == "~" {
		return true
	}
	if len(word.Parts) > 1 && !strings.Contains(lit.Value, "/") {
		// "~'x'": quoted characters in the prefix leave it literal.
		return true
	}
	w.fail("tilde expansion %+q cannot be analysed; write the path in full", prefix)
	return false
}

// activeText renders the unquoted characters of a word, with quoted and
// escaped characters replaced by 'x', so pattern characters can be found.
func activeText(word *syntax.Word) string {
	var b strings.Builder
	for _, part := range word.Parts {
		lit, ok := part.(*syntax.Lit)
		if !ok {
			b.WriteByte('x')
			continue
		}
		for i := 0; i < len(lit.Value); i++ {
			if lit.Value[i] == '\\' {
				i++
				b.WriteByte('x')
				continue
			}
			b.WriteByte(lit.Value[i])
		}
	}
	return b.String()
}

// hasPattern reports whether pathname or brace expansion may change the
// word.
func hasPattern(word *syntax.Word) bool {
	t := activeText(word)
	if strings.ContainsAny(t, "*?") {
		return true
	}
	if i := strings.IndexByte(t, '['); i >= 0 && strings.IndexByte(t[i:], ']') > 0 {
		return true
	}
	if i := strings.IndexByte(t, '{'); i >= 0 && strings.IndexByte(t[i:], '}') > 0 {
		return true
	}
	return false
}

// plainLit returns the value of a word that expands to itself.
func plainLit(word *syntax.Word) (string, bool) {
	if len(word.Parts) != 1 {
		return "", false
	}
	lit, ok := word.Parts[0].(*syntax.Lit)
	if !ok || strings.ContainsAny(lit.Value, "\\~{}*?[]") {
		return "", false
	}
	return lit.Value, true
}

// expandArgs expands the words of a command the way bash would (quote
// removal, brace, tilde and pathname expansion against Dir). pattern marks
// the fields that came from a word with glob or brace characters.
func (w *walker) expandArgs(words []*syntax.Word) (fields []string, pattern []bool, ok bool) {
	ok = true
	fields, pattern = make([]string, 0, len(words)), make([]bool, 0, len(words))
	for _, word := range words {
		if !w.checkWord(word) || !w.checkTilde(word) {
			ok = false
			continue
		}
		if v, plain := plainLit(word); plain {
			fields = append(fields, v)
			pattern = append(pattern, false)
			continue
		}
		isPattern := hasPattern(word)
		if isPattern && w.nargs+len(fields)+braceCount(word) > MaxArgs {
			w.fail("the line expands to more than %d arguments", MaxArgs)
			ok = false
			continue
		}
		got, err := expand.Fields(w.config(), word)
		if err != nil {
			w.fail("a word cannot be expanded: %v", err)
			ok = false
			continue
		}
		for _, f := range got {
			if strings.IndexByte(f, 0) >= 0 {
				w.fail("an argument contains a NUL byte")
				ok = false
			}
			fields = append(fields, f)
			pattern = append(pattern, isPattern)
		}
	}
	w.nargs += len(fields)
	if w.nargs > MaxArgs {
		w.fail("the line expands to more than %d arguments", MaxArgs)
		ok = false
	}
	return fields, pattern, ok
}

// literal expands a word that must stay one string: no pathname or brace
// expansion, only quote removal and a leading tilde.
func (w *walker) literal(word *syntax.Word, what string) (string, bool) {
	if !w.checkWord(word) || !w.checkTilde(word) {
		return "", false
	}
	if v, plain := plainLit(word); plain {
		return v, true
	}
	if hasPattern(word) {
		w.fail("a glob or brace pattern in %s cannot be analysed; quote it", what)
		return "", false
	}
	v, err := expand.Literal(w.config(), word)
	if err != nil {
		w.fail("%s cannot be expanded: %v", what, err)
		return "", false
	}
	if strings.IndexByte(v, 0) >= 0 {
		w.fail("%s contains a NUL byte", what)
		return "", false
	}
	return v, true
}

// assignValue expands the value of a VAR=value assignment. Bash expands a
// tilde after every ':' of a value as well; only a leading one is
// supported, others must be quoted.
func (w *walker) assignValue(word *syntax.Word) (string, bool) {
	if word == nil {
		return "", true
	}
	if t := activeText(word); len(t) > 1 && strings.Contains(t[1:], "~") {
		w.fail("a ~ inside an assignment value cannot be analysed; quote it or write the path in full")
		return "", false
	}
	v, ok := w.literal(word, "an assignment value")
	return v, ok
}

// redirects turns a statement's redirections into permitted ones.
func (w *walker) redirects(rs []*syntax.Redirect) ([]Redirect, bool) {
	var out []Redirect
	ok := true
	for _, r := range rs {
		fd := -1
		if r.N != nil {
			n, err := strconv.Atoi(r.N.Value)
			if err != nil || n < 0 || n > 2 {
				w.fail("redirecting file descriptor %s cannot be analysed; only 0, 1 and 2 are supported", r.N.Value)
				ok = false
				continue
			}
			fd = n
		}
		got, rok := w.redirect(r, fd)
		ok = ok && rok
		out = append(out, got...)
	}
	return out, ok
}

func (w *walker) redirect(r *syntax.Redirect, fd int) ([]Redirect, bool) {
	switch r.Op {
	case syntax.RdrOut, syntax.RdrClob, syntax.AppOut:
		t, ok := w.literal(r.Word, "a redirection target")
		if !ok {
			return nil, false
		}
		op := ">"
		if r.Op == syntax.AppOut {
			op = ">>"
		}
		return w.output(defaultFd(fd, 1), op, t)
	case syntax.RdrIn:
		if fd > 0 {
			w.fail("reading a file into descriptor %d cannot be analysed", fd)
			return nil, false
		}
		t, ok := w.literal(r.Word, "a redirection source")
		if !ok {
			return nil, false
		}
		if t == "" {
			w.fail("an empty redirection source cannot be analysed")
			return nil, false
		}
		if t != devNull {
			w.addPath(t)
		}
		return []Redirect{{Fd: 0, Op: "<", Target: t}}, true
	case syntax.DplOut:
		t, ok := w.literal(r.Word, "a redirection target")
		if !ok {
			return nil, false
		}
		switch {
		case t == "1" || t == "2":
			return []Redirect{{Fd: defaultFd(fd, 1), Op: ">&", Target: t}}, true
		case t == "-":
			w.fail("closing a file descriptor cannot be analysed")
			return nil, false
		case fd < 0 && t != "" && strings.Trim(t, "0123456789") != "":
			return w.all(">", t)
		}
		w.fail("duplicating descriptor %s cannot be analysed; only >&1 and >&2 are supported", t)
		return nil, false
	case syntax.RdrAll, syntax.AppAll:
		if fd >= 0 {
			w.fail("a descriptor before &> cannot be analysed")
			return nil, false
		}
		t, ok := w.literal(r.Word, "a redirection target")
		if !ok {
			return nil, false
		}
		op := ">"
		if r.Op == syntax.AppAll {
			op = ">>"
		}
		return w.all(op, t)
	case syntax.Hdoc, syntax.DashHdoc:
		if fd > 0 {
			w.fail("a here-document for descriptor %d cannot be analysed", fd)
			return nil, false
		}
		body, ok := w.heredoc(r)
		if !ok {
			return nil, false
		}
		return []Redirect{{Fd: 0, Op: "<<", Target: body}}, true
	case syntax.WordHdoc:
		if fd > 0 {
			w.fail("a here-string for descriptor %d cannot be analysed", fd)
			return nil, false
		}
		t, ok := w.literal(r.Word, "a here-string")
		if !ok {
			return nil, false
		}
		return []Redirect{{Fd: 0, Op: "<<", Target: t + "\n"}}, true
	}
	w.fail("the redirection %s cannot be analysed", r.Op)
	return nil, false
}

const devNull = "/dev/null"

func defaultFd(fd, def int) int {
	if fd < 0 {
		return def
	}
	return fd
}

// output is a write to target on fd; /dev/stdout and /dev/stderr become
// descriptor duplications, since the child's descriptors are not talon's.
func (w *walker) output(fd int, op, t string) ([]Redirect, bool) {
	switch t {
	case "":
		w.fail("an empty redirection target cannot be analysed")
		return nil, false
	case "/dev/stdout":
		return []Redirect{{Fd: fd, Op: ">&", Target: "1"}}, true
	case "/dev/stderr":
		return []Redirect{{Fd: fd, Op: ">&", Target: "2"}}, true
	case devNull:
	default:
		w.addPath(t)
	}
	return []Redirect{{Fd: fd, Op: op, Target: t}}, true
}

// all is &>target: stdout to target, then stderr to stdout.
func (w *walker) all(op, t string) ([]Redirect, bool) {
	out, ok := w.output(1, op, t)
	if !ok {
		return nil, false
	}
	return append(out, Redirect{Fd: 2, Op: ">&", Target: "1"}), true
}

func (w *walker) addPath(p string) {
	if !filepath.IsAbs(p) {
		p = filepath.Join(w.a.dir, p)
	}
	p = filepath.Clean(p)
	for _, have := range w.paths {
		if have == p {
			return
		}
	}
	w.paths = append(w.paths, p)
}

// heredoc returns the literal stdin text of a here-document. A quoted
// delimiter makes the body literal; an unquoted one allows only bodies that
// do not expand (backslash escapes are applied as bash would).
func (w *walker) heredoc(r *syntax.Redirect) (string, bool) {
	quoted := false
	for _, part := range r.Word.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			if strings.ContainsRune(p.Value, '\\') {
				quoted = true
			}
		case *syntax.SglQuoted, *syntax.DblQuoted:
			quoted = true
		default:
			w.fail("a here-document delimiter must be a literal word")
			return "", false
		}
	}
	var raw strings.Builder
	if r.Hdoc != nil {
		for _, part := range r.Hdoc.Parts {
			lit, ok := part.(*syntax.Lit)
			if !ok {
				if !w.checkParts([]syntax.WordPart{part}, false) {
					w.fail("a here-document whose body expands cannot be analysed; quote the delimiter (<<'EOF') to pass the body literally")
				} else {
					w.fail("this here-document body cannot be analysed")
				}
				return "", false
			}
			raw.WriteString(lit.Value)
		}
	}
	body := raw.String()
	if r.Op == syntax.DashHdoc {
		lines := strings.SplitAfter(body, "\n")
		for i, l := range lines {
			lines[i] = strings.TrimLeft(l, "\t")
		}
		body = strings.Join(lines, "")
	}
	if !quoted && strings.ContainsRune(body, '\\') {
		v, err := expand.Document(w.config(), &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: body}}})
		if err != nil {
			w.fail("a here-document body cannot be expanded: %v", err)
			return "", false
		}
		body = v
	}
	if body != "" && !strings.HasSuffix(body, "\n") {
		w.fail("a here-document body must end with a newline")
		return "", false
	}
	if strings.IndexByte(body, 0) >= 0 {
		w.fail("a here-document body contains a NUL byte")
		return "", false
	}
	return body, true
}

// checkName rejects command names with characters a person reviewing the
// line could misread: control characters and anything outside ASCII
// (look-alike letters, zero-width and direction-changing characters).
func (w *walker) checkName(name string) bool {
	for _, r := range name {
		switch {
		case r < 0x20 || r == 0x7f:
			w.fail("the command name %+q contains the control character U+%04X and cannot be analysed", name, r)
			return false
		case r > 0x7e:
			w.fail("the command name %+q contains the non-ASCII character U+%04X and cannot be analysed; command names must be plain ASCII", name, r)
			return false
		}
	}
	return true
}
