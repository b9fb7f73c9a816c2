package cli

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2/unstable"

	"github.com/talonhq/talon/config"
)

// errEntryNotEditable says the config file declares plugins.entries in a form
// `talon plugins enable|disable` does not rewrite.
var errEntryNotEditable = errors.New("plugins.entries is written in a form talon cannot edit")

// entrySpan is where one [[plugins.entries]] table sits in the text.
type entrySpan struct {
	name string
	// nameEnd is the offset just after the name = "..." key/value.
	nameEnd int
	// enabled is the raw range of the enabled value; ok is false when the
	// table has no enabled key.
	enabledStart, enabledEnd int
	hasEnabled               bool
}

// setEntryEnabled sets enabled of the [[plugins.entries]] table named name in
// the TOML text src, keeping comments and layout. When the table has no
// enabled key one is added after its name; when there is no such table, one
// is appended at the end of the text. The edited text must load, and differ
// from the original only in that entry's enabled setting; otherwise nothing
// is returned and the error says to edit the file by hand.
func setEntryEnabled(file string, src []byte, name string, enabled bool) ([]byte, error) {
	before, _, err := config.Parse(file, src)
	if err != nil {
		return nil, fmt.Errorf("the config file does not load even before the edit; fix it first: %w", err)
	}
	spans, err := scanEntries(src)
	if err != nil {
		return nil, err
	}
	val := strconv.FormatBool(enabled)
	var out []byte
	found := false
	for _, s := range spans {
		if s.name != name {
			continue
		}
		found = true
		if s.hasEnabled {
			out = splice(src, s.enabledStart, s.enabledEnd, val)
		} else {
			eol := bytes.IndexByte(src[s.nameEnd:], '\n')
			nl := newlineOf(src)
			if eol < 0 {
				out = splice(src, len(src), len(src), nl+"enabled = "+val+nl)
			} else {
				at := s.nameEnd + eol + 1
				out = splice(src, at, at, "enabled = "+val+nl)
			}
		}
		break
	}
	if !found {
		nl := newlineOf(src)
		var block bytes.Buffer
		if len(src) > 0 && !bytes.HasSuffix(src, []byte("\n")) {
			block.WriteString(nl)
		}
		if len(src) > 0 {
			block.WriteString(nl)
		}
		fmt.Fprintf(&block, "[[plugins.entries]]%sname = %s%senabled = %s%s", nl, strconv.Quote(name), nl, val, nl)
		out = splice(src, len(src), len(src), block.String())
	}
	after, _, err := config.Parse(file, out)
	if err != nil {
		return nil, fmt.Errorf("%w: the edited file would not load (%v); add enabled = %s to the [[plugins.entries]] table of %q by hand",
			errEntryNotEditable, err, val, name)
	}
	// The only change allowed is this entry's enabled setting.
	want := *before
	want.Plugins.Entries = append([]config.PluginEntry(nil), before.Plugins.Entries...)
	i := entryIndex(want.Plugins.Entries, name)
	if i < 0 {
		want.Plugins.Entries = append(want.Plugins.Entries, config.PluginEntry{Name: name})
		i = len(want.Plugins.Entries) - 1
	}
	want.Plugins.Entries[i].EnabledSetting = &enabled
	if !reflect.DeepEqual(&want, after) {
		return nil, fmt.Errorf("%w: set enabled = %s in the [[plugins.entries]] table of %q by hand", errEntryNotEditable, val, name)
	}
	return out, nil
}

func entryIndex(entries []config.PluginEntry, name string) int {
	for i, e := range entries {
		if e.Name == name {
			return i
		}
	}
	return -1
}

