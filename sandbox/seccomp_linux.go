package sandbox

import (
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// ipprotoMPTCP is IPPROTO_MPTCP.
const ipprotoMPTCP = 262

// auditArch is the seccomp architecture of this build's system calls.
var auditArch = map[string]uint32{
	"amd64":   unix.AUDIT_ARCH_X86_64,
	"arm64":   unix.AUDIT_ARCH_AARCH64,
	"riscv64": unix.AUDIT_ARCH_RISCV64,
}

// refuseMPTCP installs a seccomp filter that fails socket(2) for
// IPPROTO_MPTCP with EPROTONOSUPPORT. Landlock's TCP rules apply to
// IPPROTO_TCP sockets only, so a multipath TCP socket would connect and
// bind past them; programs (Go's net package among them) fall back to
// plain TCP. System calls of another architecture (a 32-bit program on a
// 64-bit kernel) are refused with ENOSYS, since their socket numbers are
// not checked. On an architecture not in auditArch nothing is installed
// and false is returned.
func refuseMPTCP() (bool, error) {
	arch, ok := auditArch[runtime.GOARCH]
	if !ok {
		return false, nil
	}
	const (
		ld  = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		jeq = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
		ret = unix.BPF_RET | unix.BPF_K
	)
	prog := []unix.SockFilter{
		{Code: ld, K: 4}, // arch
		{Code: jeq, K: arch, Jt: 1},
		{Code: ret, K: unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)},
		{Code: ld, K: 0}, // nr
		{Code: jeq, K: unix.SYS_SOCKET, Jf: 3},
		{Code: ld, K: 32}, // low half of args[2], the protocol
		{Code: jeq, K: ipprotoMPTCP, Jf: 1},
		{Code: ret, K: unix.SECCOMP_RET_ERRNO | uint32(unix.EPROTONOSUPPORT)},
		{Code: ret, K: unix.SECCOMP_RET_ALLOW},
	}
	fp := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	if err := unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&fp)), 0, 0); err != nil {
		return false, fmt.Errorf("install the seccomp filter: %w", err)
	}
	return true, nil
}
