package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/rs/zerolog"

	"github.com/talonhq/talon/sandbox/internal/helper"
)

// HelperCommand is the hidden first argument that turns talon (or a test
// binary that dispatches it to [Main]) into the sandbox helper.
const HelperCommand = helper.Command

// helperArgv0 is the name the helper is started under. testscript
// dispatches a re-executed test binary on its argv[0], so "talon" reaches
// cli.Main there as it does in the real binary.
const helperArgv0 = "talon"

// The helper that starts children is talon-sandbox where it can be
// found and trusted (see [Policy.NativeHelper]), else talon re-executed.
const (
	// NativeName is the file name of talon-sandbox, the helper as a
	// small static program (sandbox/native/talon-sandbox.c).
	NativeName = "talon-sandbox"
	// HelperBuiltin as [Policy.NativeHelper] never uses talon-sandbox.
	HelperBuiltin = "builtin"
	// HelperTalon is [Status.Helper] when talon re-executes itself.
	HelperTalon = "talon"
	// nativeProtocol is the version of the helper's arguments talon-sandbox
	// must speak (PROTOCOL in talon-sandbox.c).
	nativeProtocol = "1"
)

// Mode says what the spawner does about Landlock.
type Mode int

const (
	// Auto enforces the sandbox where the kernel supports it and runs
	// children unrestricted, after saying so once, where it does not.
	Auto Mode = iota
	// Required refuses to start a child the sandbox cannot restrict.
	Required
	// Off starts children with process groups and caps only.
	Off
)

// String returns "auto", "required" or "off".
func (m Mode) String() string {
	switch m {
	case Required:
		return "required"
	case Off:
		return "off"
	default:
		return "auto"
	}
}

// ParseMode reads a [sandbox] mode value; "" is [Auto].
func ParseMode(s string) (Mode, error) {
	switch s {
	case "", "auto":
		return Auto, nil
	case "required":
		return Required, nil
	case "off":
		return Off, nil
	}
	return Auto, fmt.Errorf("%w %q: use auto, required or off", ErrMode, s)
}

// Limits are the rlimits applied to every child; zero means the system's.
type Limits struct {
	CPUSeconds int `json:"cpu,omitempty"`
	MemoryMB   int `json:"mem,omitempty"`
	Processes  int `json:"nproc,omitempty"`
	OpenFiles  int `json:"nofile,omitempty"`
}

// Policy is what the spawner applies to every child. The zero value is
// [Auto] with no workspace: children may read the system directories and
// write only their private temp dir.
type Policy struct {
	Mode Mode
	// Helper is the executable re-run as the helper; "" means
	// os.Executable(). It must dispatch [HelperCommand] to [Main].
	Helper string
	// NativeHelper is talon-sandbox, the helper as a small static program
	// ([NativeName]), which starts children for a fraction of what talon
	// re-executed costs: "" looks for it next to Helper (symlinks
	// resolved), a path names it ([sandbox] helper), [HelperBuiltin]
	// always re-executes talon. It is used only when it is a regular file
	// owned by root or talon's user that no one else may change, lies in
	// no directory children may write, and answers its protocol probe;
	// otherwise talon re-executes itself and Status.HelperReason says why.
	NativeHelper string
	// Workspace is readable and writable.
	Workspace string
	// ReadOnly and ReadWrite are extra directories or files.
	ReadOnly, ReadWrite []string
	// Deny are paths no child may reach: keys, receipts, the config file,
	// credentials, the approval socket's directory. With namespaces each
	// one that exists is hidden under an empty mount, wherever it lies;
	// under Landlock alone those inside a granted directory other than the
	// workspace are carved out of it, and those inside the workspace stay
	// reachable and are listed in Status.Exposed.
	Deny []string
	// Protect are paths inside writable grants (the repository's
	// .git/config and .git/hooks) that children may read but not change:
	// with namespaces each one that exists is bound read-only over itself.
	// Under Landlock alone they stay writable and are listed in
	// Status.Unprotected.
	Protect []string
	// AllowConnectPorts are the TCP ports a child may connect to; empty
	// means none. Listing 53 (DNS) also allows UDP sockets, to any port:
	// the seccomp filter that refuses them sees the socket, not where its
	// datagrams go.
	AllowConnectPorts []int
	// AllowBind lets children bind TCP ports.
	AllowBind bool
	Limits    Limits
	// TempRoot is where per-call temp dirs are made; "" means os.TempDir().
	TempRoot string
	// Logger receives the one line about the sandbox's state.
	Logger zerolog.Logger
	// OnProbe, when set, defers the namespace probe (a helper started
	// once) from Configure to the first child the sandbox starts, or the
	// first call of [Current], so that a command that starts no tool
	// process never pays for it. It is then called once with the complete
	// Status: right after the probe, before that child starts; or by
	// Configure itself when no child will be wrapped (mode off, no
	// Landlock). Without it Configure probes at once.
	OnProbe func(Status)

	// noNamespaces makes the helper run without namespaces, as where the
	// kernel refuses them; userNS gives it a user namespace even as root.
	// Tests set them.
	noNamespaces, userNS bool
}

