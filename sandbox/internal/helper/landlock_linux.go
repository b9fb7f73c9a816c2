package helper

import (
	"errors"
	"os"
	"runtime"
	"syscall"
	"unsafe"
)

// Landlock system calls share one number on every architecture.
const (
	sysCreateRuleset = 444
	sysAddRule       = 445
	sysRestrictSelf  = 446

	createRulesetVersion = 1
	rulePathBeneath      = 1
	ruleNetPort          = 2
)

// Landlock filesystem rights.
const (
	fsExecute    = 1 << 0
	fsWriteFile  = 1 << 1
	fsReadFile   = 1 << 2
	fsReadDir    = 1 << 3
	fsRemoveDir  = 1 << 4
	fsRemoveFile = 1 << 5
	fsMakeChar   = 1 << 6
	fsMakeDir    = 1 << 7
	fsMakeReg    = 1 << 8
	fsMakeSock   = 1 << 9
	fsMakeFifo   = 1 << 10
	fsMakeBlock  = 1 << 11
	fsMakeSym    = 1 << 12
	fsRefer      = 1 << 13 // ABI 2
	fsTruncate   = 1 << 14 // ABI 3
	fsIoctlDev   = 1 << 15 // ABI 5

	fsV1   = 1<<13 - 1
	fsRead = fsExecute | fsReadFile | fsReadDir
	// fsFile are the rights that apply to a file rather than a directory.
	fsFile = fsExecute | fsWriteFile | fsReadFile | fsTruncate | fsIoctlDev
	// fsDevice is what the shared device nodes get.
	fsDevice = fsReadFile | fsWriteFile | fsReadDir | fsTruncate | fsIoctlDev
	// fsCarved is what a granted directory keeps when a denied path inside
	// it is carved out: its listing and new directories, never the
	// contents of what is below it.
	fsCarved = fsReadDir | fsMakeDir

	netBindTCP    = 1 << 0
	netConnectTCP = 1 << 1

	scopeAbstractUnix = 1 << 0
	scopeSignal       = 1 << 1
)

// rulesetAttr is struct landlock_ruleset_attr up to scoped (ABI 6).
type rulesetAttr struct{ fs, net, scoped uint64 }

// pathBeneathAttr is the packed struct landlock_path_beneath_attr: 12
// bytes, which is all the kernel reads.
type pathBeneathAttr struct {
	allowed uint64
	fd      int32
	_       int32
}

// netPortAttr is struct landlock_net_port_attr.
type netPortAttr struct{ allowed, port uint64 }

// ABI returns the kernel's Landlock ABI version, 0 without Landlock.
func ABI() int {
	v, _, errno := syscall.Syscall(sysCreateRuleset, 0, 0, createRulesetVersion)
	if errno != 0 {
		return 0
	}
	return int(v)
}

func handledFS(abi int) uint64 {
	h := uint64(fsV1)
	if abi >= 2 {
		h |= fsRefer
	}
	if abi >= 3 {
		h |= fsTruncate
	}
	if abi >= 5 {
		h |= fsIoctlDev
	}
	return h
}

// Restrict applies s to the calling thread: a Landlock domain, no new
// privileges, the seccomp filter, no capabilities, then the rlimits (last,
// so that a low open-files limit does not stop the helper itself). The
// caller starts the program from the same thread.
func Restrict(s Spec) error {
	abi := ABI()
	if abi < 1 {
		return errors.New("this kernel has no usable Landlock")
	}
	attr := rulesetAttr{fs: handledFS(abi)}
	size := unsafe.Sizeof(attr.fs)
	if abi >= 4 {
		attr.net = netConnectTCP
		if !s.Bind {
			attr.net |= netBindTCP
		}
		size = unsafe.Offsetof(attr.scoped)
	}
	if abi >= 6 {
		attr.scoped = scopeAbstractUnix | scopeSignal
		size = unsafe.Sizeof(attr)
	}
	fd, _, errno := syscall.Syscall(sysCreateRuleset, uintptr(unsafe.Pointer(&attr)), size, 0)
	if errno != 0 {
		return wrap("landlock_create_ruleset", errno)
	}
	rfd := int(fd)
	defer syscall.Close(rfd)
	for _, g := range Grants(s, attr.fs) {
		if err := addPath(rfd, g.Path, g.Rights&attr.fs); err != nil {
			return err
		}
	}
	if abi >= 4 {
		for _, port := range s.Ports {
			na := netPortAttr{allowed: netConnectTCP, port: uint64(port)}
			if _, _, errno := syscall.Syscall6(sysAddRule, uintptr(rfd), ruleNetPort,
				uintptr(unsafe.Pointer(&na)), 0, 0, 0); errno != 0 {
				return wrap("landlock rule for port "+itoa(port), errno)
			}
		}
	}
	if _, _, errno := syscall.RawSyscall6(syscall.SYS_PRCTL, prSetNoNewPrivs, 1, 0, 0, 0, 0); errno != 0 {
		return wrap("no_new_privs", errno)
	}
	if err := filterSockets(s.UDP); err != nil {
		return err
	}
	if _, _, errno := syscall.Syscall(sysRestrictSelf, uintptr(rfd), 0, 0); errno != 0 {
		return wrap("landlock_restrict_self", errno)
	}
	if err := dropCapabilities(); err != nil {
		return err
	}
	return setLimits(s.Lim)
}

