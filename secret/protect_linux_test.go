package secret_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/talonhq/talon/config"
	"github.com/talonhq/talon/secret"
)

// roleEnv makes the test binary play a part (see init): "protected" is a
// talon-like process that calls Protect and reports what its children
// could read; "reader" prints the environment block of its parent.
const roleEnv = "TALON_PROTECT_TEST_ROLE"

func init() {
	switch os.Getenv(roleEnv) {
	case "":
		return
	case "protected":
		os.Exit(runProtected())
	case "reader":
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", os.Getppid()))
		if err != nil {
			fmt.Print("error: ", err)
			os.Exit(1)
		}
		fmt.Print(strings.Join(strings.FieldsFunc(string(b), func(r rune) bool { return r == 0 }), "\n"))
		os.Exit(0)
	}
	os.Exit(2)
}

// protectedReport is what the protected process saw.
type protectedReport struct {
	// A child reading its parent's environ before Protect, after it, after
	// Seal, and after a second Protect that takes LATER_VALUE.
	Before, AfterProtect, AfterSeal, AfterReload string
	Inherited                                    string // the environment a child inherits after Protect
	Getenv, Lookup, Expanded, Later              string
	ProtectErr, SealErr, ReloadErr, ExpandErr    string
	Removed                                      []string
	// A child started in a user namespace of its own before and after
	// Protect: "" when it ran.
	UserNSBefore, UserNSAfter string
}

// readParent runs a child that prints its parent's /proc/<pid>/environ.
func readParent() string {
	exe, _ := os.Executable()
	cmd := exec.Command(exe)
	cmd.Env = []string{roleEnv + "=reader"}
	out, _ := cmd.CombinedOutput()
	return string(out)
}

// inUserNS starts /bin/true in new user, PID and mount namespaces, as
// the sandbox starts its helper when talon is not root.
func inUserNS() string {
	cmd := exec.Command("/bin/true")
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWUSER | syscall.CLONE_NEWPID | syscall.CLONE_NEWNS,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: os.Getuid(), HostID: os.Getuid(), Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: os.Getgid(), HostID: os.Getgid(), Size: 1}}}
	if err := cmd.Run(); err != nil {
		return err.Error()
	}
	return ""
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func runProtected() int {
	var r protectedReport
	r.Before = readParent()
	r.UserNSBefore = inUserNS()
	r.ProtectErr = errText(secret.Protect([]string{"CONFIGURED_SECRET", "HOME"}))
	r.Removed = secret.Removed()
	r.AfterProtect = readParent()
	r.UserNSAfter = inUserNS()
	out, _ := exec.Command("/usr/bin/env").Output() // inherits the process environment
	r.Inherited = string(out)
	r.SealErr = errText(secret.Seal())
	r.AfterSeal = readParent()
	// A reloaded configuration names one more variable.
	r.ReloadErr = errText(secret.Protect([]string{"LATER_VALUE"}))
	r.AfterReload = readParent()
	r.Later = secret.Getenv("LATER_VALUE")
	r.Getenv = os.Getenv("GITHUB_TOKEN")
	r.Lookup = secret.Getenv("GITHUB_TOKEN")
	v, _, err := config.ExpandVars("Bearer ${GITHUB_TOKEN} ${CONFIGURED_SECRET}", os.LookupEnv)
	r.Expanded = v
	r.ExpandErr = errText(err)
	_ = json.NewEncoder(os.Stdout).Encode(r)
	return 0
}

