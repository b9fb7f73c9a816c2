package main

// TestDocExamples runs every ```console block of README.md and docs/*.md,
// so a documented command that stops working, or starts printing
// something else, fails the build. The rules a block follows:
//
//   - It runs in a fresh workspace inside a fresh home directory, written
//     /home/me/project and /home/me in the text. The workspace holds the
//     parts of talon's repository the documents use, as in a clone:
//     README.md, go.mod, go.sum and plugins/ (the kits and the examples,
//     without build outputs). HOME, XDG_CONFIG_HOME (~/.config),
//     XDG_DATA_HOME (~/.local/share) and the test's PATH are set; nothing
//     else of the environment reaches talon.
//   - Fenced blocks marked file=PATH earlier in the same document
//     (```toml file=talon.toml) are written into the workspace first.
//   - A line "$ COMMAND" runs one command: talon (in this process), cd DIR,
//     or a program of docPrograms, run as a process in the current
//     directory with talon on PATH and the test's Go environment (no
//     network: modules come from the machine's module cache). One command
//     a line: no pipes, &&, redirections or variables; ~ is the home
//     directory. A trailing "# exit N" expects exit status N (default 0);
//     any other # comment is ignored.
//   - The lines up to the next command are everything the command prints,
//     standard output and standard error as a terminal shows them. They
//     are compared with what it printed line by line and in order, after
//     the home directory and the workspace are rewritten as above, with
//     every run of spaces and tabs read as one space and trailing blank
//     lines dropped. A command followed by no lines must print nothing. A
//     line "..." stands for any number of lines, none included. Within a
//     line, placeholders stand for the values that change from run to run
//     (see docPlaceholders): {n}, {hex}, {id}, {b64}, {time}, {duration},
//     and {machine} for text that depends on the machine rather than the
//     run, never to shorten a line.
//
// Under -short, blocks that run go or make are skipped. Blocks
// that can run nowhere but on a real machine are ```sh blocks, with a
// comment saying why; they are not run.
//
// go test ./cmd/talon -run 'TestDocExamples/plugins.md' -v -docs.print
// prints what each command of the chosen blocks printed, paths rewritten,
// for writing a block.

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"mvdan.cc/sh/v3/shell"

	"github.com/talonhq/talon/cli"
)

var docsPrint = flag.Bool("docs.print", false, "print the output of every documented command (TestDocExamples)")

// The paths a document writes for the block's home directory and
// workspace.
const (
	docHome      = "/home/me"
	docWorkspace = "/home/me/project"
)

// docPrograms are the programs besides talon a console block may run, each
// with a check of its arguments. Anything else is refused.
var docPrograms = map[string]func(args []string) error{
	// go build and go test, for plugins built from source.
	"go": func(args []string) error {
		if len(args) == 0 || (args[0] != "build" && args[0] != "test") {
			return fmt.Errorf("only go build and go test may run")
		}
		return nil
	},
	// make, for a scaffolded plugin's Makefile.
	"make":  func([]string) error { return nil },
	"cp":    func([]string) error { return nil },
	"mkdir": func([]string) error { return nil },
	// touch, for an empty file (an empty SQLite database).
	"touch": func([]string) error { return nil },
}

// docVars are the variables a console command may set before a program
// (GOOS=wasip1 GOARCH=wasm go build ...).
var docVars = []string{"GOOS", "GOARCH", "CGO_ENABLED"}

// docBlock is one ```console block of a document.
type docBlock struct {
	file string
	line int
	cmds []docCmd
	// files are the blocks marked file=PATH above it in its document,
	// written into the workspace before its commands run.
	files []docFile
}

// docFile is a fenced block whose info string names a file, such as
// ```toml file=talon.toml.
type docFile struct {
	path, text string
}

// docCmd is one "$ ..." line and the output shown under it.
type docCmd struct {
	line     int
	text     string   // as written, after "$ "
	vars     []string // NAME=value before the program
	args     []string // the program and its arguments
	wantExit int
	want     []string
}

