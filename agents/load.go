package agents

import (
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing/fstest"
	"time"

	"github.com/rs/zerolog"

	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/locales"
	"github.com/talonhq/talon/models"
	"github.com/talonhq/talon/secret"
	"github.com/talonhq/talon/tool"
	"github.com/talonhq/talon/toolfactory"
)

// ToolPrefix starts the model-visible name of every agent: agent__<name>.
const ToolPrefix = "agent__"

// MaxDepth is how many agents deep a delegation may go; a call that would
// start the next one is refused.
const MaxDepth = 16

var (
	// ErrInvalid is wrapped by [Load] when an agent file, a reference or a
	// model is wrong; the message lists every problem.
	ErrInvalid = errors.New("invalid agents")
)

// Options configure how agents are loaded. The zero value of each field is
// its documented default.
type Options struct {
	// LookupEnv reads the variables api_key_env names; nil means
	// secret.Lookup.
	LookupEnv func(string) (string, bool)
	// Locale is the language of the tool descriptions agents' models are
	// shown; "" means English.
	Locale string
	// HTTPClient sends the models' requests; nil means the models
	// package's own.
	HTTPClient *http.Client
	// Logger receives one line per round of every agent; the zero value
	// is silent.
	Logger zerolog.Logger
}

// Severity grades a [Problem].
type Severity int

// Severities.
const (
	// SeverityError: the agents cannot load.
	SeverityError Severity = iota + 1
	// SeverityWarning: something will not work as the operator may think.
	SeverityWarning
	// SeverityNote: worth knowing, nothing is wrong.
	SeverityNote
)

// String returns "error", "warning" or "note".
func (s Severity) String() string {
	switch s {
	case SeverityWarning:
		return "warning"
	case SeverityNote:
		return "note"
	default:
		return "error"
	}
}

// Problem is one finding about the agents of a config.
type Problem struct {
	// Agent is the agent's name; "" for a problem of no single agent.
	Agent string
	// File and Line place a problem inside an agent file; File is "" for
	// a problem of the config.
	File string
	Line int
	// Key is the config key the problem is about, when it is one, e.g.
	// ["agents", "researcher", "path"].
	Key      []string
	Severity Severity
	Msg      string
}

func (p Problem) Error() string {
	switch {
	case p.File != "" && p.Line > 0:
		return fmt.Sprintf("%s:%d: %s", p.File, p.Line, p.Msg)
	case p.File != "":
		return p.File + ": " + p.Msg
	}
	return p.Msg
}

// Agent is one registered agent, resolved against the config.
type Agent struct {
	// Name is the agent's name: its [agents.<name>] key, else the front
	// matter's name, else the file's name without .md.
	Name string
	// ToolName is agent__<name>, sanitized.
	ToolName string
	// Path is the agent file.
	Path string
	File *File
	// Model names the [models.<name>] the agent runs on.
	Model          string
	MaxRounds      int
	Timeout        time.Duration
	MaxOutputBytes int
	// Selected is set when [tools] optional puts the agent in the
	// catalog.
	Selected bool
	// Descriptions are localized descriptions by language tag, from
	// <agent>.<lang>.md.
	Descriptions map[string]string
}

// Description returns the description the model sees, in English.
func (a *Agent) Description() string {
	if a.File.Description != "" {
		return a.File.Description
	}
	return fmt.Sprintf("Runs the '%s' subagent for a delegated task.", a.Name)
}

// MessageSource is message files for the catalog: the localized
// descriptions of agents, laid out <lang>/*.ftl.
type MessageSource struct {
	FS     fs.FS
	Source string
}

// Set is what [Load] builds.
type Set struct {
	// Agents are every registered agent, sorted by name.
	Agents []*Agent
	// Tools are the agents [tools] optional selects, as tools, sorted.
	Tools []tool.Tool
	// Messages localize the agents' descriptions.
	Messages []MessageSource
	// Warnings are problems that did not stop the load, one line each.
	Warnings []string
}

// Agent returns the registered agent called name.
func (s *Set) Agent(name string) (*Agent, bool) {
	i := slices.IndexFunc(s.Agents, func(a *Agent) bool { return a.Name == name })
	if i < 0 {
		return nil, false
	}
	return s.Agents[i], true
}

