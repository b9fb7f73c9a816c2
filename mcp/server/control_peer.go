package server

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"

	"github.com/rs/zerolog"
)

// Approvals come only from people. The control endpoint asks the kernel
// which process connected (its pid and uid) and refuses any process that
// talon started, directly or not: a process whose parent chain reaches
// this server, or any process running talon's executable (a tool of
// another talon). The peer itself may be talon's executable — that is
// `talon approvals` — so only its ancestors are compared. Where the
// platform cannot name the peer, every peer is refused.

// The checks a refusal names, in the log and to the client.
const (
	checkIdentity         = "identity"
	checkUID              = "uid"
	checkServerDescendant = "descendant of this server"
	checkTalonDescendant  = "descendant of talon"
	checkProcessTree      = "process tree"
	checkExited           = "exited"
)

// maxAncestors bounds the walk up the process tree.
const maxAncestors = 4096

// peerCred is what the kernel says about the process at the other end of
// a connection.
type peerCred struct {
	pid, uid int
	// gone is set when the kernel already knows the peer exited.
	gone bool
	// alive reports whether the process that connected is still running,
	// so that its pid still names it; nil when the platform cannot tell.
	alive func() bool
	// release frees what the platform handed out for alive; nil when
	// there is nothing to free.
	release func()
}

// procTree is what the peer check reads about processes.
type procTree interface {
	// self is this process's pid and effective uid.
	self() (pid, uid int)
	// parent returns the parent of pid; 0 above the top of the tree.
	parent(pid int) (int, error)
	// talon reports whether pid runs talon's executable.
	talon(pid int) (bool, error)
	// cmdline is pid's command line for the log, "" when unreadable.
	cmdline(pid int) string
}

// peerVerdict is the decision about one connection.
type peerVerdict struct {
	allowed  bool
	pid      int
	cmdline  string
	check    string
	ancestor int
	// reason completes "approvals must come from a person's terminal: ".
	reason string
}

func refuse(v peerVerdict, check, reason string) peerVerdict {
	v.check, v.reason = check, reason
	return v
}

// judge decides whether the process described by cred may use the
// control endpoint.
func judge(cred peerCred, tree procTree) peerVerdict {
	self, selfUID := tree.self()
	v := peerVerdict{pid: cred.pid}
	if cred.pid <= 0 {
		return refuse(v, checkIdentity, "the kernel did not say which process connected")
	}
	v.cmdline = tree.cmdline(cred.pid)
	if cred.gone {
		return refuse(v, checkExited, fmt.Sprintf("the connecting process (pid %d) exited before it could be checked", cred.pid))
	}
	if cred.uid != selfUID && cred.uid != 0 {
		return refuse(v, checkUID, fmt.Sprintf("the connecting process runs as uid %d, not as talon's uid %d", cred.uid, selfUID))
	}
	pid := cred.pid
	for depth := 0; ; depth++ {
		if depth >= maxAncestors {
			return refuse(v, checkProcessTree, fmt.Sprintf("pid %d has more than %d ancestors", cred.pid, maxAncestors))
		}
		ppid, err := tree.parent(pid)
		if err != nil {
			return refuse(v, checkProcessTree, fmt.Sprintf("the ancestors of pid %d could not be read (%v)", cred.pid, err))
		}
		if ppid <= 0 {
			break
		}
		if ppid == self {
			v.ancestor = ppid
			return refuse(v, checkServerDescendant, fmt.Sprintf("pid %d was started by this talon serve (pid %d), as tool processes are", cred.pid, self))
		}
		isTalon, err := tree.talon(ppid)
		if err != nil {
			return refuse(v, checkProcessTree, fmt.Sprintf("could not tell whether pid %d, an ancestor of pid %d, is talon (%v)", ppid, cred.pid, err))
		}
		if isTalon {
			v.ancestor = ppid
			return refuse(v, checkTalonDescendant, fmt.Sprintf("pid %d was started by a talon process (pid %d), as tool processes are", cred.pid, ppid))
		}
		pid = ppid
	}
	if cred.alive != nil && !cred.alive() {
		return refuse(v, checkExited, fmt.Sprintf("the connecting process (pid %d) exited before it could be checked", cred.pid))
	}
	v.allowed = true
	return v
}

// refusalMessage is what a refused client reads.
func refusalMessage(v peerVerdict) string {
	next := "run talon approvals in a terminal that talon did not start"
	if v.check == checkIdentity {
		next = "answer through an MCP client that supports elicitation instead"
	}
	return fmt.Sprintf("approvals must come from a person's terminal: %s; %s", v.reason, next)
}

// peerKey carries a connection's verdict in its requests' contexts.
type peerKey struct{}

// peerContext judges the process behind c when the connection is
// accepted, as close to its connect() as possible.
func peerContext(tree procTree) func(context.Context, net.Conn) context.Context {
	return func(ctx context.Context, c net.Conn) context.Context {
		cred, err := peerOf(c)
		var v peerVerdict
		if err != nil {
			v = refuse(peerVerdict{}, checkIdentity, err.Error())
		} else {
			v = judge(cred, tree)
		}
		if cred.release != nil {
			cred.release()
		}
		return context.WithValue(ctx, peerKey{}, v)
	}
}

// onlyPeople serves a request only from a connection judge allowed; any
// other is refused with 403 and logged as an attempt.
func onlyPeople(next http.Handler, log zerolog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v, ok := r.Context().Value(peerKey{}).(peerVerdict)
		if !ok {
			v = refuse(peerVerdict{}, checkIdentity, "the connection was not checked")
		}
		if v.allowed {
			next.ServeHTTP(w, r)
			return
		}
		ev := log.Warn().Int("peer_pid", v.pid).Str("peer_cmdline", v.cmdline).Str("check", v.check).
			Str("request", r.Method+" "+r.URL.Path).Str("reason", v.reason)
		if v.ancestor > 0 {
			ev = ev.Int("ancestor_pid", v.ancestor)
		}
		ev.Msg("refused an attempt to reach the approvals of talon serve: approvals must come from a person's terminal")
		writeControlJSON(w, http.StatusForbidden, controlError{Error: refusalMessage(v)})
	})
}

// errProcArgs reports a kern.procargs2 value of the wrong shape.
var errProcArgs = errors.New("unreadable kern.procargs2")

// parseProcArgs reads macOS's kern.procargs2: argc (int32, little-endian
// as on every Mac), the executable's path, NUL padding, then argc
// arguments, each NUL-terminated. It lives here, not in the darwin file,
// so that every platform's tests and fuzzer reach it.
func parseProcArgs(b []byte) (string, []string, error) {
	if len(b) < 4 {
		return "", nil, errProcArgs
	}
	argc := int(binary.LittleEndian.Uint32(b))
	b = b[4:]
	end := bytes.IndexByte(b, 0)
	if end < 0 {
		return "", nil, errProcArgs
	}
	path := string(b[:end])
	b = bytes.TrimLeft(b[end:], "\x00")
	var args []string
	for len(args) < argc && len(b) > 0 {
		end := bytes.IndexByte(b, 0)
		if end < 0 {
			end = len(b)
		}
		args = append(args, string(b[:end]))
		b = b[min(end+1, len(b)):]
	}
	return path, args, nil
}

// sameExecutable reports whether fi is talon's own executable.
func sameExecutable(self, fi os.FileInfo) bool {
	return self != nil && fi != nil && os.SameFile(self, fi)
}
