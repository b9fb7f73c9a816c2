package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Landlock filesystem rights by the ABI that introduced them.
const (
	fsV1 = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE |
		unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_READ_DIR |
		unix.LANDLOCK_ACCESS_FS_REMOVE_DIR | unix.LANDLOCK_ACCESS_FS_REMOVE_FILE |
		unix.LANDLOCK_ACCESS_FS_MAKE_CHAR | unix.LANDLOCK_ACCESS_FS_MAKE_DIR |
		unix.LANDLOCK_ACCESS_FS_MAKE_REG | unix.LANDLOCK_ACCESS_FS_MAKE_SOCK |
		unix.LANDLOCK_ACCESS_FS_MAKE_FIFO | unix.LANDLOCK_ACCESS_FS_MAKE_BLOCK |
		unix.LANDLOCK_ACCESS_FS_MAKE_SYM
	fsRead = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_READ_FILE |
		unix.LANDLOCK_ACCESS_FS_READ_DIR
	// fsFile are the rights that apply to a file rather than a directory.
	fsFile = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE |
		unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_TRUNCATE |
		unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
	// fsDevice is what the shared device nodes get.
	fsDevice = unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE |
		unix.LANDLOCK_ACCESS_FS_READ_DIR | unix.LANDLOCK_ACCESS_FS_TRUNCATE |
		unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
	// fsCarved is what a granted directory keeps when a denied path inside
	// it is carved out: its listing and new directories, never the
	// contents of what is below it.
	fsCarved = unix.LANDLOCK_ACCESS_FS_READ_DIR | unix.LANDLOCK_ACCESS_FS_MAKE_DIR
)

// ruleset is struct landlock_ruleset_attr up to the scoped field (ABI 6).
type rulesetAttr struct {
	fs, net, scoped uint64
}

// netPortAttr is struct landlock_net_port_attr.
type netPortAttr struct {
	allowed, port uint64
}

var abiOnce = sync.OnceValue(func() int {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if errno != 0 {
		return 0
	}
	return int(v)
})

// landlockABI returns the kernel's Landlock ABI version, 0 without it.
func landlockABI() int { return abiOnce() }

func unsupportedReason() string {
	_, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	switch errno {
	case unix.ENOSYS:
		return "this kernel has no Landlock (Linux 5.13 or later with CONFIG_SECURITY_LANDLOCK)"
	case unix.EOPNOTSUPP:
		return "Landlock is built in but disabled (add landlock to the lsm= boot parameter)"
	}
	return fmt.Sprintf("Landlock is unavailable: %v", errno)
}

func handledFS(abi int) uint64 {
	h := uint64(fsV1)
	if abi >= 2 {
		h |= unix.LANDLOCK_ACCESS_FS_REFER
	}
	if abi >= 3 {
		h |= unix.LANDLOCK_ACCESS_FS_TRUNCATE
	}
	if abi >= 5 {
		h |= unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
	}
	return h
}

// restrict applies s to the calling thread: rlimits, no new privileges,
// then a Landlock domain. The caller execs on the same thread.
func restrict(s spec) error {
	if err := setLimits(s.Lim); err != nil {
		return err
	}
	abi := landlockABI()
	if abi < 1 {
		return errors.New(unsupportedReason())
	}
	attr := rulesetAttr{fs: handledFS(abi)}
	size := unsafe.Sizeof(attr.fs)
	if abi >= 4 {
		attr.net = unix.LANDLOCK_ACCESS_NET_CONNECT_TCP
		if !s.Bind {
			attr.net |= unix.LANDLOCK_ACCESS_NET_BIND_TCP
		}
		size = unsafe.Offsetof(attr.scoped)
	}
	if abi >= 6 {
		attr.scoped = unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | unix.LANDLOCK_SCOPE_SIGNAL
		size = unsafe.Sizeof(attr)
	}
	fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), size, 0)
	if errno != 0 {
		return fmt.Errorf("landlock_create_ruleset: %w", errno)
	}
	rfd := int(fd)
	defer unix.Close(rfd)
	all := attr.fs
	add := func(path string, rights uint64) error {
		return addPath(rfd, path, rights&all)
	}
	for _, p := range grants(s, all) {
		if err := add(p.path, p.rights); err != nil {
			return err
		}
	}
	if abi >= 4 {
		for _, port := range s.Ports {
			na := netPortAttr{allowed: unix.LANDLOCK_ACCESS_NET_CONNECT_TCP, port: uint64(port)}
			if _, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(rfd), ruleNetPort,
				uintptr(unsafe.Pointer(&na)), 0, 0, 0); errno != 0 {
				return fmt.Errorf("landlock rule for port %d: %w", port, errno)
			}
		}
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	if abi >= 4 {
		if _, err := refuseMPTCP(); err != nil {
			return err
		}
	}
	if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, uintptr(rfd), 0, 0); errno != 0 {
		return fmt.Errorf("landlock_restrict_self: %w", errno)
	}
	return nil
}

