package sandbox

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// spawnerAllowlist names the packages besides sandbox that may still build
// or start processes themselves, each with the reason. Keep it short: every
// entry is a process that escapes the spawner's protections.
var spawnerAllowlist = map[string]string{
	"fleet/fleettest":         "starts the PostgreSQL cluster the fleet tests and benchmarks run against; only tests import it",
	"internal/pluginbuild":    "builds plugin fixtures with the Go toolchain and wat2wasm for tests and benchmarks; never tool work",
	"workspace/workspacetest": "starts the racing process of the workspace swap tests, which must run outside any sandbox; only tests import it",
	"xtask":                   "the build tool runs the Go toolchain for releases; never tool work",
}

// spawnCalls are the functions that start (or build something that
// starts) a process, by import path.
var spawnCalls = map[string][]string{
	"os/exec":               {"Command", "CommandContext"},
	"os":                    {"StartProcess"},
	"syscall":               {"ForkExec", "StartProcess", "Exec"},
	"golang.org/x/sys/unix": {"Exec"},
}

// TestOneSpawner enforces that tool work starts processes only through
// this package: no non-test Go file outside sandbox (and the allowlist)
// calls exec.Command, exec.CommandContext, os.StartProcess or the raw
// fork/exec calls, or builds an exec.Cmd literal.
func TestOneSpawner(t *testing.T) {
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	used := map[string]bool{}
	files := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "vendor") {
				return filepath.SkipDir
			}
			if path != root {
				if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
					return filepath.SkipDir // another module
				}
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		rel = filepath.ToSlash(rel)
		files++
		for _, v := range spawnSites(t, path) {
			switch {
			case rel == "sandbox", strings.HasPrefix(rel, "sandbox/"): // the spawner and its helper
			case spawnerAllowlist[rel] != "":
				used[rel] = true
			default:
				t.Errorf("%s: %s starts a process outside the sandbox package; build it with sandbox.CommandContext and start it with sandbox.Start (or use sandbox.Run)", v, rel)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 20 {
		t.Fatalf("checked only %d files from %s; the walk is probably broken", files, root)
	}
	for pkg := range spawnerAllowlist {
		if !used[pkg] {
			t.Logf("%s no longer starts processes itself; remove it from spawnerAllowlist", pkg)
		}
	}
}

// spawnSites returns "file:line: call" for every process-starting call and
// exec.Cmd literal in a Go file.
func spawnSites(t *testing.T, path string) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
	local := map[string]string{} // local name -> import path
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		if _, watched := spawnCalls[p]; !watched {
			continue
		}
		name := p[strings.LastIndex(p, "/")+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		local[name] = p
	}
	if len(local) == 0 {
		return nil
	}
	var out []string
	at := func(n ast.Node, what string) {
		out = append(out, fset.Position(n.Pos()).String()+": "+what)
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			id, ok := n.X.(*ast.Ident)
			if !ok {
				return true
			}
			if p, ok := local[id.Name]; ok && slices.Contains(spawnCalls[p], n.Sel.Name) {
				at(n, id.Name+"."+n.Sel.Name)
			}
		case *ast.CompositeLit:
			if sel, ok := n.Type.(*ast.SelectorExpr); ok {
				if id, ok := sel.X.(*ast.Ident); ok && local[id.Name] == "os/exec" && sel.Sel.Name == "Cmd" {
					at(n, "exec.Cmd literal")
				}
			}
		}
		return true
	})
	return out
}

func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the test's directory")
		}
		dir = parent
	}
}

func TestSpawnSites(t *testing.T) {
	dir := t.TempDir()
	src := `package x

import (
	"os"
	ex "os/exec"
)

func f() {
	_ = ex.Command("ls")
	_ = &ex.Cmd{Path: "/bin/ls"}
	_, _ = os.StartProcess("/bin/ls", nil, nil)
	_ = os.Getenv("HOME")
}
`
	path := filepath.Join(dir, "x.go")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	got := spawnSites(t, path)
	want := []string{"ex.Command", "exec.Cmd literal", "os.StartProcess"}
	if len(got) != len(want) {
		t.Fatalf("spawnSites = %q, want %d sites", got, len(want))
	}
	for i, w := range want {
		if !strings.HasSuffix(got[i], ": "+w) {
			t.Errorf("site %d = %q, want %q", i, got[i], w)
		}
	}
}