// scanEntries finds every [[plugins.entries]] table and the name and enabled
// keys written directly in it.
func scanEntries(src []byte) ([]entrySpan, error) {
	var p unstable.Parser
	p.Reset(src)
	var spans []entrySpan
	in := false // inside a [[plugins.entries]] table
	var cur *entrySpan
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			path := keyPath(e)
			in = e.Kind == unstable.ArrayTable && equalPath(path, "plugins", "entries")
			if in {
				spans = append(spans, entrySpan{})
				cur = &spans[len(spans)-1]
			} else {
				cur = nil
			}
			// Any other header, [plugins.entries.config] included, ends the
			// keys written directly in the entry.
		case unstable.KeyValue:
			path := keyPath(e)
			if cur == nil {
				if equalPath(path, "plugins", "entries") || equalPath(path, "entries") {
					return nil, fmt.Errorf("%w: it is an inline array; write each entry as a [[plugins.entries]] table", errEntryNotEditable)
				}
				continue
			}
			v := e.Value()
			switch {
			case equalPath(path, "name") && v.Kind == unstable.String:
				cur.name = string(v.Data)
				cur.nameEnd = int(e.Raw.Offset + e.Raw.Length)
			case equalPath(path, "enabled") && v.Kind == unstable.Bool:
				cur.enabledStart = int(v.Raw.Offset)
				cur.enabledEnd = int(v.Raw.Offset + v.Raw.Length)
				cur.hasEnabled = true
			}
		}
	}
	if err := p.Error(); err != nil {
		return nil, fmt.Errorf("read the config file: %w", err)
	}
	return spans, nil
}

func keyPath(e *unstable.Node) []string {
	var out []string
	it := e.Key()
	for it.Next() {
		out = append(out, string(it.Node().Data))
	}
	return out
}

func equalPath(path []string, want ...string) bool {
	return reflect.DeepEqual(path, want)
}

func splice(src []byte, start, end int, text string) []byte {
	out := make([]byte, 0, len(src)-(end-start)+len(text))
	out = append(out, src[:start]...)
	out = append(out, text...)
	return append(out, src[end:]...)
}

func newlineOf(src []byte) string {
	if bytes.Contains(src, []byte("\r\n")) {
		return "\r\n"
	}
	return "\n"
}

// setTopLevelString sets a top-level string key of a TOML text (before any
// table header) to value, keeping everything else. A missing key is added
// after the last top-level key.
func setTopLevelString(src []byte, key, value string) ([]byte, error) {
	var p unstable.Parser
	p.Reset(src)
	lastEnd := -1
	for p.NextExpression() {
		e := p.Expression()
		if e.Kind == unstable.Table || e.Kind == unstable.ArrayTable {
			break
		}
		if e.Kind != unstable.KeyValue {
			continue
		}
		lastEnd = int(e.Raw.Offset + e.Raw.Length)
		if equalPath(keyPath(e), key) {
			v := e.Value()
			if v.Kind != unstable.String {
				return nil, fmt.Errorf("%s is not a string; write %s = \"...\"", key, key)
			}
			return splice(src, int(v.Raw.Offset), int(v.Raw.Offset+v.Raw.Length), strconv.Quote(value)), nil
		}
	}
	if err := p.Error(); err != nil {
		return nil, err
	}
	line := key + " = " + strconv.Quote(value) + newlineOf(src)
	if lastEnd < 0 {
		return splice(src, 0, 0, line), nil
	}
	eol := bytes.IndexByte(src[lastEnd:], '\n')
	if eol < 0 {
		return splice(src, len(src), len(src), newlineOf(src)+line), nil
	}
	return splice(src, lastEnd+eol+1, lastEnd+eol+1, line), nil
}

// entryConfig is where the config of one [[plugins.entries]] table sits in
// the text: written inline (config = { ... }), as dotted keys in the entry
// (config.k = v), or in a [plugins.entries.config] table after it.
type entryConfig struct {
	found bool
	// afterKeys is the offset just after the last key written directly
	// in the entry.
	afterKeys int
	// inline is the raw range of an inline config table.
	inlineStart, inlineEnd int
	hasInline              bool
	// keys are the raw value ranges of config keys written one per line.
	keys map[string][2]int
	// sub is set when a [plugins.entries.config] table follows the entry;
	// afterSub is the offset after its last key (or its header).
	sub      bool
	afterSub int
}

