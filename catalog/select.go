package catalog

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/talonhq/talon/internal/spelling"
	"github.com/talonhq/talon/toolfactory"
)

// Surfaces: the kind of client a catalog is built for.
const (
	SurfaceChat = "chat"
	SurfaceCode = "code"
)

// Wildcard in `optional` selects every compiled-in tool.
const Wildcard = "*"

var coreChat = []string{
	"shell", "file_read", "file_write", "file_edit", "glob_search", "content_search",
	"memory_recall", "memory_store", "memory_forget", "web_fetch", "git_operations",
}

// memoryTools never appear on the code surface, whatever the selection.
var memoryTools = []string{"memory_recall", "memory_store", "memory_forget"}

// ErrUnknownTool is wrapped by [Select] for a name that no build of talon has.
var ErrUnknownTool = errors.New("unknown tool")

// Core returns the minimal set of a surface, sorted: 11 tools for chat, the
// same minus the persistent-memory tools (8) for code.
func Core(surface string) []string {
	var out []string
	for _, n := range coreChat {
		if surface == SurfaceCode && slices.Contains(memoryTools, n) {
			continue
		}
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// SelectOptions are the inputs of a selection. Known and Registered default
// to the toolfactory registry; tests pass their own.
type SelectOptions struct {
	// Optional is `[tools] optional`; nil (the key or section is missing)
	// means full.
	Optional *[]string
	// Surface is SurfaceChat (default) or SurfaceCode.
	Surface string
	// Known is the catalogue of every built-in name; nil = toolfactory.Known().
	Known []toolfactory.Entry
	// Registered are the compiled-in factories; nil = toolfactory.Registered().
	Registered []toolfactory.Factory
	// Always are names selected whenever they are compiled in, whatever
	// optional says (tool_search, when deferred discovery is on).
	Always []string
}

// Selection is the outcome of [Select].
type Selection struct {
	// Full is true when every compiled-in tool was asked for.
	Full bool
	// Factories are the compiled-in tools to construct, sorted by name.
	Factories []toolfactory.Factory
	// Diagnostics are warnings for the operator, one per name at most.
	Diagnostics []Diagnostic
}

// Names returns the selected names, sorted.
func (s Selection) Names() []string {
	out := make([]string, len(s.Factories))
	for i, f := range s.Factories {
		out[i] = f.Name
	}
	return out
}

// Diagnostic is a warning about one selected name that will not appear.
type Diagnostic struct {
	Name    string
	Feature string
	Tag     string
	Message string
}

func (d Diagnostic) String() string { return d.Message }

// Select resolves `[tools] optional` for a surface:
//
//   - nil or a list containing "*": full, every compiled-in tool (plus
//     nothing else: "*" with names is the same as "*");
//   - []: the surface's core set ([Core]) as far as it is compiled in;
//   - names: the core set plus each name, once.
//
// The code surface never gets the persistent-memory tools. A name this
// binary was built without yields one [Diagnostic] and never an error; a
// name no build has is an error wrapping [ErrUnknownTool] with a "did you
// mean" hint. "*" stays silent about what is compiled out.
func Select(opts SelectOptions) (Selection, error) {
	surface := opts.Surface
	if surface == "" {
		surface = SurfaceChat
	}
	if surface != SurfaceChat && surface != SurfaceCode {
		return Selection{}, fmt.Errorf("unknown surface %q: use %q or %q", surface, SurfaceChat, SurfaceCode)
	}
	known := opts.Known
	if known == nil {
		known = toolfactory.Known()
	}
	registered := opts.Registered
	if registered == nil {
		registered = toolfactory.Registered()
	}
	byName := make(map[string]toolfactory.Factory, len(registered))
	for _, f := range registered {
		byName[f.Name] = f
	}
	knownByName := make(map[string]toolfactory.Entry, len(known))
	knownNames := make([]string, 0, len(known))
	for _, e := range known {
		knownByName[e.Name] = e
		knownNames = append(knownNames, e.Name)
	}

	var sel Selection
	want := map[string]bool{}
	var named []string
	if opts.Optional == nil {
		sel.Full = true
	} else {
		for _, n := range *opts.Optional {
			n = strings.TrimSpace(n)
			switch {
			case n == Wildcard:
				sel.Full = true
			case n == "":
				return Selection{}, errors.New("tools.optional contains an empty name: remove it")
			case strings.HasPrefix(n, "agent__"):
				// Agents are not compiled in: package agents selects them
				// by these names and reports the unknown ones.
			default:
				named = append(named, n)
			}
		}
	}
	if sel.Full {
		for _, f := range registered {
			want[f.Name] = true
		}
	} else {
		for _, n := range Core(surface) {
			if _, ok := byName[n]; ok {
				want[n] = true
			}
		}
	}

	for _, n := range opts.Always {
		if _, ok := byName[n]; ok {
			want[n] = true
		}
	}
	var unknown []string
	reported := map[string]bool{}
	for _, n := range named {
		if reported[n] {
			continue
		}
		if _, ok := byName[n]; ok {
			want[n] = true
			continue
		}
		reported[n] = true
		e, ok := knownByName[n]
		if !ok {
			unknown = append(unknown, n)
			continue
		}
		sel.Diagnostics = append(sel.Diagnostics, compiledOut(e))
	}
	if len(unknown) > 0 {
		msgs := make([]string, len(unknown))
		for i, n := range unknown {
			msgs[i] = fmt.Sprintf("%q", n)
			if s := spelling.Closest(n, knownNames); s != "" {
				msgs[i] += fmt.Sprintf(" (did you mean %q?)", s)
			}
		}
		return Selection{}, fmt.Errorf("%w in tools.optional: %s; run `talon tools list --all` to see every name", ErrUnknownTool, strings.Join(msgs, ", "))
	}

	for n := range want {
		f := byName[n]
		if !f.AllowedOn(surface) {
			if slices.Contains(named, n) {
				sel.Diagnostics = append(sel.Diagnostics, Diagnostic{
					Name:    n,
					Message: fmt.Sprintf("%s is not offered on the %s surface and was left out", n, surface),
				})
			}
			continue
		}
		sel.Factories = append(sel.Factories, f)
	}
	sort.Slice(sel.Factories, func(i, j int) bool { return sel.Factories[i].Name < sel.Factories[j].Name })
	sort.Slice(sel.Diagnostics, func(i, j int) bool { return sel.Diagnostics[i].Name < sel.Diagnostics[j].Name })
	return sel, nil
}

// compiledOut tells the operator which feature holds a tool this binary
// lacks and the command, run from talon's source tree, that builds talon
// with that feature added to the default ones.
func compiledOut(e toolfactory.Entry) Diagnostic {
	msg := fmt.Sprintf("tool %s is not compiled into this binary; it is part of the %q feature", e.Name, e.Feature)
	if e.Tag != "" {
		msg += fmt.Sprintf(" (build tag %s): build talon with it from its source tree: `go build $(go run ./xtask generate features --add %s --format flags) ./cmd/talon`", e.Tag, e.Feature)
	}
	return Diagnostic{Name: e.Name, Feature: e.Feature, Tag: e.Tag, Message: msg}
}
