package shellparse

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/talonhq/talon/tool"
)

// effect is what a word does beyond reading and printing.
type effect uint8

const (
	// reads: the word only changes what is read or how it is printed.
	reads effect = iota
	// local: the word changes local state (medium).
	local
	// writes: the word makes the command write a file.
	writes
	// runs: the word makes the command run another program.
	runs
	// system: the word changes the system (the clock, the host name).
	system
	// destroys: the word discards data that cannot be recovered.
	destroys
	// remote: the word makes the command talk to another machine.
	remote
	// refused: talon knows the word and does not accept it.
	refused
)

// tier is the tier of a command that uses a word with this effect.
func (e effect) tier() tool.Tier {
	switch e {
	case reads:
		return tool.Low
	case local:
		return tool.Medium
	default:
		return tool.High
	}
}

// why is the default reason for an effect, a verb phrase.
func (e effect) why() string {
	switch e {
	case local:
		return "changes local state"
	case writes:
		return whyWrites
	case runs:
		return "runs a program"
	case system:
		return whySystem
	case destroys:
		return "discards data for good"
	case remote:
		return "talks to another machine"
	case refused:
		return "is not accepted"
	default:
		return "reads"
	}
}

// arity is how an option takes its value.
type arity uint8

const (
	// argNone: no value.
	argNone arity = iota
	// argRequired: a value, attached (-oF, --output=F) or the next word.
	argRequired
	// argOptional: a value only when attached (-I8601, --color=auto).
	argOptional
)

// option is one option of a command, under all its spellings.
type option struct {
	// names are the spellings with their dashes, the first canonical:
	// "-o", "--output".
	names  []string
	effect effect
	// why overrides effect.why() in reasons.
	why string
}

func (o *option) reason() string {
	if o.why != "" {
		return o.why
	}
	return o.effect.why()
}

// spelling is one way of writing an option: a short letter or a long name.
type spelling struct {
	name string // without dashes
	arg  arity
	opt  *option
}

// operandCheck judges a command's operands once its options are read. It
// returns the effect of the first operand that does more than read, that
// operand, and why.
type operandCheck func(ops []string) (e effect, word, why string)

// grammar is the table of the words one command accepts. A command is low
// risk only when every word of it is in its grammar with the reads effect.
type grammar struct {
	cmd   string
	short [128]*spelling
	// long is sorted by name, for prefix search.
	long []*spelling
	// opts are the options in table order, for tests and docs.
	opts []*option
	// complete: long lists every long option the program has, so an
	// unambiguous abbreviation is read as getopt_long reads it. For an
	// incomplete table an abbreviation of an accepted option is not
	// understood (it could be exactly an option the table lacks).
	complete bool
	// numeric: -NUM is an option (head -5, git log -5).
	numeric bool
	// negative: a word like -5 or -1.5 is an operand (seq).
	negative bool
	// raw: every word is an operand (echo, printf, test).
	raw bool
	// endOfOptions: --end-of-options ends options like -- (git).
	endOfOptions bool
	// lenient: the table is read by scan, for a subcommand that is not
	// low anyway: unknown words are skipped and an abbreviation counts as
	// its most dangerous candidate.
	lenient bool
	// maxOperands bounds the operands; -1 means any number.
	maxOperands int
	// operands judges the operands, when set.
	operands operandCheck
	// lean: parse records only the options with an effect, all the
	// verdict needs; tables whose callers ask [parsed.has] keep all.
	lean bool
	// low is the reason of a low verdict, computed once.
	low string
}

// spec is the source of a grammar. opts is a list of options separated by
// white space; each is its spellings joined by '|', a single letter being
// a short option and anything longer a long one; a spelling ending in '='
// takes a value, in "=?" an optional attached value; a trailing "!x" gives
// the effect: l local, w writes, r runs, s system, d destroys, n remote,
// x refused. why maps an option's first spelling to its reason.
type spec struct {
	cmd          string
	opts         string
	why          map[string]string
	complete     bool
	numeric      bool
	negative     bool
	raw          bool
	endOfOptions bool
	lean         bool
	// maxOperands: 0 means any number, -1 none; see grammar.maxOperands.
	maxOperands int
	operands    operandCheck
}