// Names returns the names of the registered agents, sorted.
func (s *Set) Names() []string {
	out := make([]string, len(s.Agents))
	for i, a := range s.Agents {
		out[i] = a.Name
	}
	return out
}

// Load reads every registered agent of cfg, checks them and builds the
// selected ones as tools, with their models.
//
// # Errors
//
// Any problem of severity error (see [Check]) fails the load: the error
// wraps [ErrInvalid] and lists them all, each naming the file or config
// key to fix.
func Load(cfg *config.Config, opts Options) (*Set, error) {
	l := newLoader(cfg, opts)
	l.run(true)
	var msgs []string
	for _, p := range l.problems {
		switch p.Severity {
		case SeverityError:
			msgs = append(msgs, p.Error())
		case SeverityWarning:
			l.set.Warnings = append(l.set.Warnings, p.Error())
		}
	}
	if len(msgs) > 0 {
		return nil, fmt.Errorf("%w: %s", ErrInvalid, strings.Join(msgs, "; "))
	}
	return l.set, nil
}

// Check returns every problem of cfg's agents without building anything
// that runs: the files (front matter, input_schema, prompt), names,
// references to subagents and models, cycles, the tools they list and the
// API key variables. talon lint prints them.
func Check(cfg *config.Config, opts Options) []Problem {
	l := newLoader(cfg, opts)
	l.run(false)
	return l.problems
}

// Inspect reads and checks the agents of cfg as [Check] does, and returns
// them too, without building models or tools: what `talon agents list`
// and `show` print. Agents whose files do not parse are left out.
func Inspect(cfg *config.Config, opts Options) (*Set, []Problem) {
	l := newLoader(cfg, opts)
	l.run(false)
	return l.set, l.problems
}

// Tool returns the model-visible name of the agent called name:
// agent__<name>, sanitized ("my.agent" -> "agent__my_agent").
//
// # Errors
//
// A name still longer than 64 characters is an error naming it; it is
// never truncated.
func Tool(name string) (string, error) {
	q := ToolPrefix + tool.SanitizeName(name)
	if len(q) > 64 {
		return "", fmt.Errorf("agent %q becomes the tool name %s, %d characters long; the limit is 64: choose a name of at most %d characters",
			name, q, len(q), 64-len(ToolPrefix))
	}
	if err := tool.ValidateName(q); err != nil {
		return "", fmt.Errorf("agent %q: %w", name, err)
	}
	return q, nil
}

type loader struct {
	cfg      *config.Config
	opts     Options
	set      *Set
	problems []Problem
	byName   map[string]*Agent
}

func newLoader(cfg *config.Config, opts Options) *loader {
	if cfg == nil {
		cfg = config.Default()
	}
	return &loader{cfg: cfg, opts: opts, set: &Set{}, byName: map[string]*Agent{}}
}

func (l *loader) add(p Problem) { l.problems = append(l.problems, p) }

func (l *loader) errorf(agent string, key []string, format string, a ...any) {
	l.add(Problem{Agent: agent, Key: key, Severity: SeverityError, Msg: fmt.Sprintf(format, a...)})
}

// fileProblem turns a parse error into a problem.
func (l *loader) fileProblem(agent string, err error) {
	var fe *FileError
	if errors.As(err, &fe) {
		l.add(Problem{Agent: agent, File: fe.Path, Line: fe.Line, Severity: SeverityError, Msg: fe.Msg})
		return
	}
	l.add(Problem{Agent: agent, Severity: SeverityError, Msg: err.Error()})
}

func (l *loader) run(build bool) {
	l.discover()
	if len(l.byName) == 0 {
		l.checkOptional()
		return
	}
	l.resolve()
	l.references()
	l.cycles()
	l.selection()
	l.messages()
	if build {
		l.build()
	} else {
		l.checkTools()
		l.checkKeys()
	}
}

