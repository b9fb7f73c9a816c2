package cli

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"

	"github.com/pelletier/go-toml/v2/unstable"
	"github.com/spf13/cobra"

	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/plugins/manifest"
)

func newPluginsUninstallCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "uninstall NAME",
		Short: "Remove an installed plugin: its files, its [[plugins.entries]] table and the consent to it",
		Long: `uninstall withdraws consent first, so the plugin stops loading even if a later step
fails, then removes its directory from plugins_dir and its [[plugins.entries]] table
from the config file (keeping every other line and comment). Whatever of the three
is missing is skipped; a name none of them knows is an error.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			if err := validPluginName(name); err != nil {
				return err
			}
			p, err := e.pluginEnv()
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			did := false
			if _, ok := p.trust.Consent(name); ok {
				if err := p.trust.Revoke(name); err != nil {
					return err
				}
				fmt.Fprintf(w, "revoked trust in %s\n", name)
				did = true
			}
			dir := filepath.Join(p.dir, name)
			if _, err := os.Lstat(filepath.Join(dir, manifest.FileName)); err == nil {
				if err := removePluginDir(p.dir, name); err != nil {
					return fmt.Errorf("uninstall %s: %w", name, err)
				}
				fmt.Fprintf(w, "removed %s\n", dir)
				did = true
			}
			if p.entry(name) != nil {
				path, src, err := e.configFile("edit")
				if err != nil {
					return err
				}
				out, err := removeEntry(path, src, name)
				if err != nil {
					return withCode(ExitUsage, fmt.Errorf("uninstall %s: %s: %w", name, path, err))
				}
				if err := writeConfig(path, out); err != nil {
					return err
				}
				fmt.Fprintf(w, "removed the [[plugins.entries]] table of %s from %s\n", name, path)
				did = true
			}
			if !did {
				return usageErrorf("no plugin %q is installed in %s, listed in [[plugins.entries]] or trusted: see `talon plugins list`", name, p.dir)
			}
			fmt.Fprintf(w, "uninstalled %s\n", name)
			return nil
		},
	}
}

// removePluginDir removes plugins_dir/name: first renamed to a dot
// directory, which no load considers, so that an interrupted removal never
// leaves half a plugin that loads. A link is removed, not what it points
// to.
func removePluginDir(pluginsDir, name string) error {
	dir := filepath.Join(pluginsDir, name)
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return os.Remove(dir)
	}
	trash, err := os.MkdirTemp(pluginsDir, ".uninstall-")
	if err != nil {
		return err
	}
	if err := os.Rename(dir, filepath.Join(trash, name)); err != nil {
		_ = os.Remove(trash)
		return err
	}
	return os.RemoveAll(trash)
}

// removeEntry deletes the [[plugins.entries]] tables named name from the
// TOML text src, with the tables that belong to them ([plugins.entries.config])
// and the blank line after them, keeping every other line. The edited text
// must load and equal the original without those entries; otherwise
// nothing is returned and the error says to edit the file by hand.
func removeEntry(file string, src []byte, name string) ([]byte, error) {
	before, _, err := config.Parse(file, src)
	if err != nil {
		return nil, fmt.Errorf("the config file does not load even before the edit; fix it first: %w", err)
	}
	var p unstable.Parser
	p.Reset(src)
	type span struct{ start, end int }
	var spans []span
	var cur *span
	curName := ""
	inEntry := false
	finish := func() {
		if cur != nil && inEntry && curName == name {
			spans = append(spans, *cur)
		}
		cur = nil
	}
	lineStart := func(off int) int { return bytes.LastIndexByte(src[:off], '\n') + 1 }
	lineEnd := func(off int) int {
		if i := bytes.IndexByte(src[off:], '\n'); i >= 0 {
			return off + i + 1
		}
		return len(src)
	}
	for p.NextExpression() {
		e := p.Expression()
		start, end := int(e.Raw.Offset), int(e.Raw.Offset+e.Raw.Length)
		if e.Kind == unstable.Table || e.Kind == unstable.ArrayTable {
			// A header has no range of its own; its keys do.
			it := e.Key()
			for first := true; it.Next(); first = false {
				r := it.Node().Raw
				if first {
					start = int(r.Offset)
				}
				end = int(r.Offset + r.Length)
			}
		}
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			path := keyPath(e)
			switch {
			case e.Kind == unstable.ArrayTable && equalPath(path, "plugins", "entries"):
				finish()
				inEntry, curName = true, ""
				cur = &span{start: lineStart(start), end: lineEnd(end)}
			case inEntry && len(path) > 2 && path[0] == "plugins" && path[1] == "entries":
				// [plugins.entries.config] and the like belong to the entry.
				cur.end = lineEnd(end)
			default:
				finish()
				inEntry = false
			}
		case unstable.KeyValue:
			if cur == nil {
				if path := keyPath(e); equalPath(path, "plugins", "entries") || equalPath(path, "entries") {
					return nil, fmt.Errorf("%w: it is an inline array; remove the entry of %q by hand", errEntryNotEditable, name)
				}
				continue
			}
			if path, v := keyPath(e), e.Value(); equalPath(path, "name") && v.Kind == unstable.String {
				curName = string(v.Data)
			}
			cur.end = lineEnd(end)
		}
	}
	finish()
	if err := p.Error(); err != nil {
		return nil, fmt.Errorf("read the config file: %w", err)
	}
	if len(spans) == 0 {
		return nil, fmt.Errorf("%w: no [[plugins.entries]] table names %q; remove its entry by hand", errEntryNotEditable, name)
	}
	out := src
	for i := len(spans) - 1; i >= 0; i-- {
		s := spans[i]
		// One blank line after the table goes with it.
		if s.end < len(out) && (out[s.end] == '\n' || bytes.HasPrefix(out[s.end:], []byte("\r\n"))) {
			s.end = lineEnd(s.end)
		}
		out = splice(out, s.start, s.end, "")
	}
	after, _, err := config.Parse(file, out)
	if err != nil {
		return nil, fmt.Errorf("%w: the edited file would not load (%v); remove the [[plugins.entries]] table of %q by hand", errEntryNotEditable, err, name)
	}
	want := *before
	want.Plugins.Entries = slices.DeleteFunc(slices.Clone(before.Plugins.Entries), func(e config.PluginEntry) bool { return e.Name == name })
	if len(want.Plugins.Entries) == 0 {
		want.Plugins.Entries = after.Plugins.Entries // nil and empty alike
	}
	if !reflect.DeepEqual(&want, after) {
		return nil, fmt.Errorf("%w: remove the [[plugins.entries]] table of %q by hand", errEntryNotEditable, name)
	}
	return out, nil
}
