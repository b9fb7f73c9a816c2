package approval

import (
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/pelletier/go-toml/v2"

	"github.com/talonhq/talon/risk/shellparse"
	"github.com/talonhq/talon/tool"
	"github.com/talonhq/talon/workspace"
)

// RulesFile is the name of the saved approvals file in talon's
// configuration directory.
const RulesFile = "approvals.toml"

var (
	// ErrNotSaveable refuses to save an approval as a rule: the call has
	// no plan, a command of it runs code written in its own arguments
	// (python -c, sh -c, awk, ...), or its tool always asks.
	ErrNotSaveable = errors.New("this approval cannot be saved as a rule")
	// ErrNoRule reports a rule id the file does not have.
	ErrNoRule = errors.New("no saved rule with that id")
	// ErrRulesFile reports an approvals file that does not parse; it is
	// ignored until it is fixed.
	ErrRulesFile = errors.New("the approvals file does not parse")
)

// DefaultRulesPath is where talon keeps saved approvals:
// $XDG_CONFIG_HOME/talon/approvals.toml, else
// ~/.config/talon/approvals.toml, a place no tool may read or change.
// It returns "" when neither HOME nor XDG_CONFIG_HOME is an absolute
// path. getenv nil means os.Getenv.
func DefaultRulesPath(getenv func(string) string) string {
	if getenv == nil {
		getenv = os.Getenv
	}
	if d := getenv("XDG_CONFIG_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "talon", RulesFile)
	}
	if h := getenv("HOME"); filepath.IsAbs(h) {
		return filepath.Join(h, ".config", "talon", RulesFile)
	}
	return ""
}

// SavedRule is an approval a person saved for good: the call of one tool
// under one profile with exactly this plan (the binary, arguments,
// directory and environment names of every command). A rule made with
// Pattern reads each argument as a pattern instead: '*' matches any run
// of characters, '?' one, "**" as a whole argument any number of them.
type SavedRule struct {
	ID      string `toml:"id" json:"id"`
	Tool    string `toml:"tool" json:"tool"`
	Profile string `toml:"profile" json:"profile"`
	// Summary is the line that was approved; an exact rule matches only
	// a call with the same line (so the values of its variables too).
	Summary  string         `toml:"summary,omitempty" json:"summary,omitempty"`
	Pattern  bool           `toml:"pattern,omitempty" json:"pattern,omitempty"`
	Commands []SavedCommand `toml:"command" json:"commands"`
	Added    time.Time      `toml:"added" json:"added"`
	// By says how it was saved: "prompt", "talon approvals approve",
	// "talon approvals rules add".
	By string `toml:"by,omitempty" json:"by,omitempty"`
}

// SavedCommand is one process of a [SavedRule].
type SavedCommand struct {
	Binary string   `toml:"binary" json:"binary"`
	Argv   []string `toml:"argv" json:"argv"`
	Dir    string   `toml:"dir" json:"dir"`
	Env    []string `toml:"env" json:"env"`
}

// String renders the rule for a reason: `r-2f6k "make test" in /ws/sub`.
func (r SavedRule) String() string {
	line := r.Summary
	if line == "" && len(r.Commands) > 0 {
		line = strings.Join(r.Commands[0].Argv, " ")
	}
	s := fmt.Sprintf("%s %q", r.ID, line)
	if len(r.Commands) > 0 {
		s += " in " + r.Commands[0].Dir
	}
	return s
}

// RuleFromPlan makes the rule an approval of plan saves.
//
// # Errors
//
// A call without a plan of processes, or one with a command that runs
// code written in its own arguments ([shellparse.InlineEval]), wraps
// [ErrNotSaveable]: such a line is the program itself, and a rule for
// it would approve whatever it says.
func RuleFromPlan(toolName, profile string, plan *tool.Plan) (SavedRule, error) {
	if plan == nil || len(plan.Commands) == 0 {
		return SavedRule{}, fmt.Errorf("%w: %s runs no planned process; approve it each time", ErrNotSaveable, toolName)
	}
	r := SavedRule{Tool: toolName, Profile: profile, Summary: plan.Summary}
	for _, c := range plan.Commands {
		if why, ok := shellparse.InlineEval(c.Argv); ok {
			return SavedRule{}, fmt.Errorf("%w: %s; approve it each time", ErrNotSaveable, why)
		}
		r.Commands = append(r.Commands, SavedCommand{Binary: c.Binary, Argv: slices.Clone(c.Argv), Dir: c.Dir, Env: slices.Clone(c.Env)})
	}
	return r, nil
}

