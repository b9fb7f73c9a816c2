//go:build linux

package sandbox

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/talonhq/talon/internal/proctest"
)

// marker returns a string no other process holds by chance.
func marker(t *testing.T) string {
	t.Helper()
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return "talon-marker-" + hex.EncodeToString(b)
}

// holder is a process outside the sandbox standing for talon: it holds a
// marker in its environment, its argv and its memory, and a file open.
type holder struct {
	pid          int
	marker, addr string
	file         string
}

func startHolder(t *testing.T) holder {
	t.Helper()
	h := holder{marker: marker(t), file: filepath.Join(t.TempDir(), "held")}
	if err := os.WriteFile(h.file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(testBinary(t), HelperCommand, "probe", "hold", h.marker, h.file)
	cmd.Env = []string{"TALON_SERVE_TOKEN=" + h.marker}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = stdin.Close()
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("the holder did not start: %v", err)
	}
	h.pid, h.addr = cmd.Process.Pid, strings.TrimSpace(line)
	return h
}

// ownEnvironEntry returns the first entry of this process's initial
// environment, what /proc/self/environ shows of it.
func ownEnvironEntry(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("/proc/self/environ")
	if err != nil || len(b) == 0 {
		t.Skip("this process has no environment to find")
	}
	return strings.SplitN(string(b), "\x00", 2)[0]
}

func isRoot() bool { return os.Geteuid() == 0 }

// TestContainment proves each protection of issue 14 with a real child:
// every action succeeds with mode off and is refused under the sandbox,
// so the sandbox is what stopped it.
func TestContainment(t *testing.T) {
	needLandlock(t, 1)
	h := startHolder(t)
	ws := t.TempDir()
	denied := t.TempDir()
	sock := filepath.Join(denied, "serve", "4242.sock")
	if err := os.MkdirAll(filepath.Dir(sock), 0o700); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("unix", sock)
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
	secret := writeFile(t, filepath.Join(ws, "talon.toml"), "token = \"x\"\n")
	protected := writeFile(t, filepath.Join(ws, ".git", "config"), "[core]\n")
	self := strconv.Itoa(os.Getpid())
	hp := strconv.Itoa(h.pid)
	tests := []struct {
		name string
		args []string
		root bool // the control needs root's capabilities
		ns   bool // only namespaces stop it
	}{
		{name: "read talon's environment", args: []string{"environ", self, ownEnvironEntry(t)}},
		{name: "read another process's environment", args: []string{"environ", hp, "TALON_SERVE_TOKEN=" + h.marker}},
		{name: "read another process's command line", args: []string{"cmdline", hp, h.marker}, ns: true},
		{name: "read another process's memory", args: []string{"mem", hp, h.addr, h.marker}},
		{name: "see another process's open files", args: []string{"fd", hp, h.file}},
		{name: "connect to a socket under a denied directory", args: []string{"unix", sock}, ns: true},
		{name: "read a denied file inside the workspace", args: []string{"read", secret}, ns: true},
		{name: "change a protected file", args: []string{"write", protected}, ns: true},
		{name: "move a protected file's directory away", args: []string{"rename", filepath.Dir(protected), filepath.Join(ws, "moved")}, ns: true},
		{name: "open a vsock socket", args: []string{"vsock"}},
		{name: "open a UDP socket", args: []string{"udp"}},
		{name: "open a raw socket", args: []string{"raw"}, root: true},
		{name: "open a packet socket", args: []string{"packet"}, root: true},
		{name: "use CAP_SYS_TIME", args: []string{"adjtime"}, root: true},
		{name: "use CAP_MKNOD", args: []string{"mknod", filepath.Join(ws, "null")}, root: true},
		{name: "hold any capability", args: []string{"caps"}, root: true},
	}
	for _, m := range mechanisms(t) {
		t.Run(m.name, func(t *testing.T) {
			policy := m.policy
			policy.Workspace, policy.Deny, policy.Protect = ws, []string{denied, secret}, []string{protected}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					if tt.root && !isRoot() {
						t.Skip("the control needs root")
					}
					if tt.ns && !m.ns {
						t.Skip("only namespaces stop it")
					}
					if tt.args[0] == "vsock" && !vsockExists() {
						t.Skip("no vsock here")
					}
					configure(t, Policy{Mode: Off})
					if code, out := runProbeArgs(t, tt.args...); code != 0 {
						t.Fatalf("with mode off: status %d (%s), want the action to succeed", code, out)
					}
					st := configure(t, policy)
					if !st.Active || st.Namespaces != m.ns {
						t.Fatalf("status = %+v, want active with namespaces %v", st, m.ns)
					}
					if code, out := runProbeArgs(t, tt.args...); code != 1 {
						t.Fatalf("under the sandbox: status %d (%s), want denied", code, out)
					}
				})
			}
		})
	}
}