// Grant is one path rule.
type Grant struct {
	Path   string
	Rights uint64
}

// Grants lists the path rules of s, with every denied path carved out of
// the granted paths that contain it (the workspace excepted). In
// namespaces the denied paths are hidden by mounts already, and only those
// left to Landlock (one that holds the workspace) are carved out: carving
// one out of /etc takes a rule for every entry of /etc.
func Grants(s Spec, all uint64) []Grant {
	var gs []Grant
	for _, p := range s.Read {
		gs = append(gs, Grant{p, fsRead})
	}
	for _, p := range s.Devices {
		gs = append(gs, Grant{p, fsDevice})
	}
	if s.Exe != "" {
		gs = append(gs, Grant{s.Exe, fsRead})
	}
	for _, p := range s.Write {
		gs = append(gs, Grant{p, all})
	}
	if s.Tmp != "" {
		gs = append(gs, Grant{s.Tmp, all})
	}
	deny := s.Deny
	if s.NS {
		deny = nil
		for _, d := range s.Deny {
			if !hidden(s, d) {
				deny = append(deny, d)
			}
		}
	}
	out := gs
	if len(deny) > 0 {
		out = nil
		for _, g := range gs {
			out = carve(out, g, deny, 0)
		}
	}
	if s.WS != "" {
		out = append(out, Grant{s.WS, all})
	}
	return out
}

// carve appends g, or when a denied path lies inside g, fsCarved on g and
// a rule for each entry of g, carved again where it leads to the denied
// path.
func carve(out []Grant, g Grant, deny []string, depth int) []Grant {
	var inside []string
	for _, d := range deny {
		if Within(g.Path, d) {
			return out // g is itself denied
		}
		if Within(d, g.Path) {
			inside = append(inside, d)
		}
	}
	if len(inside) == 0 {
		return append(out, g)
	}
	entries, err := os.ReadDir(g.Path)
	if err != nil || depth > 8 {
		return out // unreadable or too deep: grant nothing rather than the secret
	}
	out = append(out, Grant{g.Path, g.Rights & fsCarved})
	for _, e := range entries {
		out = carve(out, Grant{join(g.Path, e.Name()), g.Rights}, inside, depth+1)
	}
	return out
}

func join(dir, name string) string {
	if dir == "/" {
		return "/" + name
	}
	return dir + "/" + name
}

// stepError is a failed step of the restriction.
type stepError struct {
	step string
	err  error
}

func (e *stepError) Error() string { return e.step + ": " + e.err.Error() }
func (e *stepError) Unwrap() error { return e.err }

func wrap(step string, err error) error { return &stepError{step, err} }

// oPath is O_PATH.
const oPath = 0x200000

func addPath(rfd int, path string, rights uint64) error {
	fd, err := syscall.Open(path, oPath|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil // absent paths grant nothing
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFDIR {
		rights &= fsFile
	}
	if rights == 0 {
		return nil
	}
	pb := pathBeneathAttr{allowed: rights, fd: int32(fd)}
	if _, _, errno := syscall.Syscall6(sysAddRule, uintptr(rfd), rulePathBeneath,
		uintptr(unsafe.Pointer(&pb)), 0, 0, 0); errno != 0 {
		return wrap("landlock rule for "+path, errno)
	}
	return nil
}

// rlimitNproc is RLIMIT_NPROC, which the syscall package lacks.
func rlimitNproc() int {
	switch runtime.GOARCH {
	case "mips", "mipsle", "mips64", "mips64le":
		return 8
	case "sparc64":
		return 7
	}
	return 6
}

func setLimits(l Limits) error {
	set := func(name string, res int, v uint64) error {
		if v == 0 {
			return nil
		}
		if err := syscall.Setrlimit(res, &syscall.Rlimit{Cur: v, Max: v}); err != nil {
			return wrap("set the "+name+" limit to "+itoa(int(v)), err)
		}
		return nil
	}
	return errors.Join(
		set("cpu", syscall.RLIMIT_CPU, uint64(l.CPUSeconds)),
		set("memory", syscall.RLIMIT_AS, uint64(l.MemoryMB)<<20),
		set("process", rlimitNproc(), uint64(l.Processes)),
		set("open files", syscall.RLIMIT_NOFILE, uint64(l.OpenFiles)),
	)
}

// prctl options.
const (
	prSetSeccomp    = 22
	prSetNoNewPrivs = 38
)