var effectCodes = map[byte]effect{'l': local, 'w': writes, 'r': runs, 's': system, 'd': destroys, 'n': remote, 'x': refused}

// compile builds a grammar from its spec. A malformed spec is a
// programmer error and panics (at init).
func (s spec) compile() *grammar {
	g := &grammar{cmd: s.cmd, complete: s.complete, numeric: s.numeric, negative: s.negative,
		raw: s.raw, endOfOptions: s.endOfOptions, operands: s.operands, lean: s.lean}
	switch s.maxOperands {
	case 0:
		g.maxOperands = -1
	case -1:
		g.maxOperands = 0
	default:
		g.maxOperands = s.maxOperands
	}
	seen := map[string]bool{}
	for _, tok := range strings.Fields(s.opts) {
		o := &option{}
		if body, code, ok := strings.Cut(tok, "!"); ok {
			e, known := effect(0), false
			if len(code) == 1 {
				e, known = effectCodes[code[0]]
			}
			if !known {
				panic(fmt.Sprintf("shellparse: %s: bad effect in %q", s.cmd, tok))
			}
			tok, o.effect = body, e
		}
		for i, name := range strings.Split(tok, "|") {
			sp := &spelling{opt: o}
			switch {
			case strings.HasSuffix(name, "=?"):
				name, sp.arg = name[:len(name)-2], argOptional
			case strings.HasSuffix(name, "="):
				name, sp.arg = name[:len(name)-1], argRequired
			}
			sp.name = name
			if name == "" || seen[name] || strings.HasPrefix(name, "-") {
				panic(fmt.Sprintf("shellparse: %s: bad or repeated option %q", s.cmd, name))
			}
			seen[name] = true
			dashed := "--" + name
			if len(name) == 1 {
				if name[0] >= 128 {
					panic(fmt.Sprintf("shellparse: %s: non-ASCII option %q", s.cmd, name))
				}
				g.short[name[0]] = sp
				dashed = "-" + name
			} else {
				g.long = append(g.long, sp)
			}
			o.names = append(o.names, dashed)
			if i == 0 {
				if why, ok := s.why[name]; ok {
					o.why = why
				}
			}
		}
		g.opts = append(g.opts, o)
	}
	sort.Slice(g.long, func(i, j int) bool { return g.long[i].name < g.long[j].name })
	g.low = lowRisk(g.cmd)
	return g
}

// use is one option as it was read from a command line.
type use struct {
	// word is the argument it was read from ("-rno", "--outp=x").
	word string
	// as is the option as written: "-o" inside a cluster, "--outp" for
	// an abbreviation.
	as    string
	sp    *spelling
	value string
}

// abbreviated reports an abbreviated long option.
func (u use) abbreviated() bool { return strings.HasPrefix(u.as, "--") && u.as[2:] != u.sp.name }

// parsed is a command line read against a grammar.
type parsed struct {
	uses     []use
	operands []string
	// dashdash is the index in operands where the operands after "--"
	// start, or -1.
	dashdash int
	// bad says why a word is not understood; "" when every word is.
	bad string
}

// has reports whether the option with the given spelling ("-l",
// "--list") was used, under any of its spellings.
func (p *parsed) has(name string) bool {
	for _, u := range p.uses {
		if slices.Contains(u.sp.opt.names, name) {
			return true
		}
	}
	return false
}