// discover reads the agents registered in [agents.<name>] tables and those
// in [agents] dir.
func (l *loader) discover() {
	entries := l.cfg.Agents.Entries()
	files := map[string]string{} // clean path -> agent name
	for _, name := range sortedKeys(entries) {
		path := l.cfg.AgentPath(entries[name])
		data, err := os.ReadFile(path)
		if err != nil {
			l.errorf(name, []string{"agents", name, "path"}, "agent %s: %v; fix [agents.%s] path", name, pathErr(err), name)
			continue
		}
		f, err := ParseFile(path, data)
		if err != nil {
			l.fileProblem(name, err)
			continue
		}
		if f.Name != "" && f.Name != name {
			l.add(Problem{Agent: name, File: path, Line: f.Line("name"), Severity: SeverityError, Msg: fmt.Sprintf(
				"the file names its agent %q, but talon.toml registers it as [agents.%s]; make the two agree or remove name", f.Name, name)})
			continue
		}
		files[filepath.Clean(path)] = name
		l.register(name, path, f)
	}
	dir := l.cfg.AgentsDir()
	if dir == "" {
		return
	}
	des, err := os.ReadDir(dir)
	if err != nil {
		l.errorf("", []string{"agents", "dir"}, "[agents] dir: %v; create the directory or fix the path", pathErr(err))
		return
	}
	for _, de := range des {
		n := de.Name()
		if de.IsDir() || !strings.HasSuffix(n, ".md") || localizedOf(n) != "" {
			continue
		}
		path := filepath.Join(dir, n)
		if _, done := files[filepath.Clean(path)]; done {
			continue
		}
		data, err := os.ReadFile(path)
		if err != nil {
			l.add(Problem{File: path, Severity: SeverityError, Msg: pathErr(err).Error()})
			continue
		}
		f, err := ParseFile(path, data)
		if errors.Is(err, ErrNoFrontMatter) {
			l.add(Problem{File: path, Severity: SeverityNote, Msg: "no front matter, so not an agent (a README, perhaps)"})
			continue
		}
		if err != nil {
			l.fileProblem("", err)
			continue
		}
		name := f.Name
		if name == "" {
			name = strings.TrimSuffix(n, ".md")
		}
		if prev, dup := l.byName[name]; dup {
			l.add(Problem{Agent: name, File: path, Severity: SeverityError, Msg: fmt.Sprintf(
				"agent %q is also defined by %s; rename one of them", name, prev.Path)})
			continue
		}
		l.register(name, path, f)
	}
}

func pathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", pe.Path, pe.Err)
	}
	return err
}

// localizedOf returns the language of a localized agent file name
// (researcher.ja.md -> "ja"), or "".
func localizedOf(name string) string {
	stem := strings.TrimSuffix(name, ".md")
	i := strings.LastIndexByte(stem, '.')
	if i <= 0 || !langRE.MatchString(stem[i+1:]) {
		return ""
	}
	tag, ok := locales.Normalize(stem[i+1:])
	if !ok {
		return ""
	}
	return tag
}

var langRE = regexp.MustCompile(`^[a-z]{2,3}([-_][A-Za-z0-9]{2,8})*$`)

func (l *loader) register(name, path string, f *File) {
	tn, err := Tool(name)
	if err != nil {
		l.add(Problem{Agent: name, File: path, Severity: SeverityError, Msg: err.Error()})
		return
	}
	for _, a := range l.byName {
		if a.ToolName == tn {
			l.add(Problem{Agent: name, File: path, Severity: SeverityError, Msg: fmt.Sprintf(
				"agents %q (%s) and %q both become the tool %s; rename one of them", a.Name, a.Path, name, tn)})
			return
		}
	}
	a := &Agent{Name: name, ToolName: tn, Path: path, File: f, Descriptions: map[string]string{}}
	l.byName[name] = a
	l.set.Agents = append(l.set.Agents, a)
	sort.Slice(l.set.Agents, func(i, j int) bool { return l.set.Agents[i].Name < l.set.Agents[j].Name })
}