type grant struct {
	path   string
	rights uint64
}

// grants lists the path rules of s, with every denied path carved out of
// the granted directories that contain it.
func grants(s spec, all uint64) []grant {
	var gs []grant
	for _, p := range s.Read {
		gs = append(gs, grant{p, fsRead})
	}
	for _, p := range deviceFiles {
		gs = append(gs, grant{p, fsDevice})
	}
	if s.Exe != "" {
		gs = append(gs, grant{s.Exe, fsRead})
	}
	for _, p := range s.Write {
		gs = append(gs, grant{p, all})
	}
	if s.Tmp != "" {
		gs = append(gs, grant{s.Tmp, all})
	}
	if len(s.Deny) == 0 {
		if s.WS != "" {
			gs = append(gs, grant{s.WS, all})
		}
		return gs
	}
	var out []grant
	for _, g := range gs {
		out = carve(out, g, s.Deny, 0)
	}
	if s.WS != "" {
		out = append(out, grant{s.WS, all})
	}
	return out
}

// carve appends g, or when a denied path lies inside g, a rule for each
// entry of g that does not lead to it (recursively) and fsCarved on g.
func carve(out []grant, g grant, deny []string, depth int) []grant {
	var inside []string
	for _, d := range deny {
		if within(g.path, d) {
			return out // g is itself denied
		}
		if within(d, g.path) {
			inside = append(inside, d)
		}
	}
	if len(inside) == 0 {
		return append(out, g)
	}
	entries, err := os.ReadDir(g.path)
	if err != nil || depth > 8 {
		return out // unreadable or too deep: grant nothing rather than the secret
	}
	out = append(out, grant{g.path, g.rights & fsCarved})
	for _, e := range entries {
		out = carve(out, grant{filepath.Join(g.path, e.Name()), g.rights}, inside, depth+1)
	}
	return out
}

func addPath(rfd int, path string, rights uint64) error {
	fd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil // absent paths grant nothing
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		rights &= fsFile
	}
	if rights == 0 {
		return nil
	}
	pb := unix.LandlockPathBeneathAttr{Allowed_access: rights, Parent_fd: int32(fd)}
	if _, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(rfd), unix.LANDLOCK_RULE_PATH_BENEATH,
		uintptr(unsafe.Pointer(&pb)), 0, 0, 0); errno != 0 {
		return fmt.Errorf("landlock rule for %s: %w", path, errno)
	}
	return nil
}

func setLimits(l Limits) error {
	set := func(name string, res int, v uint64) error {
		if v == 0 {
			return nil
		}
		if err := syscall.Setrlimit(res, &syscall.Rlimit{Cur: v, Max: v}); err != nil {
			return fmt.Errorf("set %s limit to %d: %w", name, v, err)
		}
		return nil
	}
	return errors.Join(
		set("cpu", unix.RLIMIT_CPU, uint64(l.CPUSeconds)),
		set("memory", unix.RLIMIT_AS, uint64(l.MemoryMB)<<20),
		set("process", unix.RLIMIT_NPROC, uint64(l.Processes)),
		set("open files", unix.RLIMIT_NOFILE, uint64(l.OpenFiles)),
	)
}

// ruleNetPort is LANDLOCK_RULE_NET_PORT.
const ruleNetPort = 2