// mechanism is one way the sandbox confines children.
type mechanism struct {
	name   string
	policy Policy
	ns     bool
}

// mechanisms are the ways this machine can confine children: namespaces
// (as root also with a user namespace, the way talon runs as another
// user) and Landlock alone, each with both helpers: talon re-executed and
// talon-sandbox (see nativeHelper). Under the race detector only the one
// talon would use is tried, with each helper.
func mechanisms(t *testing.T) []mechanism {
	t.Helper()
	ms := []mechanism{{name: "landlock only", policy: Policy{noNamespaces: true}}}
	if ok, reason := probeNamespaces(testBinary(t), useUserNS()); ok {
		ms = append(ms, mechanism{name: "namespaces", ns: true})
	} else {
		t.Logf("no namespaces here: %s", reason)
	}
	if raceEnabled {
		ms = ms[len(ms)-1:]
	} else if isRoot() {
		if ok, _ := probeNamespaces(testBinary(t), true); ok {
			ms = append(ms, mechanism{name: "user namespace", policy: Policy{userNS: true}, ns: true})
		}
	}
	native, why := nativeHelper()
	if native == "" {
		t.Logf("talon-sandbox is not tried: %s", why)
	}
	out := make([]mechanism, 0, 2*len(ms))
	for _, m := range ms {
		m.policy.NativeHelper = HelperBuiltin
		out = append(out, m)
		if native != "" {
			m.name, m.policy.NativeHelper = "native "+m.name, native
			out = append(out, m)
		}
	}
	return out
}

func vsockExists() bool {
	_, err := os.Stat("/dev/vsock")
	return err == nil
}

// runProbeArgs is runProbe with any number of arguments.
func runProbeArgs(t *testing.T, args ...string) (int, string) {
	t.Helper()
	out := runCmd(context.Background(), Cmd{
		Argv:    append([]string{"probe", HelperCommand, "probe"}, args...),
		Binary:  testBinary(t),
		Timeout: 20 * time.Second,
	}, active.Load(), true)
	if out.Err != nil {
		t.Fatalf("probe %q: %v", args, out.Err)
	}
	return out.ExitCode, strings.TrimSpace(out.Stdout + out.Stderr)
}

func killAll(pids []int) {
	for _, p := range pids {
		_ = syscall.Kill(p, syscall.SIGKILL)
	}
}

// TestDescendantsDie starts processes that leave the call's process group
// the ways a daemon does, each known to be running before the call ends:
// with mode off they outlive the call, under the sandbox nothing does.
func TestDescendantsDie(t *testing.T) {
	needLandlock(t, 1)
	proctest.NeedBins(t, "sh", "setsid", "nohup", "sleep")
	// The survivor says it runs before the program goes on; its command
	// line carries the marker.
	survivor := `setsid sh -c 'touch "$READY"; exec sleep 300 "$1"' sh "$MARK"`
	waitReady := "while [ ! -e \"$READY\" ]; do :; done\n"
	tests := []descendantCase{
		{name: "setsid", script: survivor + " &\n" + waitReady},
		{name: "setsid, then the timeout", script: survivor + " &\n" + waitReady + "exec sleep 300\n", timeout: 300 * time.Millisecond},
		{name: "double fork", script: "( " + survivor + " & ) &\n" + waitReady},
		{name: "nohup", script: "nohup " + survivor + " >/dev/null 2>&1 &\n" + waitReady},
		{name: "double fork and setsid, in Go", probe: []string{"detach", "double"}},
	}
	ws := t.TempDir()
	for _, m := range mechanisms(t) {
		t.Run(m.name, func(t *testing.T) {
			policy := m.policy
			policy.Workspace = ws
			testDescendants(t, policy, tests, ws)
		})
	}
}

