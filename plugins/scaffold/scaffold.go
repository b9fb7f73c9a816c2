package scaffold

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"text/template"

	"github.com/talonhq/talon/locales"
	"github.com/talonhq/talon/plugins/manifest"
)

// Module is the Go module path of talon, which a plugin requires for
// plugins/pdk. Releases are git tags of that module (v1.2.3).
const Module = "github.com/talonhq/talon"

var (
	// ErrExists is returned when the target directory exists and is not
	// empty; nothing is written.
	ErrExists = errors.New("scaffold target exists")
	// ErrName is returned for a name that is not a plugin name.
	ErrName = errors.New("invalid plugin name")
)

//go:embed templates
var templates embed.FS

// Options says what to scaffold. The zero value of every field but Name
// means its documented default.
type Options struct {
	// Name is the plugin's name, as in plugin.toml (required).
	Name string
	// Module is the Go module path; default "example.com/<Name>".
	Module string
	// TalonVersion is the talon release whose plugins/pdk go.mod requires
	// (a git tag such as v1.2.0). Empty leaves the requirement out, and
	// `go mod tidy` then picks the latest release.
	TalonVersion string
}

// data is what the templates see.
type data struct {
	Name, Module, TalonModule, TalonVersion string
	// Tool is the example tool's name: <name>_greet with "-" as "_".
	Tool string
	// ToolMsg and ParamMsg are the message ids of its description and of
	// its parameter's (underscores become hyphens in message ids).
	ToolMsg, ParamMsg string
	// Placeholder is the sha256 plugin.toml starts with, replaced by
	// `make` (talon plugins sign).
	Placeholder string
}

// Write creates dir (which must not exist, or be empty) with the plugin
// project and returns the files it wrote, relative to dir and sorted.
func Write(dir string, o Options) ([]string, error) {
	if !manifest.ValidName(o.Name) {
		return nil, fmt.Errorf("%w %q: use lowercase letters, digits, - and _, starting with a letter", ErrName, o.Name)
	}
	d := data{
		Name: o.Name, Module: o.Module, TalonModule: Module, TalonVersion: o.TalonVersion,
		Tool:        strings.ReplaceAll(o.Name, "-", "_") + "_greet",
		Placeholder: strings.Repeat("0", 64),
	}
	d.ToolMsg, d.ParamMsg = locales.ToolID(d.Tool), locales.ParamID(d.Tool, "name")
	if d.Module == "" {
		d.Module = "example.com/" + o.Name
	}
	if ents, err := os.ReadDir(dir); err == nil && len(ents) > 0 {
		return nil, fmt.Errorf("%w: %s is not empty; choose another --dir or remove it", ErrExists, dir)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	type file struct {
		rel  string
		body []byte
	}
	var files []file
	err := fs.WalkDir(templates, "templates", func(p string, de fs.DirEntry, err error) error {
		if err != nil || de.IsDir() {
			return err
		}
		src, err := templates.ReadFile(p)
		if err != nil {
			return err
		}
		rel := strings.TrimSuffix(strings.TrimPrefix(p, "templates/"), ".tmpl")
		rel = strings.ReplaceAll(rel, "NAME", o.Name)
		if base := path.Base(rel); strings.HasPrefix(base, "dot-") {
			rel = path.Join(path.Dir(rel), "."+strings.TrimPrefix(base, "dot-"))
		}
		t, err := template.New(rel).Parse(string(src))
		if err != nil {
			return fmt.Errorf("template %s: %w", p, err)
		}
		var out bytes.Buffer
		if err := t.Execute(&out, d); err != nil {
			return fmt.Errorf("template %s: %w", p, err)
		}
		files = append(files, file{rel: rel, body: out.Bytes()})
		return nil
	})
	if err != nil {
		return nil, err
	}
	var names []string
	for _, f := range files {
		target := filepath.Join(dir, filepath.FromSlash(f.rel))
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(target, f.body, 0o644); err != nil {
			return nil, err
		}
		names = append(names, f.rel)
	}
	sort.Strings(names)
	return names, nil
}
