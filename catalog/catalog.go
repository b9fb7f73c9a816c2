package catalog

import (
	"encoding/json"
	"fmt"
	"sort"
	"sync"

	"github.com/talonhq/talon/locales"
	"github.com/talonhq/talon/tool"
	"github.com/talonhq/talon/toolfactory"
)

// Entry is one tool of a catalog.
type Entry struct {
	// Spec is the tool's own spec (not localized), with the tier raised to
	// the factory's floor.
	Spec tool.Spec
	Tool tool.Tool

	schemaOnce sync.Once
	schema     *tool.Schema
	schemaErr  error

	variants sync.Map // profile name -> variantResult
}

type variantResult struct {
	once sync.Once
	t    tool.Tool
	err  error
}

// ForProfile returns the tool to use for calls under a risk profile: the
// entry's own tool, or, for a [tool.Profiled] tool, its variant for that
// profile, built once per profile and catalog.
func (e *Entry) ForProfile(p tool.ProfileSettings) (tool.Tool, error) {
	pt, ok := e.Tool.(tool.Profiled)
	if !ok {
		return e.Tool, nil
	}
	v, _ := e.variants.LoadOrStore(p.Name, &variantResult{})
	vr := v.(*variantResult)
	vr.once.Do(func() { vr.t, vr.err = pt.ForProfile(p) })
	return vr.t, vr.err
}

// Schema returns the compiled input schema. It is compiled on first use, so
// listing a catalog never pays for it.
func (e *Entry) Schema() (*tool.Schema, error) {
	e.schemaOnce.Do(func() { e.schema, e.schemaErr = tool.CompileSchema(e.Spec.Name, e.Spec.Input) })
	return e.schema, e.schemaErr
}

// Catalog is an immutable set of tools, safe for concurrent use.
type Catalog struct {
	surface     string
	entries     []*Entry
	byName      map[string]*Entry
	diagnostics []Diagnostic
	bundle      *locales.Bundle

	mu        sync.Mutex
	localized map[string][]tool.Spec
}

// BuildOptions are the inputs of [Build].
type BuildOptions struct {
	// Selection says which compiled-in tools to construct.
	Selection Selection
	// Surface is the surface the selection was made for.
	Surface string
	// Env is handed to every constructor (its Logger gains the tool's
	// attribution).
	Env toolfactory.Env
	// Bundle localizes descriptions; nil means descriptions stay as the
	// tools declared them.
	Bundle *locales.Bundle
	// Tools are tools from other sources (plugins, command tools, MCP
	// servers), added after the built-ins. Built-in names, even of tools not
	// selected or not compiled in, belong to the built-ins.
	Tools []tool.Tool
}

// Build constructs the selected tools and freezes them into a catalog.
// Constructors run here and nowhere else.
func Build(opts BuildOptions) (*Catalog, error) {
	c := &Catalog{
		surface:     opts.Surface,
		byName:      make(map[string]*Entry, len(opts.Selection.Factories)),
		diagnostics: opts.Selection.Diagnostics,
		bundle:      opts.Bundle,
		localized:   map[string][]tool.Spec{},
	}
	for _, f := range opts.Selection.Factories {
		env := opts.Env
		env.Logger = env.Logger.With().Str("attribution", string(tool.KindBuiltin)+"."+f.Name).Logger()
		t, err := f.New(env)
		if err != nil {
			return nil, fmt.Errorf("construct tool %s: %w", f.Name, err)
		}
		spec := t.Spec()
		if spec.Name != f.Name {
			return nil, fmt.Errorf("tool registered as %s describes itself as %q", f.Name, spec.Name)
		}
		spec.Tier = tool.MaxTier(spec.Tier, f.Tier)
		if err := c.add(&Entry{Spec: spec, Tool: t}); err != nil {
			return nil, err
		}
	}
	for _, t := range opts.Tools {
		spec := t.Spec()
		if _, builtin := toolfactory.Lookup(spec.Name); builtin && spec.Attribution.Kind != tool.KindBuiltin {
			return nil, fmt.Errorf("%s cannot use the name %s: it belongs to a built-in tool; rename it", spec.Attribution, spec.Name)
		}
		if err := c.add(&Entry{Spec: spec, Tool: t}); err != nil {
			return nil, err
		}
	}
	sort.Slice(c.entries, func(i, j int) bool { return c.entries[i].Spec.Name < c.entries[j].Spec.Name })
	return c, nil
}

