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

	afUnix    = 1
	afInet    = 2
	afInet6   = 10
	afNetlink = 16

	sockStream   = 1
	sockDgram    = 2
	sockTypeMask = 0xf

	ipprotoTCP = 6
	ipprotoUDP = 17
)

// auditArch is the seccomp architecture of this build's system calls.
var auditArch = map[string]uint32{
	"amd64":   0xc000003e,
	"arm64":   0xc00000b7,
	"riscv64": 0xc00000f3,
}

// sysIoUringSetup is io_uring_setup(2), the same number everywhere.
const sysIoUringSetup = 425

// FilterSockets reports whether this architecture gets the socket filter.
func FilterSockets() bool { _, ok := auditArch[runtime.GOARCH]; return ok }

// insn is one BPF instruction whose jumps name labels.
type insn struct {
	code   uint16
	k      uint32
	jt, jf string // labels; "" is the next instruction
	label  string // this instruction's label
}

// assemble resolves the labels of prog into relative jumps.
func assemble(prog []insn) []syscall.SockFilter {
	at := map[string]int{}
	for i, in := range prog {
		if in.label != "" {
			at[in.label] = i
		}
	}
	off := func(i int, l string) uint8 {
		if l == "" {
			return 0
		}
		return uint8(at[l] - i - 1)
	}
	out := make([]syscall.SockFilter, len(prog))
	for i, in := range prog {
		out[i] = syscall.SockFilter{Code: in.code, K: in.k, Jt: off(i, in.jt), Jf: off(i, in.jf)}
	}
	return out
}

// socketFilter is the seccomp program: socket(2) creates only Unix,
// netlink, TCP and (when udp) UDP sockets. Raw sockets, packet sockets,
// ping sockets, every other family and every other protocol of the
// internet families fail with EPERM; multipath TCP and SCTP streams fail
// with EPROTONOSUPPORT, so programs fall back to plain TCP, whose connects
// and binds Landlock checks. io_uring_setup(2) fails with EPERM, since
// io_uring makes sockets without socket(2). System calls of another
// architecture (a 32-bit program on a 64-bit kernel) fail with ENOSYS:
// their numbers differ.
func socketFilter(arch uint32, udp bool) []syscall.SockFilter {
	const (
		ld  = syscall.BPF_LD | syscall.BPF_W | syscall.BPF_ABS
		jeq = syscall.BPF_JMP | syscall.BPF_JEQ | syscall.BPF_K
		and = syscall.BPF_ALU | syscall.BPF_AND | syscall.BPF_K
		ret = syscall.BPF_RET | syscall.BPF_K
		// offsets in struct seccomp_data: the low halves of the arguments
		// on these little-endian architectures.
		nr, archOff, arg0, arg1, arg2 = 0, 4, 16, 24, 32
	)
	dgram := []insn{{code: ret, k: seccompRetErrno | uint32(syscall.EPERM), label: "dgram"}}
	if udp {
		dgram = []insn{
			{code: ld, k: arg2, label: "dgram"},
			{code: jeq, k: 0, jt: "allow"},
			{code: jeq, k: ipprotoUDP, jt: "allow", jf: "eperm"},
		}
	}
	prog := []insn{
		{code: ld, k: archOff},
		{code: jeq, k: arch, jf: "enosys"},
		{code: ld, k: nr},
		{code: and, k: ^uint32(x32Bit)},
		{code: jeq, k: sysIoUringSetup, jt: "eperm"},
		{code: jeq, k: syscall.SYS_SOCKET, jf: "allow"},
		{code: ld, k: arg0},
		{code: jeq, k: afUnix, jt: "allow"},
		{code: jeq, k: afNetlink, jt: "allow"},
		{code: jeq, k: afInet, jt: "inet"},
		{code: jeq, k: afInet6, jt: "inet", jf: "eperm"},
		{code: ld, k: arg1, label: "inet"},
		{code: and, k: sockTypeMask},
		{code: jeq, k: sockDgram, jt: "dgram"},
		{code: jeq, k: sockStream, jf: "eperm"},
		{code: ld, k: arg2},
		{code: jeq, k: 0, jt: "allow"},
		{code: jeq, k: ipprotoTCP, jt: "allow"},
		{code: ret, k: seccompRetErrno | uint32(syscall.EPROTONOSUPPORT)},
	}
	prog = append(prog, dgram...)
	prog = append(prog,
		insn{code: ret, k: seccompRetErrno | uint32(syscall.EPERM), label: "eperm"},
		insn{code: ret, k: seccompRetErrno | uint32(syscall.ENOSYS), label: "enosys"},
		insn{code: ret, k: seccompRetAllow, label: "allow"},
	)
	return assemble(prog)
}

// filterSockets installs socketFilter. On an architecture not in
// auditArch nothing is installed.
func filterSockets(udp bool) error {
	arch, ok := auditArch[runtime.GOARCH]
	if !ok {
		return nil
	}
	prog := socketFilter(arch, udp)
	fp := syscall.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	if _, _, errno := syscall.RawSyscall6(syscall.SYS_PRCTL, prSetSeccomp, seccompModeFilter,
		uintptr(unsafe.Pointer(&fp)), 0, 0, 0); errno != 0 {
		return wrap("install the seccomp filter", errno)
	}
	return nil
}
