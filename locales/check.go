package locales

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"
)

// FindingKind classifies a [Finding].
type FindingKind int

// The kinds of drift Check reports.
const (
	FindingParse     FindingKind = iota + 1 // a file cannot be read or parsed
	FindingLayout                           // a directory is not a language, or en is absent
	FindingMissing                          // a key of en is absent from the locale
	FindingObsolete                         // a key of the locale is absent from en
	FindingVars                             // a key uses other variables than in en
	FindingDuplicate                        // a key is defined twice within one locale
)

func (k FindingKind) String() string {
	switch k {
	case FindingParse:
		return "parse"
	case FindingLayout:
		return "layout"
	case FindingMissing:
		return "missing"
	case FindingObsolete:
		return "obsolete"
	case FindingVars:
		return "vars"
	case FindingDuplicate:
		return "duplicate"
	default:
		return fmt.Sprintf("FindingKind(%d)", int(k))
	}
}

// Finding is one problem found by [Check].
type Finding struct {
	File    string // slash path such as "ja/tools.ftl", or a directory
	Line    int    // 1-based; 0 when the problem has no line in File (a missing key)
	Kind    FindingKind
	Key     string // the message key concerned, if any
	Message string // what is wrong, without the location
}

// String formats f as "file:line: message", or "file: message" without a line.
func (f Finding) String() string {
	if f.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", f.File, f.Line, f.Message)
	}
	return f.File + ": " + f.Message
}

// keyInfo locates a key and records its variables.
type keyInfo struct {
	file         string
	line         int
	vars         []string
	untranslated bool
}

// Check compares every locale directory of fsys (laid out <lang>/*.ftl, as
// locales/ is) against en: parse errors, keys missing from a locale, obsolete
// keys absent from en, keys whose variables differ from en's, and keys
// defined twice. Findings are sorted by file and line; a missing key has line
// 0 and names where en defines it. A locale whose files do not all parse is
// not compared.
func Check(fsys fs.FS) []Finding {
	dirs, err := LocaleDirs(fsys)
	if err != nil {
		return []Finding{{File: ".", Kind: FindingLayout, Message: err.Error()}}
	}
	if !slices.Contains(dirs, "en") {
		return []Finding{{File: "en", Kind: FindingLayout, Message: "English messages are missing; every locale is checked against en/*.ftl"}}
	}
	en, findings, ok := readKeys(fsys, "en")
	if !ok {
		return sortFindings(findings)
	}
	enKeys := sortedByLocation(en)
	for _, dir := range dirs {
		if dir == "en" {
			continue
		}
		if _, ok := Normalize(dir); !ok {
			findings = append(findings, Finding{File: dir, Kind: FindingLayout,
				Message: "not a language directory; name it after a language tag such as ja or zh-CN"})
			continue
		}
		keys, more, ok := readKeys(fsys, dir)
		findings = append(findings, more...)
		if !ok {
			continue
		}
		for _, k := range enKeys {
			ref := en[k]
			if _, ok := keys[k]; !ok {
				findings = append(findings, Finding{
					File: path.Join(dir, path.Base(ref.file)), Kind: FindingMissing, Key: k,
					Message: fmt.Sprintf("missing key %s (%s:%d)", k, ref.file, ref.line),
				})
			}
		}
		for _, k := range sortedByLocation(keys) {
			got := keys[k]
			ref, ok := en[k]
			switch {
			case !ok:
				findings = append(findings, Finding{
					File: got.file, Line: got.line, Kind: FindingObsolete, Key: k,
					Message: fmt.Sprintf("obsolete key %s (not in en); delete it or add it to en", k),
				})
			case !slices.Equal(got.vars, ref.vars):
				findings = append(findings, Finding{
					File: got.file, Line: got.line, Kind: FindingVars, Key: k,
					Message: fmt.Sprintf("variables of %s differ from en: uses %s, en uses %s (%s:%d)",
						k, varList(got.vars), varList(ref.vars), ref.file, ref.line),
				})
			}
		}
	}
	return sortFindings(findings)
}

