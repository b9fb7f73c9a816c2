package process

import (
	"bufio"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// startHost starts the test binary as an orphan-test host and returns its
// plugin's pid and a function that SIGKILLs the host.
func startHost(t *testing.T, self, spec, tmp string) (int, func()) {
	t.Helper()
	cmd := exec.Command(self, "-test.run=^$")
	cmd.Env = append(os.Environ(), envHost+"="+spec, "TMPDIR="+tmp)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "PID "); ok {
			pid, err := strconv.Atoi(rest)
			if err != nil {
				t.Fatal(err)
			}
			return pid, func() {
				if err := cmd.Process.Kill(); err != nil {
					t.Fatal(err)
				}
				_ = cmd.Wait()
			}
		}
	}
	_ = cmd.Wait()
	t.Fatalf("the host exited without starting its plugin")
	return 0, nil
}