// Status is what the sandbox enforces in this process.
type Status struct {
	Mode Mode `json:"-"`
	// ModeName is Mode as text, for JSON.
	ModeName string `json:"mode"`
	// ABI is the kernel's Landlock ABI version, 0 when absent.
	ABI int `json:"landlock_abi"`
	// Active is set when children are restricted.
	Active bool `json:"active"`
	// Filesystem, Connect, Bind and Scope say which Landlock protections
	// apply; Limits whether any rlimit is set.
	Filesystem bool `json:"filesystem"`
	Connect    bool `json:"tcp_connect"`
	Bind       bool `json:"tcp_bind"`
	Scope      bool `json:"scoping"`
	Limits     bool `json:"limits"`
	// Reason says why the sandbox is not active.
	Reason string `json:"reason,omitempty"`
	// Namespaces is set when every child runs in new PID and mount
	// namespaces: it sees no process but its own, a /proc of its own, and
	// the denied paths hidden. Mechanism names what confines children:
	// "pid+mount namespaces" or "landlock only"; NamespacesReason says why
	// namespaces are not used.
	Namespaces       bool   `json:"namespaces"`
	Mechanism        string `json:"mechanism,omitempty"`
	NamespacesReason string `json:"namespaces_reason,omitempty"`
	// SocketFilter is set when raw, packet and other non-TCP sockets are
	// refused (every architecture but 386); UDP says whether UDP sockets
	// are allowed (allow_connect_ports lists 53).
	SocketFilter bool `json:"socket_filter"`
	UDP          bool `json:"udp"`
	// NoPrivileges is set when children run without any capability and
	// with no_new_privs, whatever user talon runs as.
	NoPrivileges bool `json:"no_privileges"`
	// Exposed are denied paths inside the workspace that children can
	// reach: without namespaces Landlock can only grant, and carving them
	// out would take from children the right to create files at the
	// workspace's top level. Empty with namespaces.
	Exposed []string `json:"exposed,omitempty"`
	// Unprotected are Protect paths children can change: all of them
	// without namespaces.
	Unprotected []string `json:"unprotected,omitempty"`
	// Helper is what confines each child and starts it: the path of
	// talon-sandbox, or [HelperTalon] when talon re-executes itself;
	// HelperReason says why talon-sandbox is not used.
	Helper       string `json:"helper,omitempty"`
	HelperReason string `json:"helper_reason,omitempty"`
}

// Mechanisms a [Status] names.
const (
	MechanismNamespaces = "pid+mount namespaces"
	MechanismLandlock   = "landlock only"
)

// Summary is the one-line form shown with a plan: "landlock-v7
// fs+net+scope+ns" ("ns" when children run in namespaces), "off" or
// "unavailable".
func (s Status) Summary() string {
	if !s.Active {
		if s.Mode == Off {
			return "off"
		}
		return "unavailable"
	}
	parts := []string{}
	if s.Filesystem {
		parts = append(parts, "fs")
	}
	if s.Connect || s.Bind {
		parts = append(parts, "net")
	}
	if s.Scope {
		parts = append(parts, "scope")
	}
	if s.Namespaces {
		parts = append(parts, "ns")
	}
	return fmt.Sprintf("landlock-v%d %s", s.ABI, strings.Join(parts, "+"))
}

// spec is what the helper applies, passed to it as one JSON argument.
type spec = helper.Spec

// state is the configured sandbox, immutable once published.
type state struct {
	status Status
	helper string
	// native is talon-sandbox when it starts children instead of helper.
	native string
	base   spec
	refuse error
	// ns: children run in new namespaces; userNS: with a user namespace.
	ns, userNS bool

	tmpMu   sync.Mutex
	tmpRoot string // made on first use; guarded by tmpMu
	tmpBase string

	// deferred is set on a state whose namespace probe waits for its
	// first child: status and ns say nothing about namespaces yet.
	deferred *deferredProbe
}