// scanEntryConfig finds the config of the [[plugins.entries]] table named
// name. The last table of that name wins, as it does when loading.
func scanEntryConfig(src []byte, name string) (entryConfig, error) {
	var p unstable.Parser
	p.Reset(src)
	var cur, found entryConfig
	inEntry, inSub := false, false
	curName := ""
	finish := func() {
		if inEntry && curName == name {
			found = cur
			found.found = true
		}
	}
	prevEnd := 0 // the end of the last expression whose bytes the parser reports
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			path := keyPath(e)
			// The parser reports no bytes for a table header: the header
			// is the next line that starts with "[".
			end := headerStart(src, prevEnd)
			switch {
			case e.Kind == unstable.ArrayTable && equalPath(path, "plugins", "entries"):
				finish()
				cur, inEntry, inSub, curName = entryConfig{keys: map[string][2]int{}, afterKeys: end}, true, false, ""
			case e.Kind == unstable.Table && inEntry && equalPath(path, "plugins", "entries", "config"):
				inSub, cur.sub, cur.afterSub = true, true, end
			default:
				finish()
				inEntry, inSub = false, false
			}
		case unstable.KeyValue:
			if !inEntry {
				if path := keyPath(e); equalPath(path, "plugins", "entries") || equalPath(path, "entries") {
					return entryConfig{}, fmt.Errorf("%w: it is an inline array; write each entry as a [[plugins.entries]] table", errEntryNotEditable)
				}
				continue
			}
			path, v := keyPath(e), e.Value()
			end := int(e.Raw.Offset + e.Raw.Length)
			prevEnd = end
			raw := [2]int{int(v.Raw.Offset), int(v.Raw.Offset + v.Raw.Length)}
			if inSub {
				cur.afterSub = end
				if len(path) == 1 {
					cur.keys[path[0]] = raw
				} else {
					cur.keys[""] = raw // a dotted key inside: not editable in place
				}
				continue
			}
			cur.afterKeys = end
			switch {
			case equalPath(path, "name") && v.Kind == unstable.String:
				curName = string(v.Data)
			case equalPath(path, "config") && v.Kind == unstable.InlineTable:
				// An inline table's own range is only its "{"; the
				// key/value's runs to its "}".
				cur.inlineStart, cur.inlineEnd, cur.hasInline = raw[0], end, true
			case len(path) == 2 && path[0] == "config":
				cur.keys[path[1]] = raw
			case len(path) > 2 && path[0] == "config":
				cur.keys[""] = raw
			}
		}
	}
	if err := p.Error(); err != nil {
		return entryConfig{}, fmt.Errorf("read the config file: %w", err)
	}
	finish()
	return found, nil
}

// headerStart is the offset of the first line at or after from that
// starts, after blanks, with "[": a table header.
func headerStart(src []byte, from int) int {
	for i := from; i < len(src); {
		eol := bytes.IndexByte(src[i:], '\n')
		line := src[i:]
		if eol >= 0 {
			line = src[i : i+eol]
		}
		if t := bytes.TrimLeft(line, " \t"); len(t) > 0 && t[0] == '[' {
			return i + len(line) - len(t)
		}
		if eol < 0 {
			break
		}
		i += eol + 1
	}
	return len(src)
}

