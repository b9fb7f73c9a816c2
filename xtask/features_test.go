package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// fixtureFeatures has a chain of implies (c implies b implies a) and both
// kinds of tag.
const fixtureFeatures = `
[features.core]
always = true
[features.a]
tag = "tag_a"
[features.b]
tag = "tag_b"
implies = ["a"]
[features.c]
implies = ["b"]
[features.host]
off_tag = "no_host"
[features.serve]
off_tag = "no_serve"

[selections.bare]
features = []
[selections.std]
extends = "bare"
features = ["host", "serve"]
[selections.wide]
extends = "std"
features = ["c"]
`

func mustFeatures(t *testing.T, src string) *featureModel {
	t.Helper()
	m, err := parseFeatures([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestResolve(t *testing.T) {
	m := mustFeatures(t, fixtureFeatures)
	exclHost := &target{Name: "small", GOOS: "linux", GOARCH: "arm", GOARM: "6", Exclude: []string{"host"}}
	static := &target{Name: "st", GOOS: "linux", GOARCH: "amd64", Variant: "static", Static: true}
	tests := []struct {
		name         string
		sel          string
		add          []string
		target       *target
		wantFeatures string
		wantExcluded string
		wantTags     string
		wantErr      string
	}{
		{name: "bare has only the always feature and every off tag", sel: "bare", wantFeatures: "core", wantTags: "no_host,no_serve"},
		{name: "extends adds the opt-out features", sel: "std", wantFeatures: "core,host,serve", wantTags: ""},
		{name: "implies is transitive", sel: "wide", wantFeatures: "a,b,c,core,host,serve", wantTags: "tag_a,tag_b"},
		{name: "add implies too", sel: "bare", add: []string{"b"}, wantFeatures: "a,b,core", wantTags: "no_host,no_serve,tag_a,tag_b"},
		{name: "add twice is once", sel: "std", add: []string{"a", "a"}, wantFeatures: "a,core,host,serve", wantTags: "tag_a"},
		{name: "exclusion turns the off tag on", sel: "wide", target: exclHost, wantFeatures: "a,b,c,core,serve", wantExcluded: "host", wantTags: "no_host,tag_a,tag_b"},
		{name: "exclusion of an unselected feature changes nothing", sel: "bare", target: exclHost, wantFeatures: "core", wantTags: "no_host,no_serve"},
		{name: "static legs add netgo and osusergo", sel: "std", target: static, wantFeatures: "core,host,serve", wantTags: "netgo,osusergo"},
		{name: "adding what the target excludes", sel: "bare", add: []string{"host"}, target: exclHost, wantErr: "excludes host"},
		{name: "unknown selection", sel: "huge", wantErr: `unknown selection "huge": use one of bare, std, wide`},
		{name: "unknown feature", sel: "bare", add: []string{"d"}, wantErr: `unknown feature "d"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := m.resolve(tt.sel, tt.add, tt.target)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct{ what, got, want string }{
				{"features", strings.Join(r.Features, ","), tt.wantFeatures},
				{"excluded", strings.Join(r.Excluded, ","), tt.wantExcluded},
				{"tags", strings.Join(r.Tags, ","), tt.wantTags},
			} {
				if c.got != c.want {
					t.Errorf("%s = %q, want %q", c.what, c.got, c.want)
				}
			}
		})
	}
}

func TestParseFeaturesRejects(t *testing.T) {
	tests := []struct {
		name, src, wantErr string
	}{
		{"both kinds of tag", "[features.x]\ntag = \"t\"\noff_tag = \"u\"\n[selections.s]\n", "both tag and off_tag"},
		{"shared tag", "[features.x]\ntag = \"t\"\n[features.y]\noff_tag = \"t\"\n[selections.s]\n", "share the tag t"},
		{"implies nothing", "[features.x]\nimplies = [\"y\"]\n[selections.s]\n", `implies "y", which is not a feature`},
		{"bad tag", "[features.x]\ntag = \"a b\"\n[selections.s]\n", "is not a Go build tag"},
		{"bad name", "[features.X]\n[selections.s]\n", "lowercase"},
		{"always with a tag", "[features.x]\nalways = true\ntag = \"t\"\n[selections.s]\n", "always compiled in"},
		{"selection names nothing", "[features.x]\n[selections.s]\nfeatures = [\"y\"]\n", `names "y", which is not a feature`},
		{"extends nothing", "[features.x]\n[selections.s]\nextends = \"r\"\n", `extends "r", which is not a selection`},
		{"extends in a circle", "[features.x]\n[selections.s]\nextends = \"r\"\n[selections.r]\nextends = \"s\"\n", "extends itself"},
		{"unknown key", "[features.x]\ntags = \"t\"\n[selections.s]\n", "parse"},
		{"no features", "[selections.s]\n", "no [features"},
		{"no selections", "[features.x]\n", "no [selections"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseFeatures([]byte(tt.src))
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want %q", err, tt.wantErr)
			}
		})
	}
}

func TestParsePolicy(t *testing.T) {
	m := mustFeatures(t, fixtureFeatures)
	const leg = "[[target]]\nname = \"l\"\ngoos = \"linux\"\ngoarch = \"amd64\"\narchive = \"tar.gz\"\n"
	tests := []struct {
		name, src, wantErr string
	}{
		{name: "valid exclusion", src: "selection = \"std\"\n" + leg + "exclude = [\"host\"]\n"},
		{name: "stale: excluded feature absent from the selection", src: "selection = \"bare\"\n" + leg + "exclude = [\"host\"]\n",
			wantErr: "excludes host, which selection bare does not contain: the policy is stale"},
		{name: "stale: excluded feature no longer exists", src: "selection = \"std\"\n" + leg + "exclude = [\"wasm\"]\n",
			wantErr: `excludes "wasm", which is not a feature: the policy is stale`},
		{name: "excluding core", src: "selection = \"std\"\n" + leg + "exclude = [\"core\"]\n", wantErr: "every build contains"},
		{name: "no selection", src: leg, wantErr: "selection is missing"},
		{name: "unknown selection", src: "selection = \"x\"\n" + leg, wantErr: `selection "x" is not in the features file`},
		{name: "no legs", src: "selection = \"std\"\n", wantErr: "no [[target]]"},
		{name: "same name twice", src: "selection = \"std\"\n" + leg + leg, wantErr: "the name is used twice"},
		{name: "same target twice", src: "selection = \"std\"\n" + leg + strings.Replace(leg, `"l"`, `"m"`, 1), wantErr: "linux/amd64 is used twice"},
		{name: "bad archive", src: "selection = \"std\"\n" + strings.Replace(leg, "tar.gz", "rar", 1), wantErr: "must be tar.gz or zip"},
		{name: "goarm off arm", src: "selection = \"std\"\n" + leg + "goarm = \"7\"\n", wantErr: "goarm applies only"},
		{name: "static beyond linux", src: "selection = \"std\"\n" + strings.Replace(leg, `"linux"`, `"darwin"`, 1) + "static = true\n", wantErr: "linux only"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parsePolicy([]byte(tt.src), m)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want %q", err, tt.wantErr)
			}
		})
	}
}

// TestShippedPolicy checks build/features.toml and build/targets.toml as
// the release uses them.
func TestShippedPolicy(t *testing.T) {
	m, err := loadFeatures(filepath.Join("..", defaultFeaturesFile))
	if err != nil {
		t.Fatal(err)
	}
	p, err := loadPolicy(filepath.Join("..", defaultTargetsFile), m)
	if err != nil {
		t.Fatal(err)
	}

	selections := map[string]string{
		"minimal": "talon_no_mcp,talon_no_plugins_process,talon_no_plugins_wasm",
		"default": "",
		"dist":    "talon_tools_coding_cli,talon_tools_external,talon_tools_saas",
		"all":     "talon_testtools,talon_tools_coding_cli,talon_tools_external,talon_tools_saas",
	}
	for sel, want := range selections {
		r, err := m.resolve(sel, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(r.Tags, ","); got != want {
			t.Errorf("selection %s: tags %q, want %q", sel, got, want)
		}
	}

	all, err := legs(m, p)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 10 {
		t.Fatalf("%d legs, want the 10 of SPEC §13", len(all))
	}
	byName := map[string]leg{}
	for _, l := range all {
		byName[l.Name] = l
	}
	for _, name := range []string{"linux-amd64", "linux-arm64", "linux-armv7", "linux-armv6", "linux-amd64-static", "linux-arm64-static", "darwin-amd64", "darwin-arm64", "windows-amd64", "android-arm64"} {
		l, ok := byName[name]
		if !ok {
			t.Errorf("no leg %s", name)
			continue
		}
		if l.Experimental != (name == "android-arm64") {
			t.Errorf("%s: experimental = %v; only android-arm64 may fail", name, l.Experimental)
		}
		if want := map[bool]string{true: "zip", false: "tar.gz"}[l.GOOS == "windows"]; l.Archive != want {
			t.Errorf("%s: archive %s, want %s", name, l.Archive, want)
		}
		if l.Static != strings.HasSuffix(name, "-static") {
			t.Errorf("%s: static = %v", name, l.Static)
		}
		if !slices.Contains(l.Features, "tools-external") || !slices.Contains(l.Features, "mcp") {
			t.Errorf("%s: dist lacks tools-external or mcp: %v", name, l.Features)
		}
	}
	if got := byName["linux-armv7"].Tags; got != "talon_tools_coding_cli,talon_tools_external,talon_tools_saas" {
		t.Errorf("linux-armv7 tags %q: ARMv7 keeps the WASM host on the interpreter", got)
	}
	if got := byName["linux-armv6"].Tags; got != "talon_no_plugins_wasm,talon_tools_coding_cli,talon_tools_external,talon_tools_saas" {
		t.Errorf("linux-armv6 tags %q: ARMv6 leaves the WASM host out", got)
	}
	if got := byName["linux-arm64-static"].Tags; !strings.HasPrefix(got, "netgo,osusergo,") {
		t.Errorf("linux-arm64-static tags %q lack netgo,osusergo", got)
	}
	for spec, want := range map[string]string{"linux/arm/7": "linux-armv7", "linux/amd64": "linux-amd64", "linux/amd64/static": "linux-amd64-static", "windows-amd64": "windows-amd64"} {
		got, err := p.find(spec)
		if err != nil || got.Name != want {
			t.Errorf("find(%q) = %v, %v; want %s", spec, got, err, want)
		}
	}
	if _, err := p.find("plan9/386"); err == nil || !strings.Contains(err.Error(), "linux/arm/7") {
		t.Errorf("find(plan9/386) = %v, want an error listing the targets", err)
	}
}

// TestShippedPolicyStaleWhenSelectionShrinks removes plugins-wasm from the
// shipped release selection: the ARMv6 exclusion must then fail the load.
func TestShippedPolicyStaleWhenSelectionShrinks(t *testing.T) {
	m, err := loadFeatures(filepath.Join("..", defaultFeaturesFile))
	if err != nil {
		t.Fatal(err)
	}
	def := m.Selections["default"]
	def.Features = slices.DeleteFunc(slices.Clone(def.Features), func(f string) bool { return f == "plugins-wasm" })
	m.Selections["default"] = def
	_, err = loadPolicy(filepath.Join("..", defaultTargetsFile), m)
	if err == nil || !strings.Contains(err.Error(), "linux-armv6") || !strings.Contains(err.Error(), "stale") {
		t.Fatalf("err = %v, want a stale-policy error naming linux-armv6", err)
	}
}

func FuzzParseFeatures(f *testing.F) {
	f.Add(fixtureFeatures)
	f.Add("[features.x]\nimplies = [\"x\"]\n[selections.s]\nfeatures = [\"x\"]\n")
	f.Fuzz(func(t *testing.T, src string) {
		m, err := parseFeatures([]byte(src))
		if err != nil {
			return
		}
		for _, sel := range sortedKeys(m.Selections) {
			r, err := m.resolve(sel, nil, nil)
			if err != nil {
				t.Fatalf("a parsed model failed to resolve %s: %v", sel, err)
			}
			if !slices.IsSorted(r.Tags) {
				t.Fatalf("tags not sorted: %v", r.Tags)
			}
		}
	})
}
