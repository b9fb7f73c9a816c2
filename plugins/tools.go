package plugins

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/talonhq/talon/locales"

	"github.com/talonhq/talon/tool"
	"github.com/talonhq/talon/toolfactory"
)

// named is one plugin tool on its way to a final name.
type named struct {
	p    *plugin
	t    tool.Tool
	name string // the final name: its own, or the operator's alias
	// alias reports that the operator renamed the tool.
	alias bool
	// out reports that the name clashes and the tool is left out.
	out bool
}

// claimant describes who claims a name: the plugin, and the tool's own
// name when the name is an alias.
func (n *named) claimant() string {
	if n.alias {
		return fmt.Sprintf("%s (%s renamed %q)", n.p.report.Name, n.t.Spec().Name, n.name)
	}
	return n.p.report.Name
}

// finish names the tools of the loaded plugins, wraps them and collects
// their message files.
func (s *Set) finish(loaded []*plugin) {
	var all []*named
	for _, p := range loaded {
		s.loaded = append(s.loaded, p.loaded)
		s.Plugins = append(s.Plugins, p.report)
		all = append(all, s.ownNames(p)...)
	}
	// A name two tools claim belongs to neither: each is left out, so a
	// tool's meaning never depends on which plugin loaded first.
	owners := map[string][]*named{}
	for _, n := range all {
		owners[n.name] = append(owners[n.name], n)
	}
	clashes := make([]string, 0)
	for name, ns := range owners {
		if len(ns) > 1 {
			clashes = append(clashes, name)
		}
	}
	sort.Strings(clashes)
	for _, name := range clashes {
		ns := owners[name]
		sort.Slice(ns, func(i, j int) bool { return ns[i].p.report.Name < ns[j].p.report.Name })
		var who []string
		for _, n := range ns {
			who = append(who, n.claimant())
			n.out = true
		}
		all := "all"
		if len(who) == 2 {
			all = "both"
		}
		s.warnf("plugins %s %s describe a tool named %q, so it is left out of each; give it another name in their [[plugins.entries]], e.g. rename = { %s = %q }",
			joinAnd(who), all, name, ns[0].t.Spec().Name, suggestName(ns[0].p.report.Name, ns[0].t.Spec().Name))
	}
	taken := map[string]bool{}
	for _, n := range all {
		if n.out {
			continue
		}
		taken[n.name] = true
		r := n.p.report
		s.Tools = append(s.Tools, wrap(n.t, n.name, r))
		r.Tools = append(r.Tools, n.name)
	}
	// Message ids a plugin may define: those of its own tools, under their
	// own and their final names, and none of another plugin's final names.
	own := map[*plugin][]string{}
	finalOwner := map[string]*plugin{}
	for _, n := range all {
		own[n.p] = append(own[n.p], n.t.Spec().Name)
		if taken[n.name] {
			own[n.p] = append(own[n.p], n.name)
			finalOwner[locales.ToolID(n.name)] = n.p
		}
	}
	for _, p := range loaded {
		dir := filepath.Join(p.report.Dir, "locales")
		fi, err := os.Lstat(dir)
		if err != nil || !fi.IsDir() {
			continue
		}
		fsys := os.DirFS(dir)
		if bad := foreignIDs(fsys, p, own[p], finalOwner); len(bad) > 0 {
			s.warnf("plugin %s: its messages define %s, which belong to no tool of its own; its message files are left out",
				p.report.Name, strings.Join(bad, ", "))
			continue
		}
		s.Messages = append(s.Messages, Messages{FS: fsys, Source: p.report.Attribution()})
	}
}

// foreignIDs returns the message ids in fsys that do not describe one of
// the names in own, or that describe another plugin's tool. Files that do
// not parse are left to the message bundle, which reports them.
func foreignIDs(fsys fs.FS, p *plugin, own []string, finalOwner map[string]*plugin) []string {
	langs, err := locales.LocaleDirs(fsys)
	if err != nil {
		return nil
	}
	var bad []string
	for _, lang := range langs {
		files, err := locales.ReadLocale(fsys, lang)
		if err != nil {
			return nil
		}
		for _, f := range files {
			for _, m := range f.Resource.Messages {
				if !ownsID(m.ID, p, own, finalOwner) && !slices.Contains(bad, m.ID) {
					bad = append(bad, m.ID)
				}
			}
		}
	}
	return bad
}

func ownsID(id string, p *plugin, own []string, finalOwner map[string]*plugin) bool {
	for _, name := range own {
		base := locales.ToolID(name)
		if id != base && !strings.HasPrefix(id, base+"-param-") && !strings.HasPrefix(id, base+"-error-") {
			continue
		}
		if q, ok := finalOwner[base]; ok && q != p {
			return false
		}
		return true
	}
	return false
}