// parse reads args the way GNU getopt_long does: options and operands
// may mix (permutation), "--" ends options, clustered short options are
// split, a short option's value is the rest of its cluster or the next
// word, and a long option may be abbreviated to any prefix that selects
// one option.
func (g *grammar) parse(args []string) parsed {
	p := parsed{dashdash: -1}
	if g.raw {
		p.operands = args
		return p
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--" || g.endOfOptions && a == "--end-of-options":
			p.dashdash = len(p.operands)
			p.operands = append(p.operands, args[i+1:]...)
			return p
		case len(a) < 2 || a[0] != '-':
			p.operands = append(p.operands, a)
		case g.negative && isNumberish(a[1:]):
			p.operands = append(p.operands, a)
		case g.numeric && isDigits(a[1:]):
			g.record(&p, use{word: a, as: a, sp: numericSpelling})
		case a[1] == '-':
			var ok bool
			if i, ok = g.parseLong(args, i, &p); !ok {
				return p
			}
		default:
			var ok bool
			if i, ok = g.parseShort(args, i, &p); !ok {
				return p
			}
		}
	}
	return p
}

// dashedLetters are "-a", "-b", ... for every ASCII byte, so reading a
// short option allocates nothing.
var dashedLetters [128]string

func init() {
	for c := range dashedLetters {
		dashedLetters[c] = "-" + string(rune(c))
	}
}

// dashed returns "-" and the letter c (ASCII).
func dashed(c byte) string { return dashedLetters[c&127] }

// record keeps one option read from the line.
func (g *grammar) record(p *parsed, u use) {
	if g.lean && u.sp.opt.effect == reads {
		return
	}
	p.uses = append(p.uses, u)
}

// numericSpelling stands for the -NUM of commands that accept it.
var numericSpelling = &spelling{name: "NUM", opt: &option{names: []string{"-NUM"}}}

func (g *grammar) parseLong(args []string, i int, p *parsed) (int, bool) {
	a := args[i]
	name, val, hasVal := strings.Cut(a[2:], "=")
	sp, bad := g.lookupLong(name)
	if sp == nil {
		p.bad = bad
		return i, false
	}
	u := use{word: a, as: a[:2+len(name)], sp: sp, value: val}
	if u.abbreviated() && !g.complete && sp.opt.effect == reads {
		p.bad = fmt.Sprintf("%q is not an option talon knows for %s; write %s in full", "--"+name, g.cmd, "--"+sp.name)
		return i, false
	}
	switch sp.arg {
	case argNone:
		if hasVal {
			p.bad = fmt.Sprintf("%q is not understood: %s of %s takes no value", a, "--"+sp.name, g.cmd)
			return i, false
		}
	case argRequired:
		if !hasVal {
			if i+1 >= len(args) {
				p.bad = fmt.Sprintf("%q of %s needs a value", a, g.cmd)
				return i, false
			}
			i++
			u.value = args[i]
		}
	case argOptional:
	}
	g.record(p, u)
	return i, true
}

// lookupLong finds a long option by its name or an unambiguous prefix of
// it, as getopt_long does: an exact name wins, and a prefix shared by
// several options is ambiguous unless they are spellings of one option.
func (g *grammar) lookupLong(name string) (*spelling, string) {
	if name == "" {
		return nil, fmt.Sprintf("%q is not an option talon knows for %s", "--"+name, g.cmd)
	}
	i := sort.Search(len(g.long), func(i int) bool { return g.long[i].name >= name })
	if i < len(g.long) && g.long[i].name == name {
		return g.long[i], ""
	}
	var found *spelling
	var names []string
	for j := i; j < len(g.long) && strings.HasPrefix(g.long[j].name, name); j++ {
		sp := g.long[j]
		if sp.opt.effect != reads {
			names = append(names, "--"+sp.name+" (which "+sp.opt.reason()+")")
		} else {
			names = append(names, "--"+sp.name)
		}
		if found == nil || found.opt == sp.opt && found.arg == sp.arg {
			if found == nil {
				found = sp
			}
			continue
		}
		found = &spelling{} // ambiguous; keep collecting names
	}
	switch {
	case len(names) == 0:
		return nil, fmt.Sprintf("%q is not an option talon knows for %s", "--"+name, g.cmd)
	case found.opt == nil:
		return nil, fmt.Sprintf("%q is ambiguous for %s: it could be %s", "--"+name, g.cmd, orList(names))
	}
	return found, ""
}