// resolve applies [agents] defaults and checks each agent's model.
func (l *loader) resolve() {
	d := l.cfg.Agents.Defaults()
	models := sortedKeys(l.cfg.Models)
	for _, a := range l.set.Agents {
		f := a.File
		a.Model = f.Model
		if a.Model == "" {
			a.Model = d.Model
		}
		a.MaxRounds = firstPositive(f.MaxRounds, d.MaxRounds, config.DefaultAgentMaxRounds)
		a.Timeout = time.Duration(firstPositive(f.TimeoutSeconds, d.TimeoutSeconds, config.DefaultAgentTimeoutSeconds)) * time.Second
		a.MaxOutputBytes = firstPositive(f.MaxOutputBytes, d.MaxOutputBytes, config.DefaultAgentMaxOutputBytes)
		switch {
		case a.Model == "":
			l.add(Problem{Agent: a.Name, File: a.Path, Line: 1, Severity: SeverityError, Msg: fmt.Sprintf(
				"agent %s has no model; set model: in its front matter or [agents] model in the config", a.Name)})
		case !slices.Contains(models, a.Model):
			line := f.Line("model")
			if line == 0 {
				line = 1
			}
			l.add(Problem{Agent: a.Name, File: a.Path, Line: line, Severity: SeverityError, Msg: fmt.Sprintf(
				"agent %s runs on model %q, which [models] does not define%s; add [models.%s] to the config or fix the name",
				a.Name, a.Model, didYouMean(a.Model, models), a.Model)})
		}
		for _, limit := range []struct {
			key string
			v   int
			max int
		}{
			{"max_rounds", f.MaxRounds, config.MaxAgentRounds},
			{"timeout_seconds", f.TimeoutSeconds, config.MaxAgentTimeoutSeconds},
			{"max_output_bytes", f.MaxOutputBytes, config.MaxAgentOutputBytes},
		} {
			if limit.v > limit.max {
				l.add(Problem{Agent: a.Name, File: a.Path, Line: f.Line(limit.key), Severity: SeverityError, Msg: fmt.Sprintf(
					"%s = %d is more than %d, the most talon allows", limit.key, limit.v, limit.max)})
			}
		}
	}
}

func firstPositive(vs ...int) int {
	for _, v := range vs {
		if v > 0 {
			return v
		}
	}
	return 0
}

// references checks tools and subagents.
func (l *loader) references() {
	names := l.set.Names()
	for _, a := range l.set.Agents {
		f := a.File
		for _, t := range f.Tools {
			switch {
			case strings.HasPrefix(t, ToolPrefix):
				l.add(Problem{Agent: a.Name, File: a.Path, Line: f.Line("tools"), Severity: SeverityError, Msg: fmt.Sprintf(
					"tools lists %s; list the agent %s under subagents instead", t, strings.TrimPrefix(t, ToolPrefix))})
			case tool.ValidateName(t) != nil:
				l.add(Problem{Agent: a.Name, File: a.Path, Line: f.Line("tools"), Severity: SeverityError, Msg: fmt.Sprintf(
					"tools lists %q, which is not a tool name", t)})
			}
		}
		for _, s := range f.Subagents {
			if _, ok := l.byName[s]; !ok {
				l.add(Problem{Agent: a.Name, File: a.Path, Line: f.Line("subagents"), Key: []string{"agents"}, Severity: SeverityError, Msg: fmt.Sprintf(
					"agent %s delegates to %q, which is not registered%s; register it in the config as [agents.%s] path = \"agents/%s.md\", or put its file in [agents] dir",
					a.Name, s, didYouMean(s, names), s, s)})
			}
		}
	}
}

// cycles refuses agents that delegate, directly or not, to themselves.
func (l *loader) cycles() {
	const (
		white = iota
		grey
		black
	)
	color := map[string]int{}
	reported := map[string]bool{}
	var stack []string
	var visit func(n string)
	visit = func(n string) {
		color[n] = grey
		stack = append(stack, n)
		a := l.byName[n]
		for _, s := range a.File.Subagents {
			if _, ok := l.byName[s]; !ok {
				continue
			}
			switch color[s] {
			case grey:
				i := slices.Index(stack, s)
				cycle := append(slices.Clone(stack[i:]), s)
				key := canonicalCycle(cycle)
				if !reported[key] {
					reported[key] = true
					l.add(Problem{Agent: n, File: a.Path, Line: a.File.Line("subagents"), Severity: SeverityError, Msg: fmt.Sprintf(
						"agents delegate in a cycle: %s; remove one of these subagents entries", strings.Join(cycle, " → "))})
				}
			case white:
				visit(s)
			}
		}
		stack = stack[:len(stack)-1]
		color[n] = black
	}
	for _, a := range l.set.Agents {
		if color[a.Name] == white {
			visit(a.Name)
		}
	}
}