// LocaleStats counts how complete one locale is.
type LocaleStats struct {
	Lang         string
	Keys         int // keys defined in en: what a complete locale has
	Translated   int // keys of en present in the locale and not marked untranslated
	Untranslated int // keys of en present but marked "# untranslated"
	Missing      int // keys of en absent from the locale
}

// Stats counts, for every locale directory of fsys, how many of en's keys
// are translated, marked untranslated or missing. Keys absent from en are
// not counted.
//
// # Errors
//
// The first file that cannot be read or parsed.
func Stats(fsys fs.FS) ([]LocaleStats, error) {
	dirs, err := LocaleDirs(fsys)
	if err != nil {
		return nil, err
	}
	all := map[string]map[string]keyInfo{}
	for _, dir := range dirs {
		keys, findings, ok := readKeys(fsys, dir)
		if !ok {
			for _, f := range findings {
				if f.Kind == FindingParse {
					return nil, errors.New(f.String())
				}
			}
		}
		all[dir] = keys
	}
	en, ok := all["en"]
	if !ok {
		return nil, errors.New("en: English messages are missing; every locale is counted against en/*.ftl")
	}
	var out []LocaleStats
	for _, dir := range dirs {
		s := LocaleStats{Lang: dir, Keys: len(en)}
		for k := range en {
			switch got, ok := all[dir][k]; {
			case !ok:
				s.Missing++
			case got.untranslated:
				s.Untranslated++
			default:
				s.Translated++
			}
		}
		out = append(out, s)
	}
	return out, nil
}

// readKeys reads the keys of one locale directory. ok is false when a file
// could not be read or parsed; the findings say which.
func readKeys(fsys fs.FS, dir string) (keys map[string]keyInfo, findings []Finding, ok bool) {
	ok = true
	keys = map[string]keyInfo{}
	names, err := fs.Glob(fsys, path.Join(dir, "*.ftl"))
	if err != nil {
		return nil, []Finding{{File: dir, Kind: FindingParse, Message: err.Error()}}, false
	}
	sort.Strings(names)
	for _, name := range names {
		res, err := readFTL(fsys, name)
		if err != nil {
			ok = false
			if pe, isParse := errors.AsType[*ParseError](err); isParse {
				findings = append(findings, Finding{File: name, Line: pe.Line, Kind: FindingParse, Message: pe.Msg})
			} else {
				findings = append(findings, Finding{File: name, Kind: FindingParse, Message: err.Error()})
			}
			continue
		}
		if res == nil {
			continue
		}
		for _, e := range res.Entries() {
			if first, dup := keys[e.Key]; dup {
				findings = append(findings, Finding{
					File: name, Line: e.Line, Kind: FindingDuplicate, Key: e.Key,
					Message: fmt.Sprintf("duplicate key %s (first defined at %s:%d); remove one of them", e.Key, first.file, first.line),
				})
				continue
			}
			keys[e.Key] = keyInfo{file: name, line: e.Line, vars: e.Vars, untranslated: e.Untranslated}
		}
	}
	return keys, findings, ok
}

func sortedByLocation(keys map[string]keyInfo) []string {
	out := make([]string, 0, len(keys))
	for k := range keys {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := keys[out[i]], keys[out[j]]
		if a.file != b.file {
			return a.file < b.file
		}
		if a.line != b.line {
			return a.line < b.line
		}
		return out[i] < out[j]
	})
	return out
}

func sortFindings(list []Finding) []Finding {
	sort.SliceStable(list, func(i, j int) bool {
		if list[i].File != list[j].File {
			return list[i].File < list[j].File
		}
		return list[i].Line < list[j].Line
	})
	return list
}

func varList(vars []string) string {
	if len(vars) == 0 {
		return "no variables"
	}
	parts := make([]string, len(vars))
	for i, v := range vars {
		parts[i] = "{ $" + v + " }"
	}
	return strings.Join(parts, ", ")
}
