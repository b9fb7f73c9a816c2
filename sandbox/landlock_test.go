//go:build linux

package sandbox

import (
	"context"
	"net"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/talonhq/talon/internal/proctest"
)

// needLandlock skips a test on a kernel without Landlock (or below abi).
func needLandlock(t *testing.T, abi int) {
	t.Helper()
	if got := landlockABI(); got < abi {
		t.Skipf("the kernel's Landlock ABI is %d; this test needs %d (%s)", got, abi, unsupportedReason())
	}
}

// configure makes p the process's policy for the rest of the test.
func configure(t *testing.T, p Policy) Status {
	t.Helper()
	prev := active.Load()
	if p.Helper == "" {
		p.Helper = testBinary(t)
	}
	if p.TempRoot == "" {
		p.TempRoot = t.TempDir()
	}
	st := Configure(p)
	t.Cleanup(func() {
		Cleanup()
		active.Store(prev)
		setSubreaper(prev != nil && prev.status.Active && !prev.ns)
	})
	return st
}

func testBinary(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// runProbe runs `probe ACTION ARG` in a child (the test binary) through
// the spawner and returns its status and output.
func runProbe(t *testing.T, action, arg string) (int, string) {
	t.Helper()
	out := runCmd(context.Background(), Cmd{
		Argv:    []string{"probe", HelperCommand, "probe", action, arg},
		Binary:  testBinary(t),
		Timeout: 20 * time.Second,
	}, active.Load(), true)
	if out.Err != nil {
		t.Fatalf("probe %s %s: %v", action, arg, out.Err)
	}
	return out.ExitCode, strings.TrimSpace(out.Stdout + out.Stderr)
}

func writeFile(t *testing.T, path, body string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestProtections proves each protection: every action fails under the
// sandbox and succeeds with mode off, so the sandbox is what stopped it.
func TestProtections(t *testing.T) {
	needLandlock(t, 1)
	ws := t.TempDir()
	home := t.TempDir()
	data := t.TempDir()
	outside := t.TempDir()
	key := writeFile(t, filepath.Join(home, ".ssh", "id_ed25519"), "PRIVATE KEY\n")
	receipt := writeFile(t, filepath.Join(data, "receipts", "000001.jsonl"), "{}\n")
	shared := t.TempDir() // granted read-only, with a secret carved out
	inner := writeFile(t, filepath.Join(shared, ".data", "keys", "receipts.key"), "KEY\n")
	writeFile(t, filepath.Join(shared, "readme"), "shared\n")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			_ = c.Close()
		}
	}()
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	policy := Policy{
		Workspace: ws,
		ReadOnly:  []string{shared},
		Deny:      []string{filepath.Join(home, ".ssh"), data, filepath.Join(shared, ".data")},
	}
	tests := []struct {
		name   string
		abi    int
		action string
		arg    string
		root   bool // also holds for root
	}{
		{name: "write outside the workspace", abi: 1, action: "write", arg: filepath.Join(outside, "escape")},
		{name: "read a key under HOME", abi: 1, action: "read", arg: key},
		{name: "read the data dir", abi: 1, action: "read", arg: receipt},
		{name: "read a secret carved out of a read-only dir", abi: 1, action: "read", arg: inner},
		{name: "write into a read-only dir", abi: 1, action: "write", arg: filepath.Join(shared, "readme")},
		{name: "connect to a port not allowed", abi: 4, action: "connect", arg: port},
		{name: "connect over multipath TCP", abi: 4, action: "mptcp-connect", arg: port},
		{name: "bind", abi: 4, action: "bind", arg: freePort(t)},
		{name: "signal talon", abi: 6, action: "signal", arg: strconv.Itoa(os.Getpid())},
	}
	for _, h := range helpers(t) {
		t.Run(h.name, func(t *testing.T) {
			policy := policy
			policy.NativeHelper = h.native
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					needLandlock(t, tt.abi)
					configure(t, Policy{Mode: Off})
					if code, out := runProbe(t, tt.action, tt.arg); code != 0 {
						t.Fatalf("with mode off: status %d (%s), want the action to succeed", code, out)
					}
					st := configure(t, policy)
					if !st.Active {
						t.Fatalf("sandbox inactive: %s", st.Reason)
					}
					if code, out := runProbe(t, tt.action, tt.arg); code != 1 {
						t.Fatalf("under the sandbox: status %d (%s), want denied", code, out)
					}
				})
			}
		})
	}
}