// Matches reports whether the rule covers a call of toolName under
// profile with plan.
func (r SavedRule) Matches(toolName, profile string, plan *tool.Plan) bool {
	if plan == nil || r.Tool != toolName || r.Profile != profile || len(r.Commands) != len(plan.Commands) {
		return false
	}
	if !r.Pattern && r.Summary != plan.Summary {
		return false
	}
	for i, c := range r.Commands {
		p := plan.Commands[i]
		if c.Binary != p.Binary || c.Dir != p.Dir || !slices.Equal(c.Env, p.Env) {
			return false
		}
		if r.Pattern {
			if !shellparse.MatchArgs(c.Argv, p.Argv) {
				return false
			}
		} else if !slices.Equal(c.Argv, p.Argv) {
			return false
		}
	}
	return true
}

// Rules is the saved approvals file. Every read looks at the file again
// when it changed, so a rule another talon saved (talon approvals approve
// --always --persist, talon approvals rules add) counts at once. A file
// that does not parse counts as empty and is reported once, with its
// line. It is safe for concurrent use, and writes from several processes
// are serialized by a lock file beside it.
type Rules struct {
	path string
	warn func(error)

	mu    sync.Mutex
	stamp fileStamp
	rules []SavedRule
	err   error
}

type fileStamp struct {
	size int64
	mod  time.Time
	ok   bool
}

// OpenRules reads saved approvals from path; warn, when set, is told once
// about each broken version of the file. "" means no file: nothing is
// saved and nothing matches.
func OpenRules(path string, warn func(error)) *Rules {
	return &Rules{path: path, warn: warn}
}

// Path returns the file's path.
func (r *Rules) Path() string { return r.path }

// refresh rereads the file when it changed; r.mu is held.
func (r *Rules) refresh() {
	if r.path == "" {
		return
	}
	fi, err := os.Stat(r.path)
	st := fileStamp{}
	if err == nil {
		st = fileStamp{size: fi.Size(), mod: fi.ModTime(), ok: true}
	}
	if st == r.stamp && (r.rules != nil || r.err != nil || !st.ok) {
		return
	}
	r.stamp = st
	r.rules, r.err = nil, nil
	if !st.ok {
		if !errors.Is(err, fs.ErrNotExist) {
			r.err = fmt.Errorf("read %s: %w", r.path, err)
		}
		return
	}
	b, err := os.ReadFile(r.path)
	if err != nil {
		r.err = fmt.Errorf("read %s: %w", r.path, err)
	} else {
		r.rules, r.err = parseRules(r.path, b)
	}
	if r.err != nil && r.warn != nil {
		r.warn(r.err)
	}
}

// rulesDoc is the file's shape.
type rulesDoc struct {
	Rules []SavedRule `toml:"rule"`
}

// parseRules decodes the file strictly; an error names its line.
func parseRules(path string, b []byte) ([]SavedRule, error) {
	var doc rulesDoc
	dec := toml.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		var strict *toml.StrictMissingError
		if errors.As(err, &strict) && len(strict.Errors) > 0 {
			line, _ := strict.Errors[0].Position()
			return nil, fmt.Errorf("%w: %s:%d: unknown key %s; talon ignores the file until it is fixed (or removed)", ErrRulesFile, path, line, strings.Join(strict.Errors[0].Key(), "."))
		}
		var de *toml.DecodeError
		if errors.As(err, &de) {
			line, _ := de.Position()
			return nil, fmt.Errorf("%w: %s:%d: %s; talon ignores the file until it is fixed (or removed)", ErrRulesFile, path, line, strings.TrimPrefix(de.Error(), "toml: "))
		}
		return nil, fmt.Errorf("%w: %s: %v; talon ignores the file until it is fixed (or removed)", ErrRulesFile, path, err)
	}
	for i, r := range doc.Rules {
		if r.ID == "" || r.Tool == "" || len(r.Commands) == 0 {
			return nil, fmt.Errorf("%w: %s: rule %d needs id, tool and at least one [[rule.command]]; talon ignores the file until it is fixed", ErrRulesFile, path, i+1)
		}
	}
	if doc.Rules == nil {
		doc.Rules = []SavedRule{}
	}
	return doc.Rules, nil
}