func TestDocExamples(t *testing.T) {
	files, _ := filepath.Glob("../../docs/*.md")
	files = append([]string{"../../README.md"}, files...)
	root := repoRoot(t)
	fx := newDocFixtures(t)
	n := 0
	for _, f := range files {
		for _, b := range parseDocBlocks(t, f) {
			n += len(b.cmds)
			t.Run(filepath.Base(f)+":"+strconv.Itoa(b.line), func(t *testing.T) {
				runDocBlock(t, root, fx, b)
			})
		}
	}
	if n < 5 {
		t.Fatalf("found only %d documented commands; the parser is probably broken", n)
	}
}

// docRun is the state of one block while it runs.
type docRun struct {
	file      string
	home, ws  string
	dir       string // the current directory, moved by cd
	bin       string // holds talon for the programs a block runs
	env       map[string]string
	execEnv   []string // for programs other than talon
	normalize func(string) string
}

// docFixtures are what the blocks of one run share: a directory holding a
// talon for the programs a block runs, and the WASM compilation cache, so
// a module several documents build is compiled once per run (wazero writes
// its entries by rename, so blocks see whole ones).
type docFixtures struct {
	bin, wasmCache string
}

func newDocFixtures(t *testing.T) docFixtures {
	fx := docFixtures{bin: t.TempDir(), wasmCache: t.TempDir()}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(exe, filepath.Join(fx.bin, "talon")); err != nil {
		t.Fatal(err)
	}
	return fx
}

