package runtime

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/talonhq/talon/tool"
)

// ToolSearch is the name of the discovery tool.
const ToolSearch = "tool_search"

// alwaysVisible keep their full schemas when deferred discovery is on.
var alwaysVisible = []string{"shell", "file_read", "file_write", "file_edit", "memory_recall", "memory_store", ToolSearch}

// deferring reports whether a view for this profile defers built-ins:
// [runtime] deferred_builtin_tools is on and the caller may use tool_search.
// When policy does not allow tool_search, every schema loads eagerly.
func deferring(st *state, view []tool.Spec) bool {
	if !st.cfg.Runtime.DeferredBuiltinTools {
		return false
	}
	return slices.ContainsFunc(view, func(s tool.Spec) bool { return s.Name == ToolSearch })
}

// defer_ applies deferred discovery (SPEC §12) to a view: built-ins other
// than the always-visible ones and those activated for the session are
// left out, and tool_search's description lists them, one line each.
// Discovery never grants permission: view holds only what the profile may
// run, and calls are decided by policy as always.
func (r *Runtime) defer_(st *state, view []tool.Spec, opts ViewOptions) []tool.Spec {
	if !deferring(st, view) {
		return view
	}
	active := r.activated(opts.Session, opts.AnyActivated)
	var out, deferred []tool.Spec
	for _, s := range view {
		if s.Attribution.Kind != tool.KindBuiltin || slices.Contains(alwaysVisible, s.Name) || active[s.Name] {
			out = append(out, s)
		} else {
			deferred = append(deferred, s)
		}
	}
	if len(deferred) == 0 {
		return out
	}
	for i, s := range out {
		if s.Name != ToolSearch {
			continue
		}
		var b strings.Builder
		b.WriteString(s.Description)
		b.WriteString("\n\n")
		b.WriteString(r.bundle.Localizer(opts.Locale).Message("tool-tool-search-text-loadable", nil))
		b.WriteString("\n")
		for _, d := range deferred {
			fmt.Fprintf(&b, "- %s: %s\n", d.Name, firstSentence(d.Description))
		}
		s.Description = strings.TrimRight(b.String(), "\n")
		out[i] = s
	}
	return out
}

func firstSentence(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, ".。"); i >= 0 {
		_, n := utf8.DecodeRuneInString(s[i:])
		return s[:i+n]
	}
	return s
}

func (r *Runtime) activated(session string, any bool) map[string]bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]bool{}
	for sess, names := range r.active {
		if any || sess == session {
			for n := range names {
				out[n] = true
			}
		}
	}
	return out
}

// Activate makes tools visible with full schemas for a session (see
// [ViewOptions.Session]); the hook set by [Runtime.OnActivate] runs when
// anything new was activated.
func (r *Runtime) Activate(session string, names []string) {
	if session == "" || len(names) == 0 {
		return
	}
	r.mu.Lock()
	if r.active[session] == nil {
		r.active[session] = map[string]bool{}
	}
	added := false
	for _, n := range names {
		if !r.active[session][n] {
			r.active[session][n] = true
			added = true
		}
	}
	hook := r.onActivate
	r.mu.Unlock()
	if added && hook != nil {
		hook()
	}
}

// OnActivate sets a function to run after [Runtime.Activate] adds tools,
// e.g. to tell MCP clients the tool list changed.
func (r *Runtime) OnActivate(fn func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.onActivate = fn
}

// Search ranks the tools a call's profile may run by keywords over their
// names and descriptions, or selects them by name with "select:a,b", and
// activates the results for the call's session. Policy filters before the
// limit is applied.
func (r *Runtime) Search(ctx context.Context, c tool.Call, query string, limit int) ([]tool.Spec, error) {
	st := r.state.Load()
	prof, err := st.policy.Profile(c.Profile)
	if err != nil {
		return nil, err
	}
	ch := channelOf(c.Channel)
	var pool []tool.Spec
	for _, s := range st.catalog.Specs("") {
		if s.Name != ToolSearch && prof.CanEverRun(s, ch) {
			pool = append(pool, s)
		}
	}
	var found []tool.Spec
	if names, ok := strings.CutPrefix(strings.TrimSpace(query), "select:"); ok {
		for _, n := range strings.Split(names, ",") {
			n = strings.TrimSpace(n)
			if i := slices.IndexFunc(pool, func(s tool.Spec) bool { return s.Name == n }); i >= 0 {
				found = append(found, pool[i])
			}
		}
	} else {
		found = rank(pool, query)
	}
	if limit > 0 && len(found) > limit {
		found = found[:limit]
	}
	names := make([]string, len(found))
	for i, s := range found {
		names[i] = s.Name
	}
	r.Activate(c.SessionID, names)
	return found, nil
}

// rank scores specs by query words: a word in the name counts three times
// a word in the description. Specs that match nothing are left out.
func rank(pool []tool.Spec, query string) []tool.Spec {
	words := strings.FieldsFunc(strings.ToLower(query), func(r rune) bool {
		return !(r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127)
	})
	type scored struct {
		s     tool.Spec
		score int
	}
	var hits []scored
	for _, s := range pool {
		name, desc := strings.ToLower(s.Name), strings.ToLower(s.Description)
		score := 0
		for _, w := range words {
			if strings.Contains(name, w) {
				score += 3
			}
			if strings.Contains(desc, w) {
				score++
			}
		}
		if score > 0 {
			hits = append(hits, scored{s, score})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool {
		if hits[i].score != hits[j].score {
			return hits[i].score > hits[j].score
		}
		return hits[i].s.Name < hits[j].s.Name
	})
	out := make([]tool.Spec, len(hits))
	for i, h := range hits {
		out[i] = h.s
	}
	return out
}