// TestAllowed checks what the sandbox must keep working.
func TestAllowed(t *testing.T) {
	needLandlock(t, 4)
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "notes.txt"), "alpha\n")
	cfgFile := writeFile(t, filepath.Join(ws, "talon.toml"), "")
	shared := t.TempDir()
	writeFile(t, filepath.Join(shared, ".secret", "k"), "")
	readme := writeFile(t, filepath.Join(shared, "readme"), "shared\n")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			_ = c.Close()
		}
	}()
	port := l.Addr().(*net.TCPAddr).Port
	policy := Policy{Workspace: ws, ReadOnly: []string{shared}, Deny: []string{cfgFile, filepath.Join(shared, ".secret")}, AllowConnectPorts: []int{port}}
	for _, h := range helpers(t) {
		t.Run(h.name, func(t *testing.T) {
			policy := policy
			policy.NativeHelper = h.native
			if st := configure(t, Policy{Workspace: ws, Deny: policy.Deny, noNamespaces: true, NativeHelper: h.native}); len(st.Exposed) != 1 || st.Exposed[0] != cfgFile {
				t.Errorf("without namespaces Exposed = %q, want the config file inside the workspace", st.Exposed)
			}
			st := configure(t, policy)
			if st.Namespaces && len(st.Exposed) != 0 {
				t.Errorf("with namespaces Exposed = %q, want none: the config file is hidden", st.Exposed)
			}
			tests := []struct {
				name, action, arg string
			}{
				{name: "write in the workspace", action: "write", arg: filepath.Join(ws, "made.txt")},
				{name: "read beside a carved-out secret", action: "read", arg: readme},
				{name: "read in the workspace", action: "read", arg: filepath.Join(ws, "notes.txt")},
				{name: "read a system file", action: "read", arg: "/etc/hostname"},
				{name: "connect to an allowed port", action: "connect", arg: strconv.Itoa(port)},
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					if tt.arg == "/etc/hostname" {
						if _, err := os.Stat(tt.arg); err != nil {
							t.Skip("no /etc/hostname")
						}
					}
					if code, out := runProbe(t, tt.action, tt.arg); code != 0 {
						t.Fatalf("status %d (%s), want allowed", code, out)
					}
				})
			}
			t.Run("private TMPDIR", func(t *testing.T) {
				proctest.NeedBins(t, "sh")
				out := Run(context.Background(), Cmd{
					Argv: []string{"sh", "-c", `echo hi > "$TMPDIR/f" && cat "$TMPDIR/f" && echo "$TMPDIR"`},
					Env:  []string{"PATH=/usr/bin:/bin"},
				})
				lines := strings.Fields(out.Stdout)
				if out.ExitCode != 0 || len(lines) != 2 || lines[0] != "hi" {
					t.Fatalf("outcome = %+v", out)
				}
				if _, err := os.Stat(lines[1]); !os.IsNotExist(err) {
					t.Errorf("the call's temp dir %s outlived the call (%v)", lines[1], err)
				}
			})
			t.Run("allow_bind", func(t *testing.T) {
				configure(t, Policy{Workspace: ws, AllowBind: true, NativeHelper: h.native})
				if code, out := runProbe(t, "bind", freePort(t)); code != 0 {
					t.Fatalf("status %d (%s), want allowed", code, out)
				}
			})
			t.Run("UDP with port 53", func(t *testing.T) {
				st := configure(t, Policy{Workspace: ws, AllowConnectPorts: []int{53}, NativeHelper: h.native})
				if !st.UDP {
					t.Errorf("Status.UDP is false with port 53 allowed")
				}
				if code, out := runProbe(t, "udp", ""); code != 0 {
					t.Fatalf("udp: status %d (%s), want allowed", code, out)
				}
				for _, action := range []string{"raw", "packet", "ping", "vsock"} {
					if code, out := runProbe(t, action, ""); code == 0 {
						t.Errorf("%s: status %d (%s), want refused", action, code, out)
					}
				}
			})

		})
	}
}

