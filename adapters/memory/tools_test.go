package memory

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/talonhq/talon/tool"
)

// toolSet is the three tools over one store, for one namespace.
type toolSet struct {
	store  *StoreTool
	recall *RecallTool
	forget *ForgetTool
}

func newToolSet(s *Store, ns string) toolSet {
	o := ToolOptions{Namespace: ns}
	return toolSet{store: NewStoreTool(s, o), recall: NewRecallTool(s, o), forget: NewForgetTool(s, o)}
}

func call(t *testing.T, tl tool.Tool, args string) tool.Result {
	t.Helper()
	res, err := tl.Execute(context.Background(), json.RawMessage(args))
	if err != nil {
		t.Fatalf("%s(%s): Go error %v", tl.Spec().Name, args, err)
	}
	return res
}

func TestSpecs(t *testing.T) {
	s := newTestStore(t)
	ts := newToolSet(s, "")
	tests := []struct {
		name     string
		tl       tool.Tool
		tier     tool.Tier
		params   []string
		required []string
	}{
		{name: StoreName, tl: ts.store, tier: tool.Medium, params: []string{"category", "content", "key", "tags"}, required: []string{"content"}},
		{name: RecallName, tl: ts.recall, tier: tool.Low, params: []string{"category", "key", "limit", "mode", "query", "since", "until"}},
		{name: ForgetName, tl: ts.forget, tier: tool.Medium, params: []string{"key"}, required: []string{"key"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := tt.tl.Spec()
			if spec.Name != tt.name || spec.Tier != tt.tier || spec.Attribution.String() != "builtin."+tt.name {
				t.Errorf("spec = %+v", spec)
			}
			if spec.Description != "" {
				t.Errorf("description %q: built-in text belongs in the message files", spec.Description)
			}
			var schema struct {
				Properties map[string]map[string]any `json:"properties"`
				Required   []string                  `json:"required"`
			}
			if err := json.Unmarshal(spec.Input, &schema); err != nil {
				t.Fatal(err)
			}
			for p, def := range schema.Properties {
				if _, ok := def["description"]; ok {
					t.Errorf("parameter %s has a description in the schema", p)
				}
			}
			got := slices.Sorted(maps.Keys(schema.Properties))
			if !slices.Equal(got, tt.params) || !slices.Equal(schema.Required, tt.required) {
				t.Errorf("params %v required %v; want %v, %v", got, schema.Required, tt.params, tt.required)
			}
			if _, err := tool.CompileSchema(spec.Name, spec.Input); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestStoreTool(t *testing.T) {
	s := newTestStore(t)
	ts := newToolSet(s, "")
	tests := []struct {
		name    string
		args    string
		ok      bool
		want    string
		replace bool
	}{
		{name: "new key", args: `{"key":"user-editor","content":"Neovim","category":"prefs","tags":["editor"]}`, ok: true, want: "stored memory user-editor"},
		{name: "same key replaces", args: `{"key":"user-editor","content":"Helix"}`, ok: true, want: "replaced memory user-editor", replace: true},
		{name: "generated key", args: `{"content":"Tuesdays are release days"}`, ok: true, want: "stored memory mem-"},
		{name: "missing content", args: `{"key":"k"}`, want: "content is required"},
		{name: "blank content", args: `{"content":"   "}`, want: "content is empty"},
		{name: "too large", args: `{"content":"` + strings.Repeat("é", MaxContentBytes/2+1) + `"}`, want: "store a summary, or split it over several keys"},
		{name: "key with space", args: `{"key":"user editor","content":"x"}`, want: "use - or _ between words"},
		{name: "empty tag", args: `{"content":"x","tags":[""]}`, want: "a tag is empty"},
		{name: "unknown field", args: `{"content":"x","ttl":5}`, want: `unknown field "ttl"`},
		{name: "wrong type", args: `{"content":42}`, want: "invalid arguments"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, ts.store, tt.args)
			if res.Success != tt.ok {
				t.Fatalf("success = %v (%q), want %v", res.Success, res.Error, tt.ok)
			}
			text := res.Error
			if tt.ok {
				text = res.Output.Text
				d := res.Output.Data.(StoreData)
				if !strings.HasSuffix(text, d.Key) || d.Replaced != tt.replace {
					t.Errorf("data = %+v for %q", d, text)
				}
			}
			if !strings.Contains(text, tt.want) {
				t.Errorf("got %q, want it to contain %q", text, tt.want)
			}
		})
	}
}

func TestRecallTool(t *testing.T) {
	s := newTestStore(t)
	ts := newToolSet(s, "")
	long := strings.Repeat("word ", ExcerptRunes)
	seed(t, s, DefaultNamespace,
		Memory{Key: "editor", Content: "The user prefers Neovim\nwith   many plugins.", Category: "prefs", Tags: []string{"editor", "vim"}},
		Memory{Key: "essay", Content: long + "END"},
		Memory{Key: "deploy", Content: "Deploys go through staging."},
	)
	tests := []struct {
		name  string
		args  string
		ok    bool
		want  []string
		avoid []string
	}{
		{name: "recent by default", args: `{}`, ok: true, want: []string{
			"deploy (2024-05-01T09:00:03Z): Deploys go through staging.\nessay (2024-05-01T09:00:02Z): word word",
			"editor (prefs; 2024-05-01T09:00:01Z; #editor #vim): The user prefers Neovim with many plugins.",
			"(… marks a cut text: recall with key to read all of it)",
		}, avoid: []string{"END"}},
		{name: "keyword", args: `{"query":"neovim"}`, ok: true, want: []string{"editor (prefs; "}, avoid: []string{"deploy", "cut text"}},
		{name: "limit", args: `{"limit":1}`, ok: true, want: []string{"deploy ("}, avoid: []string{"essay"}},
		{name: "category", args: `{"category":"PREFS"}`, ok: true, want: []string{"editor ("}, avoid: []string{"deploy"}},
		{name: "since date", args: `{"since":"2024-05-02"}`, ok: true, want: []string{"no memory matches these filters"}},
		{name: "until date covers the day", args: `{"until":"2024-05-01","limit":1}`, ok: true, want: []string{"deploy ("}},
		{name: "no match", args: `{"query":"kubernetes"}`, ok: true, want: []string{`no memory matches "kubernetes": try other or fewer words, or mode recent`}},
		{name: "by key, in full", args: `{"key":"essay"}`, ok: true, want: []string{"essay (2024-05-01T09:00:02Z)\nword word", "END"}},
		{name: "by key keeps line breaks", args: `{"key":"editor"}`, ok: true, want: []string{"Neovim\nwith   many plugins."}},
		{name: "unknown key", args: `{"key":"nope"}`, want: []string{`no memory has the key "nope": find keys with memory_recall`}},
		{name: "key with other parameters", args: `{"key":"essay","limit":3}`, want: []string{"key reads exactly one memory"}},
		{name: "keyword without query", args: `{"mode":"keyword"}`, want: []string{"keyword mode needs a query"}},
		{name: "query of symbols", args: `{"query":"\"*()"}`, want: []string{"holds no letters or digits"}},
		{name: "bad since", args: `{"since":"last week"}`, want: []string{"since: invalid recall", "use RFC 3339"}},
		{name: "bad until", args: `{"until":"2024-13-01"}`, want: []string{"until: "}},
		{name: "since after until", args: `{"since":"2024-05-02","until":"2024-05-01"}`, want: []string{"swap them"}},
		{name: "zero limit", args: `{"limit":0}`, want: []string{"limit must be between 1 and 100"}},
		{name: "unknown mode", args: `{"mode":"fuzzy"}`, want: []string{`unknown mode "fuzzy"`}},
		{name: "unknown field", args: `{"q":"x"}`, want: []string{`unknown field "q"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, ts.recall, tt.args)
			if res.Success != tt.ok {
				t.Fatalf("success = %v (%q), want %v", res.Success, res.Error, tt.ok)
			}
			text := res.Error
			if tt.ok {
				text = res.Output.Text
			}
			for _, w := range tt.want {
				if !strings.Contains(text, w) {
					t.Errorf("text:\n%s\nwant it to contain %q", text, w)
				}
			}
			for _, a := range tt.avoid {
				if strings.Contains(text, a) {
					t.Errorf("text:\n%s\nholds %q", text, a)
				}
			}
		})
	}
}

func TestRecallData(t *testing.T) {
	s := newTestStore(t)
	ts := newToolSet(s, "")
	seed(t, s, DefaultNamespace,
		Memory{Key: "a", Content: "alpha beta", Tags: []string{"t"}},
		Memory{Key: "b", Content: strings.Repeat("alpha ", ExcerptRunes)},
	)
	res := call(t, ts.recall, `{"query":"alpha"}`)
	d, ok := res.Output.Data.(RecallData)
	if !ok || d.Mode != "keyword" || len(d.Entries) != 2 {
		t.Fatalf("data = %#v", res.Output.Data)
	}
	for _, e := range d.Entries {
		if e.Score <= 0 || e.Updated.IsZero() || e.Created.IsZero() {
			t.Errorf("entry %+v lacks a score or times", e)
		}
		if e.Key == "b" && (!e.Cut || len([]rune(e.Content)) != ExcerptRunes) {
			t.Errorf("long entry: cut %v, %d characters", e.Cut, len([]rune(e.Content)))
		}
	}
	if _, err := json.Marshal(d); err != nil {
		t.Error(err)
	}
	res = call(t, ts.recall, `{"key":"b"}`)
	if d := res.Output.Data.(RecallData); d.Mode != "key" || d.Entries[0].Cut || len(d.Entries[0].Content) != len(strings.Repeat("alpha ", ExcerptRunes)) {
		t.Errorf("by key: %+v", d)
	}
}

func TestForgetTool(t *testing.T) {
	s := newTestStore(t)
	ts := newToolSet(s, "")
	mustPut(t, s, DefaultNamespace, Memory{Key: "old-fact", Content: "outdated"})
	tests := []struct {
		name string
		args string
		ok   bool
		want string
	}{
		{name: "forget", args: `{"key":"old-fact"}`, ok: true, want: "forgot memory old-fact"},
		{name: "again", args: `{"key":"old-fact"}`, want: `no memory has the key "old-fact", so nothing was forgotten: find keys with memory_recall`},
		{name: "missing key", args: `{}`, want: "key is required"},
		{name: "category is not offered", args: `{"category":"prefs"}`, want: `unknown field "category"`},
		{name: "invalid key", args: `{"key":"a b"}`, want: "keys cannot hold spaces"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, ts.forget, tt.args)
			text := res.Error
			if res.Success {
				text = res.Output.Text
			}
			if res.Success != tt.ok || !strings.Contains(text, tt.want) {
				t.Fatalf("got success=%v %q; want success=%v containing %q", res.Success, text, tt.ok, tt.want)
			}
		})
	}
}

func TestForProfile(t *testing.T) {
	s := newTestStore(t)
	ts := newToolSet(s, "")
	forProfile := func(tl tool.Tool, name string) tool.Tool {
		t.Helper()
		p, err := tl.(tool.Profiled).ForProfile(tool.ProfileSettings{Name: name})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	work := toolSet{
		store:  forProfile(ts.store, "work").(*StoreTool),
		recall: forProfile(ts.recall, "work").(*RecallTool),
		forget: forProfile(ts.forget, "work").(*ForgetTool),
	}
	if ts.store.Namespace() != DefaultNamespace || work.recall.Namespace() != "work" {
		t.Fatalf("namespaces %q and %q", ts.store.Namespace(), work.recall.Namespace())
	}
	if p := forProfile(ts.recall, "").(*RecallTool); p.Namespace() != DefaultNamespace {
		t.Errorf("an unnamed profile uses %q, want default", p.Namespace())
	}
	call(t, ts.store, `{"key":"k","content":"default secret plan"}`)
	call(t, work.store, `{"key":"k","content":"work roadmap"}`)
	if res := call(t, work.recall, `{"query":"secret plan"}`); strings.Contains(res.Output.Text, "default secret") {
		t.Errorf("work profile sees the default profile's memory: %q", res.Output.Text)
	}
	if res := call(t, work.recall, `{"key":"k"}`); !strings.Contains(res.Output.Text, "work roadmap") {
		t.Errorf("work by key = %q", res.Output.Text)
	}
	call(t, work.forget, `{"key":"k"}`)
	if res := call(t, ts.recall, `{"key":"k"}`); !strings.Contains(res.Output.Text, "default secret plan") {
		t.Errorf("forgetting in work removed default's memory: %+v", res)
	}
}

func TestAssess(t *testing.T) {
	s := newTestStore(t)
	ts := newToolSet(s, "ops")
	tests := []struct {
		name string
		tl   tool.Assessor
		args string
		tier tool.Tier
		want string
	}{
		{name: "store", tl: ts.store, args: `{"key":"k","content":"line one\nline two","category":"c"}`, tier: tool.Medium,
			want: `remembers 17 bytes as k in the memory of profile ops: "line one line two" (category c)`},
		{name: "store with generated key", tl: ts.store, args: `{"content":"x"}`, tier: tool.Medium, want: "as a new key"},
		{name: "recall", tl: ts.recall, args: `{"query":"x"}`, tier: tool.Low, want: "reads the memory of profile ops"},
		{name: "forget", tl: ts.forget, args: `{"key":"k"}`, tier: tool.Medium, want: "forgets memory k of profile ops"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := tt.tl.Assess(json.RawMessage(tt.args))
			if err != nil {
				t.Fatal(err)
			}
			if a.Tier != tt.tier || len(a.Reasons) != 1 || !strings.Contains(a.Reasons[0], tt.want) {
				t.Errorf("assessment = %+v, want tier %v and a reason containing %q", a, tt.tier, tt.want)
			}
			if a.Plan != nil || len(a.Paths) != 0 || a.Denied {
				t.Errorf("assessment = %+v: no plan, paths or denial expected", a)
			}
			if _, err := tt.tl.Assess(json.RawMessage(`{"nope":1}`)); err == nil {
				t.Error("undecodable arguments assessed")
			}
		})
	}
}

func TestAssessDoesNotOpen(t *testing.T) {
	s := NewStore(t.TempDir()+"/sub/"+FileName, StoreOptions{})
	defer s.Close()
	ts := newToolSet(s, "")
	for _, tl := range []tool.Assessor{ts.store, ts.recall, ts.forget} {
		if _, err := tl.Assess(json.RawMessage(`{"key":"k","content":"x"}`)); err != nil && !strings.Contains(err.Error(), "unknown field") {
			t.Fatal(err)
		}
	}
	s.mu.Lock()
	opened := s.db != nil
	s.mu.Unlock()
	if opened {
		t.Error("an assessment opened the database")
	}
}

func TestCancelledCall(t *testing.T) {
	s := newTestStore(t)
	ts := newToolSet(s, "")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tl := range []tool.Tool{ts.store, ts.recall, ts.forget} {
		if _, err := tl.Execute(ctx, json.RawMessage(`{"key":"k","content":"x"}`)); err == nil {
			t.Errorf("%s ran after cancellation", tl.Spec().Name)
		}
	}
}

func TestUnavailableStore(t *testing.T) {
	ts := newToolSet(NewStore("", StoreOptions{}), "")
	for _, tc := range []struct {
		tl   tool.Tool
		args string
	}{
		{ts.store, `{"content":"x"}`},
		{ts.recall, `{}`},
		{ts.forget, `{"key":"k"}`},
	} {
		res := call(t, tc.tl, tc.args)
		if res.Success || !strings.Contains(res.Error, "persistent memory is unavailable") || !strings.Contains(res.Error, "--data-dir") {
			t.Errorf("%s: %+v", tc.tl.Spec().Name, res)
		}
	}
}

func TestOneLine(t *testing.T) {
	tests := []struct {
		name string
		in   string
		n    int
		want string
		cut  bool
	}{
		{name: "short", in: "abc", n: 5, want: "abc"},
		{name: "exact", in: "abcde", n: 5, want: "abcde"},
		{name: "cut", in: "abcdef", n: 5, want: "abcde…", cut: true},
		{name: "whitespace collapsed", in: "  a \n\t b  ", n: 5, want: "a b"},
		{name: "cut after a space", in: "abcd efgh", n: 5, want: "abcd…", cut: true},
		{name: "runes not bytes", in: "日本語のテキスト", n: 3, want: "日本語…", cut: true},
		{name: "control characters", in: "a\x00b\x1bc", n: 10, want: "a\uFFFDb\uFFFDc"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, cut := oneLine(tt.in, tt.n)
			if got != tt.want || cut != tt.cut {
				t.Errorf("oneLine(%q, %d) = %q, %v; want %q, %v", tt.in, tt.n, got, cut, tt.want, tt.cut)
			}
		})
	}
}
