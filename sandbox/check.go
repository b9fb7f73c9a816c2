package sandbox

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Proof is one protection shown by a forbidden action in a child: the
// same child runs once without the sandbox (the control) and once with it.
type Proof struct {
	// Protection is "filesystem", "tcp_connect", "tcp_bind" or "scoping".
	Protection string `json:"protection"`
	// Action says what the child tried.
	Action string `json:"action"`
	// Expected is set when the policy should stop the action.
	Expected bool `json:"expected"`
	// Control and Sandboxed are "allowed", "denied" or "error: ...".
	Control   string `json:"control"`
	Sandboxed string `json:"sandboxed"`
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

// Check builds p's sandbox without making it the process's policy, and
// proves each protection it claims with a forbidden action in a child:
// writing outside the workspace, reading a fake key, reading each denied
// path that exists, connecting to a loopback port that is not allowed,
// binding, signalling this process. The child is p.Helper (or this
// executable) in its probe role, which must dispatch [HelperCommand] to
// [Main].
func Check(ctx context.Context, p Policy) (Report, error) {
	st := newState(p)
	r := Report{Status: st.status, Summary: st.status.Summary(), Limits: p.Limits}
	if !st.status.Active {
		return r, nil
	}
	exe := st.helper
	dir, err := os.MkdirTemp("", "talon-sandbox-check-")
	if err != nil {
		return r, fmt.Errorf("make a scratch dir for the probes: %w", err)
	}
	defer os.RemoveAll(dir)
	key := filepath.Join(dir, "home", ".ssh", "id_ed25519")
	if err := os.MkdirAll(filepath.Dir(key), 0o700); err != nil {
		return r, err
	}
	if err := os.WriteFile(key, []byte("not a key\n"), 0o600); err != nil {
		return r, err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return r, fmt.Errorf("listen on loopback for the connect probe: %w", err)
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
	bindPort, err := unusedPort()
	if err != nil {
		return r, err
	}

	type probe struct {
		protection, action, what, arg string
		expected                      bool
	}
	probes := []probe{
		{"filesystem", "write", "write a file outside the workspace", filepath.Join(dir, "escape"), true},
		{"filesystem", "read", "read ~/.ssh/id_ed25519 of a scratch HOME", key, true},
	}
	for _, d := range st.base.Deny {
		fi, err := os.Stat(d)
		if err != nil || slices.Contains(st.status.Exposed, d) {
			continue
		}
		action := "read"
		if fi.IsDir() {
			action = "list"
		}
		probes = append(probes, probe{"filesystem", action, action + " " + d, d, true})
	}
	probes = append(probes, probe{"filesystem", "tmp", "write the private TMPDIR", "", false})
	if st.status.ABI >= 4 {
		probes = append(probes,
			probe{"tcp_connect", "connect", "connect to 127.0.0.1:" + strconv.Itoa(port), strconv.Itoa(port), !containsInt(p.AllowConnectPorts, port)},
			probe{"tcp_connect", "mptcp-connect", "connect to 127.0.0.1:" + strconv.Itoa(port) + " over multipath TCP", strconv.Itoa(port), !containsInt(p.AllowConnectPorts, port)},
			probe{"tcp_bind", "bind", "bind 127.0.0.1:" + bindPort, bindPort, !p.AllowBind},
		)
	}
	if st.status.ABI >= 6 {
		probes = append(probes, probe{"scoping", "signal", "signal talon (pid " + strconv.Itoa(os.Getpid()) + ")", strconv.Itoa(os.Getpid()), true})
	}
	off := newState(Policy{Mode: Off})
	r.OK = true
	for _, pr := range probes {
		argv := []string{helperArgv0, HelperCommand, "probe", pr.action, pr.arg}
		run := func(s *state) string {
			out := runWith(ctx, Cmd{Argv: argv, Binary: exe, Timeout: 20 * time.Second}, s)
			switch {
			case out.Err != nil:
				return "error: " + out.Err.Error()
			case out.ExitCode == 0:
				return "allowed"
			case out.ExitCode == 1:
				return "denied"
			}
			return "error: " + strings.TrimSpace(out.Stdout+out.Stderr)
		}
		pf := Proof{Protection: pr.protection, Action: pr.what, Expected: pr.expected, Control: run(off), Sandboxed: run(st)}
		if pr.expected {
			pf.OK = pf.Sandboxed == "denied"
		} else {
			pf.OK = pf.Sandboxed == "allowed"
		}
		r.OK = r.OK && pf.OK
		r.Proofs = append(r.Proofs, pf)
	}
	st.removeTemp()
	return r, nil
}

func unusedPort() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("find a free port for the bind probe: %w", err)
	}
	defer l.Close()
	return strconv.Itoa(l.Addr().(*net.TCPAddr).Port), nil
}

func containsInt(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}