// Match returns the saved rule that covers a call of toolName under
// profile with plan.
func (r *Rules) Match(toolName, profile string, plan *tool.Plan) (SavedRule, bool) {
	if r == nil || plan == nil {
		return SavedRule{}, false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.refresh()
	for _, s := range r.rules {
		if s.Matches(toolName, profile, plan) {
			return s, true
		}
	}
	return SavedRule{}, false
}

// List returns the saved rules in the file's order.
//
// # Errors
//
// A file that does not parse wraps [ErrRulesFile] and names the line.
func (r *Rules) List() ([]SavedRule, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.refresh()
	return slices.Clone(r.rules), r.err
}

// Add saves rule with a fresh id and the time, unless an equal rule is
// there already (which is returned instead).
//
// # Errors
//
// A rule for a command that runs inline code wraps [ErrNotSaveable]; a
// file that does not parse wraps [ErrRulesFile] and is left alone.
func (r *Rules) Add(rule SavedRule) (SavedRule, error) {
	for _, c := range rule.Commands {
		if why, ok := shellparse.InlineEval(c.Argv); ok {
			return SavedRule{}, fmt.Errorf("%w: %s; approve it each time", ErrNotSaveable, why)
		}
	}
	var out SavedRule
	err := r.edit(func(list []SavedRule) ([]SavedRule, error) {
		for _, have := range list {
			if sameRule(have, rule) {
				out = have
				return list, nil
			}
		}
		id, err := ruleID(list)
		if err != nil {
			return nil, err
		}
		rule.ID = id
		if rule.Added.IsZero() {
			rule.Added = time.Now().UTC().Truncate(time.Second)
		}
		out = rule
		return append(list, rule), nil
	})
	return out, err
}

// Remove deletes the rule with id.
//
// # Errors
//
// An id the file does not have wraps [ErrNoRule].
func (r *Rules) Remove(id string) error {
	return r.edit(func(list []SavedRule) ([]SavedRule, error) {
		i := slices.IndexFunc(list, func(s SavedRule) bool { return strings.EqualFold(s.ID, id) })
		if i < 0 {
			return nil, fmt.Errorf("%w %q; talon approvals rules list shows them", ErrNoRule, id)
		}
		return slices.Delete(list, i, i+1), nil
	})
}

// edit reads the file, applies f and writes the result atomically (0600,
// in a 0700 directory), holding the lock file throughout.
func (r *Rules) edit(f func([]SavedRule) ([]SavedRule, error)) error {
	if r.path == "" {
		return fmt.Errorf("%w: no configuration directory (set HOME or XDG_CONFIG_HOME)", ErrNotSaveable)
	}
	if err := os.MkdirAll(filepath.Dir(r.path), 0o700); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(r.path), err)
	}
	unlock, err := lockFile(r.path + ".lock")
	if err != nil {
		return err
	}
	defer unlock()
	var list []SavedRule
	b, err := os.ReadFile(r.path)
	switch {
	case err == nil:
		if list, err = parseRules(r.path, b); err != nil {
			return err
		}
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("read %s: %w", r.path, err)
	}
	list, err = f(list)
	if err != nil {
		return err
	}
	out, err := encodeRules(list)
	if err != nil {
		return err
	}
	if err := workspace.WriteFileAtomic(r.path, out, 0o600); err != nil {
		return fmt.Errorf("write %s: %w", r.path, err)
	}
	r.mu.Lock()
	r.stamp = fileStamp{} // read it again next time
	r.mu.Unlock()
	return nil
}

const rulesHeader = `# Approvals saved for good, written by talon: a [p]ermanently answer,
# talon approvals approve ID --always --persist, or talon approvals rules add.
# Each rule allows one tool's call under one profile with exactly this plan:
# the binary, arguments, directory and environment names of every command.
# Edit it with talon approvals rules list|add|remove; a file that does not
# parse is ignored, and talon says which line.

`

func encodeRules(list []SavedRule) ([]byte, error) {
	b, err := toml.Marshal(rulesDoc{Rules: list})
	if err != nil {
		return nil, fmt.Errorf("encode the saved rules: %w", err)
	}
	return append([]byte(rulesHeader), b...), nil
}

func sameRule(a, b SavedRule) bool {
	if a.Tool != b.Tool || a.Profile != b.Profile || a.Summary != b.Summary || a.Pattern != b.Pattern || len(a.Commands) != len(b.Commands) {
		return false
	}
	for i := range a.Commands {
		x, y := a.Commands[i], b.Commands[i]
		if x.Binary != y.Binary || x.Dir != y.Dir || !slices.Equal(x.Argv, y.Argv) || !slices.Equal(x.Env, y.Env) {
			return false
		}
	}
	return true
}

// ruleID draws an id like "r-2f6kq4" that list does not use.
func ruleID(list []SavedRule) (string, error) {
	for range 8 {
		var b [5]byte
		if _, err := rand.Read(b[:]); err != nil {
			return "", fmt.Errorf("read random bytes: %w", err)
		}
		id := "r-" + idEncoding.EncodeToString(b[:])[:6]
		if !slices.ContainsFunc(list, func(s SavedRule) bool { return s.ID == id }) {
			return id, nil
		}
	}
	return "", errors.New("could not draw an unused rule id")
}

// Covers describes the saved rule that covers a call, for a policy
// decision ([risk.SavedRules]).
func (r *Rules) Covers(toolName, profile string, plan *tool.Plan) (string, bool) {
	s, ok := r.Match(toolName, profile, plan)
	if !ok {
		return "", false
	}
	return s.String(), true
}
