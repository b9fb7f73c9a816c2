package sandbox

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Proof is one protection shown by a forbidden action in a child: the
// same child runs once without the sandbox (the control) and once with it.
type Proof struct {
	// Protection is "filesystem", "tcp_connect", "tcp_bind", "scoping",
	// "processes", "sockets", "descendants" or "privileges".
	Protection string `json:"protection"`
	// Action says what the child tried.
	Action string `json:"action"`
	// Expected is set when the policy should stop the action.
	Expected bool `json:"expected"`
	// Control and Sandboxed are "allowed", "denied" or "error: ...".
	Control   string `json:"control"`
	Sandboxed string `json:"sandboxed"`
	// Exposure says why the sandbox cannot stop an action it should (no
	// namespaces here); such a proof is OK whatever happened.
	Exposure string `json:"exposure,omitempty"`
	// OK is set when the sandboxed result is the expected one.
	OK bool `json:"ok"`
}

// Report is what [Check] found.
type Report struct {
	Status  Status  `json:"status"`
	Summary string  `json:"summary"`
	Limits  Limits  `json:"limits"`
	Proofs  []Proof `json:"proofs"`
	// OK is set when the sandbox is active and every proof holds.
	OK bool `json:"ok"`
}

// checkProbe is one action Check tries, with and without the sandbox.
type checkProbe struct {
	protection, what string
	args             []string
	expected         bool
	exposure         string
	// survivor: the action leaves a process behind; "allowed" means one
	// with the marker that replaces args' last element in its command
	// line outlived the call.
	survivor bool
}

