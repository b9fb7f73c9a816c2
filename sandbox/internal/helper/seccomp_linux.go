//go:build linux && !386

package helper

import (
	"runtime"
	"syscall"
	"unsafe"
)

const (
	// ipprotoMPTCP is IPPROTO_MPTCP.
	ipprotoMPTCP = 262
	// x32Bit marks an x32 system call on amd64; it is cleared before the
	// number is compared, so x32 socket calls are checked too.
	x32Bit = 0x40000000

	seccompModeFilter = 2
	seccompRetErrno   = 0x00050000
	seccompRetAllow   = 0x7fff0000
)

// auditArch is the seccomp architecture of this build's system calls.
var auditArch = map[string]uint32{
	"amd64":   0xc000003e,
	"arm64":   0xc00000b7,
	"riscv64": 0xc00000f3,
}

// refuseMPTCP installs a seccomp filter that fails socket(2) for
// IPPROTO_MPTCP with EPROTONOSUPPORT. Landlock's TCP rules apply to
// IPPROTO_TCP sockets only, so a multipath TCP socket would connect and
// bind past them; programs (Go's net package among them) fall back to
// plain TCP. System calls of another architecture (a 32-bit program on a
// 64-bit kernel) fail with ENOSYS, since their socket numbers differ. On
// an architecture not in auditArch nothing is installed.
func refuseMPTCP() error {
	arch, ok := auditArch[runtime.GOARCH]
	if !ok {
		return nil
	}
	const (
		ld  = syscall.BPF_LD | syscall.BPF_W | syscall.BPF_ABS
		jeq = syscall.BPF_JMP | syscall.BPF_JEQ | syscall.BPF_K
		ret = syscall.BPF_RET | syscall.BPF_K
	)
	prog := []syscall.SockFilter{
		{Code: ld, K: 4}, // arch
		{Code: jeq, K: arch, Jt: 1},
		{Code: ret, K: seccompRetErrno | uint32(syscall.ENOSYS)},
		{Code: ld, K: 0}, // nr
		{Code: syscall.BPF_ALU | syscall.BPF_AND | syscall.BPF_K, K: ^uint32(x32Bit)},
		{Code: jeq, K: syscall.SYS_SOCKET, Jf: 3},
		{Code: ld, K: 32}, // low half of args[2], the protocol
		{Code: jeq, K: ipprotoMPTCP, Jf: 1},
		{Code: ret, K: seccompRetErrno | uint32(syscall.EPROTONOSUPPORT)},
		{Code: ret, K: seccompRetAllow},
	}
	fp := syscall.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	if _, _, errno := syscall.RawSyscall6(syscall.SYS_PRCTL, prSetSeccomp, seccompModeFilter,
		uintptr(unsafe.Pointer(&fp)), 0, 0, 0); errno != 0 {
		return wrap("install the seccomp filter", errno)
	}
	return nil
}