// deferredProbe completes a state that deferred its namespace probe.
type deferredProbe struct {
	p    Policy
	once sync.Once
	full *state
}

var active atomic.Pointer[state]

// systemRead are the directories every child may read and execute from.
var systemRead = []string{
	"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc",
	"/opt", "/nix/store", "/snap", "/proc", "/sys", "/run/systemd/resolve",
}

// deviceFiles are the device nodes every child may read and write.
var deviceFiles = []string{
	"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom",
	"/dev/tty", "/dev/ptmx", "/dev/pts", "/dev/shm", "/dev/fd",
}

// Configure sets the policy every later spawn applies and returns what
// it enforces. talon's CLI calls it once, before any tool runs; a process
// that never calls it starts children with process groups and caps only.
//
// # Notes
//
// Under [Auto] on a kernel without Landlock, the returned Status says why,
// and the caller says so once. Under [Required] there, every later spawn
// fails with [ErrUnsandboxed].
//
// talon becomes a child subreaper in every mode, so a process a tool
// detached (setsid, a double fork) stays talon's descendant: the approval
// socket refuses descendants, and where namespaces are unavailable (some
// containers) and children run under Landlock only, what a killed child
// leaves behind is reparented to talon and killed. With [Off], adopted
// processes are left to run; one that exits is reaped when talon exits.
func Configure(p Policy) Status {
	st := newState(p, p.OnProbe != nil)
	active.Store(st)
	setSubreaper(true)
	if st.deferred == nil {
		setSweep(st.status.Active && !st.ns)
		if p.OnProbe != nil {
			p.OnProbe(st.status)
		}
	}
	return st.status
}

// resolved returns st with its namespace probe run: st itself, or, for a
// state that deferred the probe, the state the probe completed, which
// then replaces st as the active one. The first caller runs the probe
// and the policy's OnProbe; the others wait for it.
func (st *state) resolved() *state {
	if st == nil || st.deferred == nil {
		return st
	}
	d := st.deferred
	d.once.Do(func() {
		d.full = newState(d.p, false)
		active.CompareAndSwap(st, d.full)
		setSweep(d.full.status.Active && !d.full.ns)
		d.p.OnProbe(d.full.status)
	})
	return d.full
}

// newState builds the state p describes; with deferProbe, and when the
// sandbox is active, the namespace probe is left to [state.resolved].
func newState(p Policy, deferProbe bool) *state {
	st := &state{tmpBase: p.TempRoot}
	st.status = Status{Mode: p.Mode, ModeName: p.Mode.String(), ABI: landlockABI()}
	if p.Mode == Off {
		st.status.Reason = "[sandbox] mode is off"
		p.Logger.Warn().Msg("sandbox: off by configuration; tool processes run without Landlock or rlimits")
		return st
	}
	exe := p.Helper
	if exe == "" {
		self, err := os.Executable()
		if err != nil {
			st.unavailable(p, fmt.Sprintf("cannot find talon's own executable: %v", err))
			return st
		}
		exe = self
	}
	if st.status.ABI < 1 {
		st.unavailable(p, unsupportedReason())
		return st
	}
	st.helper = exe
	st.base = spec{
		Read: slices.Concat(systemRead, absAll(p.ReadOnly)), Devices: deviceFiles,
		Deny: uniq(absAll(p.Deny)), Protect: uniq(absAll(p.Protect)),
		Ports: slices.Clone(p.AllowConnectPorts), Bind: p.AllowBind, Lim: helper.Limits(p.Limits),
		UDP: slices.Contains(p.AllowConnectPorts, 53),
	}
	if p.Workspace != "" {
		st.base.WS = absPath(p.Workspace)
	}
	st.base.Write = append(st.base.Write, absAll(p.ReadWrite)...)
	st.status.Active, st.status.Filesystem = true, true
	st.status.Connect = st.status.ABI >= 4
	st.status.Bind = st.status.ABI >= 4 && !p.AllowBind
	st.status.Scope = st.status.ABI >= 6
	st.status.Limits = p.Limits != Limits{}
	st.status.SocketFilter, st.status.UDP = helper.FilterSockets(), st.base.UDP
	st.status.NoPrivileges = true
	st.userNS = p.userNS || useUserNS()
	if deferProbe {
		st.deferred = &deferredProbe{p: p}
		return st
	}
	st.native, st.status.HelperReason = chooseNative(p, exe, st.base)
	st.status.Helper = HelperTalon
	if st.native != "" {
		st.status.Helper = st.native
	}
	if p.noNamespaces {
		st.status.NamespacesReason = "namespaces are turned off"
	} else {
		st.ns, st.status.NamespacesReason = probeNamespaces(st.runner(), st.userNS)
	}
	st.status.Namespaces = st.ns
	if st.ns {
		st.status.Mechanism = MechanismNamespaces
	} else {
		st.status.Mechanism = MechanismLandlock
		for _, d := range st.base.Deny {
			if st.base.WS != "" && within(d, st.base.WS) {
				st.status.Exposed = append(st.status.Exposed, d)
			}
		}
		st.status.Unprotected = slices.Clone(st.base.Protect)
		p.Logger.Warn().Str("reason", st.status.NamespacesReason).
			Msg("sandbox: without namespaces; tool processes run under Landlock only and can see other processes")
	}
	p.Logger.Debug().Str("sandbox", st.status.Summary()).Msg("sandbox: enforced on tool processes")
	return st
}