// TestProtect starts a process with secrets in its environment and checks
// what its children can read of them before and after it calls Protect,
// then Seal, then Protect again with one more name.
//
// After Protect a child reads the environment block with the secrets
// overwritten and the rest intact, and can still be started in a user
// namespace of its own. After Seal a reader of the same user is refused
// the block; a root reader holding every capability the target holds
// reads it anyway (CAP_SYS_PTRACE, and on some kernels the capability
// subset alone), and finds the later secret overwritten too.
func TestProtect(t *testing.T) {
	if _, err := os.Stat("/usr/bin/env"); err != nil {
		t.Skip("no /usr/bin/env")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	root := os.Geteuid() == 0
	sameUser := []string{exe}
	if root {
		// Run as nobody, from a copy of the test binary nobody may execute.
		setpriv, err := exec.LookPath("setpriv")
		if err != nil {
			t.Skip("no setpriv to run the test as another user")
		}
		sameUser = []string{setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", "--", publicCopy(t, exe)}
	}
	tests := []struct {
		name     string
		argv     []string
		skip     bool
		readable bool // the block stays readable after Seal
	}{
		{name: "root reader with every capability", argv: []string{exe}, skip: !root, readable: true},
		{name: "reader of the same user", argv: sameUser},
	}
	secrets := []string{"ghp-secret-0001", "serve-secret-0002", "sk-secret-0003", "cfg-secret-0004"}
	kept := []string{"VISIBLE=plain-value", "HOME=/home/op", "PATH=", "LATER_VALUE=later-secret-0005"}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.skip {
				t.Skip("needs root")
			}
			cmd := exec.Command(tt.argv[0], tt.argv[1:]...)
			cmd.Env = []string{
				roleEnv + "=protected", "PATH=" + os.Getenv("PATH"), "HOME=/home/op", "VISIBLE=plain-value",
				"GITHUB_TOKEN=ghp-secret-0001", "TALON_SERVE_TOKEN=serve-secret-0002", "OPENAI_API_KEY=sk-secret-0003",
				"CONFIGURED_SECRET=cfg-secret-0004", "LATER_VALUE=later-secret-0005",
			}
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("protected process: %v\n%s", err, out)
			}
			var r protectedReport
			if err := json.Unmarshal(out, &r); err != nil {
				t.Fatalf("report %q: %v", out, err)
			}
			if r.ProtectErr != "" || r.SealErr != "" || r.ReloadErr != "" {
				t.Fatalf("Protect: %q, Seal: %q, Protect again: %q", r.ProtectErr, r.SealErr, r.ReloadErr)
			}
			for _, s := range secrets {
				// The reader proves it could read the secret without Protect.
				if !strings.Contains(r.Before, s) {
					t.Fatalf("before Protect the child could not read %s:\n%s", s, r.Before)
				}
				if strings.Contains(r.AfterProtect, s) || strings.Contains(r.AfterSeal, s) || strings.Contains(r.Inherited, s) {
					t.Errorf("after Protect a child still reads %s:\nfrom /proc:\n%s\nafter Seal:\n%s\ninherited:\n%s", s, r.AfterProtect, r.AfterSeal, r.Inherited)
				}
			}
			for _, k := range kept {
				if !strings.Contains(r.AfterProtect, k) {
					t.Errorf("Protect hid %s:\n%s", k, r.AfterProtect)
				}
			}
			if tt.readable {
				if strings.Contains(r.AfterReload, "later-secret-0005") || !strings.Contains(r.AfterReload, "VISIBLE=plain-value") {
					t.Errorf("after Seal, Protect did not overwrite LATER_VALUE alone:\n%s", r.AfterReload)
				}
			} else if !strings.Contains(r.AfterSeal, "permission denied") {
				t.Errorf("a child of the same user read the sealed parent's environ:\n%s", r.AfterSeal)
			}
			if r.UserNSBefore == "" && r.UserNSAfter != "" {
				t.Errorf("after Protect a child can no longer start in a user namespace of its own: %s", r.UserNSAfter)
			}
			want := []string{"CONFIGURED_SECRET", "GITHUB_TOKEN", "OPENAI_API_KEY", "TALON_SERVE_TOKEN"}
			if strings.Join(r.Removed, ",") != strings.Join(want, ",") {
				t.Errorf("Removed after the first Protect = %q, want %q (HOME is ordinary, VISIBLE no secret)", r.Removed, want)
			}
			if r.Getenv != "" || r.Lookup != "ghp-secret-0001" || r.Later != "later-secret-0005" {
				t.Errorf("os.Getenv = %q, secret.Getenv = %q, LATER_VALUE = %q", r.Getenv, r.Lookup, r.Later)
			}
			if r.Expanded != "Bearer ghp-secret-0001 cfg-secret-0004" || r.ExpandErr != "" {
				t.Errorf("ExpandVars after Protect = %q, %s", r.Expanded, r.ExpandErr)
			}
		})
	}
}

// publicCopy copies the test binary where every user may execute it.
func publicCopy(t *testing.T, exe string) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "talon-secret-test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	data, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "secret.test")
	if err := os.WriteFile(p, data, 0o755); err != nil { //nolint:gosec // an executable, for another user
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil { //nolint:gosec // as above
		t.Fatal(err)
	}
	return p
}
