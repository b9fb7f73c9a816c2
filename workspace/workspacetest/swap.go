package workspacetest

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// envA and envB carry the two paths to a re-executed test binary.
const (
	envA = "TALON_WORKSPACETEST_SWAP_A"
	envB = "TALON_WORKSPACETEST_SWAP_B"
)

// Main runs the tests, or, in a process [Swap] started, the swap loop.
func Main(m *testing.M) {
	if a, b := os.Getenv(envA), os.Getenv(envB); a != "" && b != "" {
		os.Exit(swapLoop(a, b))
	}
	os.Exit(m.Run())
}

// Swap starts a process that exchanges the entries a and b atomically, as
// fast as it can, until the test ends, and returns once the first exchange
// happened. It skips the test where atomic exchange is not available.
func Swap(tb testing.TB, a, b string) {
	tb.Helper()
	if !supported {
		tb.Skip("atomic rename exchange (renameat2 RENAME_EXCHANGE) is Linux-only")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envA+"="+a, envB+"="+b)
	cmd.Stderr = os.Stderr
	setDeathSignal(cmd)
	out, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatalf("start the swapping process: %v", err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || strings.TrimSpace(line) != "swapping" {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		tb.Fatalf("the swapping process did not start: %q, %v", line, err)
	}
	tb.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
}

// swapLoop exchanges a and b until killed; it reports the first exchange
// on stdout.
func swapLoop(a, b string) int {
	if err := exchange(a, b); err != nil {
		fmt.Fprintf(os.Stderr, "workspacetest: exchange %s %s: %v\n", a, b, err)
		return 1
	}
	fmt.Println("swapping")
	for {
		if err := exchange(a, b); err != nil {
			fmt.Fprintf(os.Stderr, "workspacetest: exchange %s %s: %v\n", a, b, err)
			return 1
		}
	}
}
