package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/plugins/manifest"
)

func newPluginsInstallCmd(e *env) *cobra.Command {
	var force bool
	cmd := &cobra.Command{
		Use:   "install DIR|FILE.tar.gz",
		Short: "Check a plugin (shape, hash, signature, ABI) and copy it into plugins_dir",
		Long: `install checks a plugin before it lands in plugins_dir: the manifest, the entry's
sha256, the signature under [plugins.security] signature_mode, and the ABI, by
loading the module through its host from a staging directory (loading asks the
module to describe its tools; none runs). Only plugin.toml, the entry and locales/
are copied. An archive is refused when a member is absolute, climbs out with "..",
is a link or a device, is over 64 MiB, or the whole is over 128 MiB or 256 members.

install never trusts: review the plugin with ` + "`talon plugins inspect NAME`" + ` and run
` + "`talon plugins trust NAME`" + `. Replacing an installed plugin needs --force, and the
new plugin.toml needs trust again.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return pluginsInstall(cmd, e, args[0], force) },
	}
	cmd.Flags().BoolVar(&force, "force", false, "replace an installed plugin of the same name")
	return cmd
}

func pluginsInstall(cmd *cobra.Command, e *env, arg string, force bool) error {
	p, err := e.pluginEnv()
	if err != nil {
		return err
	}
	src, err := e.absPath(arg)
	if err != nil {
		return err
	}
	info, err := os.Stat(src)
	if err != nil {
		return usageErrorf("install %s: %v", src, err)
	}
	if err := os.MkdirAll(p.dir, 0o755); err != nil {
		return fmt.Errorf("create plugins_dir: %w", err)
	}
	work, err := os.MkdirTemp(p.dir, ".install-")
	if err != nil {
		return fmt.Errorf("create a staging directory in plugins_dir: %w", err)
	}
	defer os.RemoveAll(work)

	root := src
	if !info.IsDir() {
		if !strings.HasSuffix(src, ".tar.gz") && !strings.HasSuffix(src, ".tgz") {
			return usageErrorf("install %s: give a plugin directory or a .tar.gz archive", src)
		}
		unpacked := filepath.Join(work, "archive")
		if err := os.Mkdir(unpacked, 0o700); err != nil {
			return err
		}
		f, err := os.Open(src)
		if err != nil {
			return usageErrorf("install %s: %v", src, err)
		}
		err = extractTarGz(f, unpacked, defaultArchiveLimits)
		_ = f.Close()
		if err != nil {
			return withCode(ExitVerify, fmt.Errorf("install %s: %w", src, err))
		}
		if root, err = archiveRoot(unpacked); err != nil {
			return withCode(ExitVerify, fmt.Errorf("install %s: %w", src, err))
		}
	}
	stage := filepath.Join(work, "plugin")
	m, err := stagePlugin(root, stage)
	if err != nil {
		return err
	}
	// Installing checks the plugin, not the operator's settings for it,
	// whose config may well be written only afterwards: it is checked as
	// if it had no [[plugins.entries]] table. Loading checks the entry.
	p.cfg = withoutEntry(p.cfg, m.Name)
	st := p.status(stage)
	if len(st.Problems) > 0 {
		return withCode(ExitVerify, fmt.Errorf("install %s: %s", m.Name, strings.Join(st.Problems, "; ")))
	}
	if !st.HostOK {
		return withCode(ExitUsage, fmt.Errorf("install %s: this talon was built without %s plugins; use a build with the plugins-%s feature", m.Name, m.Kind, m.Kind))
	}
	// The ABI check: the host loads the staged copy and the module
	// describes its tools.
	p.describe(cmd.Context(), e, st)
	if len(st.Problems) > 0 {
		return withCode(ExitVerify, fmt.Errorf("install %s: the host cannot load it: %s", m.Name, strings.Join(st.Problems, "; ")))
	}

	target := filepath.Join(p.dir, m.Name)
	if _, err := os.Lstat(target); err == nil {
		if !force {
			return usageErrorf("plugin %s is already installed in %s: pass --force to replace it (it then needs `talon plugins trust %s` again)", m.Name, target, m.Name)
		}
		if err := os.Rename(target, filepath.Join(work, "old")); err != nil {
			return fmt.Errorf("move the installed %s aside: %w", m.Name, err)
		}
	}
	if err := os.Rename(stage, target); err != nil {
		return fmt.Errorf("install %s into %s: %w", m.Name, target, err)
	}

	out := cmd.OutOrStdout()
	fmt.Fprintf(out, "installed %s %s (%s, %d tools) into %s\n", m.Name, orDash(m.Version), m.Kind, len(st.Tools), target)
	for _, w := range st.Warnings {
		fmt.Fprintf(out, "warning: %s\n", w)
	}
	if rec, ok := p.trust.Consent(m.Name); ok && rec.ManifestHash == st.ManifestHash {
		fmt.Fprintf(out, "%s is still trusted: its plugin.toml is the one you trusted\n", m.Name)
		return nil
	}
	fmt.Fprintf(out, "next: review it with `talon plugins inspect %s`, then run `talon plugins trust %s`\n", m.Name, m.Name)
	if !st.Enabled {
		fmt.Fprintf(out, "      and `talon plugins enable %s` to add it to [[plugins.entries]]\n", m.Name)
	}
	if !p.cfg.Plugins.Enabled {
		fmt.Fprintln(out, "      plugins are off: turn them on with `talon config set plugins.enabled true`")
	}
	return nil
}

// stagePlugin copies what a plugin needs from src into stage: plugin.toml,
// the entry (after checking its sha256) and locales/. Links inside locales/
// and files over the archive caps are refused.
func stagePlugin(src, stage string) (*manifest.Manifest, error) {
	m, raw, err := manifest.Read(src)
	if err != nil {
		return nil, withCode(ExitUsage, fmt.Errorf("install: %w", err))
	}
	entry, err := manifest.CheckEntry(src, m)
	if err != nil {
		return nil, withCode(ExitVerify, fmt.Errorf("install %s: %w", m.Name, err))
	}
	if err := copyPlugin(src, stage, m, raw, entry); err != nil {
		return nil, err
	}
	return m, nil
}

// copyPlugin copies plugin.toml (as raw), the entry and locales/ from src
// into stage.
func copyPlugin(src, stage string, m *manifest.Manifest, raw []byte, entry string) error {
	if err := os.MkdirAll(stage, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(stage, manifest.FileName), raw, 0o644); err != nil {
		return err
	}
	budget := &copyBudget{left: defaultArchiveLimits.totalBytes, files: defaultArchiveLimits.files}
	dst := filepath.Join(stage, filepath.FromSlash(m.Entry))
	if err := copyFile(entry, dst, budget); err != nil {
		return withCode(ExitVerify, fmt.Errorf("install %s: %w", m.Name, err))
	}
	locales := filepath.Join(src, "locales")
	if fi, err := os.Lstat(locales); err == nil {
		if !fi.IsDir() {
			return withCode(ExitVerify, fmt.Errorf("install %s: locales is not a directory", m.Name))
		}
		err := filepath.WalkDir(locales, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(src, path)
			switch {
			case d.IsDir():
				return os.MkdirAll(filepath.Join(stage, rel), 0o755)
			case d.Type().IsRegular():
				return copyFile(path, filepath.Join(stage, rel), budget)
			}
			return fmt.Errorf("%w: %s is not a regular file", errBadArchive, rel)
		})
		if err != nil {
			return withCode(ExitVerify, fmt.Errorf("install %s: %w", m.Name, err))
		}
	}
	return nil
}

type copyBudget struct {
	left  int64
	files int
}

func copyFile(src, dst string, b *copyBudget) error {
	b.files--
	if b.files < 0 {
		return fmt.Errorf("%w: more than %d files", errBadArchive, defaultArchiveLimits.files)
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return err
	}
	if fi.Size() > defaultArchiveLimits.fileBytes || fi.Size() > b.left {
		return fmt.Errorf("%w: %s is %d bytes, over the size limit", errBadArchive, filepath.Base(src), fi.Size())
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fi.Mode().Perm()&0o755|0o644)
	if err != nil {
		return err
	}
	n, err := io.Copy(out, io.LimitReader(in, b.left+1))
	b.left -= n
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil && b.left < 0 {
		err = errors.New("the plugin grew while it was copied")
	}
	return err
}

// withoutEntry is cfg without the [[plugins.entries]] table of name.
func withoutEntry(cfg *config.Config, name string) *config.Config {
	c := *cfg
	c.Plugins.Entries = slices.DeleteFunc(slices.Clone(cfg.Plugins.Entries), func(e config.PluginEntry) bool { return e.Name == name })
	return &c
}
