package config

import (
	"bytes"
	"cmp"
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/pelletier/go-toml/v2"
)

//go:embed defaults.toml
var defaultsTOML []byte

// Origins of a config file, in the order Discover tries them.
const (
	OriginFlag     = "flag"
	OriginEnv      = "env"
	OriginUpward   = "upward"
	OriginXDG      = "xdg"
	OriginEmbedded = "embedded"
)

// FileName is the name looked for upward from the working directory.
const FileName = "talon.toml"

// Source says which config file to load and how it was found.
type Source struct {
	// Path is the file; "" for the embedded defaults.
	Path string
	// Origin is one of "flag", "env", "upward", "xdg", "embedded".
	Origin string
}

// Discover finds the config file: the --config flag, else $TALON_CONFIG,
// else talon.toml in cwd or one of its parents, else
// $XDG_CONFIG_HOME/talon/config.toml (~/.config when unset). When no file
// exists it returns Origin "embedded" with Path "". Relative paths are
// resolved against cwd.
//
// # Errors
//
// A --config or $TALON_CONFIG path that does not exist wraps [ErrNotFound];
// a path that exists but cannot be examined is reported as it is.
func Discover(flag, cwd string, getenv func(string) string) (Source, error) {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	abs := func(p string) string {
		if filepath.IsAbs(p) || cwd == "" {
			return filepath.Clean(p)
		}
		return filepath.Join(cwd, p)
	}
	explicit := []struct{ value, origin, what string }{
		{flag, OriginFlag, "--config"},
		{getenv("TALON_CONFIG"), OriginEnv, "$TALON_CONFIG"},
	}
	for _, e := range explicit {
		if e.value == "" {
			continue
		}
		p := abs(e.value)
		ok, err := isFile(p)
		if err != nil {
			return Source{}, fmt.Errorf("config file %q (from %s): %w", p, e.what, err)
		}
		if !ok {
			return Source{}, fmt.Errorf("%w: %q (from %s) does not exist; check the path or create it with talon config init",
				ErrNotFound, p, e.what)
		}
		return Source{Path: p, Origin: e.origin}, nil
	}
	if cwd != "" {
		dir := abs(cwd)
		for {
			p := filepath.Join(dir, FileName)
			ok, err := isFile(p)
			if err != nil {
				return Source{}, fmt.Errorf("look for %s: %w", FileName, err)
			}
			if ok {
				return Source{Path: p, Origin: OriginUpward}, nil
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				break
			}
			dir = parent
		}
	}
	if base := xdgDir(getenv, "XDG_CONFIG_HOME", ".config"); base != "" {
		p := filepath.Join(base, "talon", "config.toml")
		ok, err := isFile(p)
		if err != nil {
			return Source{}, fmt.Errorf("look for %s: %w", p, err)
		}
		if ok {
			return Source{Path: p, Origin: OriginXDG}, nil
		}
	}
	return Source{Origin: OriginEmbedded}, nil
}

// isFile reports whether p exists and is not a directory.
func isFile(p string) (bool, error) {
	info, err := os.Stat(p)
	switch {
	case err == nil:
		return !info.IsDir(), nil
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
		return false, nil
	default:
		return false, err
	}
}

// xdgDir returns $name when it is absolute, else $HOME/fallback, else "".
func xdgDir(getenv func(string) string, name, fallback string) string {
	if d := getenv(name); filepath.IsAbs(d) {
		return d
	}
	if home := getenv("HOME"); home != "" {
		return filepath.Join(home, fallback)
	}
	return ""
}

// Load reads and validates the config src names. The embedded source (Path
// "") returns [Default]. Warnings are returned even when there is no error.
//
// # Errors
//
// Decoding and validation problems are [*Error] values (joined when there
// are several) naming the file, line and key.
func Load(src Source) (*Config, []string, error) {
	if src.Path == "" {
		return Default(), nil, nil
	}
	data, err := os.ReadFile(src.Path)
	if err != nil {
		return nil, nil, fmt.Errorf("read config: %w; check the path and its permissions", err)
	}
	path := src.Path
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	c, warnings, err := Parse(src.Path, data)
	if err != nil {
		return nil, warnings, err
	}
	c.path = path
	return c, warnings, nil
}

// Parse decodes and validates a config held in memory; name is used in
// messages and as the file's path (see [Config.ConfigDir]).
func Parse(name string, data []byte) (cfg *Config, warnings []string, err error) {
	c := new(Config)
	if err := decodeStrict(data, c); err != nil {
		return nil, nil, decodeErrors(name, err)
	}
	c.path = name
	warnings, err = c.Validate()
	for i, w := range warnings {
		if name != "" {
			warnings[i] = name + ": " + w
		}
	}
	if err != nil {
		return nil, warnings, locateErrors(name, data, err)
	}
	return c, warnings, nil
}

// decodeStrict decodes data into v, refusing unknown keys. A panic inside
// the decoder is reported as an error: the input is untrusted.
func decodeStrict(data []byte, v any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("toml decoder failed: %v", r)
		}
	}()
	return toml.NewDecoder(bytes.NewReader(data)).DisallowUnknownFields().Decode(v)
}

