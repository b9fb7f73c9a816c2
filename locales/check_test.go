package locales

import (
	"reflect"
	"strings"
	"testing"
)

func TestEmbeddedMessagesHaveNoDrift(t *testing.T) {
	for _, f := range Check(embedded) {
		t.Errorf("locales/%s", f)
	}
}

func TestCheck(t *testing.T) {
	en := "tool-a = A { $x }\ntool-b = B\n    .title = T\ntool-c = C\n"
	tests := []struct {
		name  string
		files map[string]string
		want  []string
		kinds []FindingKind
	}{
		{
			name:  "in sync",
			files: map[string]string{"en/tools.ftl": en, "ja/tools.ftl": "tool-a = あ { $x }\ntool-b = い\n    .title = て\n# untranslated\ntool-c = C\n"},
		},
		{
			name:  "missing, obsolete and variable mismatch",
			files: map[string]string{"en/tools.ftl": en, "ja/tools.ftl": "tool-a = あ { $y }\ntool-b = い\ntool-old = 古い\n"},
			want: []string{
				"ja/tools.ftl: missing key tool-b.title (en/tools.ftl:3)",
				"ja/tools.ftl: missing key tool-c (en/tools.ftl:4)",
				"ja/tools.ftl:1: variables of tool-a differ from en: uses { $y }, en uses { $x } (en/tools.ftl:1)",
				"ja/tools.ftl:3: obsolete key tool-old (not in en); delete it or add it to en",
			},
			kinds: []FindingKind{FindingMissing, FindingMissing, FindingVars, FindingObsolete},
		},
		{
			name:  "variables dropped",
			files: map[string]string{"en/tools.ftl": en, "ja/tools.ftl": "tool-a = あ\ntool-b = い\n    .title = て\ntool-c = う\n"},
			want:  []string{"ja/tools.ftl:1: variables of tool-a differ from en: uses no variables, en uses { $x } (en/tools.ftl:1)"},
			kinds: []FindingKind{FindingVars},
		},
		{
			name:  "keys may move to another file",
			files: map[string]string{"en/tools.ftl": en, "ja/a.ftl": "tool-a = あ { $x }\n", "ja/b.ftl": "tool-b = い\n    .title = て\ntool-c = う\n"},
		},
		{
			name:  "parse error stops comparison of that locale",
			files: map[string]string{"en/tools.ftl": en, "fr/tools.ftl": "tool-a = {\n"},
			want:  []string{`fr/tools.ftl:1: unclosed "{"; close it with "}" on the same line, or write {"{"} for a literal brace`},
			kinds: []FindingKind{FindingParse},
		},
		{
			name:  "parse error in en stops everything",
			files: map[string]string{"en/tools.ftl": "tool-a = x\nbroken\n", "ja/tools.ftl": "tool-z = z\n"},
			want:  []string{`en/tools.ftl:2: expected "=" after message id "broken"; message ids use only letters, digits, "_" and "-"`},
			kinds: []FindingKind{FindingParse},
		},
		{
			name:  "duplicate across files",
			files: map[string]string{"en/tools.ftl": en, "de/a.ftl": "tool-a = A { $x }\ntool-b = B\n    .title = T\n", "de/b.ftl": "tool-c = C\n\ntool-a = again { $x }\n"},
			want:  []string{"de/b.ftl:3: duplicate key tool-a (first defined at de/a.ftl:1); remove one of them"},
			kinds: []FindingKind{FindingDuplicate},
		},
		{
			name:  "directory that is not a language",
			files: map[string]string{"en/tools.ftl": en, "not a tag!/tools.ftl": en, "testdata/x/y.ftl": "ignored"},
			want:  []string{"not a tag!: not a language directory; name it after a language tag such as ja or zh-CN"},
			kinds: []FindingKind{FindingLayout},
		},
		{
			name:  "no english",
			files: map[string]string{"ja/tools.ftl": "tool-a = あ\n"},
			want:  []string{"en: English messages are missing; every locale is checked against en/*.ftl"},
			kinds: []FindingKind{FindingLayout},
		},
		{
			name:  "empty locale directory misses everything",
			files: map[string]string{"en/tools.ftl": "tool-a = A\n", "ko/README": "x"},
			want:  []string{"ko/tools.ftl: missing key tool-a (en/tools.ftl:1)"},
			kinds: []FindingKind{FindingMissing},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			findings := Check(mapFS(tt.files))
			var got []string
			var kinds []FindingKind
			for _, f := range findings {
				got = append(got, f.String())
				kinds = append(kinds, f.Kind)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("findings\n got %q\nwant %q", got, tt.want)
			}
			if !reflect.DeepEqual(kinds, tt.kinds) {
				t.Errorf("kinds = %v, want %v", kinds, tt.kinds)
			}
		})
	}
}

func TestFindingKindString(t *testing.T) {
	tests := []struct {
		name string
		kind FindingKind
		want string
	}{
		{name: "parse", kind: FindingParse, want: "parse"},
		{name: "layout", kind: FindingLayout, want: "layout"},
		{name: "missing", kind: FindingMissing, want: "missing"},
		{name: "obsolete", kind: FindingObsolete, want: "obsolete"},
		{name: "vars", kind: FindingVars, want: "vars"},
		{name: "duplicate", kind: FindingDuplicate, want: "duplicate"},
		{name: "unknown", kind: 99, want: "FindingKind(99)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.kind.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestStats(t *testing.T) {
	fsys := mapFS(map[string]string{
		"en/tools.ftl": "tool-a = A\ntool-b = B\n    .title = T\ntool-c = C\n",
		"ja/tools.ftl": "tool-a = あ\n# untranslated\ntool-b = B\n    .title = T\ntool-old = x\n",
		"ko/x.ftl":     "tool-a = 가\n",
	})
	got, err := Stats(fsys)
	if err != nil {
		t.Fatal(err)
	}
	want := []LocaleStats{
		{Lang: "en", Keys: 4, Translated: 4},
		{Lang: "ja", Keys: 4, Translated: 1, Untranslated: 2, Missing: 1},
		{Lang: "ko", Keys: 4, Translated: 1, Missing: 3},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Stats\n got %+v\nwant %+v", got, want)
	}

	if _, err := Stats(mapFS(map[string]string{"en/a.ftl": "a = {\n"})); err == nil || !strings.Contains(err.Error(), "en/a.ftl:1:") {
		t.Errorf("Stats of a broken file: err = %v", err)
	}
	if _, err := Stats(mapFS(map[string]string{"ja/a.ftl": "a = x\n"})); err == nil || !strings.Contains(err.Error(), "English") {
		t.Errorf("Stats without en: err = %v", err)
	}
}
