//go:build talon_testtools

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestTaggedScripts runs the scripts that need a binary built with the
// test-only feature "testtools" (go test -tags talon_testtools), and the
// scripts that build talon themselves with other feature tags
// (build-talon, build-hint; skipped under -short).
func TestTaggedScripts(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	b := &featureBuilds{root: root, dir: t.TempDir(), slots: make(chan struct{}, 2)}
	p := scriptParams("testdata/script-tagged")
	p.Cmds["build-talon"] = b.buildTalon
	p.Cmds["build-hint"] = b.buildHint
	testscript.Run(t, p)
}

// featureBuilds compiles talon once per tag set for every script that asks,
// at most two builds at a time.
type featureBuilds struct {
	root, dir string
	slots     chan struct{}
	mu        sync.Mutex
	builds    map[string]*featureBuild
}

type featureBuild struct {
	once sync.Once
	path string
	err  error
}

// build returns the path of talon as cmd (given the output path) builds
// it from the module root; concurrent callers with the same key share one
// build.
func (b *featureBuilds) build(key string, cmd func(out string) *exec.Cmd) (string, error) {
	b.mu.Lock()
	if b.builds == nil {
		b.builds = map[string]*featureBuild{}
	}
	fb := b.builds[key]
	if fb == nil {
		fb = &featureBuild{}
		b.builds[key] = fb
	}
	b.mu.Unlock()
	fb.once.Do(func() {
		b.slots <- struct{}{}
		defer func() { <-b.slots }()
		fb.path = filepath.Join(b.dir, key, "talon")
		c := cmd(fb.path)
		c.Dir = b.root
		var stderr bytes.Buffer
		c.Stderr = &stderr
		if err := c.Run(); err != nil {
			fb.err = &featureBuildError{cmd: strings.Join(c.Args, " "), err: err, stderr: stderr.String()}
		}
	})
	return fb.path, fb.err
}

type featureBuildError struct {
	cmd    string
	err    error
	stderr string
}

func (e *featureBuildError) Error() string {
	return e.cmd + ": " + e.err.Error() + "\n" + e.stderr
}

// buildTalon builds talon with a tag list and links it as $WORK/NAME:
// build-talon NAME [TAGS] (no TAGS: plain go build).
func (b *featureBuilds) buildTalon(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: build-talon NAME [TAGS]")
	}
	goArgs := []string{"build"}
	key := "plain"
	if len(args) == 2 {
		goArgs = append(goArgs, "-tags", args[1])
		key = strings.ReplaceAll(args[1], ",", "+")
	}
	path, err := b.build(key, func(out string) *exec.Cmd {
		return exec.Command("go", append(goArgs, "-o", out, "./cmd/talon")...)
	})
	ts.Check(err)
	ts.Check(os.Symlink(path, ts.MkAbs(args[0])))
}

// hintCommand finds the build command a compiled-out warning quotes.
var hintCommand = regexp.MustCompile("build talon with it from its source tree: `(go build [^`]+) ./cmd/talon`")

// buildHint runs, from the module root, the command the last compiled-out
// warning on stderr tells the operator to run (with -o added), and links
// the result as $WORK/NAME: build-hint NAME.
func (b *featureBuilds) buildHint(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: build-hint NAME")
	}
	m := hintCommand.FindAllStringSubmatch(ts.ReadFile("stderr"), -1)
	if len(m) == 0 {
		ts.Fatalf("no compiled-out warning with a build command on stderr")
	}
	cmdline := m[len(m)-1][1] + " ./cmd/talon"
	// Run the command as an operator's shell would, with -o added.
	path, err := b.build("hint-"+nonWord.ReplaceAllString(cmdline, "_"), func(out string) *exec.Cmd {
		return exec.Command("sh", "-c", "go build -o \"$0\" "+strings.TrimPrefix(cmdline, "go build "), out)
	})
	ts.Check(err)
	ts.Logf("built with %s", cmdline)
	ts.Check(os.Symlink(path, ts.MkAbs(args[0])))
}

var nonWord = regexp.MustCompile(`[^A-Za-z0-9_-]+`)
