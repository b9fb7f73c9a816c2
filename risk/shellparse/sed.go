package shellparse

import (
	"strings"

	"github.com/talonhq/talon/tool"
)

// sedGrammar is GNU sed 4.9's options. -i edits files in place and -f
// reads a program talon cannot see, so both make sed high risk.
var sedGrammar = spec{cmd: "sed", complete: true, opts: `
	n|quiet|silent debug e=|expression= f=|file=!x follow-symlinks i=?|in-place=?!w l=|line-length=
	b|binary z|null-data|zero-terminated posix E|r|regexp-extended s|separate sandbox u|unbuffered
	help version`,
	why: map[string]string{"i": "edits files in place", "f": "reads its program from a file"},
}.compile()

// classifySed: sed is low risk when it edits a stream, and high when it
// edits files in place (-i in any form), reads its program from a file
// (-f), takes an option this analysis does not know, or runs a program that
// executes commands or writes files (the e and w/W commands, the e and w
// flags of s). Programs are scanned with a small GNU sed parser that treats
// anything it does not understand as high.
func classifySed(argv []string) (tool.Tier, string) {
	p := sedGrammar.parse(argv[1:])
	if tier, why := sedGrammar.verdict(&p); tier != tool.Low {
		return tier, why
	}
	var scripts []string
	for _, u := range p.uses {
		if u.sp.opt.names[0] == "-e" {
			scripts = append(scripts, u.value)
		}
	}
	if len(scripts) == 0 && len(p.operands) > 0 {
		scripts = append(scripts, p.operands[0])
	}
	if len(scripts) == 0 {
		return tool.Low, lowRisk("sed")
	}
	if why := sedUnsafe(strings.Join(scripts, "\n")); why != "" {
		return high("sed", why)
	}
	return tool.Low, lowRisk("sed")
}

// sedUnsafe scans a sed program and returns why it is unsafe, or "".
func sedUnsafe(prog string) string {
	p := &sedScanner{s: prog}
	for {
		p.skip(" \t\n;")
		if p.eof() {
			return ""
		}
		if !p.address() {
			return "its program could not be analysed"
		}
		p.skip(" \t")
		if p.peek() == ',' {
			p.i++
			p.skip(" \t")
			if !p.address2() {
				return "its program could not be analysed"
			}
		}
		p.skip(" \t")
		for p.peek() == '!' {
			p.i++
			p.skip(" \t")
		}
		if p.eof() {
			return "its program could not be analysed"
		}
		cmd := p.s[p.i]
		p.i++
		switch cmd {
		case '{':
			continue
		case '}', '=', 'd', 'D', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'x', 'z', 'F':
		case 'l', 'q', 'Q', 'L':
			p.skip(" \t")
			p.digits()
		case ':', 'b', 't', 'T', 'v':
			p.until(";\n")
		case '#', 'a', 'i', 'c', 'r', 'R':
			p.line()
			continue
		case 'e':
			return "its program runs commands (e)"
		case 'w', 'W':
			return "its program writes a file (w)"
		case 'y':
			if !p.delimited(false) {
				return "its program could not be analysed"
			}
		case 's':
			if !p.delimited(true) {
				return "its program could not be analysed"
			}
			for !p.eof() {
				c := p.s[p.i]
				if c == 'e' {
					return "its program runs commands (s///e)"
				}
				if c == 'w' {
					return "its program writes a file (s///w)"
				}
				if !strings.ContainsRune("gpiImM0123456789", rune(c)) {
					break
				}
				p.i++
			}
		default:
			return "its program could not be analysed"
		}
		p.skip(" \t")
		if !p.eof() && !strings.ContainsRune(";\n}", rune(p.s[p.i])) {
			return "its program could not be analysed"
		}
	}
}

type sedScanner struct {
	s string
	i int
}

func (p *sedScanner) eof() bool { return p.i >= len(p.s) }