func (g *grammar) parseShort(args []string, i int, p *parsed) (int, bool) {
	a := args[i]
	for j := 1; j < len(a); j++ {
		c := a[j]
		var sp *spelling
		if c < 128 {
			sp = g.short[c]
		}
		if sp == nil {
			if len(a) == 2 {
				p.bad = fmt.Sprintf("%q is not an option talon knows for %s", a, g.cmd)
			} else {
				p.bad = fmt.Sprintf("%q (in %q) is not an option talon knows for %s", "-"+a[j:j+1], a, g.cmd)
			}
			return i, false
		}
		u := use{word: a, as: dashed(a[j]), sp: sp}
		switch sp.arg {
		case argNone:
			g.record(p, u)
			continue
		case argRequired:
			u.value = a[j+1:]
			if u.value == "" {
				if i+1 >= len(args) {
					p.bad = fmt.Sprintf("%q of %s needs a value", u.as, g.cmd)
					return i, false
				}
				i++
				u.value = args[i]
			}
		case argOptional:
			u.value = a[j+1:]
		}
		g.record(p, u)
		return i, true
	}
	return i, true
}

// judge reads argv[1:] against the grammar and returns the tier and the
// reason, which names the command as the table does ("sort", "git log").
func (g *grammar) judge(argv []string) (tool.Tier, string) {
	p := g.parse(argv[1:])
	return g.verdict(&p)
}

// verdict turns a parsed line into a tier and a reason: the option or
// operand with the highest effect decides; a word that is not understood
// makes the command high.
func (g *grammar) verdict(p *parsed) (tool.Tier, string) {
	if p.bad != "" {
		return tool.High, p.bad
	}
	worst, why := reads, ""
	for _, u := range p.uses {
		if e := u.sp.opt.effect; e.tier() > worst.tier() {
			worst, why = e, useReason(g.cmd, u)
		}
	}
	if worst.tier() == tool.High {
		return tool.High, why
	}
	if g.maxOperands >= 0 && len(p.operands) > g.maxOperands {
		extra := p.operands[g.maxOperands]
		if g.maxOperands == 0 {
			return tool.High, fmt.Sprintf("%q is not understood: %s takes no operands", extra, g.cmd)
		}
		return tool.High, fmt.Sprintf("%q is not understood: %s takes at most %d operands", extra, g.cmd, g.maxOperands)
	}
	if g.operands != nil {
		if e, word, owhy := g.operands(p.operands); e.tier() > worst.tier() {
			if e == refused {
				return tool.High, fmt.Sprintf("%q is not understood: %s", word, owhy)
			}
			worst, why = e, fmt.Sprintf("%q is %s risk (%s)", g.cmd+" "+word, e.tier(), owhy)
		}
	}
	switch worst.tier() {
	case tool.Low:
		return tool.Low, g.low
	default:
		return worst.tier(), why
	}
}

// useReason says why an option raised the tier, naming the word as
// written and, for a cluster or an abbreviation, the option it was read
// as.
func useReason(cmd string, u use) string {
	subject := cmd + " " + u.word
	o := u.sp.opt
	tier := o.effect.tier()
	switch {
	case u.abbreviated():
		return fmt.Sprintf("%q is %s risk (%s is read as %s, which %s)", subject, tier, u.as, "--"+u.sp.name, o.reason())
	case !strings.HasPrefix(u.as, "--") && u.word != u.as:
		return fmt.Sprintf("%q is %s risk (%s %s)", subject, tier, u.as, o.reason())
	}
	return fmt.Sprintf("%q is %s risk (%s)", subject, tier, o.reason())
}

// orList renders names as "a, b or c".
func orList(names []string) string {
	names = slices.Compact(names)
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// isNumberish reports a decimal number without its sign: digits with an
// optional fraction and exponent.
func isNumberish(s string) bool {
	if s == "" || s[0] < '0' || s[0] > '9' && s[0] != '.' {
		return false
	}
	return strings.Trim(s, "0123456789.eE+-") == ""
}
