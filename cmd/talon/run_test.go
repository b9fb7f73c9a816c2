package main

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMakeRunScript runs what `make run LISTEN=... ARGS=...` runs: the
// script starts talon serve on the embedded defaults at the address asked
// for, prints the banner, and stops cleanly on Ctrl-C.
func TestMakeRunScript(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	cmd := exec.Command(filepath.Join(root, "scripts", "run.sh"), exe, "--log-level", "warn")
	cmd.Dir = root
	cmd.Env = []string{
		"TALON_TEST_AS_TALON=1", "LISTEN=127.0.0.1:0",
		"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "XDG_DATA_HOME=" + filepath.Join(home, ".data"),
		"PATH=" + os.Getenv("PATH"),
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill() }()
	lines := make(chan string, 256)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	var banner []string
	deadline := time.After(60 * time.Second)
	for !strings.Contains(strings.Join(banner, "\n"), "over stdio, the client starts talon itself:") {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("talon exited before its banner:\n%s", strings.Join(banner, "\n"))
			}
			banner = append(banner, l)
		case <-deadline:
			t.Fatalf("no banner:\n%s", strings.Join(banner, "\n"))
		}
	}
	text := strings.Join(banner, "\n")
	for _, want := range []string{"  url:       http://127.0.0.1:", "  workspace: " + root, "  catalog:   "} {
		if !strings.Contains(text, want) {
			t.Errorf("the banner lacks %q:\n%s", want, text)
		}
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	go func() { _, _ = io.Copy(io.Discard, stderr) }()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("talon did not stop cleanly on Ctrl-C: %v", err)
	}
}