func TestMaxProcesses(t *testing.T) {
	needLandlock(t, 1)
	if u, err := user.Current(); err == nil && u.Uid == "0" {
		t.Skip("RLIMIT_NPROC does not apply to root; run the tests as another user to prove max_processes")
	}
	configure(t, Policy{Mode: Off})
	if code, out := runProbe(t, "fork", "20"); code != 0 {
		t.Fatalf("with mode off: status %d (%s)", code, out)
	}
	// The limit counts every process of the user, so leave room for what
	// already runs and still fall below 20 more.
	configure(t, Policy{Limits: Limits{Processes: 1}})
	if code, out := runProbe(t, "fork", "20"); code != 1 {
		t.Fatalf("under the sandbox: status %d (%s), want denied", code, out)
	}
}

func TestRequiredRefuses(t *testing.T) {
	prev := active.Load()
	t.Cleanup(func() { active.Store(prev) })
	st := &state{status: Status{Mode: Required}, refuse: ErrUnsandboxed}
	active.Store(st)
	out := Run(context.Background(), Cmd{Argv: []string{"true"}, Binary: "/bin/true"})
	if out.Err != ErrUnsandboxed || out.ExitCode != -1 {
		t.Fatalf("outcome = %+v, want ErrUnsandboxed", out)
	}
	cmd := CommandContext(context.Background(), "/bin/true")
	if err := Start(cmd); err != ErrUnsandboxed {
		t.Fatalf("Start = %v, want ErrUnsandboxed", err)
	}
	if err := Command("/bin/true").Start(); err != ErrUnsandboxed {
		t.Fatalf("Command().Start = %v, want ErrUnsandboxed", err)
	}
}

// freePort returns a TCP port nothing listens on right now.
func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
}

func TestCheck(t *testing.T) {
	needLandlock(t, 1)
	ws := t.TempDir()
	data := t.TempDir()
	writeFile(t, filepath.Join(data, "receipts.key"), "KEY\n")
	for _, m := range mechanisms(t) {
		t.Run(m.name, func(t *testing.T) {
			before := active.Load()
			p := m.policy
			p.Helper, p.Workspace, p.TempRoot = testBinary(t), ws, t.TempDir()
			p.Deny = []string{data, filepath.Join(ws, "talon.toml"), data} // listed twice, proved once
			r, err := Check(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			if !r.Status.Active || !r.OK || r.Status.Namespaces != m.ns {
				t.Fatalf("report = %+v", r)
			}
			listed, exposed := 0, 0
			covered := map[string]bool{}
			for _, pf := range r.Proofs {
				covered[pf.Protection] = true
				if pf.Expected && pf.Control != "allowed" {
					t.Errorf("%s: the control run was %s; the proof shows nothing", pf.Action, pf.Control)
				}
				if strings.Contains(pf.Control+pf.Sandboxed, "error") {
					t.Errorf("%s: control %q, sandboxed %q", pf.Action, pf.Control, pf.Sandboxed)
				}
				if pf.Exposure != "" {
					exposed++
				}
				if strings.HasSuffix(pf.Action, data) {
					listed++
				}
			}
			// Without namespaces: another process's command line, the
			// Unix socket and the protected file.
			if want := map[bool]int{true: 0, false: 3}[m.ns]; exposed != want {
				t.Errorf("%d exposures with namespaces %v, want %d", exposed, m.ns, want)
			}
			if listed != 1 {
				t.Errorf("%d proofs for the denied data dir, want 1: %+v", listed, r.Proofs)
			}
			want := []string{"filesystem", "processes", "sockets", "descendants", "tcp_connect", "tcp_bind", "scoping"}
			if isRoot() {
				want = append(want, "privileges")
			}
			for _, w := range want {
				if !covered[w] {
					t.Errorf("no proof of %s", w)
				}
			}
			if m.ns == (len(r.Status.Exposed) == 1) {
				t.Errorf("Exposed = %q with namespaces %v; want the config file inside the workspace without them only", r.Status.Exposed, m.ns)
			}
			if active.Load() != before {
				t.Errorf("Check changed the process's policy")
			}
		})
	}
}