// descendantCase leaves a process behind, from a script or (probe) a Go
// program.
type descendantCase struct {
	name    string
	script  string
	timeout time.Duration
	probe   []string
}

func testDescendants(t *testing.T, policy Policy, tests []descendantCase, ws string) {
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := func(t *testing.T) []int {
				t.Helper()
				// sleep adds up its operands, so a tiny unique one marks it.
				mark := "0.000" + strings.TrimPrefix(fmt.Sprint(time.Now().UnixNano()%1e9+1e9), "1")
				ready := filepath.Join(ws, mark)
				cmd := Cmd{Dir: ws, Env: []string{"PATH=/usr/bin:/bin", "READY=" + ready, "MARK=" + mark}, Timeout: tt.timeout}
				if tt.probe != nil {
					cmd.Argv, cmd.Binary = append([]string{"probe", HelperCommand, "probe"}, append(tt.probe, mark)...), testBinary(t)
				} else {
					cmd.Argv, cmd.Binary = []string{"daemon"}, proctest.Script(t, t.TempDir(), "daemon.sh", tt.script)
				}
				out := runCmd(context.Background(), cmd, active.Load(), true)
				if out.Err != nil {
					t.Fatalf("outcome = %+v", out)
				}
				left := survivors(mark)
				t.Cleanup(func() { killAll(left) })
				return left
			}
			configure(t, Policy{Mode: Off})
			if left := run(t); len(left) == 0 {
				t.Fatalf("with mode off nothing survived the call; the test proves nothing")
			}
			if st := configure(t, policy); !st.Active {
				t.Fatalf("sandbox inactive: %s", st.Reason)
			}
			if left := run(t); len(left) != 0 {
				t.Fatalf("under the sandbox pids %v survived the call", left)
			}
		})
	}
}

// TestRefusesTalon: the spawner never starts talon's own binary as a
// tool process, sandbox or not.
func TestRefusesTalon(t *testing.T) {
	exe := testBinary(t)
	link := filepath.Join(t.TempDir(), "talon")
	if err := os.Symlink(exe, link); err != nil {
		t.Fatal(err)
	}
	for _, p := range []Policy{{Mode: Off}, {Workspace: t.TempDir()}} {
		t.Run(p.Mode.String(), func(t *testing.T) {
			configure(t, p)
			for _, bin := range []string{exe, link} {
				// Should it run, the test binary runs no test and exits.
				out := Run(context.Background(), Cmd{Argv: []string{"talon", "-test.run=^$"}, Binary: bin})
				if !errors.Is(out.Err, ErrTalonBinary) || out.ExitCode != -1 {
					t.Errorf("Run(%s) = %+v, want ErrTalonBinary", bin, out)
				}
				cmd := CommandContext(context.Background(), bin, "-test.run=^$")
				if err := Start(cmd); !errors.Is(err, ErrTalonBinary) {
					t.Errorf("Start(%s) = %v, want ErrTalonBinary", bin, err)
					_ = cmd.Wait()
				}
			}
			if out := Run(context.Background(), Cmd{Argv: []string{"true"}, Binary: "/bin/true"}); out.Err != nil || out.ExitCode != 0 {
				t.Errorf("another program: %+v", out)
			}
		})
	}
}