// decodeLoose decodes data into v without refusing unknown keys.
func decodeLoose(data []byte, v any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("toml decoder failed: %v", r)
		}
	}()
	return toml.Unmarshal(data, v)
}

// locateErrors fills in File, Line and Col of validation errors and orders
// them by position.
func locateErrors(name string, data []byte, err error) error {
	doc, _ := scanDocument(data)
	var errs []*Error
	for _, e := range unwrapAll(err) {
		ce, ok := e.(*Error)
		if !ok {
			return err
		}
		ce.File = name
		if path, perr := parseKeyArg(ce.Key); doc != nil && ce.Line == 0 && perr == nil {
			if line, col, ok := doc.position(path); ok {
				ce.Line, ce.Col = line, col
			}
		}
		errs = append(errs, ce)
	}
	slices.SortStableFunc(errs, func(a, b *Error) int {
		return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col))
	})
	return joinErrors(errs)
}

// unwrapAll returns the errors joined in err, or err alone.
func unwrapAll(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// Default returns the embedded defaults: every key set to its documented
// default. Each call returns a new value.
func Default() *Config {
	c := new(Config)
	if err := decodeStrict(defaultsTOML, c); err != nil {
		// The embedded file is part of the binary and covered by tests.
		panic("config: embedded defaults.toml does not decode: " + err.Error())
	}
	return c
}

// Path returns the file the config was loaded from, "" for the embedded
// defaults.
func (c *Config) Path() string { return c.path }

// ConfigDir returns the directory of the loaded file, "" for the embedded
// defaults.
func (c *Config) ConfigDir() string {
	if c.path == "" {
		return ""
	}
	return filepath.Dir(c.path)
}

// DataDir returns where talon keeps receipts, keys and caches: data_dir
// (a leading ~/ is the home directory; a relative path is relative to the
// config file's directory), else $XDG_DATA_HOME/talon, else
// ~/.local/share/talon. It returns "" only when no home directory is known.
func (c *Config) DataDir(getenv func(string) string) string {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	home := getenv("HOME")
	if d := c.DataDirPath; d != "" {
		if rest, ok := strings.CutPrefix(d, "~/"); ok || d == "~" {
			if home == "" {
				return ""
			}
			return filepath.Join(home, rest)
		}
		if !filepath.IsAbs(d) {
			d = filepath.Join(c.ConfigDir(), d)
			if abs, err := filepath.Abs(d); err == nil {
				d = abs
			}
		}
		return filepath.Clean(d)
	}
	if base := xdgDir(getenv, "XDG_DATA_HOME", filepath.Join(".local", "share")); base != "" {
		return filepath.Join(base, "talon")
	}
	return ""
}

// WorkspaceDir returns the directory file tools are confined to: workspace
// (relative to the config file's directory; a leading ~/ is the home
// directory), else cwd. The result is absolute and cleaned.
//
// # Errors
//
// It fails when the result would depend on an unknown cwd or home.
func (c *Config) WorkspaceDir(cwd string) (string, error) {
	home, _ := os.UserHomeDir()
	return c.WorkspaceDirIn(cwd, home)
}

// WorkspaceDirIn is [Config.WorkspaceDir] with the home directory given,
// for callers whose environment is not the process's own.
func (c *Config) WorkspaceDirIn(cwd, home string) (string, error) {
	dir := c.Workspace
	if dir == "" {
		dir = cwd
	} else if rest, ok := strings.CutPrefix(dir, "~/"); ok || dir == "~" {
		if home == "" {
			return "", fmt.Errorf("workspace %q: no home directory is set; write an absolute path", c.Workspace)
		}
		if !ok {
			rest = "" // "~" alone
		}
		dir = filepath.Join(home, rest)
	} else if !filepath.IsAbs(dir) {
		dir = filepath.Join(c.ConfigDir(), dir)
	}
	if !filepath.IsAbs(dir) {
		if cwd == "" || !filepath.IsAbs(cwd) {
			return "", fmt.Errorf("workspace %q is relative and the working directory is unknown; set an absolute workspace", dir)
		}
		dir = filepath.Join(cwd, dir)
	}
	return filepath.Clean(dir), nil
}

// Profile returns the risk profile called name ("" means "default"). The
// default profile always exists; when the file does not define it, it is
// the zero RiskProfile (every default).
//
// # Errors
//
// An unknown name wraps [ErrUnknownProfile] and lists the defined profiles.
func (c *Config) Profile(name string) (RiskProfile, error) {
	if name == "" {
		name = DefaultProfile
	}
	if p, ok := c.RiskProfiles[name]; ok {
		return p, nil
	}
	if name == DefaultProfile {
		return RiskProfile{}, nil
	}
	names := sortedKeys(c.RiskProfiles)
	if _, ok := c.RiskProfiles[DefaultProfile]; !ok {
		names = append([]string{DefaultProfile}, names...)
	}
	return RiskProfile{}, fmt.Errorf("%w %s%s; defined profiles: %s",
		ErrUnknownProfile, quoteString(name), didYouMean(name, names), strings.Join(names, ", "))
}
