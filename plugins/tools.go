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
	name string
}

// finish names the tools of the loaded plugins, wraps them and collects
// their message files.
func (s *Set) finish(loaded []*plugin) {
	var all []*named
	for _, p := range loaded {
		s.loaded = append(s.loaded, p.loaded)
		s.Plugins = append(s.Plugins, p.report)
		seen := map[string]bool{}
		for _, t := range p.loaded.Tools() {
			n := t.Spec().Name
			if seen[n] {
				s.warnf("plugin %s describes tool %q twice; the second is skipped", p.report.Name, n)
				continue
			}
			seen[n] = true
			final, ok := s.ownName(p.report.Name, n)
			if !ok {
				continue
			}
			all = append(all, &named{p: p, t: t, name: final})
		}
	}
	// A name two plugins share is given to neither: both are prefixed.
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
		var who []string
		for _, n := range owners[name] {
			who = append(who, n.p.report.Name)
			n.name = n.p.report.Name + "_" + name
		}
		s.warnf("plugins %s all have a tool named %q; they are renamed to <plugin>_%s", strings.Join(who, ", "), name, name)
	}
	taken := map[string]bool{}
	for _, n := range all {
		if err := usable(n.name); err != nil || taken[n.name] {
			if err == nil {
				err = fmt.Errorf("another plugin tool already has that name")
			}
			s.warnf("plugin %s: tool %q skipped: %v", n.p.report.Name, n.t.Spec().Name, err)
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

// ownName checks a plugin tool's own name; a built-in's name or a reserved
// form is replaced by "<plugin>_<tool>" with a warning. ok is false when
// the tool is skipped.
func (s *Set) ownName(plugin, name string) (string, bool) {
	if err := tool.ValidateName(name); err != nil {
		s.warnf("plugin %s: tool skipped: %v", plugin, err)
		return "", false
	}
	why := ""
	if _, builtin := toolfactory.Lookup(name); builtin {
		why = "is the name of a built-in tool"
	} else if strings.Contains(name, "__") {
		why = "contains \"__\", which is reserved for command and MCP tools"
	}
	if why == "" {
		return name, true
	}
	renamed := plugin + "_" + name
	if err := usable(renamed); err != nil {
		s.warnf("plugin %s: tool %q %s, and %q is not usable either (%v); the tool is skipped", plugin, name, why, renamed, err)
		return "", false
	}
	s.warnf("plugin %s: tool %q %s; it is renamed to %q", plugin, name, why, renamed)
	return renamed, true
}

// usable reports whether a final name may be shown to a model.
func usable(name string) error {
	if err := tool.ValidateName(name); err != nil {
		return err
	}
	if _, builtin := toolfactory.Lookup(name); builtin {
		return fmt.Errorf("%q is the name of a built-in tool", name)
	}
	if strings.Contains(name, "__") {
		return fmt.Errorf("%q contains \"__\", which is reserved for command and MCP tools", name)
	}
	return nil
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
	return w.inner.Execute(ctx, args)
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
