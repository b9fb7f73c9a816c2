package main

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/shell"

	"github.com/talonhq/talon/cli"
)

// docBlock is one ```console block of a document: commands starting with
// "$ talon", each followed by lines its output must contain.
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

type docCmd struct {
	line     int
	args     []string
	wantExit int
	want     []string
}

// TestDocExamples runs every console example in the README and docs/, so a
// documented command that stops working fails the build. Each block runs in
// a fresh workspace holding a copy of the README; expected lines are matched
// with runs of white space folded.
func TestDocExamples(t *testing.T) {
	files, _ := filepath.Glob("../../docs/*.md")
	files = append([]string{"../../README.md"}, files...)
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		for _, b := range parseDocBlocks(t, f) {
			n += len(b.cmds)
			t.Run(filepath.Base(f)+":"+strconv.Itoa(b.line), func(t *testing.T) {
				// The workspace is a project under HOME, as on an
				// operator's machine: HOME itself would be refused.
				home := t.TempDir()
				ws := filepath.Join(home, "project")
				if err := os.MkdirAll(ws, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(ws, "README.md"), readme, 0o644); err != nil {
					t.Fatal(err)
				}
				model := startDocModel(t, filepath.Base(f))
				for _, df := range b.files {
					p := filepath.Join(ws, df.path)
					if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(p, []byte(model.replace(df.text)), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				for _, c := range b.cmds {
					for i := range c.args {
						c.args[i] = model.replace(c.args[i])
					}
					runDocCmd(t, b.file, home, ws, c)
				}
			})
		}
	}
	if n < 5 {
		t.Fatalf("found only %d documented commands; the parser is probably broken", n)
	}
}

func runDocCmd(t *testing.T, file, home, ws string, c docCmd) {
	t.Helper()
	var out bytes.Buffer
	env := map[string]string{
		"HOME":            home,
		"XDG_CONFIG_HOME": filepath.Join(home, ".config"),
		"XDG_DATA_HOME":   filepath.Join(home, ".local", "share"),
	}
	code := cli.Main(c.args, cli.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &out, Cwd: ws,
		Getenv: func(k string) string { return env[k] }})
	if code != c.wantExit {
		t.Fatalf("%s:%d: talon %s exited %d, want %d:\n%s", file, c.line, strings.Join(c.args, " "), code, c.wantExit, out.String())
	}
	got := fold(out.String())
	for _, w := range c.want {
		if !strings.Contains(got, fold(w)) {
			t.Errorf("%s:%d: output of talon %s lacks %q:\n%s", file, c.line, strings.Join(c.args, " "), w, out.String())
		}
	}
}

func fold(s string) string { return strings.Join(strings.Fields(s), " ") }

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
			blocks = append(blocks, *cur)
			cur = nil
		case cur != nil && strings.HasPrefix(line, "$ "):
			cmdline, exit := strings.TrimPrefix(line, "$ "), 0
			if i := strings.Index(cmdline, " # exit "); i >= 0 {
				exit, err = strconv.Atoi(strings.TrimSpace(cmdline[i+len(" # exit "):]))
				if err != nil {
					t.Fatalf("%s:%d: bad exit annotation", path, ln)
				}
				cmdline = cmdline[:i]
			}
			fields, err := shell.Fields(cmdline, func(string) string { return "" })
			if err != nil || len(fields) == 0 || fields[0] != "talon" {
				t.Fatalf("%s:%d: console examples must be talon commands: %q (%v)", path, ln, cmdline, err)
			}
			cur.cmds = append(cur.cmds, docCmd{line: ln, args: fields[1:], wantExit: exit})
		case cur != nil && strings.TrimSpace(line) != "" && len(cur.cmds) > 0:
			c := &cur.cmds[len(cur.cmds)-1]
			c.want = append(c.want, line)
		}
	}
	return blocks
}
