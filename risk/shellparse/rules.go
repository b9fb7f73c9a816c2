package shellparse

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// ErrInvalidRule reports an allow, ask or deny pattern that cannot be used.
var ErrInvalidRule = errors.New("invalid shell rule")

// Rule actions, strongest first: a deny rule wins over an ask rule, which
// wins over an allow rule.
const (
	RuleDeny  = "deny"
	RuleAsk   = "ask"
	RuleAllow = "allow"
)

// Rule is an operator's pattern over one command of a line, with what to
// do with the commands it matches.
//
// A pattern is words separated by spaces. The first names the program:
// a bare name ("git", "py*") matches a command found through PATH lookup
// by that name, never ./git or /tmp/git; a word with '/' is an absolute
// pattern over the resolved binary (and where its symbolic links lead).
// Each later word matches one argument: '*' matches any run of
// characters, '?' one character, and a backslash takes the next
// character literally. A word that is exactly "**" matches any number of
// arguments, none included. So "git push **" matches every git push, and
// "make test" only make test.
type Rule struct {
	// Action is [RuleAllow], [RuleAsk] or [RuleDeny].
	Action string `json:"action"`
	// Pattern is the rule as the operator wrote it.
	Pattern string `json:"pattern"`
	words   []string
}

// ParseRule compiles one pattern for action.
//
// # Errors
//
// An empty pattern, a program word with '/' that is not absolute, an
// unknown action or a pattern ending in a lone backslash wraps
// [ErrInvalidRule].
func ParseRule(action, pattern string) (Rule, error) {
	switch action {
	case RuleAllow, RuleAsk, RuleDeny:
	default:
		return Rule{}, fmt.Errorf("%w: action %q: use allow, ask or deny", ErrInvalidRule, action)
	}
	words := strings.Fields(pattern)
	if len(words) == 0 {
		return Rule{}, fmt.Errorf("%w: %s pattern %q names no command; write the program and its arguments, like \"make test\"", ErrInvalidRule, action, pattern)
	}
	if strings.ContainsRune(words[0], '/') && !strings.HasPrefix(words[0], "/") {
		return Rule{}, fmt.Errorf("%w: %s pattern %q: a program with '/' must be an absolute path", ErrInvalidRule, action, pattern)
	}
	if words[0] == "**" {
		return Rule{}, fmt.Errorf("%w: %s pattern %q: the first word names the program; ** matches arguments only", ErrInvalidRule, action, pattern)
	}
	for _, w := range words {
		if strings.HasSuffix(w, `\`) && !strings.HasSuffix(w, `\\`) {
			return Rule{}, fmt.Errorf("%w: %s pattern %q ends a word with a lone backslash", ErrInvalidRule, action, pattern)
		}
	}
	return Rule{Action: action, Pattern: strings.Join(words, " "), words: words}, nil
}

// String renders the rule as `allow "make test"`.
func (r Rule) String() string { return fmt.Sprintf("%s %q", r.Action, r.Pattern) }

// Match reports whether the rule covers c: its program and every
// argument.
func (r Rule) Match(c Command) bool {
	if len(r.words) == 0 || len(c.Argv) == 0 || c.Binary == "" {
		return false
	}
	if !r.program(c) {
		return false
	}
	return matchWords(r.words[1:], c.Argv[1:])
}

func (r Rule) program(c Command) bool {
	p, name := r.words[0], c.Argv[0]
	if !strings.HasPrefix(p, "/") {
		return !strings.ContainsRune(name, '/') && glob(p, name)
	}
	if glob(p, c.Binary) {
		return true
	}
	real, err := filepath.EvalSymlinks(c.Binary)
	return err == nil && glob(p, real)
}

// matchWords matches argument patterns against arguments, "**" standing
// for any number of them.
func matchWords(pats, args []string) bool {
	for len(pats) > 0 {
		if pats[0] == "**" {
			for i := 0; i <= len(args); i++ {
				if matchWords(pats[1:], args[i:]) {
					return true
				}
			}
			return false
		}
		if len(args) == 0 || !glob(pats[0], args[0]) {
			return false
		}
		pats, args = pats[1:], args[1:]
	}
	return len(args) == 0
}

// glob matches one word: '*' any run of characters, '?' one, '\x' the
// character x.
func glob(pat, s string) bool {
	for len(pat) > 0 {
		switch pat[0] {
		case '*':
			for len(pat) > 0 && pat[0] == '*' {
				pat = pat[1:]
			}
			if pat == "" {
				return true
			}
			for i := 0; i <= len(s); i++ {
				if glob(pat, s[i:]) {
					return true
				}
			}
			return false
		case '?':
			if s == "" {
				return false
			}
			_, size := utf8.DecodeRuneInString(s)
			pat, s = pat[1:], s[size:]
		case '\\':
			if len(pat) < 2 || s == "" || s[0] != pat[1] {
				return false
			}
			pat, s = pat[2:], s[1:]
		default:
			if s == "" || s[0] != pat[0] {
				return false
			}
			pat, s = pat[1:], s[1:]
		}
	}
	return s == ""
}

// Rules are the allow, ask and deny rules of a profile. The zero value
// has none.
type Rules struct {
	list []Rule
}

// NewRules compiles the three lists of a profile.
//
// # Errors
//
// The first pattern [ParseRule] refuses.
func NewRules(allow, ask, deny []string) (*Rules, error) {
	rs := &Rules{}
	for _, l := range []struct {
		action string
		pats   []string
	}{{RuleDeny, deny}, {RuleAsk, ask}, {RuleAllow, allow}} {
		for _, p := range l.pats {
			r, err := ParseRule(l.action, p)
			if err != nil {
				return nil, err
			}
			rs.list = append(rs.list, r)
		}
	}
	return rs, nil
}

// Empty reports a set without rules.
func (rs *Rules) Empty() bool { return rs == nil || len(rs.list) == 0 }

// Match returns the strongest rule that covers c: deny before ask before
// allow, and within an action the first written.
func (rs *Rules) Match(c Command) (Rule, bool) {
	if rs == nil {
		return Rule{}, false
	}
	for _, r := range rs.list {
		if r.Match(c) {
			return r, true
		}
	}
	return Rule{}, false
}

// MatchArgs reports whether args match the argument patterns of a rule
// (the words after the program): '*' matches any run of characters, '?'
// one, a backslash takes the next character literally, and a whole word
// "**" matches any number of arguments. A program word is compared by
// the caller.
func MatchArgs(pats, args []string) bool {
	if len(pats) == 0 || len(args) == 0 {
		return len(pats) == len(args)
	}
	return glob(pats[0], args[0]) && matchWords(pats[1:], args[1:])
}