func runDocBlock(t *testing.T, root string, fx docFixtures, b docBlock) {
	if testing.Short() && slices.ContainsFunc(b.cmds, func(c docCmd) bool { return c.args[0] == "go" || c.args[0] == "make" }) {
		t.Skip("builds with go or make; not under -short")
	}
	// The workspace is a project under HOME, as on an operator's machine:
	// HOME itself would be refused.
	home := t.TempDir()
	ws := filepath.Join(home, "project")
	copyDocClone(t, root, ws)
	model := startDocModel(t, filepath.Base(b.file))
	for _, df := range b.files {
		p := filepath.Join(ws, df.path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(model.replace(df.text)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cache := filepath.Join(home, ".local", "share", "talon", "cache")
	if err := os.MkdirAll(cache, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(fx.wasmCache, filepath.Join(cache, "wasm")); err != nil {
		t.Fatal(err)
	}
	r := &docRun{
		file: b.file, home: home, ws: ws, dir: ws, bin: fx.bin,
		env: map[string]string{
			"PATH":            os.Getenv("PATH"),
			"HOME":            home,
			"XDG_CONFIG_HOME": filepath.Join(home, ".config"),
			"XDG_DATA_HOME":   filepath.Join(home, ".local", "share"),
		},
	}
	r.normalize = strings.NewReplacer(ws, docWorkspace, home, docHome).Replace
	for _, c := range b.cmds {
		for i := range c.args {
			c.args[i] = strings.ReplaceAll(model.replace(c.args[i]), docTilde, home)
		}
		if !r.run(t, c) {
			return
		}
	}
}

// run runs one command and compares its output; false stops the block.
func (r *docRun) run(t *testing.T, c docCmd) bool {
	t.Helper()
	where := fmt.Sprintf("%s:%d: $ %s", r.file, c.line, c.text)
	var out bytes.Buffer
	var code int
	switch c.args[0] {
	case "cd":
		if len(c.args) != 2 || len(c.vars) > 0 {
			t.Errorf("%s: cd takes one directory", where)
			return false
		}
		dir := c.args[1]
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(r.dir, dir)
		}
		if !r.inside(dir) {
			t.Errorf("%s: cd leaves the home directory", where)
			return false
		}
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			t.Errorf("%s: not a directory: %v", where, err)
			return false
		}
		r.dir = dir
	case "talon":
		code = cli.Main(c.args[1:], cli.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &out, Cwd: r.dir,
			Getenv: func(k string) string { return r.env[k] }})
	default:
		var err error
		code, err = r.exec(c, &out)
		if err != nil {
			t.Errorf("%s: %v", where, err)
			return false
		}
	}
	got := r.normalize(out.String())
	if *docsPrint {
		t.Logf("%s (exit %d):\n%s", where, code, got)
	}
	if code != c.wantExit {
		t.Errorf("%s: exit status %d, want %d; it printed:\n%s", where, code, c.wantExit, got)
		return false
	}
	if !matchDocOutput(c.want, got) {
		t.Errorf("%s: the output differs from the document's.\n--- the document shows:\n%s\n--- the command printed (paths rewritten):\n%s",
			where, strings.Join(c.want, "\n"), got)
	}
	return true
}

// inside reports whether path is the home directory or below it.
func (r *docRun) inside(path string) bool {
	rel, err := filepath.Rel(r.home, filepath.Clean(path))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// exec runs a program of docPrograms in the current directory.
// (parseDocCmd checked the program, its arguments and variables.)
func (r *docRun) exec(c docCmd, out *bytes.Buffer) (int, error) {
	for _, a := range c.args[1:] {
		if filepath.IsAbs(a) && !r.inside(a) {
			return 0, fmt.Errorf("argument %s is outside the home directory", a)
		}
	}
	if r.execEnv == nil {
		r.execEnv = docExecEnv(r.bin, r.env)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	return runDocProgram(ctx, r.dir, append(slices.Clone(r.execEnv), c.vars...), c.args, out)
}

// docExecEnv is the environment of the programs a block runs: the block's
// own, PATH with a talon that is this test binary (TestMain runs cli.Main
// for TALON_TEST_AS_TALON=1), and Go's settings for building offline, as
// pluginEnv gives the scripts.
func docExecEnv(bin string, base map[string]string) []string {
	env := []string{"TALON_TEST_AS_TALON=1", "PATH=" + bin + string(os.PathListSeparator) + base["PATH"]}
	for k, v := range base {
		if k != "PATH" {
			env = append(env, k+"="+v)
		}
	}
	for k, v := range goEnv() {
		env = append(env, k+"="+v)
	}
	// -count=1: go test prints a time, never "(cached)".
	return append(env, "GOFLAGS=-mod=mod -count=1", "GOPROXY=off", "GOTOOLCHAIN=local", "GOWORK=off")
}

// docCloneParts are the files and directories of the repository copied
// into every workspace.
var docCloneParts = []string{"README.md", "go.mod", "go.sum", "plugins/pdk", "plugins/sdk", "plugins/proto", "plugins/examples"}

// copyDocClone copies docCloneParts from the repository into ws, leaving out
// build outputs (modules, executables, node_modules).
func copyDocClone(t *testing.T, root, ws string) {
	t.Helper()
	for _, part := range docCloneParts {
		src := filepath.Join(root, filepath.FromSlash(part))
		err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			dst := filepath.Join(ws, rel)
			if d.IsDir() {
				if d.Name() == "node_modules" {
					return filepath.SkipDir
				}
				return os.MkdirAll(dst, 0o755)
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			if !info.Mode().IsRegular() || info.Mode()&0o111 != 0 || strings.HasSuffix(p, ".wasm") {
				return nil
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				return err
			}
			return os.WriteFile(dst, data, 0o644)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// docTilde stands for ~ in a parsed command until the block's home
// directory replaces it.
const docTilde = "\x00HOME\x00"

// docExitRE is the exit annotation at the end of a command line.
var docExitRE = regexp.MustCompile(`\s+# exit (\d+)\s*$`)

func parseDocBlocks(t *testing.T, path string) []docBlock {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var blocks []docBlock
	var cur *docBlock
	var files []docFile
	var file *docFile
	sc := bufio.NewScanner(bytes.NewReader(data))
	for ln := 1; sc.Scan(); ln++ {
		line := sc.Text()
		switch {
		case file != nil && strings.TrimSpace(line) == "```":
			files = append(files, *file)
			file = nil
		case file != nil:
			file.text += line + "\n"
		case cur == nil && strings.HasPrefix(line, "```") && strings.Contains(line, " file="):
			_, name, _ := strings.Cut(line, " file=")
			file = &docFile{path: strings.TrimSpace(name)}
		case cur == nil && strings.TrimSpace(line) == "```console":
			cur = &docBlock{file: path, line: ln, files: slices.Clone(files)}
		case cur != nil && strings.TrimSpace(line) == "```":
			for i := range cur.cmds {
				c := &cur.cmds[i]
				for len(c.want) > 0 && strings.TrimSpace(c.want[len(c.want)-1]) == "" {
					c.want = c.want[:len(c.want)-1]
				}
			}
			blocks = append(blocks, *cur)
			cur = nil
		case cur != nil && strings.HasPrefix(line, "$ "):
			c, err := parseDocCmd(strings.TrimPrefix(line, "$ "))
			if err != nil {
				t.Fatalf("%s:%d: %v", path, ln, err)
			}
			c.line = ln
			cur.cmds = append(cur.cmds, c)
		case cur != nil && len(cur.cmds) > 0:
			c := &cur.cmds[len(cur.cmds)-1]
			c.want = append(c.want, line)
		case cur != nil && strings.TrimSpace(line) != "":
			t.Fatalf("%s:%d: a console block starts with a command (\"$ ...\"), not %q", path, ln, line)
		}
	}
	return blocks
}

// docAssignRE is a NAME=value word before a program.
var docAssignRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)

// parseDocCmd parses the text of a "$ " line: one command, talon, cd or a
// program of docPrograms, with only the variables of docVars set before a
// program, and no variable but ~.
func parseDocCmd(text string) (docCmd, error) {
	c := docCmd{text: text}
	cmdline := text
	if m := docExitRE.FindStringSubmatchIndex(cmdline); m != nil {
		c.wantExit, _ = strconv.Atoi(cmdline[m[2]:m[3]])
		cmdline = cmdline[:m[0]]
	}
	var badVar string
	fields, err := shell.Fields(cmdline, func(name string) string {
		switch name {
		case "HOME":
			return docTilde // for ~, replaced by the block's home directory
		case "IFS", "PWD", "OLDPWD": // asked by the expansion itself
			return ""
		}
		badVar = name
		return ""
	})
	switch {
	case err != nil:
		return c, fmt.Errorf("%q is not one command: %w", cmdline, err)
	case badVar != "":
		return c, fmt.Errorf("%q uses the variable %s; a console example may use only ~", cmdline, badVar)
	}
	for len(fields) > 0 && docAssignRE.MatchString(fields[0]) {
		c.vars = append(c.vars, fields[0])
		fields = fields[1:]
	}
	if len(fields) == 0 {
		return c, fmt.Errorf("%q runs nothing", cmdline)
	}
	c.args = fields
	switch check, ok := docPrograms[fields[0]]; {
	case fields[0] == "talon" || fields[0] == "cd":
		if len(c.vars) > 0 {
			return c, fmt.Errorf("%q sets a variable for %s; only programs of docPrograms take docVars", cmdline, fields[0])
		}
	case !ok:
		return c, fmt.Errorf("console examples run talon, cd or a program of docPrograms, not %q", fields[0])
	default:
		if err := check(fields[1:]); err != nil {
			return c, fmt.Errorf("%q: %w", cmdline, err)
		}
		for _, v := range c.vars {
			if name, _, _ := strings.Cut(v, "="); !slices.Contains(docVars, name) {
				return c, fmt.Errorf("%q sets %s, which is not in docVars", cmdline, name)
			}
		}
	}
	return c, nil
}
