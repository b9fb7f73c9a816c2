package scaffold

import (
	"bufio"
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

// Module is talon's Go module path. The plugin kits are modules of their
// own beneath it, tagged with talon's releases (plugins/pdk/v1.2.3).
const Module = "github.com/talonhq/talon"

// The kit modules a plugin builds against.
const (
	PDKModule   = Module + "/plugins/pdk"
	SDKModule   = Module + "/plugins/sdk"
	ProtoModule = Module + "/plugins/proto"
)

// devVersion is the version a development build's kits are required at:
// the replace directive is what provides them.
const devVersion = "v0.0.0-00010101000000-000000000000"

// KitDir is where a project keeps its copies of the kits.
const KitDir = "talon"

var (
	// ErrExists is returned when the target directory exists and is not
	// empty; nothing is written.
	ErrExists = errors.New("scaffold target exists")
	// ErrName is returned for a name that is not a plugin name.
	ErrName = errors.New("invalid plugin name")
	// ErrKind is returned for a kind the scaffold does not write.
	ErrKind = errors.New("invalid plugin kind")
)

//go:embed templates
var templates embed.FS

// kits are copies of plugins/pdk, plugins/sdk and plugins/proto, made by
// the scaffold's tests (go test ./plugins/scaffold -update) and checked
// against the sources on every run, so that any talon binary can write the
// kits it was built with into a project: go.mod and go.sum are stored as
// .txt, since a directory holding a go.mod would be a module of its own.
//
//go:embed all:_kits
var kits embed.FS

// Options says what to scaffold. The zero value of every field but Name
// means its documented default.
type Options struct {
	// Name is the plugin's name, as in plugin.toml (required).
	Name string
	// Kind is manifest.KindWASM (the default: a Go WASM plugin with
	// plugins/pdk) or manifest.KindProcess (a Go subprocess plugin with
	// plugins/sdk).
	Kind manifest.Kind
	// Module is the Go module path; default "example.com/<Name>".
	Module string
	// TalonVersion is the talon release (a git tag such as v1.2.0) whose
	// kits the project pins: go.mod requires them at that version. Empty
	// (a development build) requires a placeholder version. Either way the
	// project carries the kits in talon/ and go.mod replaces them with that
	// copy, so it builds without a network.
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
	// GoMod is the project's go.mod.
	GoMod string
	// KitDir is where the kits are copied; GoVersion is the Go release
	// go.mod asks for.
	KitDir, GoVersion string
}

// Write creates dir (which must not exist, or be empty) with the plugin
// project and returns the files it wrote, relative to dir and sorted.
func Write(dir string, o Options) ([]string, error) {
	if !manifest.ValidName(o.Name) {
		return nil, fmt.Errorf("%w %q: use lowercase letters, digits, - and _, starting with a letter", ErrName, o.Name)
	}
	kind := o.Kind
	if kind == "" {
		kind = manifest.KindWASM
	}
	var kitNames []string
	switch kind {
	case manifest.KindWASM:
		kitNames = []string{"pdk"}
	case manifest.KindProcess:
		kitNames = []string{"sdk", "proto"}
	default:
		return nil, fmt.Errorf("%w %q: the scaffold writes wasm and process plugins", ErrKind, kind)
	}
	d := data{
		Name: o.Name, Module: o.Module, TalonModule: Module, TalonVersion: o.TalonVersion,
		Tool:        strings.ReplaceAll(o.Name, "-", "_") + "_greet",
		Placeholder: strings.Repeat("0", 64),
		KitDir:      KitDir,
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
	files, err := kitFiles(kitNames)
	if err != nil {
		return nil, err
	}
	gomod, gosum, err := goModule(kind, d.Module, o.TalonVersion)
	if err != nil {
		return nil, err
	}
	d.GoMod = gomod
	for _, line := range strings.Split(gomod, "\n") {
		if v, ok := strings.CutPrefix(line, "go "); ok {
			d.GoVersion = v
		}
	}
	files["go.mod"] = []byte(gomod)
	if gosum != "" {
		files["go.sum"] = []byte(gosum)
	}
	root := path.Join("templates", string(kind))
	err = fs.WalkDir(templates, root, func(p string, de fs.DirEntry, err error) error {
		if err != nil || de.IsDir() {
			return err
		}
		src, err := templates.ReadFile(p)
		if err != nil {
			return err
		}
		rel := strings.TrimSuffix(strings.TrimPrefix(p, root+"/"), ".tmpl")
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
		files[rel] = out.Bytes()
		return nil
	})
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(files))
	for rel, body := range files {
		target := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(target, body, 0o644); err != nil {
			return nil, err
		}
		names = append(names, rel)
	}
	sort.Strings(names)
	return names, nil
}

// kitFiles are the files of the named kits as a project keeps them, under
// talon/<kit>/.
func kitFiles(names []string) (map[string][]byte, error) {
	out := map[string][]byte{}
	for _, k := range names {
		err := fs.WalkDir(kits, path.Join("_kits", k), func(p string, de fs.DirEntry, err error) error {
			if err != nil || de.IsDir() {
				return err
			}
			b, err := kits.ReadFile(p)
			if err != nil {
				return err
			}
			name := strings.TrimSuffix(path.Base(p), ".txt")
			out[path.Join(KitDir, k, name)] = b
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("the %s kit: %w", k, err)
		}
	}
	return out, nil
}

// goModule returns the project's go.mod and go.sum: the kit it builds
// against required at the release (or a placeholder version), replaced by
// the copy in talon/ so that no network is needed for it; a subprocess
// plugin also lists the SDK's own requirements and their sums.
func goModule(kind manifest.Kind, module, release string) (gomod, gosum string, err error) {
	version := release
	if version == "" {
		version = devVersion
	}
	replaced := func(mod, dir string) string {
		if release != "" {
			// Only this release is replaced: `go get` of another version
			// fetches that version from the module proxy.
			return fmt.Sprintf("\t%s %s => ./%s/%s\n", mod, release, KitDir, dir)
		}
		return fmt.Sprintf("\t%s => ./%s/%s\n", mod, KitDir, dir)
	}
	kit := "pdk"
	if kind == manifest.KindProcess {
		kit = "sdk"
	}
	reqs, goVersion, err := kitModule(kit)
	if err != nil {
		return "", "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "module %s\n\ngo %s\n\n", module, goVersion)
	switch kind {
	case manifest.KindWASM:
		fmt.Fprintf(&b, "require %s %s\n\n", PDKModule, version)
		b.WriteString("// talon/pdk is the PDK of the talon that made this project; without\n")
		b.WriteString("// this replace, go fetches the required version from the module proxy.\n")
		b.WriteString("replace (\n" + replaced(PDKModule, "pdk") + ")\n")
		return b.String(), "", nil
	default:
		fmt.Fprintf(&b, "require %s %s\n\nrequire (\n", SDKModule, version)
		fmt.Fprintf(&b, "\t%s %s // indirect\n", ProtoModule, version)
		for _, r := range reqs {
			if r.path == ProtoModule || r.path == "go.uber.org/goleak" {
				continue
			}
			fmt.Fprintf(&b, "\t%s %s // indirect\n", r.path, r.version)
		}
		b.WriteString(")\n\n")
		b.WriteString("// talon/sdk and talon/proto are the SDK of the talon that made this\n")
		b.WriteString("// project; without these replaces, go fetches them from the module proxy.\n")
		b.WriteString("replace (\n" + replaced(SDKModule, "sdk") + replaced(ProtoModule, "proto") + ")\n")
		sums := map[string]bool{}
		for _, k := range []string{"sdk", "proto"} {
			s, err := kits.ReadFile(path.Join("_kits", k, "go.sum.txt"))
			if err != nil {
				return "", "", err
			}
			for _, line := range strings.Split(string(s), "\n") {
				if line != "" {
					sums[line] = true
				}
			}
		}
		lines := make([]string, 0, len(sums))
		for l := range sums {
			lines = append(lines, l)
		}
		sort.Strings(lines)
		return b.String(), strings.Join(lines, "\n") + "\n", nil
	}
}

// requirement is one line of a require block.
type requirement struct{ path, version string }

// kitModule reads the requirements and the go version of a kit's go.mod.
func kitModule(kit string) (reqs []requirement, goVersion string, err error) {
	b, err := kits.ReadFile(path.Join("_kits", kit, "go.mod.txt"))
	if err != nil {
		return nil, "", err
	}
	in := false
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "require (":
			in = true
			continue
		case line == ")":
			in = false
			continue
		case strings.HasPrefix(line, "go "):
			goVersion = strings.TrimPrefix(line, "go ")
			continue
		case strings.HasPrefix(line, "require "):
			line = strings.TrimPrefix(line, "require ")
		case !in:
			continue
		}
		f := strings.Fields(line)
		if len(f) >= 2 {
			reqs = append(reqs, requirement{f[0], f[1]})
		}
	}
	if goVersion == "" {
		return nil, "", fmt.Errorf("the %s kit's go.mod has no go directive", kit)
	}
	return reqs, goVersion, sc.Err()
}