func (p *sedScanner) peek() byte {
	if p.eof() {
		return 0
	}
	return p.s[p.i]
}

func (p *sedScanner) skip(chars string) {
	for !p.eof() && strings.IndexByte(chars, p.s[p.i]) >= 0 {
		p.i++
	}
}

func (p *sedScanner) digits() {
	for !p.eof() && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
		p.i++
	}
}

func (p *sedScanner) until(stop string) {
	for !p.eof() && strings.IndexByte(stop, p.s[p.i]) < 0 {
		p.i++
	}
}

// line consumes text to the end of the line, following backslash-newline
// continuations.
func (p *sedScanner) line() {
	for !p.eof() {
		c := p.s[p.i]
		p.i++
		if c == '\\' && !p.eof() {
			p.i++
			continue
		}
		if c == '\n' {
			return
		}
	}
}

// address consumes an optional first address.
func (p *sedScanner) address() bool {
	switch c := p.peek(); {
	case c >= '0' && c <= '9':
		p.digits()
		if p.peek() == '~' {
			p.i++
			p.digits()
		}
	case c == '$':
		p.i++
	case c == '/':
		p.i++
		if !p.regex('/', true) {
			return false
		}
		p.regexFlags()
	case c == '\\':
		p.i++
		if p.eof() || p.s[p.i] == '\n' || p.s[p.i] == '\\' {
			return false
		}
		d := p.s[p.i]
		p.i++
		if !p.regex(d, true) {
			return false
		}
		p.regexFlags()
	}
	return true
}

// address2 consumes the address after a comma.
func (p *sedScanner) address2() bool {
	switch c := p.peek(); {
	case c == '+' || c == '~':
		p.i++
		if p.peek() < '0' || p.peek() > '9' {
			return false
		}
		p.digits()
		return true
	case c >= '0' && c <= '9', c == '$', c == '/', c == '\\':
		return p.address()
	}
	return false
}

func (p *sedScanner) regexFlags() {
	for p.peek() == 'I' || p.peek() == 'M' {
		p.i++
	}
}

// delimited consumes a delimiter and two parts ended by it; the first is
// a regular expression when re is set (s), plain text otherwise (y).
func (p *sedScanner) delimited(re bool) bool {
	if p.eof() || p.s[p.i] == '\n' || p.s[p.i] == '\\' {
		return false
	}
	d := p.s[p.i]
	p.i++
	return p.regex(d, re) && p.regex(d, false)
}

// regex consumes up to and including the unescaped delimiter d. In a
// regular expression (brackets true) a bracket expression that contains d
// is refused: seds disagree on whether it ends the part, and a wrong guess
// could hide a command.
func (p *sedScanner) regex(d byte, brackets bool) bool {
	for !p.eof() {
		c := p.s[p.i]
		p.i++
		switch {
		case c == '\\':
			if p.eof() {
				return false
			}
			p.i++
		case c == d:
			return true
		case c == '\n':
			return false
		case c == '[' && brackets:
			end := bracketEnd(p.s, p.i)
			if end < 0 || strings.IndexByte(p.s[p.i:end], d) >= 0 {
				return false
			}
			p.i = end
		}
	}
	return false
}

// bracketEnd returns the index just after the ']' closing the bracket
// expression whose '[' is at i-1, or -1.
func bracketEnd(s string, i int) int {
	j := i
	if j < len(s) && s[j] == '^' {
		j++
	}
	if j < len(s) && s[j] == ']' {
		j++
	}
	for j < len(s) {
		switch {
		case s[j] == '[' && j+1 < len(s) && strings.IndexByte(":.=", s[j+1]) >= 0:
			end := strings.Index(s[j+2:], string(s[j+1])+"]")
			if end < 0 {
				return -1
			}
			j += 2 + end + 2
		case s[j] == ']':
			return j + 1
		case s[j] == '\n':
			return -1
		default:
			j++
		}
	}
	return -1
}