// Check builds p's sandbox without making it the process's policy, and
// proves each protection it claims with a forbidden action in a child,
// run once with mode off (the control) and once under the sandbox:
//
//   - filesystem: writing outside the workspace, reading a key under a
//     denied directory, reading or listing each denied path that exists,
//     changing a protected file in a writable directory, and (allowed)
//     writing the private TMPDIR;
//   - processes: reading the environment, command line, memory and open
//     files of a process outside the sandbox that holds a marker in each
//     (it stands for talon), and talon's own environment;
//   - sockets: connecting to a Unix socket under a denied directory (and
//     to each approval socket of a running talon serve), opening a UDP, a
//     raw and a packet socket;
//   - descendants: leaving a process behind with setsid, and with a
//     double fork;
//   - privileges (when talon is root): setting the clock's tick
//     (CAP_SYS_TIME), making a device node (CAP_MKNOD), holding any
//     capability;
//   - tcp_connect, tcp_bind: connecting to a loopback port that is not
//     allowed (also over multipath TCP), binding;
//   - scoping: signalling this process.
//
// The child is p.Helper (or this executable) in its probe role, which
// must dispatch [HelperCommand] to [Main].
func Check(ctx context.Context, p Policy) (Report, error) {
	dir, err := scratchOutside(p.Workspace)
	if err != nil {
		return Report{}, fmt.Errorf("make a scratch dir for the probes: %w", err)
	}
	defer os.RemoveAll(dir)
	denied, rw := filepath.Join(dir, "denied"), filepath.Join(dir, "rw")
	protected := filepath.Join(rw, "repo", "protected")
	if err := os.MkdirAll(filepath.Dir(protected), 0o700); err != nil {
		return Report{}, err
	}
	if err := os.WriteFile(protected, []byte("[core]\n"), 0o600); err != nil {
		return Report{}, err
	}
	p.Deny = append(slices.Clone(p.Deny), denied)
	p.ReadWrite = append(slices.Clone(p.ReadWrite), rw)
	p.Protect = append(slices.Clone(p.Protect), protected)
	st := newState(p, false)
	r := Report{Status: st.status, Summary: st.status.Summary(), Limits: p.Limits}
	if !st.status.Active {
		return r, nil
	}
	defer st.removeTemp()
	exe := st.helper
	key := filepath.Join(denied, "home", ".ssh", "id_ed25519")
	if err := os.MkdirAll(filepath.Dir(key), 0o700); err != nil {
		return r, err
	}
	if err := os.WriteFile(key, []byte("not a key\n"), 0o600); err != nil {
		return r, err
	}
	sock := filepath.Join(denied, "run", "check.sock")
	if err := os.MkdirAll(filepath.Dir(sock), 0o700); err != nil {
		return r, err
	}
	ul, err := net.Listen("unix", sock)
	if err != nil {
		return r, fmt.Errorf("listen on a Unix socket for the socket probe: %w", err)
	}
	defer ul.Close()
	go acceptAll(ul)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return r, fmt.Errorf("listen on loopback for the connect probe: %w", err)
	}
	defer l.Close()
	go acceptAll(l)
	port := l.Addr().(*net.TCPAddr).Port
	bindPort, err := unusedPort()
	if err != nil {
		return r, err
	}
	h, stop, err := startHold(exe, dir)
	if err != nil {
		return r, err
	}
	defer stop()

	noNS := ""
	if !st.ns {
		noNS = "without namespaces: " + st.status.NamespacesReason
	}
	nsExpected := func(pr checkProbe) checkProbe {
		pr.expected, pr.exposure = st.ns, noNS
		return pr
	}
	hp := strconv.Itoa(h.pid)
	probes := []checkProbe{
		{protection: "filesystem", what: "write a file outside the workspace", args: []string{"write", filepath.Join(dir, "escape")}, expected: true},
		{protection: "filesystem", what: "read ~/.ssh/id_ed25519 of a scratch HOME", args: []string{"read", key}, expected: true},
	}
	for _, d := range st.base.Deny {
		fi, err := os.Stat(d)
		if err != nil || d == denied || slices.Contains(st.status.Exposed, d) {
			continue
		}
		action := "read"
		if fi.IsDir() {
			action = "list"
		}
		probes = append(probes, checkProbe{protection: "filesystem", what: action + " " + d, args: []string{action, d}, expected: true})
	}
	probes = append(probes,
		nsExpected(checkProbe{protection: "filesystem", what: "change a protected file in a writable directory", args: []string{"write", protected}}),
		nsExpected(checkProbe{protection: "filesystem", what: "move a protected file's directory away", args: []string{"rename", filepath.Dir(protected), filepath.Join(rw, "moved")}}),
		checkProbe{protection: "filesystem", what: "write the private TMPDIR", args: []string{"tmp"}},
		checkProbe{protection: "processes", what: "read the environment of a process outside the sandbox (pid " + hp + ")", args: []string{"environ", hp, holdEnv + "=" + h.marker}, expected: true},
		nsExpected(checkProbe{protection: "processes", what: "read its command line", args: []string{"cmdline", hp, h.marker}}),
		checkProbe{protection: "processes", what: "read its memory", args: []string{"mem", hp, h.addr, h.marker}, expected: true},
		checkProbe{protection: "processes", what: "see the files it holds open", args: []string{"fd", hp, h.file}, expected: true},
	)
	if env, err := os.ReadFile("/proc/self/environ"); err == nil && len(env) > 0 {
		first := strings.SplitN(string(env), "\x00", 2)[0]
		probes = append(probes, checkProbe{protection: "processes", what: "read talon's environment (pid " + strconv.Itoa(os.Getpid()) + ")",
			args: []string{"environ", strconv.Itoa(os.Getpid()), first}, expected: true})
	}
	probes = append(probes, nsExpected(checkProbe{protection: "sockets", what: "connect to a Unix socket under a denied directory", args: []string{"unix", sock}}))
	for _, d := range st.base.Deny {
		socks, _ := filepath.Glob(filepath.Join(d, "serve", "*.sock"))
		for _, s := range socks {
			probes = append(probes, nsExpected(checkProbe{protection: "sockets", what: "connect to talon's approval socket " + s, args: []string{"unix", s}}))
		}
	}
	probes = append(probes, checkProbe{protection: "sockets", what: "open a UDP socket", args: []string{"udp"}, expected: st.status.SocketFilter && !st.status.UDP})
	root := os.Geteuid() == 0
	if root {
		probes = append(probes,
			checkProbe{protection: "sockets", what: "open a raw socket", args: []string{"raw"}, expected: true},
			checkProbe{protection: "sockets", what: "open a packet socket", args: []string{"packet"}, expected: true},
		)
	}
	probes = append(probes,
		checkProbe{protection: "descendants", what: "leave a process behind with setsid", args: []string{"detach", "setsid", ""}, expected: true, survivor: true},
		checkProbe{protection: "descendants", what: "leave a process behind with a double fork", args: []string{"detach", "double", ""}, expected: true, survivor: true},
	)
	if root {
		probes = append(probes,
			checkProbe{protection: "privileges", what: "set the clock's tick (CAP_SYS_TIME)", args: []string{"adjtime"}, expected: true},
			checkProbe{protection: "privileges", what: "make a device node (CAP_MKNOD)", args: []string{"mknod"}, expected: true},
			checkProbe{protection: "privileges", what: "hold any capability", args: []string{"caps"}, expected: true},
		)
	}
	if st.status.ABI >= 4 {
		probes = append(probes,
			checkProbe{protection: "tcp_connect", what: "connect to 127.0.0.1:" + strconv.Itoa(port), args: []string{"connect", strconv.Itoa(port)}, expected: !slices.Contains(p.AllowConnectPorts, port)},
			checkProbe{protection: "tcp_connect", what: "connect to 127.0.0.1:" + strconv.Itoa(port) + " over multipath TCP", args: []string{"mptcp-connect", strconv.Itoa(port)}, expected: !slices.Contains(p.AllowConnectPorts, port)},
			checkProbe{protection: "tcp_bind", what: "bind 127.0.0.1:" + bindPort, args: []string{"bind", bindPort}, expected: !p.AllowBind},
		)
	}
	if st.status.ABI >= 6 || st.ns {
		self := strconv.Itoa(os.Getpid())
		probes = append(probes, checkProbe{protection: "scoping", what: "signal talon (pid " + self + ")", args: []string{"signal", self}, expected: true})
	}
	off := newState(Policy{Mode: Off}, false)
	r.OK = true
	for _, pr := range probes {
		pf := Proof{Protection: pr.protection, Action: pr.what, Expected: pr.expected, Exposure: pr.exposure,
			Control: runCheckProbe(ctx, exe, dir, pr, off), Sandboxed: runCheckProbe(ctx, exe, dir, pr, st)}
		switch {
		case pr.exposure != "" && !pr.expected:
			pf.OK = true
		case pr.expected:
			pf.OK = pf.Sandboxed == "denied"
		default:
			pf.OK = pf.Sandboxed == "allowed"
		}
		r.OK = r.OK && pf.OK
		r.Proofs = append(r.Proofs, pf)
	}
	return r, nil
}

