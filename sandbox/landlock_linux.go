package sandbox

import (
	"fmt"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/talonhq/talon/sandbox/internal/helper"
)

// ipprotoMPTCP is IPPROTO_MPTCP.
const ipprotoMPTCP = 262

var abiOnce = sync.OnceValue(helper.ABI)

// landlockABI returns the kernel's Landlock ABI version, 0 without it.
func landlockABI() int { return abiOnce() }

func unsupportedReason() string {
	_, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	switch errno {
	case unix.ENOSYS:
		return "this kernel has no Landlock (Linux 5.13 or later with CONFIG_SECURITY_LANDLOCK)"
	case unix.EOPNOTSUPP:
		return "Landlock is built in but disabled (add landlock to the lsm= boot parameter)"
	case 0:
		return "Landlock is available"
	}
	return fmt.Sprintf("Landlock is unavailable: %v", errno)
}
