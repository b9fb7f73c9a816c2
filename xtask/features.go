package main

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// Default locations of the build policy, relative to the module root.
const (
	defaultFeaturesFile = "build/features.toml"
	defaultTargetsFile  = "build/targets.toml"
)

// staticTags are the tags every static leg adds: the pure-Go resolver and
// user lookup, so nothing can ask for libc at run time.
var staticTags = []string{"netgo", "osusergo"}

// feature is one entry of features.toml.
type feature struct {
	Description string   `toml:"description"`
	Tag         string   `toml:"tag"`
	OffTag      string   `toml:"off_tag"`
	Always      bool     `toml:"always"`
	Implies     []string `toml:"implies"`
}

// selection is one entry of [selections] in features.toml.
type selection struct {
	Description string   `toml:"description"`
	Extends     string   `toml:"extends"`
	Features    []string `toml:"features"`
}

// featureModel is features.toml, validated.
type featureModel struct {
	Features   map[string]feature   `toml:"features"`
	Selections map[string]selection `toml:"selections"`
}

// target is one release leg of targets.toml.
type target struct {
	Name         string   `toml:"name" json:"name"`
	GOOS         string   `toml:"goos" json:"goos"`
	GOARCH       string   `toml:"goarch" json:"goarch"`
	GOARM        string   `toml:"goarm" json:"goarm,omitempty"`
	Variant      string   `toml:"variant" json:"variant,omitempty"`
	Static       bool     `toml:"static" json:"static"`
	Archive      string   `toml:"archive" json:"archive"`
	Exclude      []string `toml:"exclude" json:"exclude,omitempty"`
	Experimental bool     `toml:"experimental" json:"experimental"`
}

// ID is the target as --target spells it: GOOS/GOARCH[/variant].
func (t target) ID() string {
	id := t.GOOS + "/" + t.GOARCH
	if v := t.variant(); v != "" {
		id += "/" + v
	}
	return id
}

func (t target) variant() string {
	if t.Variant != "" {
		return t.Variant
	}
	return t.GOARM
}

// binary is the executable's file name inside the archive.
func (t target) binary() string {
	if t.GOOS == "windows" {
		return "talon.exe"
	}
	return "talon"
}

// policy is targets.toml, validated against the feature model.
type policy struct {
	Selection string   `toml:"selection"`
	Targets   []target `toml:"target"`
}

var (
	namePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)
	tagPattern  = regexp.MustCompile(`^[A-Za-z0-9_.]+$`)
)

// loadFeatures reads and validates a features file.
func loadFeatures(path string) (*featureModel, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w; run from the module root or pass --features-file", path, err)
	}
	m, err := parseFeatures(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// parseFeatures decodes features.toml and checks that it is consistent:
// every name it refers to exists, a feature has at most one kind of tag,
// no tag is used twice, and selections do not extend in a circle.
func parseFeatures(data []byte) (*featureModel, error) {
	var m featureModel
	dec := toml.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("parse: %w", err)
	}
	if len(m.Features) == 0 {
		return nil, errors.New("no [features.<name>] tables")
	}
	tags := map[string]string{}
	for _, name := range sortedKeys(m.Features) {
		f := m.Features[name]
		if !namePattern.MatchString(name) {
			return nil, fmt.Errorf("feature %q: names are lowercase letters, digits and dashes", name)
		}
		if f.Tag != "" && f.OffTag != "" {
			return nil, fmt.Errorf("feature %s has both tag and off_tag: a feature is either opt-in (tag) or opt-out (off_tag)", name)
		}
		if f.Always && (f.Tag != "" || f.OffTag != "" || len(f.Implies) > 0) {
			return nil, fmt.Errorf("feature %s is always compiled in and cannot have tags or implies", name)
		}
		for _, tag := range []string{f.Tag, f.OffTag} {
			if tag == "" {
				continue
			}
			if !tagPattern.MatchString(tag) {
				return nil, fmt.Errorf("feature %s: %q is not a Go build tag", name, tag)
			}
			if other, dup := tags[tag]; dup {
				return nil, fmt.Errorf("features %s and %s share the tag %s: give each its own", other, name, tag)
			}
			tags[tag] = name
		}
		for _, imp := range f.Implies {
			if _, ok := m.Features[imp]; !ok {
				return nil, fmt.Errorf("feature %s implies %q, which is not a feature", name, imp)
			}
		}
	}
	if len(m.Selections) == 0 {
		return nil, errors.New("no [selections.<name>] tables")
	}
	for _, name := range sortedKeys(m.Selections) {
		s := m.Selections[name]
		for _, f := range s.Features {
			if _, ok := m.Features[f]; !ok {
				return nil, fmt.Errorf("selection %s names %q, which is not a feature", name, f)
			}
		}
		seen := map[string]bool{name: true}
		for next := s.Extends; next != ""; next = m.Selections[next].Extends {
			if _, ok := m.Selections[next]; !ok {
				return nil, fmt.Errorf("selection %s extends %q, which is not a selection", name, next)
			}
			if seen[next] {
				return nil, fmt.Errorf("selection %s extends itself through %s", name, next)
			}
			seen[next] = true
		}
	}
	return &m, nil
}

// featureNames lists the features, sorted.
func (m *featureModel) featureNames() []string { return sortedKeys(m.Features) }

// resolution is a selection resolved for a target.
type resolution struct {
	// Features are the features compiled in, sorted (groups included).
	Features []string
	// Excluded are the selected features the target left out, sorted.
	Excluded []string
	// Tags are the build tags that realise Features, sorted.
	Tags []string
}