// setEntryConfig sets config.KEY of the [[plugins.entries]] table named name
// to value (a TOML value, or a bare word taken as a string), keeping comments
// and layout. A plugin without a table gets one, with enabled = false so
// that configuring a plugin never turns it on. The edited text must load and
// differ from the original only in that setting; otherwise nothing is
// returned and the error says to edit the file by hand. created reports a
// new table.
func setEntryConfig(file string, src []byte, name, key, value string) (out []byte, created bool, err error) {
	if key == "" || strings.ContainsAny(key, ".\"' \t\r\n") {
		return nil, false, fmt.Errorf("%q is not a config key: give one key of the plugin's config, such as database", key)
	}
	val, text, err := config.ParseValue(value)
	if err != nil {
		return nil, false, err
	}
	before, _, err := config.Parse(file, src)
	if err != nil {
		return nil, false, fmt.Errorf("the config file does not load even before the edit; fix it first: %w", err)
	}
	at, err := scanEntryConfig(src, name)
	if err != nil {
		return nil, false, err
	}
	want := *before
	want.Plugins.Entries = append([]config.PluginEntry(nil), before.Plugins.Entries...)
	i := entryIndex(want.Plugins.Entries, name)
	nl := newlineOf(src)
	lineEnd := func(off int) int {
		if eol := bytes.IndexByte(src[off:], '\n'); eol >= 0 {
			return off + eol + 1
		}
		return -1
	}
	insertLine := func(after int, line string) []byte {
		if at := lineEnd(after); at >= 0 {
			return splice(src, at, at, line+nl)
		}
		return splice(src, len(src), len(src), nl+line+nl)
	}
	keyText := key
	if !isBareKey(key) {
		keyText = strconv.Quote(key)
	}
	_, dotted := at.keys[""]
	r, written := at.keys[key]
	if at.found && i < 0 {
		return nil, false, fmt.Errorf("%w: set config.%s in the [[plugins.entries]] table of %q by hand", errEntryNotEditable, key, name)
	}
	switch {
	case !at.found:
		var block bytes.Buffer
		if len(src) > 0 && !bytes.HasSuffix(src, []byte("\n")) {
			block.WriteString(nl)
		}
		if len(src) > 0 {
			block.WriteString(nl)
		}
		fmt.Fprintf(&block, "[[plugins.entries]]%sname = %s%senabled = false%sconfig.%s = %s%s", nl, strconv.Quote(name), nl, nl, keyText, text, nl)
		out, created = splice(src, len(src), len(src), block.String()), true
		off := false
		want.Plugins.Entries = append(want.Plugins.Entries, config.PluginEntry{Name: name, EnabledSetting: &off})
		i = len(want.Plugins.Entries) - 1
	case written:
		out = splice(src, r[0], r[1], text)
	case dotted:
		return nil, false, fmt.Errorf("%w: the config of %q uses nested keys; set %s in it by hand", errEntryNotEditable, name, key)
	case at.hasInline:
		m := map[string]any{}
		for k, v := range want.Plugins.Entries[i].Config {
			m[k] = v
		}
		m[key] = val
		out = splice(src, at.inlineStart, at.inlineEnd, config.FormatValue(m))
	case at.sub:
		out = insertLine(at.afterSub, keyText+" = "+text)
	default:
		out = insertLine(at.afterKeys, "config."+keyText+" = "+text)
	}
	after, _, err := config.Parse(file, out)
	if err != nil {
		return nil, false, fmt.Errorf("%w: the edited file would not load (%v); set config.%s in the [[plugins.entries]] table of %q by hand", errEntryNotEditable, err, key, name)
	}
	entry := want.Plugins.Entries[i]
	cfg := map[string]any{}
	for k, v := range entry.Config {
		cfg[k] = v
	}
	cfg[key] = val
	entry.Config = cfg
	want.Plugins.Entries[i] = entry
	if !reflect.DeepEqual(&want, after) {
		return nil, false, fmt.Errorf("%w: set config.%s in the [[plugins.entries]] table of %q by hand", errEntryNotEditable, key, name)
	}
	return out, created, nil
}

// isBareKey reports whether k can be written unquoted in TOML.
func isBareKey(k string) bool {
	for _, r := range k {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return false
		}
	}
	return k != ""
}
