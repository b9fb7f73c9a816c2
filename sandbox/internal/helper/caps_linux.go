package helper

import (
	"os"
	"syscall"
	"unsafe"
)

// prctl options and capability constants.
const (
	prSetDumpable       = 4
	prCapbsetDrop       = 24
	prSetSecurebits     = 28
	prSetChildSubreaper = 36
	prCapAmbient        = 47
	prCapAmbientClear   = 4

	capSetpcap   = 8
	capVersion3  = 0x20080522
	lastCapGuess = 63

	// secureNoRoot locks uid 0 out of capabilities: exec as root grants
	// none, a change to or from uid 0 changes none, nothing can be kept
	// over a uid change or raised into the ambient set, and the bits
	// cannot be cleared.
	secureNoRoot = 1<<0 | 1<<1 | // NOROOT, locked
		1<<2 | 1<<3 | // NO_SETUID_FIXUP, locked
		1<<5 | // KEEP_CAPS off, locked
		1<<6 | 1<<7 // NO_CAP_AMBIENT_RAISE, locked
)

type capHeader struct {
	version uint32
	pid     int32
}

type capData struct{ effective, permitted, inheritable uint32 }

// dropCapabilities leaves the calling thread, and every program it
// starts, without any capability: the bounding set is emptied, the
// ambient set cleared, securebits make uid 0 an ordinary user, and the
// effective, permitted and inheritable sets become empty. A thread without
// CAP_SETPCAP has no capability to drop but what capset clears.
func dropCapabilities() error {
	hdr := capHeader{version: capVersion3}
	var data [2]capData
	if _, _, errno := syscall.RawSyscall(syscall.SYS_CAPGET, uintptr(unsafe.Pointer(&hdr)), uintptr(unsafe.Pointer(&data)), 0); errno != 0 {
		return wrap("read the capabilities", errno)
	}
	if data[0].effective&(1<<capSetpcap) != 0 {
		last := lastCap()
		for c := 0; c <= last; c++ {
			if _, _, errno := syscall.RawSyscall6(syscall.SYS_PRCTL, prCapbsetDrop, uintptr(c), 0, 0, 0, 0); errno != 0 {
				if errno == syscall.EINVAL {
					break // past the kernel's last capability
				}
				return wrap("drop capability "+itoa(c)+" from the bounding set", errno)
			}
		}
		if _, _, errno := syscall.RawSyscall6(syscall.SYS_PRCTL, prSetSecurebits, secureNoRoot, 0, 0, 0, 0); errno != 0 {
			return wrap("lock the securebits", errno)
		}
	}
	if _, _, errno := syscall.RawSyscall6(syscall.SYS_PRCTL, prCapAmbient, prCapAmbientClear, 0, 0, 0, 0); errno != 0 && errno != syscall.EINVAL {
		return wrap("clear the ambient capabilities", errno)
	}
	data = [2]capData{}
	if _, _, errno := syscall.RawSyscall(syscall.SYS_CAPSET, uintptr(unsafe.Pointer(&hdr)), uintptr(unsafe.Pointer(&data)), 0); errno != 0 {
		return wrap("clear the capabilities", errno)
	}
	return nil
}

// lastCap reads /proc/sys/kernel/cap_last_cap; without it, the drop goes
// on until the kernel says a number is past its last.
func lastCap() int {
	b := make([]byte, 8)
	f, err := os.Open("/proc/sys/kernel/cap_last_cap")
	if err != nil {
		return lastCapGuess
	}
	n, _ := f.Read(b)
	_ = f.Close()
	for n > 0 && (b[n-1] == '\n' || b[n-1] == ' ') {
		n--
	}
	if v, ok := atoi(string(b[:n])); ok {
		return v
	}
	return lastCapGuess
}