// ownNames checks one plugin's tool names and applies the operator's
// aliases ([[plugins.entries]] rename). A tool whose name (or alias) is
// not a valid tool name, contains "__" (reserved for command and MCP
// tools) or is a built-in's is left out with a warning that names both
// and says how to rename it; so is the second tool of a name the plugin
// describes twice.
func (s *Set) ownNames(p *plugin) []*named {
	plugin := p.report.Name
	var rename map[string]string
	if p.report.Entry != nil {
		rename = p.report.Entry.Rename
	}
	var out []*named
	seen := map[string]bool{}
	for _, t := range p.loaded.Tools() {
		n := t.Spec().Name
		if err := tool.ValidateName(n); err != nil {
			s.warnf("plugin %s: tool skipped: %v", plugin, err)
			continue
		}
		if seen[n] {
			s.warnf("plugin %s describes tool %q twice; the second is skipped", plugin, n)
			continue
		}
		seen[n] = true
		final, alias := n, false
		if a, ok := rename[n]; ok {
			final, alias = a, true
		}
		what := fmt.Sprintf("tool %q", n)
		if alias {
			what = fmt.Sprintf("tool %q renamed %q", n, final)
			if err := tool.ValidateName(final); err != nil {
				s.warnf("plugin %s: %s is left out: %v; fix its rename in [[plugins.entries]]", plugin, what, err)
				continue
			}
		}
		fix := fmt.Sprintf("give it another name in the plugin's [[plugins.entries]], e.g. rename = { %s = %q }", n, suggestName(plugin, n))
		if alias {
			fix = "choose another name in its [[plugins.entries]] rename"
		}
		if _, builtin := toolfactory.Lookup(final); builtin {
			s.warnf("plugin %s: %s has the name of the built-in tool %s, so it is left out; %s", plugin, what, final, fix)
			continue
		}
		if strings.Contains(final, "__") {
			s.warnf("plugin %s: %s contains \"__\", which is reserved for command and MCP tools, so it is left out; %s", plugin, what, fix)
			continue
		}
		out = append(out, &named{p: p, t: t, name: final, alias: alias})
	}
	keys := make([]string, 0, len(rename))
	for k := range rename {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !seen[k] {
			s.warnf("plugin %s: [[plugins.entries]] rename names tool %q, which the plugin does not describe; remove it or check `talon plugins inspect %s`", plugin, k, plugin)
		}
	}
	return out
}

// suggestName proposes an alias for a plugin's tool: "<plugin>_<tool>"
// with "__" folded and dashes of the plugin's name as underscores, cut to
// 64 characters.
func suggestName(plugin, name string) string {
	out := strings.ReplaceAll(plugin, "-", "_") + "_" + name
	for strings.Contains(out, "__") {
		out = strings.ReplaceAll(out, "__", "_")
	}
	if len(out) > 64 {
		out = out[:64]
	}
	return out
}

// joinAnd joins names as "a, b and c".
func joinAnd(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// wrap gives a plugin tool its final name, its plugin's attribution and a
// tier no lower than its grants' floor. The result implements
// [tool.Assessor] and [tool.Profiled] exactly when t does.
func wrap(t tool.Tool, name string, r *Report) tool.Tool {
	spec := t.Spec()
	spec.Name = name
	spec.Tier = max(spec.Tier.Effective(), r.TierFloor)
	spec.Attribution = tool.Attribution{Kind: tool.Kind(r.Manifest.Kind), Alias: r.Name}
	w := wrapped{inner: t, spec: spec, report: r}
	_, assess := t.(tool.Assessor)
	_, profiled := t.(tool.Profiled)
	switch {
	case assess && profiled:
		return assessingProfiled{assessing{w}}
	case assess:
		return assessing{w}
	case profiled:
		return profiledTool{w}
	}
	return w
}

// wrapped is a plugin tool under its final name and tier.
type wrapped struct {
	inner  tool.Tool
	spec   tool.Spec
	report *Report
}

var _ tool.Tool = wrapped{}

func (w wrapped) Spec() tool.Spec { return w.spec }

func (w wrapped) Execute(ctx context.Context, args json.RawMessage) (tool.Result, error) {
	ctx, end := startSpan(ctx, w.spec)
	res, err := w.inner.Execute(ctx, args)
	end(res, err)
	return res, err
}

// assessing forwards [tool.Assessor].
type assessing struct{ wrapped }

var _ tool.Assessor = assessing{}

func (a assessing) Assess(args json.RawMessage) (tool.Assessment, error) {
	return a.inner.(tool.Assessor).Assess(args)
}

// profiledTool forwards [tool.Profiled], wrapping the tool it returns.
type profiledTool struct{ wrapped }

var _ tool.Profiled = profiledTool{}

func (p profiledTool) ForProfile(ps tool.ProfileSettings) (tool.Tool, error) {
	return forProfile(p.wrapped, ps)
}

// assessingProfiled forwards both.
type assessingProfiled struct{ assessing }

var _ tool.Profiled = assessingProfiled{}

func (a assessingProfiled) ForProfile(ps tool.ProfileSettings) (tool.Tool, error) {
	return forProfile(a.wrapped, ps)
}

func forProfile(w wrapped, ps tool.ProfileSettings) (tool.Tool, error) {
	t, err := w.inner.(tool.Profiled).ForProfile(ps)
	if err != nil || t == nil {
		return t, err
	}
	return wrap(t, w.spec.Name, w.report), nil
}
