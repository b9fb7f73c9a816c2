package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/talonhq/talon/catalog"
	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/risk"
)

func newConfigCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Create, inspect, edit, validate and migrate talon.toml",
	}
	cmd.AddCommand(newConfigInitCmd(e), newConfigPathCmd(e), newConfigGetCmd(e), newConfigSetCmd(e),
		newConfigValidateCmd(e), newConfigMigrateCmd(e))
	return cmd
}

func newConfigInitCmd(e *env) *cobra.Command {
	var force, here bool
	cmd := &cobra.Command{
		Use:   "init [PATH]",
		Short: "Write a commented starter config (default: $XDG_CONFIG_HOME/talon/config.toml; --here: ./talon.toml)",
		Long: `init writes a commented starter config. By default it goes to the user config
directory ($XDG_CONFIG_HOME/talon/config.toml, ~/.config/talon/config.toml when
unset), outside any workspace. --here writes ./talon.toml instead, which talon
then finds upward from this directory; inside a workspace that file is protected:
no tool may read or change it.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cwd, err := e.io.cwd()
			if err != nil {
				return err
			}
			path := e.g.configPath
			switch {
			case len(args) == 1 && here:
				return usageErrorf("give a PATH or --here, not both")
			case len(args) == 1:
				path = args[0]
			case here:
				path = config.FileName
			case path == "":
				if path = filepath.Join(talonConfigHome(e.io.getenv), "config.toml"); path == "config.toml" {
					return usageErrorf("no home directory to put the config in: set HOME or XDG_CONFIG_HOME, or use --here")
				}
			}
			if !filepath.IsAbs(path) {
				path = filepath.Join(cwd, path)
			}
			if _, err := os.Stat(path); err == nil && !force {
				return usageErrorf("%s already exists: edit it with `talon config set`, or pass --force to replace it", path)
			}
			if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
				return err
			}
			if err := config.WriteFileAtomic(path, config.InitTemplate(), 0o600); err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "wrote %s\n", path)
			if here {
				fmt.Fprintf(out, "note: talon finds %s from this directory and below; when it is inside the workspace it is protected, so no tool can read or change it\n", config.FileName)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&force, "force", false, "replace an existing file")
	cmd.Flags().BoolVar(&here, "here", false, "write ./talon.toml in the working directory instead of the user config directory")
	return cmd
}

func newConfigPathCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "path",
		Short: "Print which config file, workspace and data directory talon uses, and why",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := e.config()
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if e.src.Path == "" {
				fmt.Fprintln(out, "config:    (embedded defaults: no config file found; create one with `talon config init`)")
			} else {
				fmt.Fprintf(out, "config:    %s (%s)\n", e.src.Path, e.src.Origin)
			}
			ws, err := e.workspaceDir(cfg)
			if err != nil {
				return err
			}
			why := "the working directory"
			switch {
			case e.g.workspace != "":
				why = "--workspace"
			case cfg.Workspace != "":
				why = "workspace in the config"
			}
			fmt.Fprintf(out, "workspace: %s (%s)\n", ws, why)
			if err := e.checkWorkspace(cfg, ws); err != nil {
				fmt.Fprintf(out, "           tools refuse to run here: %v\n", errors.Unwrap(err))
			}
			fmt.Fprintf(out, "data:      %s\n", e.dataDir(cfg))
			return nil
		},
	}
}

func newConfigGetCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "get KEY",
		Short: "Print a setting's effective value, e.g. tools.optional",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := e.config()
			if err != nil {
				return err
			}
			v, err := config.Get(cfg, args[0])
			if err != nil {
				return withCode(ExitUsage, err)
			}
			fmt.Fprintln(cmd.OutOrStdout(), config.FormatValue(v))
			return nil
		},
	}
}

func newConfigSetCmd(e *env) *cobra.Command {
	var noInteractive bool
	cmd := &cobra.Command{
		Use:   "set KEY VALUE",
		Short: "Change one setting in place, keeping comments (VALUE is a TOML value: '[]', '\"ja\"', true)",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			path, old, err := e.configFile("edit")
			if err != nil {
				return err
			}
			updated, err := config.SetInText(old, args[0], args[1])
			if err != nil {
				return withCode(ExitUsage, err)
			}
			// The file must load for every command afterwards, not only
			// decode: check what they check before writing.
			next, _, err := config.Parse(path, updated)
			if err == nil {
				_, err = checkConfig(next)
			}
			if err != nil {
				return withCode(ExitUsage, fmt.Errorf("set %s = %s: not written, the config would not load: %w", args[0], args[1], err))
			}
			if !noInteractive && e.io.InTTY {
				fmt.Fprintf(e.io.ErrOut, "set %s = %s in %s? [y/N] ", args[0], args[1], path)
				line, _ := bufio.NewReader(e.io.In).ReadString('\n')
				if a := strings.ToLower(strings.TrimSpace(line)); a != "y" && a != "yes" {
					return withCode(ExitError, errors.New("not changed"))
				}
			}
			if err := writeConfig(path, updated); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "set %s in %s\n", args[0], path)
			return nil
		},
	}
	cmd.Flags().BoolVar(&noInteractive, "no-interactive", false, "do not ask for confirmation")
	return cmd
}

func newConfigValidateCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "validate",
		Short: "Check the config and print every warning",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := e.config()
			if err != nil {
				return err
			}
			diags, err := checkConfig(cfg)
			if err != nil {
				return withCode(ExitUsage, err)
			}
			warn := append(slices.Clone(e.warnings), diags...)
			for _, w := range warn {
				fmt.Fprintf(e.io.ErrOut, "warning: %s\n", w)
			}
			where := e.src.Path
			if where == "" {
				where = "embedded defaults"
			}
			fmt.Fprintf(cmd.OutOrStdout(), "ok: %s (%d warnings)\n", where, len(warn))
			return nil
		},
	}
}

// checkConfig checks what loading alone does not and every command that
// builds a runtime does: the policy and the tool names of both surfaces.
// It returns the diagnostics worth a warning.
func checkConfig(cfg *config.Config) ([]string, error) {
	if _, err := risk.NewPolicy(cfg); err != nil {
		return nil, err
	}
	var warn []string
	for _, pr := range risk.CheckPolicy(cfg) {
		warn = append(warn, pr.String())
	}
	for _, surface := range []string{catalog.SurfaceChat, catalog.SurfaceCode} {
		sel, err := catalog.Select(catalog.SelectOptions{Optional: cfg.Tools.Optional, Surface: surface})
		if err != nil {
			return nil, err
		}
		for _, d := range sel.Diagnostics {
			if surface == catalog.SurfaceChat || d.Feature == "" {
				warn = append(warn, d.Message)
			}
		}
	}
	return warn, nil
}

func newConfigMigrateCmd(e *env) *cobra.Command {
	var dryRun bool
	cmd := &cobra.Command{
		Use:   "migrate",
		Short: "Bring the config file up to the current schema, keeping every choice and comment",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			path, old, err := e.configFile("migrate")
			if err != nil {
				return err
			}
			out, changes, err := config.Migrate(old)
			if err != nil {
				return withCode(ExitUsage, err)
			}
			w := cmd.OutOrStdout()
			if len(changes) == 0 {
				fmt.Fprintf(w, "%s is current\n", path)
				return nil
			}
			for _, c := range changes {
				fmt.Fprintf(w, "- %s\n", c)
			}
			if dryRun {
				return nil
			}
			if err := writeConfig(path, out); err != nil {
				return err
			}
			fmt.Fprintf(w, "migrated %s\n", path)
			return nil
		},
	}
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "print the changes without writing")
	return cmd
}

// configFile finds the config file a command edits and reads it; what names
// the command's action for the error when there is no file.
func (e *env) configFile(what string) (string, []byte, error) {
	cwd, err := e.io.cwd()
	if err != nil {
		return "", nil, err
	}
	src, err := config.Discover(e.g.configPath, cwd, e.io.getenv)
	if err != nil {
		return "", nil, withCode(ExitUsage, err)
	}
	if src.Path == "" {
		return "", nil, usageErrorf("no config file to %s: create one with `talon config init` first", what)
	}
	data, err := os.ReadFile(src.Path)
	if err != nil {
		return "", nil, err
	}
	return src.Path, data, nil
}

// writeConfig replaces the config file atomically, keeping its mode.
func writeConfig(path string, data []byte) error {
	mode := fs.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	return config.WriteFileAtomic(path, data, mode)
}