func (c *Catalog) add(e *Entry) error {
	if err := tool.ValidateName(e.Spec.Name); err != nil {
		return err
	}
	if prev, dup := c.byName[e.Spec.Name]; dup {
		return fmt.Errorf("tool name %s is claimed by both %s and %s: rename one of them", e.Spec.Name, prev.Spec.Attribution, e.Spec.Attribution)
	}
	if !json.Valid(e.Spec.Input) && len(e.Spec.Input) > 0 {
		return fmt.Errorf("tool %s has an input schema that is not valid JSON", e.Spec.Name)
	}
	c.byName[e.Spec.Name] = e
	c.entries = append(c.entries, e)
	return nil
}

// Surface returns the surface the catalog was built for.
func (c *Catalog) Surface() string { return c.surface }

// Lookup finds a tool by its model-visible name.
func (c *Catalog) Lookup(name string) (*Entry, bool) {
	e, ok := c.byName[name]
	return e, ok
}

// Entries returns the tools sorted by name. The slice must not be modified.
func (c *Catalog) Entries() []*Entry { return c.entries }

// Len returns the number of tools.
func (c *Catalog) Len() int { return len(c.entries) }

// Diagnostics returns the selection warnings the catalog was built with.
func (c *Catalog) Diagnostics() []Diagnostic { return c.diagnostics }

// Specs returns every spec localized for lang, sorted by name. Results are
// cached per language; the returned slice must not be modified.
func (c *Catalog) Specs(lang string) []tool.Spec {
	var loc *locales.Localizer
	if c.bundle != nil {
		loc = c.bundle.Localizer(lang)
		lang = loc.Lang()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if specs, ok := c.localized[lang]; ok {
		return specs
	}
	specs := make([]tool.Spec, len(c.entries))
	for i, e := range c.entries {
		specs[i] = Localize(e.Spec, loc)
	}
	c.localized[lang] = specs
	return specs
}

// Localize fills a spec's description and its parameters' descriptions from
// the message catalog: id tool-<name> and tool-<name>-param-<param>.
// Built-in tools always take their text from the messages (a missing key
// shows as {key}); other sources keep their own text unless a message
// overrides it. A nil localizer returns the spec unchanged.
func Localize(spec tool.Spec, loc *locales.Localizer) tool.Spec {
	if loc == nil {
		return spec
	}
	id := locales.ToolID(spec.Name)
	if spec.Attribution.Kind == tool.KindBuiltin || spec.Description == "" {
		spec.Description = loc.Message(id, nil)
	} else if s, ok := loc.Lookup(id, nil); ok {
		spec.Description = s
	}
	spec.Input = localizeParams(spec, loc)
	return spec
}

func localizeParams(spec tool.Spec, loc *locales.Localizer) json.RawMessage {
	var schema map[string]any
	if err := json.Unmarshal(spec.Input, &schema); err != nil {
		return spec.Input
	}
	props, _ := schema["properties"].(map[string]any)
	if len(props) == 0 {
		return spec.Input
	}
	changed := false
	for name, p := range props {
		pm, ok := p.(map[string]any)
		if !ok {
			continue
		}
		if text, ok := loc.Lookup(locales.ParamID(spec.Name, name), nil); ok {
			pm["description"] = text
			changed = true
		}
	}
	if !changed {
		return spec.Input
	}
	out, err := json.Marshal(schema)
	if err != nil {
		return spec.Input
	}
	return out
}