// runCheckProbe runs one probe under st and says how it went. Without the
// sandbox the probe gets dir as its TMPDIR, as the sandbox gives it one.
func runCheckProbe(ctx context.Context, exe, dir string, pr checkProbe, st *state) string {
	var env []string
	if st.status.Mode == Off {
		env = []string{"TMPDIR=" + dir}
	}
	args := slices.Clone(pr.args)
	if pr.survivor {
		// A marker of its own for each run: what the control left behind
		// may take a moment to die.
		args[len(args)-1] = checkMarker()
	}
	argv := slices.Concat([]string{helperArgv0, HelperCommand, "probe"}, args)
	out := runCmd(ctx, Cmd{Argv: argv, Binary: exe, Env: env, Timeout: 20 * time.Second}, st, true)
	if pr.survivor && out.Err == nil && out.ExitCode == 0 {
		left := survivors(args[len(args)-1])
		for _, pid := range left {
			if p, err := os.FindProcess(pid); err == nil {
				_ = p.Kill()
			}
		}
		if len(left) == 0 {
			return "denied"
		}
		return "allowed"
	}
	switch {
	case out.Err != nil:
		return "error: " + out.Err.Error()
	case out.ExitCode == 0:
		return "allowed"
	case out.ExitCode == 1:
		return "denied"
	}
	msg := strings.TrimSpace(out.Stdout + out.Stderr)
	return "error: " + strings.TrimPrefix(msg, "error: ")
}

// holdEnv is the variable the stand-in for talon holds its marker in.
const holdEnv = "TALON_CHECK_SECRET"

// held is a process outside the sandbox standing for talon.
type held struct {
	pid          int
	marker, addr string
	file         string
}

// startHold starts `probe hold`: a marker in its environment, its command
// line and its memory, and a file held open.
func startHold(exe, dir string) (held, func(), error) {
	h := held{marker: checkMarker(), file: filepath.Join(dir, "held")}
	if err := os.WriteFile(h.file, nil, 0o600); err != nil {
		return h, nil, err
	}
	cmd := &exec.Cmd{Path: exe, Args: []string{helperArgv0, HelperCommand, "probe", "hold", h.marker, h.file},
		Env: []string{holdEnv + "=" + h.marker}}
	prepare(cmd)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return h, nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return h, nil, err
	}
	if err := cmd.Start(); err != nil {
		return h, nil, fmt.Errorf("start the process the probes look at: %w", err)
	}
	stop := func() {
		_ = stdin.Close()
		_ = KillGroup(cmd.Process)
		_ = cmd.Wait()
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		stop()
		return h, nil, fmt.Errorf("the process the probes look at did not start: %w", err)
	}
	h.pid, h.addr = cmd.Process.Pid, strings.TrimSpace(line)
	return h, stop, nil
}

// checkMarker returns a string no other process holds by chance.
func checkMarker() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return "talon-check-" + hex.EncodeToString(b)
}

// survivors returns the live processes whose command line holds marker.
func survivors(marker string) []int {
	var pids []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !strings.Contains(string(b), marker) {
			continue
		}
		if st, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil {
			if i := strings.LastIndexByte(string(st), ')'); i >= 0 && i+2 < len(st) && (st[i+2] == 'Z' || st[i+2] == 'X') {
				continue
			}
		}
		pids = append(pids, pid)
	}
	return pids
}

func acceptAll(l net.Listener) {
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		_ = c.Close()
	}
}

func unusedPort() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("find a free port for the bind probe: %w", err)
	}
	defer l.Close()
	return strconv.Itoa(l.Addr().(*net.TCPAddr).Port), nil
}

// scratchOutside makes the probes' scratch directory somewhere outside the
// workspace, so "outside the workspace" is: the temp directory, unless the
// workspace holds it (talon run from /tmp), then other shared places.
func scratchOutside(ws string) (string, error) {
	var cands []string
	cands = append(cands, os.TempDir(), "/var/tmp", "/dev/shm")
	if d, err := os.UserCacheDir(); err == nil {
		cands = append(cands, d)
	}
	var firstErr error
	for _, c := range cands {
		if ws != "" && within(absPath(c), absPath(ws)) {
			continue
		}
		dir, err := os.MkdirTemp(c, "talon-sandbox-check-")
		if err == nil {
			return dir, nil
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	if firstErr == nil {
		firstErr = fmt.Errorf("every place for it (%s) is inside the workspace %s; run the check with a narrower workspace", strings.Join(cands, ", "), ws)
	}
	return "", firstErr
}
