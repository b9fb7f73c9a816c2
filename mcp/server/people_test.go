package server

import (
	"errors"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

// TestCheckPerson: a test process started by a shell passes; the same
// test binary started by itself (standing for a process talon started)
// is refused.
func TestCheckPerson(t *testing.T) {
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		if err := CheckPerson(); !errors.Is(err, ErrRefusedPeer) {
			t.Fatalf("CheckPerson on %s = %v, want a refusal", runtime.GOOS, err)
		}
		return
	}
	if os.Getenv("TALON_CHECK_PERSON_CHILD") == "1" {
		if err := CheckPerson(); err != nil {
			os.Stdout.WriteString("refused: " + err.Error())
		}
		return
	}
	if err := CheckPerson(); err != nil {
		t.Fatalf("the test process itself: %v", err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestCheckPerson$")
	cmd.Env = append(os.Environ(), "TALON_CHECK_PERSON_CHILD=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "refused: "+ErrRefusedPeer.Error()) || !strings.Contains(string(out), "started by") {
		t.Fatalf("a child of talon's executable was not refused: %s", out)
	}
}
