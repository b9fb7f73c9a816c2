//go:build linux

package main

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
)

// talonOnTTY starts talon (this test binary re-executed) with its standard
// input, output and error on a pseudo-terminal.
func talonOnTTY(t *testing.T, dir string, args ...string) (*exec.Cmd, *os.File) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Dir = dir
	// HOME is beside the workspace: talon refuses a workspace that is
	// HOME or holds its data.
	home := dir + ".home"
	cmd.Env = []string{"TALON_TEST_AS_TALON=1", "HOME=" + home, "XDG_DATA_HOME=" + filepath.Join(home, ".data"), "PATH=" + os.Getenv("PATH")}
	f, err := pty.Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Close(); _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd, f
}

// expect reads the terminal until want appears or the deadline passes.
func expect(t *testing.T, r *bufio.Reader, want string) string {
	t.Helper()
	var seen strings.Builder
	deadline := time.Now().Add(20 * time.Second)
	buf := make([]byte, 1)
	for time.Now().Before(deadline) {
		n, err := r.Read(buf)
		if n > 0 {
			seen.Write(buf[:n])
			if strings.Contains(seen.String(), want) {
				return seen.String()
			}
		}
		if err != nil {
			break
		}
	}
	t.Fatalf("terminal never showed %q; it showed:\n%s", want, seen.String())
	return ""
}

func exitCode(t *testing.T, cmd *exec.Cmd, f *os.File) int {
	t.Helper()
	go func() { _, _ = io.Copy(io.Discard, f) }()
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0
}

// TestTTYApprovals drives the terminal approver: under supervised a medium
// call asks on a terminal and runs only on "yes".
func TestTTYApprovals(t *testing.T) {
	tests := []struct {
		name     string
		config   string
		answer   string
		wantCode int
		written  bool
		noPrompt bool
	}{
		{name: "yes writes", answer: "y\n", wantCode: 0, written: true},
		{name: "no is denied by user", answer: "n\n", wantCode: 4},
		{name: "always writes", answer: "a\n", wantCode: 0, written: true},
		{name: "eof is no", answer: "\x04", wantCode: 4},
		{name: "full runs without asking", config: "[risk_profiles.default]\nlevel = \"full\"\n", wantCode: 0, written: true, noPrompt: true},
		{name: "always_ask asks under full", config: "[risk_profiles.default]\nlevel = \"full\"\nalways_ask = [\"file_write\"]\n", answer: "n\n", wantCode: 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if tt.config != "" {
				if err := os.WriteFile(filepath.Join(dir, "talon.toml"), []byte(tt.config), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			cmd, f := talonOnTTY(t, dir, "tools", "call", "file_write", `{"path":"out.txt","content":"hello"}`)
			r := bufio.NewReader(f)
			if !tt.noPrompt {
				screen := expect(t, r, "[y]es / [n]o / [a]lways for this session")
				for _, want := range []string{"file_write (builtin.file_write)", "tier:   medium", "out.txt"} {
					if !strings.Contains(screen, want) {
						t.Errorf("prompt lacks %q:\n%s", want, screen)
					}
				}
				if _, err := f.WriteString(tt.answer); err != nil {
					t.Fatal(err)
				}
				if tt.wantCode == 4 && tt.answer != "\x04" {
					expect(t, r, "Denied by user.")
				}
			}
			if code := exitCode(t, cmd, f); code != tt.wantCode {
				t.Fatalf("exit %d, want %d", code, tt.wantCode)
			}
			_, err := os.Stat(filepath.Join(dir, "out.txt"))
			if written := err == nil; written != tt.written {
				t.Fatalf("written = %v, want %v", written, tt.written)
			}
		})
	}
}
