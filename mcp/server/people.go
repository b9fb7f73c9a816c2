package server

import "fmt"

// CheckPerson returns nil when this process may answer approvals as a
// person would: no ancestor of it is talon (a tool process, a shell line,
// or a talon approvals one of them ran), by the same walk the control
// socket makes of a peer (see control_peer.go). talon approvals --fleet
// checks itself with it, since its answer goes through the database and
// no server can ask the kernel who sent it.
//
// # Errors
//
// It wraps [ErrRefusedPeer], with the reason, when an ancestor is talon
// or the process tree cannot be read; where the platform cannot walk it,
// every process is refused.
func CheckPerson() error {
	tree, err := newProcTree()
	if err != nil {
		return fmt.Errorf("%w: %v", ErrRefusedPeer, err)
	}
	pid, uid := tree.self()
	if pid <= 0 {
		return fmt.Errorf("%w: talon cannot walk this platform's processes, so it answers no approval through the fleet from it", ErrRefusedPeer)
	}
	if v := judge(peerCred{pid: pid, uid: uid}, tree); !v.allowed {
		return fmt.Errorf("%w: %s", ErrRefusedPeer, refusalMessage(v))
	}
	return nil
}