// resolve expands a selection plus extra features into the set of features,
// follows implies, applies the target's exclusions (t may be nil) and
// derives the build tags. Naming an extra feature that the target excludes
// is an error.
func (m *featureModel) resolve(sel string, add []string, t *target) (resolution, error) {
	s, ok := m.Selections[sel]
	if !ok {
		return resolution{}, fmt.Errorf("unknown selection %q: use one of %s", sel, strings.Join(sortedKeys(m.Selections), ", "))
	}
	var roots []string
	for name := sel; name != ""; name = s.Extends {
		s = m.Selections[name]
		roots = append(roots, s.Features...)
	}
	for _, f := range add {
		if _, ok := m.Features[f]; !ok {
			return resolution{}, fmt.Errorf("unknown feature %q: use one of %s", f, strings.Join(m.featureNames(), ", "))
		}
		if t != nil && slices.Contains(t.Exclude, f) {
			return resolution{}, fmt.Errorf("target %s (%s) excludes %s: it cannot be added there", t.Name, t.ID(), f)
		}
		roots = append(roots, f)
	}
	set := map[string]bool{}
	for name, f := range m.Features {
		if f.Always {
			set[name] = true
		}
	}
	var visit func(string)
	visit = func(name string) {
		if set[name] {
			return
		}
		set[name] = true
		for _, imp := range m.Features[name].Implies {
			visit(imp)
		}
	}
	for _, r := range roots {
		visit(r)
	}
	var r resolution
	if t != nil {
		for _, ex := range t.Exclude {
			if set[ex] {
				delete(set, ex)
				r.Excluded = append(r.Excluded, ex)
			}
		}
		sort.Strings(r.Excluded)
	}
	for _, name := range m.featureNames() {
		f := m.Features[name]
		if set[name] {
			r.Features = append(r.Features, name)
			if f.Tag != "" {
				r.Tags = append(r.Tags, f.Tag)
			}
		} else if f.OffTag != "" {
			r.Tags = append(r.Tags, f.OffTag)
		}
	}
	if t != nil && t.Static {
		r.Tags = append(r.Tags, staticTags...)
	}
	sort.Strings(r.Tags)
	return r, nil
}

// loadPolicy reads and validates a targets file against the feature model.
func loadPolicy(path string, m *featureModel) (*policy, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w; run from the module root or pass --targets-file", path, err)
	}
	p, err := parsePolicy(data, m)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// parsePolicy decodes targets.toml and checks every leg. It fails closed on
// a stale policy: an exclusion must name a feature that the release
// selection, resolved for that target, contains; anything else means the
// feature model changed under the policy and someone must decide again.
func parsePolicy(data []byte, m *featureModel) (*policy, error) {
	var p policy
	dec := toml.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("parse: %w", err)
	}
	if p.Selection == "" {
		return nil, errors.New("selection is missing: name the selection release legs are built with")
	}
	if _, ok := m.Selections[p.Selection]; !ok {
		return nil, fmt.Errorf("selection %q is not in the features file", p.Selection)
	}
	if len(p.Targets) == 0 {
		return nil, errors.New("no [[target]] legs")
	}
	full, err := m.resolve(p.Selection, nil, nil)
	if err != nil {
		return nil, err
	}
	names, ids := map[string]bool{}, map[string]bool{}
	for i, t := range p.Targets {
		where := fmt.Sprintf("target %d (%s)", i+1, t.Name)
		switch {
		case !namePattern.MatchString(t.Name):
			return nil, fmt.Errorf("%s: name must be lowercase letters, digits and dashes", where)
		case t.GOOS == "" || t.GOARCH == "":
			return nil, fmt.Errorf("%s: goos and goarch are required", where)
		case t.Archive != "tar.gz" && t.Archive != "zip":
			return nil, fmt.Errorf("%s: archive %q must be tar.gz or zip", where, t.Archive)
		case t.GOARM != "" && t.GOARCH != "arm":
			return nil, fmt.Errorf("%s: goarm applies only to goarch arm", where)
		case t.Static && t.GOOS != "linux":
			return nil, fmt.Errorf("%s: static legs are linux only", where)
		case names[t.Name]:
			return nil, fmt.Errorf("%s: the name is used twice", where)
		case ids[t.ID()]:
			return nil, fmt.Errorf("%s: %s is used twice; give one a variant", where, t.ID())
		}
		names[t.Name], ids[t.ID()] = true, true
		for _, ex := range t.Exclude {
			if _, ok := m.Features[ex]; !ok {
				return nil, fmt.Errorf("%s excludes %q, which is not a feature: the policy is stale; fix build/targets.toml", where, ex)
			}
			if m.Features[ex].Always {
				return nil, fmt.Errorf("%s excludes %s, which every build contains", where, ex)
			}
			if !slices.Contains(full.Features, ex) {
				return nil, fmt.Errorf("%s excludes %s, which selection %s does not contain: the policy is stale; remove the exclusion or add the feature back", where, ex, p.Selection)
			}
		}
	}
	return &p, nil
}

// find looks a target up by leg name or GOOS/GOARCH[/variant].
func (p *policy) find(spec string) (*target, error) {
	for i := range p.Targets {
		t := &p.Targets[i]
		if spec == t.Name || spec == t.ID() {
			return t, nil
		}
	}
	ids := make([]string, len(p.Targets))
	for i, t := range p.Targets {
		ids[i] = t.ID()
	}
	return nil, fmt.Errorf("unknown target %q: use a leg name or one of %s", spec, strings.Join(ids, ", "))
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
