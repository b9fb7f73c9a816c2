package toolfactory

import "sort"

// Entry is one built-in name the project knows, compiled in or not.
type Entry struct {
	Name string
	// Feature is the build feature that includes the tool ("core" for the
	// tools every build has).
	Feature string
	// Tag is the Go build tag that compiles the feature in ("" for core).
	Tag string
}

// FeatureCore is the feature every build contains.
const FeatureCore = "core"

// known is the catalogue of built-in names. A test checks that every
// registered factory is listed with the right feature.
var known = []Entry{
	{Name: "calculator", Feature: FeatureCore},
	{Name: "content_search", Feature: FeatureCore},
	{Name: "echo", Feature: "testtools", Tag: "talon_testtools"},
	{Name: "file_edit", Feature: FeatureCore},
	{Name: "file_read", Feature: FeatureCore},
	{Name: "file_write", Feature: FeatureCore},
	{Name: "glob_search", Feature: FeatureCore},
	{Name: "shell", Feature: FeatureCore},
	{Name: "memory_store", Feature: FeatureCore},
	{Name: "memory_recall", Feature: FeatureCore},
	{Name: "memory_forget", Feature: FeatureCore},
	{Name: "web_fetch", Feature: FeatureCore},
	{Name: "http_request", Feature: FeatureCore},
	{Name: "git_operations", Feature: FeatureCore},
	{Name: "apply_patch", Feature: FeatureCore},
	{Name: "sessions_list", Feature: FeatureCore},
	{Name: "sessions_history", Feature: FeatureCore},
	{Name: "tool_search", Feature: FeatureCore},
	{Name: "cron_add", Feature: FeatureCore},
	{Name: "cron_list", Feature: FeatureCore},
	{Name: "cron_remove", Feature: FeatureCore},
	{Name: "cron_run", Feature: FeatureCore},
	{Name: "cron_runs", Feature: FeatureCore},
	{Name: "process", Feature: FeatureCore},
	{Name: "web_search", Feature: "tools-external", Tag: "talon_tools_external"},
	{Name: "weather", Feature: "tools-external", Tag: "talon_tools_external"},
	{Name: "github", Feature: "tools-saas", Tag: "talon_tools_saas"},
	{Name: "claude_code", Feature: "tools-coding-cli", Tag: "talon_tools_coding_cli"},
	{Name: "codex_cli", Feature: "tools-coding-cli", Tag: "talon_tools_coding_cli"},
	{Name: "gemini_cli", Feature: "tools-coding-cli", Tag: "talon_tools_coding_cli"},
}

// Known returns the catalogue of built-in names, sorted.
func Known() []Entry {
	out := append([]Entry(nil), known...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Lookup finds a name in the catalogue.
func Lookup(name string) (Entry, bool) {
	for _, e := range known {
		if e.Name == name {
			return e, true
		}
	}
	return Entry{}, false
}

// Feature is a build feature compiled into this binary, with its tools.
type Feature struct {
	Name  string
	Tag   string
	Tools []string
}

// Features returns the features this binary contains, sorted by name, each
// with its compiled-in tools.
func Features() []Feature {
	byName := map[string]*Feature{}
	for _, e := range Known() {
		if _, ok := Get(e.Name); !ok {
			continue
		}
		f := byName[e.Feature]
		if f == nil {
			f = &Feature{Name: e.Feature, Tag: e.Tag}
			byName[e.Feature] = f
		}
		f.Tools = append(f.Tools, e.Name)
	}
	out := make([]Feature, 0, len(byName))
	for _, f := range byName {
		out = append(out, *f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
