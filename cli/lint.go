package cli

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
	"github.com/spf13/cobra"

	"github.com/talonhq/talon/catalog"
	"github.com/talonhq/talon/commandtool"
	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/risk"
	"github.com/talonhq/talon/secret"
)

// Severities of lint findings.
const (
	lintError   = "error"
	lintWarning = "warning"
	lintNote    = "note"
)

// finding is one line of `talon lint`.
type finding struct {
	File     string `json:"file"`
	Line     int    `json:"line,omitempty"`
	Severity string `json:"severity"`
	Key      string `json:"key,omitempty"`
	Message  string `json:"message"`
}

func (f finding) String() string {
	if f.Line > 0 {
		return fmt.Sprintf("%s:%d: %s: %s", f.File, f.Line, f.Severity, f.Message)
	}
	return fmt.Sprintf("%s: %s: %s", f.File, f.Severity, f.Message)
}

type lintOptions struct {
	json bool
}

func newLintCmd(e *env) *cobra.Command {
	o := &lintOptions{}
	cmd := &cobra.Command{
		Use:   "lint",
		Short: "Check the config beyond decoding: command tools, tool_policy, profiles, tools.optional, MCP servers",
		Long: `Check the config file the way talon would use it, and print one line per finding,
"talon.toml:LINE: SEVERITY: message". Besides everything loading checks, lint
builds each command tool without running it (templates and the parameters they
reference, parameters as an object JSON Schema, ${VAR} references, env, cwd, the
program on PATH, names), compiles tool_policy and says which command tools it
leaves out, compiles every risk profile, and checks the names in tools.optional.

Exit status 0 when there are only warnings and notes, 2 when there is an error.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return lint(e, o, cmd.OutOrStdout()) },
	}
	cmd.Flags().BoolVar(&o.json, "json", false, "print the findings as a JSON array")
	return cmd
}

func lint(e *env, o *lintOptions, out io.Writer) error {
	cwd, err := e.io.cwd()
	if err != nil {
		return err
	}
	src, err := config.Discover(e.g.configPath, cwd, e.io.getenv)
	if err != nil {
		return withCode(ExitUsage, err)
	}
	if src.Path == "" {
		if o.json {
			return writeJSON(out, []finding{})
		}
		fmt.Fprintln(out, "no config file found: talon uses its embedded defaults, which need no lint; create one with talon config init")
		return nil
	}
	data, err := os.ReadFile(src.Path)
	if err != nil {
		return withCode(ExitUsage, fmt.Errorf("read config: %w; check the path and its permissions", err))
	}
	l := &linter{file: displayPath(src.Path, cwd), positions: keyPositions(data)}
	l.run(e, src, data, cwd)
	findings := l.sorted()
	if o.json {
		if err := writeJSON(out, findings); err != nil {
			return err
		}
	} else {
		for _, f := range findings {
			fmt.Fprintln(out, f)
		}
		fmt.Fprintln(out, summary(l.file, findings))
	}
	if slices.ContainsFunc(findings, func(f finding) bool { return f.Severity == lintError }) {
		return errSilent(ExitUsage)
	}
	return nil
}

// summary counts the findings by severity.
func summary(file string, findings []finding) string {
	if len(findings) == 0 {
		return file + ": no problems found"
	}
	n := map[string]int{}
	for _, f := range findings {
		n[f.Severity]++
	}
	var parts []string
	for _, s := range []string{lintError, lintWarning, lintNote} {
		if n[s] > 0 {
			parts = append(parts, plural(n[s], s))
		}
	}
	return file + ": " + strings.Join(parts, ", ")
}

func plural(n int, s string) string {
	if n == 1 {
		return "1 " + s
	}
	return strconv.Itoa(n) + " " + s + "s"
}

// displayPath is the config path as the user would write it: relative to
// the working directory when it lies below it.
func displayPath(path, cwd string) string {
	if rel, err := filepath.Rel(cwd, path); err == nil && !strings.HasPrefix(rel, "..") && !filepath.IsAbs(rel) {
		return rel
	}
	return path
}

// linter collects findings for one file.
type linter struct {
	file      string
	positions []keyPos
	findings  []finding
	// failed holds the keys loading already reported as errors.
	failed map[string]bool
}

func (l *linter) add(sev string, key []string, line int, msg string) {
	k := lintKey(key)
	if sev == lintError && l.failed[k] && k != "" {
		return // loading reported this key already
	}
	if line == 0 && len(key) > 0 {
		line = l.line(key)
	}
	l.findings = append(l.findings, finding{File: l.file, Line: line, Severity: sev, Key: k, Message: msg})
}

func (l *linter) run(e *env, src config.Source, data []byte, cwd string) {
	cfg, warnings, err := config.Load(src)
	for _, w := range warnings {
		l.add(lintWarning, nil, 0, strings.TrimPrefix(w, src.Path+": "))
	}
	if err != nil {
		l.failed = map[string]bool{}
		for _, le := range loadErrors(err) {
			l.findings = append(l.findings, le)
			l.failed[le.Key] = true
		}
		for i := range l.findings {
			l.findings[i].File = l.file
		}
		// A file that decodes but fails validation is still checked
		// further; one that does not decode is not.
		cfg = new(config.Config)
		if derr := decodeConfig(data, cfg); derr != nil {
			return
		}
	}
	ws := e.g.workspace
	if ws == "" {
		if ws, err = cfg.WorkspaceDir(cwd); err != nil {
			l.add(lintError, []string{"workspace"}, 0, err.Error())
			ws = cwd
		}
	}
	l.commandTools(cfg, commandtool.Options{Workspace: ws, LookupEnv: lookupEnv(e.io)})
	l.profiles(cfg)
	l.optional(cfg)
	l.mcpServers(cfg)
	l.plugins(cfg, ws, e.dataDir(cfg))
	l.agentsLint(cfg, lookupEnv(e.io), cwd)
}

// loadErrors turns what config.Load returned into findings.
func loadErrors(err error) []finding {
	var errs []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	} else {
		errs = []error{err}
	}
	var out []finding
	for _, e := range errs {
		var ce *config.Error
		if errors.As(e, &ce) {
			out = append(out, finding{Line: ce.Line, Severity: lintError, Key: ce.Key, Message: ce.Msg})
			continue
		}
		out = append(out, finding{Severity: lintError, Message: e.Error()})
	}
	return out
}

// decodeConfig decodes strictly, without validation. The decoder's input
// is the operator's file: a panic inside it is reported, not raised.
func decodeConfig(data []byte, cfg *config.Config) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("toml decoder failed: %v", r)
		}
	}()
	return toml.NewDecoder(bytes.NewReader(data)).DisallowUnknownFields().Decode(cfg)
}

func (l *linter) commandTools(cfg *config.Config, opts commandtool.Options) {
	pol, err := commandtool.NewPolicy(cfg.Tools.ToolPolicy)
	if err != nil {
		l.add(lintError, []string{"tools", "tool_policy"}, 0, err.Error())
	}
	claimed := map[string]string{}
	for _, name := range sortedNames(cfg.Tools.Commands) {
		key := []string{"tools", "commands", name}
		for _, p := range commandtool.Check(name, cfg.Tools.Commands[name], opts) {
			l.add(severityName(p.Severity), p.Key, 0, p.Msg)
		}
		q, err := commandtool.QualifiedName(name)
		if err != nil {
			continue
		}
		if prev, dup := claimed[q]; dup {
			l.add(lintError, key, 0, fmt.Sprintf("command tools %q and %q both become %s: rename one of them", prev, name, q))
			continue
		}
		claimed[q] = name
		if pol == nil {
			continue
		}
		if ok, why := pol.Allows(q); !ok {
			l.add(lintNote, key, 0, fmt.Sprintf("%s is not registered: %s", q, why))
		}
	}
}

func severityName(s commandtool.Severity) string {
	switch s {
	case commandtool.SeverityWarning:
		return lintWarning
	case commandtool.SeverityNote:
		return lintNote
	default:
		return lintError
	}
}

func (l *linter) profiles(cfg *config.Config) {
	for _, name := range sortedNames(cfg.RiskProfiles) {
		if _, err := risk.NewProfile(name, cfg.RiskProfiles[name]); err != nil {
			l.add(lintError, []string{"risk_profiles", name}, 0, err.Error())
		}
		for _, pr := range risk.CheckForbiddenPatterns(cfg.RiskProfiles[name].ForbiddenPaths) {
			l.add(lintWarning, []string{"risk_profiles", name, "forbidden_paths"}, 0, pr.Message)
		}
	}
}

func (l *linter) optional(cfg *config.Config) {
	surface := cfg.Serve.SurfaceName()
	if surface != config.SurfaceChat && surface != config.SurfaceCode {
		surface = config.SurfaceChat
	}
	key := []string{"tools", "optional"}
	sel, err := catalog.Select(catalog.SelectOptions{Optional: cfg.Tools.Optional, Surface: surface})
	if err != nil {
		l.add(lintError, key, 0, err.Error())
		return
	}
	for _, d := range sel.Diagnostics {
		l.add(lintWarning, key, 0, d.Message)
	}
}

func (l *linter) mcpServers(cfg *config.Config) {
	for _, name := range sortedNames(cfg.MCP.Servers) {
		s := cfg.MCP.Servers[name]
		if s.Command == "" && s.URL == "" {
			l.add(lintError, []string{"mcp", "servers", name}, 0,
				fmt.Sprintf("MCP server %q has neither command nor url; set one of them", name))
		}
	}
}

// sorted returns the findings by line (file-level ones first), then
// severity.
func (l *linter) sorted() []finding {
	rank := map[string]int{lintError: 0, lintWarning: 1, lintNote: 2}
	out := slices.Clone(l.findings)
	slices.SortStableFunc(out, func(a, b finding) int {
		return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(rank[a.Severity], rank[b.Severity]))
	})
	if out == nil {
		out = []finding{}
	}
	return out
}

func sortedNames[V any](m map[string]V) []string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// lintKey renders a key path the way config errors do: bare parts as they
// are, others quoted.
func lintKey(path []string) string {
	parts := make([]string, len(path))
	for i, p := range path {
		bare := p != ""
		for _, r := range p {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
				bare = false
				break
			}
		}
		parts[i] = p
		if !bare {
			parts[i] = strconv.Quote(p)
		}
	}
	return strings.Join(parts, ".")
}

// keyPos is where a key or table header of the file starts.
type keyPos struct {
	path []string
	line int
}

// keyPositions lists every table header and key/value of a TOML text,
// inline tables included, with its line. A text that does not parse
// yields what was read before the error.
func keyPositions(data []byte) (out []keyPos) {
	defer func() {
		if recover() != nil {
			out = nil
		}
	}()
	var p unstable.Parser
	p.Reset(data)
	var table []string
	for p.NextExpression() {
		n := p.Expression()
		switch n.Kind {
		case unstable.Table, unstable.ArrayTable:
			table, _ = keyOf(n.Key())
			out = append(out, keyPos{path: table, line: lineOf(&p, n.Key())})
		case unstable.KeyValue:
			out = appendKeyValue(&p, out, table, n)
		}
	}
	return out
}

func appendKeyValue(p *unstable.Parser, out []keyPos, prefix []string, n *unstable.Node) []keyPos {
	k, _ := keyOf(n.Key())
	path := append(slices.Clone(prefix), k...)
	out = append(out, keyPos{path: path, line: lineOf(p, n.Key())})
	if v := n.Value(); v.Kind == unstable.InlineTable {
		for it := v.Children(); it.Next(); {
			if c := it.Node(); c.Kind == unstable.KeyValue {
				out = appendKeyValue(p, out, path, c)
			}
		}
	}
	return out
}

func keyOf(it unstable.Iterator) ([]string, *unstable.Node) {
	var parts []string
	var first *unstable.Node
	for it.Next() {
		if first == nil {
			first = it.Node()
		}
		parts = append(parts, string(it.Node().Data))
	}
	return parts, first
}

func lineOf(p *unstable.Parser, it unstable.Iterator) int {
	_, first := keyOf(it)
	if first == nil {
		return 0
	}
	return p.Shape(first.Raw).Start.Line
}

// line returns the line of the statement that best matches key: the one
// with the longest path that is a prefix of key. 0 when none matches.
func (l *linter) line(key []string) int {
	best, bestLen := 0, 0
	for _, kp := range l.positions {
		if len(kp.path) > bestLen && len(kp.path) <= len(key) && slices.Equal(kp.path, key[:len(kp.path)]) {
			best, bestLen = kp.line, len(kp.path)
		}
	}
	return best
}

// lookupEnv reads the environment through the streams: a variable set to
// the empty string through IOStreams.Getenv counts as unset. Without
// Getenv it is secret.Lookup, which still sees what secret.Protect removed.
func lookupEnv(s IOStreams) func(string) (string, bool) {
	if s.Getenv == nil {
		return secret.Lookup
	}
	return func(k string) (string, bool) {
		v := s.Getenv(k)
		return v, v != ""
	}
}
