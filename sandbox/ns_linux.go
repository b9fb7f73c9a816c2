package sandbox

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/talonhq/talon/sandbox/internal/helper"
)

// Capabilities the helper needs in its user namespace when talon is not
// root: mounting, and emptying the bounding set before the program runs.
const (
	capSetpcap  = 8
	capSysAdmin = 21
)

// nsProbes caches, per helper binary, whether tool processes can run in
// new namespaces here: the answer depends on the kernel and the container
// talon runs in, not on the policy.
var nsProbes sync.Map // helper path -> nsResult

type nsResult struct {
	ok     bool
	reason string
}

// probeNamespaces starts the helper once in new PID and mount
// namespaces, where it mounts a /proc, hides a directory and a file and
// binds a file read-only, then exits without running anything. Some
// containers refuse one of those steps; then tool processes run under
// Landlock only.
func probeNamespaces(exe string, userNS bool) (bool, string) {
	key := fmt.Sprintf("%s %v", exe, userNS)
	if r, ok := nsProbes.Load(key); ok {
		return r.(nsResult).ok, r.(nsResult).reason
	}
	ok, reason := runNamespaceProbe(exe, userNS)
	nsProbes.Store(key, nsResult{ok, reason})
	return ok, reason
}

func runNamespaceProbe(exe string, userNS bool) (bool, string) {
	dir, err := os.MkdirTemp("", "talon-ns-probe-")
	if err != nil {
		return false, fmt.Sprintf("cannot make a scratch dir for the namespace probe: %v", err)
	}
	defer os.RemoveAll(dir)
	hidden, file, kept := filepath.Join(dir, "hidden"), filepath.Join(dir, "file"), filepath.Join(dir, "kept")
	for _, err := range []error{os.Mkdir(hidden, 0o700), os.WriteFile(file, nil, 0o600), os.WriteFile(kept, nil, 0o600)} {
		if err != nil {
			return false, fmt.Sprintf("cannot prepare the namespace probe: %v", err)
		}
	}
	s := spec{NS: true, Probe: true, Deny: []string{hidden, file}, Protect: []string{kept}}
	cmd := &exec.Cmd{Path: exe, Args: slices.Concat([]string{helperArgv0, HelperCommand, "exec"}, s.Args(), []string{"/bin/true", "true"}), Dir: dir}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	cloneInto(cmd.SysProcAttr, userNS)
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return false, "new PID and mount namespaces are unavailable: " + strings.TrimPrefix(msg, "talon sandbox: namespaces: ")
	}
	return true, ""
}

// useUserNS reports whether the helper needs a user namespace of its own
// to mount: when talon is not root.
func useUserNS() bool { return os.Geteuid() != 0 }

// cloneInto starts the helper in new PID and mount namespaces, and, when
// userNS, a user namespace where it keeps talon's user and group ids and
// the capabilities to mount, which it drops before the program starts.
func cloneInto(a *syscall.SysProcAttr, userNS bool) {
	a.Cloneflags |= syscall.CLONE_NEWPID | syscall.CLONE_NEWNS
	if !userNS {
		return
	}
	a.Cloneflags |= syscall.CLONE_NEWUSER
	uid, gid := os.Getuid(), os.Getgid()
	a.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
	a.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
	a.GidMappingsEnableSetgroups = false
	a.AmbientCaps = []uintptr{capSysAdmin, capSetpcap}
}

// death is the pipe whose read end every helper holds: talon never writes
// to it and never closes the write end, so the helpers see end of file
// exactly when talon's process is gone, however it ended. A parent-death
// signal would not do: it fires when the forking thread ends, and
// StartNice forks from a thread it discards.
var death = sync.OnceValues(func() (*os.File, *os.File) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil
	}
	return r, w
})

// passDeath gives cmd the read end of the death pipe and returns its
// descriptor number in the child, 0 when there is none.
func passDeath(cmd *exec.Cmd) int {
	r, w := death()
	if r == nil || w == nil {
		return 0
	}
	cmd.ExtraFiles = append(cmd.ExtraFiles, r)
	return 2 + len(cmd.ExtraFiles)
}

func clearParentDeath(a *syscall.SysProcAttr) { a.Pdeathsig = 0 }

// wrapsWithDeathPipe reports whether st routes children through the
// helper with the death pipe: then a parent-death signal is not needed.
func wrapsWithDeathPipe(st *state) bool {
	r, w := death()
	return st != nil && st.status.Mode != Off && st.status.Active && r != nil && w != nil
}

// reaper is talon's side of the fallback without namespaces: talon is a
// child subreaper, so what a killed helper leaves behind is reparented to
// talon, and sweep kills it.
var reaper struct {
	mu sync.Mutex
	on bool
	// sweep is set where helpers run without namespaces: only there can
	// an orphan be told from a helper, whose main thread stays as talon
	// started it. In namespaces a killed helper takes its namespace with
	// it, and the helper restricts its main thread, so a sweep would kill
	// the helpers of processes still running.
	sweep bool
}

// setSweep says whether [sweep] runs: only under the sandbox without
// namespaces.
func setSweep(on bool) {
	reaper.mu.Lock()
	reaper.sweep = on
	reaper.mu.Unlock()
}

// setSubreaper makes talon a child subreaper, or stops it being one.
func setSubreaper(on bool) {
	reaper.mu.Lock()
	defer reaper.mu.Unlock()
	if reaper.on == on {
		return
	}
	v := 0
	if on {
		v = 1
	}
	if unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, uintptr(v), 0, 0, 0) == nil {
		reaper.on = on
	}
}

// sweep kills and reaps talon's children that are sandboxed processes:
// descendants of a helper that was killed before it could kill them. A
// sandboxed process is recognised by the seccomp filter the helper
// installs (one more than talon has) or, on kernels that do not count
// filters, by no_new_privs. A helper is not one: it restricts a thread of
// its own and leaves its main thread, which /proc shows, as talon started
// it; neither is a child talon started outside the sandbox (a test's
// exec.Command).
func sweep() {
	reaper.mu.Lock()
	defer reaper.mu.Unlock()
	if !reaper.on || !reaper.sweep {
		return
	}
	self := os.Getpid()
	own := marks(self)
	for range 64 {
		killed := 0
		for pid, ppid := range helper.Parents() {
			if ppid != self || !marks(pid).sandboxedUnder(own) {
				continue
			}
			_ = unix.Kill(pid, unix.SIGKILL)
			var ws unix.WaitStatus
			_, _ = unix.Wait4(pid, &ws, 0, nil)
			killed++
		}
		if killed == 0 {
			return
		}
	}
}

// procMarks are what /proc/PID/status says of a process's restrictions.
type procMarks struct {
	filters int // Seccomp_filters; -1 when the kernel does not say
	nnp     bool
}

func marks(pid int) procMarks {
	m := procMarks{filters: -1}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return m
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		switch k {
		case "Seccomp_filters":
			_, _ = fmt.Sscan(v, &m.filters)
		case "NoNewPrivs":
			m.nnp = v == "1"
		}
	}
	return m
}

func (m procMarks) sandboxedUnder(own procMarks) bool {
	if m.filters >= 0 && own.filters >= 0 {
		return m.filters > own.filters
	}
	return m.nnp && !own.nnp
}