// TestSignalsForwarded: a signal sent to the child reaches the program,
// which as PID 1 of its namespace would ignore any it has no handler for
// if the helper did not stay as its init and pass it on.
func TestSignalsForwarded(t *testing.T) {
	needLandlock(t, 1)
	proctest.NeedBins(t, "sh", "sleep")
	script := proctest.Script(t, t.TempDir(), "traps.sh", `for s in TERM INT HUP QUIT USR1 USR2 WINCH; do trap "echo got $s; exit 7" $s; done
echo ready
while :; do sleep 0.05; done
`)
	sigs := []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGWINCH}
	for _, m := range append([]mechanism{{name: "off", policy: Policy{Mode: Off}}}, mechanisms(t)...) {
		t.Run(m.name, func(t *testing.T) {
			p := m.policy
			p.Workspace = t.TempDir()
			configure(t, p)
			for _, sig := range sigs {
				if p.Mode == Off && ignoredHere(t, sig) {
					// A program inherits the signals its parent ignores and
					// a shell cannot trap one ignored on entry; the other
					// mechanisms' helpers catch and forward it.
					t.Logf("%v: ignored by this test process (started under nohup?), so by the program too", sig)
					continue
				}
				cmd := CommandContext(context.Background(), script)
				cmd.Env = []string{"PATH=/usr/bin:/bin"}
				out, err := cmd.StdoutPipe()
				if err != nil {
					t.Fatal(err)
				}
				if err := Start(cmd); err != nil {
					t.Fatal(err)
				}
				r := bufio.NewReader(out)
				if line, _ := r.ReadString('\n'); line != "ready\n" {
					_ = KillGroup(cmd.Process)
					_ = cmd.Wait()
					t.Fatalf("%v: the program said %q", sig, line)
				}
				_ = cmd.Process.Signal(sig)
				// A signal that never arrives fails the test instead of
				// hanging it.
				stop := time.AfterFunc(time.Minute, func() { _ = KillGroup(cmd.Process) })
				line, _ := r.ReadString('\n')
				_ = cmd.Wait()
				stop.Stop()
				if want := "got " + strings.TrimPrefix(unixSignalName(sig), "SIG") + "\n"; line != want || cmd.ProcessState.ExitCode() != 7 {
					t.Errorf("%v: the program said %q and exited %d, want %q and 7", sig, line, cmd.ProcessState.ExitCode(), want)
				}
			}
		})
	}
}

// ignoredHere says whether this process ignores sig (SigIgn in
// /proc/self/status), as it does SIGHUP under nohup.
func ignoredHere(t *testing.T, sig syscall.Signal) bool {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "SigIgn:"); ok {
			mask, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
			if err != nil {
				t.Fatal(err)
			}
			return mask&(1<<(uint(sig)-1)) != 0
		}
	}
	t.Fatal("no SigIgn line in /proc/self/status")
	return false
}

func unixSignalName(s syscall.Signal) string {
	return map[syscall.Signal]string{
		syscall.SIGTERM: "SIGTERM", syscall.SIGINT: "SIGINT", syscall.SIGHUP: "SIGHUP", syscall.SIGQUIT: "SIGQUIT",
		syscall.SIGUSR1: "SIGUSR1", syscall.SIGUSR2: "SIGUSR2", syscall.SIGWINCH: "SIGWINCH",
	}[s]
}

// TestExitStatus: the helper exits with the program's status, and with
// 128+N when signal N ended it, as a shell reports it.
func TestExitStatus(t *testing.T) {
	needLandlock(t, 1)
	proctest.NeedBins(t, "sh")
	for _, m := range append([]mechanism{{name: "off", policy: Policy{Mode: Off}}}, mechanisms(t)...) {
		t.Run(m.name, func(t *testing.T) {
			p := m.policy
			p.Workspace = t.TempDir()
			configure(t, p)
			for script, want := range map[string]int{"exit 3": 3, "kill -TERM $$": 143, "kill -KILL $$": 137, "true": 0} {
				out := Run(context.Background(), Cmd{Argv: []string{"sh", "-c", script}, Binary: "/bin/sh"})
				if out.Err != nil || out.ExitCode != want {
					t.Errorf("%s: outcome = %+v, want exit %d", script, out, want)
				}
			}
		})
	}
}