// canonicalCycle names a cycle the same whichever agent it was entered at.
func canonicalCycle(c []string) string {
	ring := c[:len(c)-1]
	best := 0
	for i := range ring {
		if ring[i] < ring[best] {
			best = i
		}
	}
	return strings.Join(append(slices.Clone(ring[best:]), ring[:best]...), ",")
}

// selection marks the agents [tools] optional puts in the catalog: all of
// them when it is absent or holds "*", else those it names as
// agent__<name>.
func (l *loader) selection() {
	opt := l.cfg.Tools.Optional
	all := opt == nil || slices.Contains(*opt, "*")
	named := map[string]bool{}
	if opt != nil {
		for _, n := range *opt {
			if strings.HasPrefix(n, ToolPrefix) {
				named[n] = true
			}
		}
	}
	var toolNames []string
	for _, a := range l.set.Agents {
		toolNames = append(toolNames, a.ToolName)
		a.Selected = all || named[a.ToolName]
	}
	for _, n := range sortedKeys(named) {
		if !slices.Contains(toolNames, n) {
			l.errorf("", []string{"tools", "optional"}, "tools.optional names %s, but no agent of that name is registered%s; register it or fix the name",
				n, didYouMean(n, toolNames))
		}
	}
	for _, a := range l.set.Agents {
		if !a.Selected {
			continue
		}
		for _, s := range a.File.Subagents {
			if b, ok := l.byName[s]; ok && !b.Selected {
				l.add(Problem{Agent: a.Name, File: a.Path, Line: a.File.Line("subagents"), Severity: SeverityWarning, Msg: fmt.Sprintf(
					"agent %s delegates to %s, which tools.optional leaves out of the catalog, so it cannot be called; add %s to tools.optional",
					a.Name, s, b.ToolName)})
			}
		}
	}
}

// checkOptional reports agent__ names in tools.optional when no agent is
// registered at all.
func (l *loader) checkOptional() {
	if opt := l.cfg.Tools.Optional; opt != nil {
		for _, n := range *opt {
			if strings.HasPrefix(n, ToolPrefix) {
				l.errorf("", []string{"tools", "optional"}, "tools.optional names %s, but no agent is registered; register it as [agents.%s] or remove the name",
					n, strings.TrimPrefix(n, ToolPrefix))
			}
		}
	}
}

// messages collects localized descriptions: <agent>.<lang>.md next to an
// agent file, and the locales/ directory of each agent file's directory.
func (l *loader) messages() {
	byLang := map[string][]string{} // lang -> FTL messages
	dirs := map[string]bool{}
	for _, a := range l.set.Agents {
		dir := filepath.Dir(a.Path)
		stem := strings.TrimSuffix(filepath.Base(a.Path), ".md")
		matches, _ := filepath.Glob(filepath.Join(dir, globEscape(stem)+".*.md"))
		for _, m := range matches {
			lang := localizedOf(filepath.Base(m))
			if lang == "" || localizedStem(filepath.Base(m)) != stem {
				continue
			}
			data, err := os.ReadFile(m)
			if err != nil {
				l.add(Problem{Agent: a.Name, File: m, Severity: SeverityError, Msg: pathErr(err).Error()})
				continue
			}
			desc, err := ParseLocalized(m, data)
			if err != nil {
				l.fileProblem(a.Name, err)
				continue
			}
			a.Descriptions[lang] = desc
			if a.Selected {
				byLang[lang] = append(byLang[lang], locales.FormatMessage(locales.Message{ID: locales.ToolID(a.ToolName), Value: ftlText(desc)}))
			}
		}
		if a.Selected {
			dirs[dir] = true
		}
	}
	if len(byLang) > 0 {
		fsys := fstest.MapFS{}
		for lang, msgs := range byLang {
			fsys[lang+"/agents.ftl"] = &fstest.MapFile{Data: []byte(strings.Join(msgs, "\n"))}
		}
		l.set.Messages = append(l.set.Messages, MessageSource{FS: fsys, Source: "agent files"})
	}
	for _, dir := range sortedKeys(dirs) {
		loc := filepath.Join(dir, "locales")
		if fi, err := os.Stat(loc); err == nil && fi.IsDir() {
			l.set.Messages = append(l.set.Messages, MessageSource{FS: os.DirFS(loc), Source: "agents in " + dir})
		}
	}
}