func (st *state) unavailable(p Policy, reason string) {
	st.status.Reason = reason
	if p.Mode == Required {
		st.refuse = fmt.Errorf("%w: %s; run `talon sandbox check`, or set [sandbox] mode = \"auto\" to run tools unsandboxed", ErrUnsandboxed, reason)
		return
	}
	p.Logger.Warn().Str("reason", reason).Msg("sandbox: unavailable; tool processes run without Landlock")
}

// Current returns what the sandbox enforces in this process. Before
// [Configure] it is inactive with Mode [Off].
func Current() Status {
	if st := active.Load(); st != nil {
		return st.resolved().status
	}
	return Status{Mode: Off, ModeName: "off", ABI: landlockABI(), Reason: "not configured"}
}

// Cleanup removes this process's per-call temp dirs. Call it when no tool
// process is left running.
func Cleanup() {
	if st := active.Load(); st != nil {
		st.removeTemp()
	}
}

// removeTemp removes the temp root, if one was made; a later call makes a
// new one.
func (st *state) removeTemp() {
	st.tmpMu.Lock()
	defer st.tmpMu.Unlock()
	if st.tmpRoot != "" {
		_ = os.RemoveAll(st.tmpRoot)
		st.tmpRoot = ""
	}
}

// callTemp makes the private temp dir of one call.
func (st *state) callTemp() (string, error) {
	st.tmpMu.Lock()
	defer st.tmpMu.Unlock()
	if st.tmpRoot == "" {
		base := st.tmpBase
		if base == "" {
			base = os.TempDir()
		}
		root, err := os.MkdirTemp(base, "talon-sandbox-")
		if err != nil {
			return "", fmt.Errorf("make the sandbox temp dir: %w", err)
		}
		st.tmpRoot = root
	}
	return os.MkdirTemp(st.tmpRoot, "call-")
}

// helperArgs returns the helper's argv for running bin with argv under
// the policy, with tmp as the child's TMPDIR and the death pipe at
// descriptor death (0 for none).
func (st *state) helperArgs(bin string, argv []string, tmp string, death int) []string {
	s := st.base
	s.Tmp, s.Exe, s.NS, s.Death = tmp, bin, st.ns, death
	argv0 := helperArgv0
	if st.native != "" {
		argv0 = NativeName
	}
	return slices.Concat([]string{argv0, HelperCommand, "exec"}, s.Args(), []string{bin}, argv)
}

// runner is the program that starts children: talon-sandbox when it is
// used, else the helper (talon).
func (st *state) runner() string {
	if st.native != "" {
		return st.native
	}
	return st.helper
}

func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return filepath.Clean(p)
}

// uniq sorts ps and drops repeats: a path listed twice (XDG_CONFIG_HOME
// is ~/.config) is hidden and proved once.
func uniq(ps []string) []string {
	slices.Sort(ps)
	return slices.Compact(ps)
}

func absAll(ps []string) []string {
	out := make([]string, 0, len(ps))
	for _, p := range ps {
		if p != "" {
			out = append(out, absPath(p))
		}
	}
	return out
}

var (
	// ErrUnsandboxed reports a child that [Required] mode refused to start.
	ErrUnsandboxed = errors.New("sandbox required but unavailable")
	// ErrMode reports an unknown mode name.
	ErrMode = errors.New("unknown sandbox mode")
	// ErrHelperUsage reports a helper started with arguments it cannot read.
	ErrHelperUsage = errors.New("sandbox helper: bad arguments")
)

// within reports whether p is dir or below it.
func within(p, dir string) bool { return helper.Within(p, dir) }