// TestStartOptions: a parent-death signal (background processes set one)
// and a raised niceness still work under the helper.
func TestStartOptions(t *testing.T) {
	needLandlock(t, 1)
	proctest.NeedBins(t, "sh", "cut")
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	base := niceOf(t, "/proc/thread-self/stat")
	for _, m := range append([]mechanism{{name: "off", policy: Policy{Mode: Off}}}, mechanisms(t)...) {
		t.Run(m.name, func(t *testing.T) {
			p := m.policy
			p.Workspace = t.TempDir()
			configure(t, p)
			for _, tt := range []struct {
				name  string
				death bool
				nice  int
			}{{"parent-death signal", true, 0}, {"nice", false, 3}, {"both", true, 2}} {
				if tt.name == "both" && m.name == "off" {
					continue // reniced just after the start: the program may run first
				}
				cmd := CommandContext(context.Background(), "/bin/sh", "-c", "cut -d' ' -f19 /proc/self/stat")
				cmd.Env = []string{"PATH=/usr/bin:/bin"}
				if tt.death {
					cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
				}
				var stdout strings.Builder
				cmd.Stdout = &stdout
				if err := StartNice(cmd, tt.nice); err != nil {
					t.Fatalf("%s: %v", tt.name, err)
				}
				if err := cmd.Wait(); err != nil {
					t.Fatalf("%s: %v", tt.name, err)
				}
				if got, want := strings.TrimSpace(stdout.String()), strconv.Itoa(min(base+tt.nice, 19)); got != want {
					t.Errorf("%s: nice %s, want %s", tt.name, got, want)
				}
			}
		})
	}
}

