//go:build linux && !386

package helper

import (
	"encoding/binary"
	"syscall"
	"testing"

	"golang.org/x/net/bpf"
)

// runFilter runs socketFilter in a BPF interpreter on one system call and
// returns the action: "allow" or the errno it fails with.
func runFilter(t *testing.T, prog []syscall.SockFilter, arch, nr uint32, args ...uint32) string {
	t.Helper()
	raw := make([]bpf.RawInstruction, len(prog))
	for i, in := range prog {
		raw[i] = bpf.RawInstruction{Op: in.Code, Jt: in.Jt, Jf: in.Jf, K: in.K}
	}
	insns, ok := bpf.Disassemble(raw)
	if !ok {
		t.Fatalf("the filter does not disassemble: %v", insns)
	}
	vm, err := bpf.NewVM(insns)
	if err != nil {
		t.Fatal(err)
	}
	// struct seccomp_data as the kernel lays it out; the interpreter
	// loads big-endian words where the kernel loads native ones, so the
	// low halves of the arguments are written where a load finds them.
	data := make([]byte, 64)
	binary.BigEndian.PutUint32(data[0:], nr)
	binary.BigEndian.PutUint32(data[4:], arch)
	for i, a := range args {
		binary.BigEndian.PutUint32(data[16+8*i:], a)
	}
	ret, err := vm.Run(data)
	if err != nil {
		t.Fatal(err)
	}
	switch r := uint32(ret); {
	case r == seccompRetAllow:
		return "allow"
	case r&0xffff0000 == seccompRetErrno:
		return syscall.Errno(r & 0xffff).Error()
	default:
		return "action " + itoa(int(r))
	}
}

func TestSocketFilter(t *testing.T) {
	const arch = 0xc000003e
	const (
		afPacket = 17
		afVsock  = 40
		sockRaw  = 3
		seqpkt   = 5
		icmp     = 1
		sctp     = 132
		nonblock = 0x800
		cloexec  = 0x80000
	)
	eperm, proto, enosys := syscall.EPERM.Error(), syscall.EPROTONOSUPPORT.Error(), syscall.ENOSYS.Error()
	tests := []struct {
		name      string
		nr        uint32
		args      []uint32
		want, udp string // without and with UDP allowed
	}{
		{"tcp", syscall.SYS_SOCKET, []uint32{afInet, sockStream, 0}, "allow", "allow"},
		{"tcp6 nonblocking", syscall.SYS_SOCKET, []uint32{afInet6, sockStream | nonblock | cloexec, ipprotoTCP}, "allow", "allow"},
		{"mptcp", syscall.SYS_SOCKET, []uint32{afInet, sockStream, ipprotoMPTCP}, proto, proto},
		{"sctp stream", syscall.SYS_SOCKET, []uint32{afInet, sockStream, sctp}, proto, proto},
		{"sctp seqpacket", syscall.SYS_SOCKET, []uint32{afInet, seqpkt, sctp}, eperm, eperm},
		{"udp", syscall.SYS_SOCKET, []uint32{afInet, sockDgram | cloexec, 0}, eperm, "allow"},
		{"udp6 by protocol", syscall.SYS_SOCKET, []uint32{afInet6, sockDgram, ipprotoUDP}, eperm, "allow"},
		{"ping", syscall.SYS_SOCKET, []uint32{afInet, sockDgram, icmp}, eperm, eperm},
		{"raw", syscall.SYS_SOCKET, []uint32{afInet, sockRaw, icmp}, eperm, eperm},
		{"raw6", syscall.SYS_SOCKET, []uint32{afInet6, sockRaw, 58}, eperm, eperm},
		{"packet", syscall.SYS_SOCKET, []uint32{afPacket, sockRaw, 0x300}, eperm, eperm},
		{"packet dgram", syscall.SYS_SOCKET, []uint32{afPacket, sockDgram, 0x300}, eperm, eperm},
		{"vsock", syscall.SYS_SOCKET, []uint32{afVsock, sockStream, 0}, eperm, eperm},
		{"unix", syscall.SYS_SOCKET, []uint32{afUnix, sockStream, 0}, "allow", "allow"},
		{"unix dgram", syscall.SYS_SOCKET, []uint32{afUnix, sockDgram, 0}, "allow", "allow"},
		{"netlink", syscall.SYS_SOCKET, []uint32{afNetlink, sockRaw, 0}, "allow", "allow"},
		{"x32 raw", syscall.SYS_SOCKET | x32Bit, []uint32{afInet, sockRaw, icmp}, eperm, eperm},
		{"io_uring", sysIoUringSetup, nil, eperm, eperm},
		{"read", syscall.SYS_READ, []uint32{0, 0, 0}, "allow", "allow"},
		{"connect", syscall.SYS_CONNECT, []uint32{3, 0, 16}, "allow", "allow"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := runFilter(t, socketFilter(arch, false), arch, tt.nr, tt.args...); got != tt.want {
				t.Errorf("without UDP: %s, want %s", got, tt.want)
			}
			if got := runFilter(t, socketFilter(arch, true), arch, tt.nr, tt.args...); got != tt.udp {
				t.Errorf("with UDP: %s, want %s", got, tt.udp)
			}
		})
	}
	t.Run("another architecture", func(t *testing.T) {
		if got := runFilter(t, socketFilter(arch, false), 0x40000003, syscall.SYS_READ); got != enosys {
			t.Errorf("i386 read: %s, want %s", got, enosys)
		}
	})
}