// localizedStem returns the agent stem of a localized file name.
func localizedStem(name string) string {
	stem := strings.TrimSuffix(name, ".md")
	if i := strings.LastIndexByte(stem, '.'); i > 0 {
		return stem[:i]
	}
	return stem
}

func globEscape(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `*`, `\*`, `?`, `\?`, `[`, `\[`)
	return r.Replace(s)
}

// ftlText writes text in the canonical form of a Fluent pattern: braces
// are literals.
func ftlText(s string) string {
	r := strings.NewReplacer("{", `{"{"}`, "}", `{"}"}`)
	return r.Replace(s)
}

// checkTools reports tool names no source provides (lint only: command
// tools, MCP and plugin tools are only known once they load).
func (l *loader) checkTools() {
	known := map[string]bool{}
	for _, e := range toolfactory.Known() {
		known[e.Name] = true
	}
	var names []string
	for n := range known {
		names = append(names, n)
	}
	for _, a := range l.set.Agents {
		for _, t := range a.File.Tools {
			if strings.Contains(t, "__") || known[t] {
				continue
			}
			l.add(Problem{Agent: a.Name, File: a.Path, Line: a.File.Line("tools"), Severity: SeverityWarning, Msg: fmt.Sprintf(
				"tools lists %q, which is no built-in tool%s; the agent will not be offered it", t, didYouMean(t, names))})
		}
	}
}

// checkKeys reports models whose API key variable is not set (lint only;
// Load fails on them when it builds the model).
func (l *loader) checkKeys() {
	lookup := l.lookup()
	for _, name := range l.usedModels() {
		mc := l.cfg.Models[name]
		if mc.APIKeyEnv == "" {
			continue
		}
		if v, ok := lookup(mc.APIKeyEnv); !ok || v == "" {
			l.errorf("", []string{"models", name, "api_key_env"},
				"model %s reads its API key from $%s, which is not set; export it before starting talon", name, mc.APIKeyEnv)
		}
	}
}

func (l *loader) lookup() func(string) (string, bool) {
	if l.opts.LookupEnv != nil {
		return l.opts.LookupEnv
	}
	return secret.Lookup
}

// usedModels lists the models selected agents run on, sorted.
func (l *loader) usedModels() []string {
	var out []string
	for _, a := range l.set.Agents {
		if _, ok := l.cfg.Models[a.Model]; ok && a.Selected && !slices.Contains(out, a.Model) {
			out = append(out, a.Model)
		}
	}
	slices.Sort(out)
	return out
}

// build makes the models and the tools of the selected agents.
func (l *loader) build() {
	if hasErrors(l.problems) {
		return
	}
	built := map[string]models.Model{}
	for _, name := range l.usedModels() {
		m, err := models.New(name, l.cfg.Models[name], models.Options{LookupEnv: l.lookup(), HTTPClient: l.opts.HTTPClient, Logger: l.opts.Logger})
		if err != nil {
			l.errorf("", []string{"models", name}, "%v", err)
			continue
		}
		built[name] = m
	}
	if hasErrors(l.problems) {
		return
	}
	for _, a := range l.set.Agents {
		if a.Selected {
			l.set.Tools = append(l.set.Tools, newTool(a, built[a.Model], l.opts))
		}
	}
}

func hasErrors(ps []Problem) bool {
	return slices.ContainsFunc(ps, func(p Problem) bool { return p.Severity == SeverityError })
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