func niceOf(t *testing.T, stat string) int {
	t.Helper()
	b, err := os.ReadFile(stat)
	if err != nil {
		t.Skip("no /proc")
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	n, _ := strconv.Atoi(f[16])
	return n
}

// TestTalonDeath kills talon (a copy of this test binary playing it) while
// a call it started has a process in a session of its own: under the
// sandbox that process dies with talon, with mode off it stays.
func TestTalonDeath(t *testing.T) {
	needLandlock(t, 1)
	proctest.NeedBins(t, "sh", "setsid", "sleep")
	for _, m := range append([]mechanism{{name: "off", policy: Policy{Mode: Off}}}, mechanisms(t)...) {
		t.Run(m.name, func(t *testing.T) {
			ws := t.TempDir()
			mark := "0.000" + strings.TrimPrefix(fmt.Sprint(time.Now().UnixNano()%1e9+1e9), "1")
			ready := filepath.Join(ws, "ready")
			mode := "ns"
			switch {
			case m.policy.Mode == Off:
				mode = "off"
			case m.policy.noNamespaces:
				mode = "landlock"
			case m.policy.userNS:
				mode = "userns"
			}
			cmd := exec.Command(testBinary(t))
			cmd.Env = []string{miniTalonEnv + "=" + mode, "NATIVE=" + m.policy.NativeHelper, "WS=" + ws, "READY=" + ready, "MARK=" + mark, "PATH=/usr/bin:/bin"}
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			for !fileExists(ready) {
				if proctest.Alive(cmd.Process.Pid) {
					time.Sleep(10 * time.Millisecond)
					continue
				}
				_ = cmd.Wait()
				t.Fatalf("talon exited before its call was ready")
			}
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			left := survivors(mark)
			t.Cleanup(func() { killAll(left) })
			if m.name == "off" {
				if len(left) == 0 {
					t.Fatal("with mode off nothing outlived talon; the test proves nothing")
				}
				return
			}
			proctest.AssertAllGone(t, left, 0)
		})
	}
}

// miniTalonEnv makes the test binary play talon: configure the sandbox
// (the value names how) and run a call that leaves a process in a
// session of its own, then wait to be killed. Both of the call's
// processes carry the marker, so that the test also finds (and with mode
// off kills) the one in the call's own group.
const miniTalonEnv = "TALON_SANDBOX_TEST_TALON"

func init() { testRoles[miniTalonEnv] = miniTalon }

func miniTalon(mode string) int {
	p := Policy{Workspace: os.Getenv("WS"), NativeHelper: os.Getenv("NATIVE")}
	switch mode {
	case "off":
		p.Mode = Off
	case "landlock":
		p.noNamespaces = true
	case "userns":
		p.userNS = true
	}
	Configure(p)
	Run(context.Background(), Cmd{Argv: []string{"sh", "-c", `setsid sh -c 'touch "$READY"; exec sleep 300 "$1"' sh "$MARK" & exec sleep 300 "$MARK"`},
		Binary: "/bin/sh", Env: os.Environ()})
	return 0
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// TestCommandConfined: a command built by Command and started by a
// library (an MCP stdio server) is confined like the others: under
// namespaces its parent is the helper as PID 1 of its own PID namespace.
func TestCommandConfined(t *testing.T) {
	needLandlock(t, 1)
	proctest.NeedBins(t, "sh")
	for _, m := range mechanisms(t) {
		t.Run(m.name, func(t *testing.T) {
			p := m.policy
			p.Workspace = t.TempDir()
			configure(t, p)
			cmd := Command("/bin/sh", "-c", `echo $PPID; grep CapEff /proc/self/status`)
			cmd.Env = []string{"PATH=/usr/bin:/bin"}
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			lines := strings.Split(strings.TrimSpace(string(out)), "\n")
			if len(lines) != 2 || strings.Trim(strings.TrimPrefix(lines[1], "CapEff:"), "\t 0") != "" {
				t.Errorf("output %q, want a pid and no capability", out)
			}
			if (lines[0] == "1") != m.ns {
				t.Errorf("parent pid %s with namespaces %v", lines[0], m.ns)
			}
		})
	}
}

// TestLimits: the rlimits reach the program, and the helper, which sets
// them on itself before it starts the program, still supervises it.
func TestLimits(t *testing.T) {
	needLandlock(t, 1)
	proctest.NeedBins(t, "sh", "sleep")
	for _, m := range mechanisms(t) {
		t.Run(m.name, func(t *testing.T) {
			p := m.policy
			p.Workspace = t.TempDir()
			p.Limits = Limits{CPUSeconds: 30, MemoryMB: 64, OpenFiles: 32}
			configure(t, p)
			out := Run(context.Background(), Cmd{Argv: []string{"sh", "-c", "ulimit -t; ulimit -v; ulimit -n; sleep 0.2; echo done"},
				Binary: "/bin/sh", Env: []string{"PATH=/usr/bin:/bin"}})
			if out.Err != nil || out.ExitCode != 0 || out.Stdout != "30\n65536\n32\ndone\n" {
				t.Fatalf("outcome = %+v", out)
			}
		})
	}
}

// TestMissingInterpreter: a program that cannot be executed is reported
// the same way with and without rlimits (with them a second helper step
// starts it), and tiny limits still let the program start.
func TestMissingInterpreter(t *testing.T) {
	needLandlock(t, 1)
	for _, m := range mechanisms(t) {
		for _, lim := range []Limits{{}, {OpenFiles: 5}} {
			t.Run(fmt.Sprintf("%s %+v", m.name, lim), func(t *testing.T) {
				p := m.policy
				p.Workspace, p.Limits = t.TempDir(), lim
				configure(t, p)
				missing := filepath.Join(p.Workspace, "gone")
				if err := os.WriteFile(missing, []byte("#!/no/such/interpreter\n"), 0o755); err != nil {
					t.Fatal(err)
				}
				out := Run(context.Background(), Cmd{Argv: []string{"gone"}, Binary: missing})
				if out.ExitCode != 127 || !strings.Contains(out.Stderr, "no such file") {
					t.Errorf("outcome = %+v, want 127 and the reason", out)
				}
				if out := Run(context.Background(), Cmd{Argv: []string{"true"}, Binary: "/bin/true"}); out.ExitCode != 0 {
					t.Errorf("/bin/true: outcome = %+v", out)
				}
			})
		}
	}
}
