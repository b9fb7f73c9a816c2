// Package helper is the sandbox helper's exec step: in new PID and mount
// namespaces when talon started it in them, it hides the denied paths,
// restricts itself (rlimits, no new privileges, a seccomp filter, a
// Landlock domain, no capabilities), starts the planned program, and stays
// as its init: it forwards signals, reaps orphans and exits with the
// program's status, which ends everything the program left behind.
//
// It runs from this package's init function, when the process was started
// as `talon __sandbox-exec exec FLAGS... -- BINARY ARGV...`. Go initializes
// a package as soon as its imports are, in import-path order, and this one
// imports little beyond what package os needs (os/signal and context, to
// pass signals on): it runs before the rest of talon's packages are
// initialized, so the helper costs about one bare Go start-up rather than
// talon's. Keep it that way: no fmt, strconv, strings, path/filepath or
// encoding packages here.
package helper

import "errors"

// Command is the hidden first argument of the helper.
const Command = "__sandbox-exec"

// Limits are the rlimits to set; zero means the system's.
type Limits struct {
	CPUSeconds, MemoryMB, Processes, OpenFiles int
}

// Spec is what the helper applies.
type Spec struct {
	// WS is the workspace, granted whole.
	WS string
	// Read are granted read and execute; Write every right.
	Read, Write []string
	// Deny are carved out of every grant but the workspace.
	Deny []string
	// Ports may be connected to; Bind allows binding any port.
	Ports []int
	Bind  bool
	Lim   Limits
	// Tmp is the call's private temp dir, the child's TMPDIR.
	Tmp string
	// Exe is granted read and execute: the approved binary runs wherever
	// it lives.
	Exe string
	// Devices are device nodes granted read and write.
	Devices []string
	// NS is set when the helper is PID 1 of new PID and mount namespaces:
	// it mounts a fresh /proc, hides Deny and makes Protect read-only.
	NS bool
	// Protect are paths inside writable grants that stay read-only.
	Protect []string
	// UDP allows UDP sockets; raw and packet sockets are never allowed.
	UDP bool
	// Death is a descriptor that reaches end of file when talon exits;
	// 0 means none.
	Death int
	// Probe sets up the namespaces and exits 0 without running anything.
	Probe bool
	// Child is the second step when rlimits are set: restrict this
	// process, set them, and exec the program (see Exec).
	Child bool
}

// Args encodes s as the helper's flags, ending with "--".
func (s Spec) Args() []string {
	var a []string
	add := func(flag string, vs ...string) {
		for _, v := range vs {
			a = append(a, flag, v)
		}
	}
	if s.WS != "" {
		add("-ws", s.WS)
	}
	add("-r", s.Read...)
	add("-w", s.Write...)
	add("-d", s.Deny...)
	add("-v", s.Devices...)
	add("-ro", s.Protect...)
	for _, p := range s.Ports {
		add("-p", itoa(p))
	}
	for flag, on := range map[string]bool{"-b": s.Bind, "-ns": s.NS, "-u": s.UDP, "-probe": s.Probe, "-child": s.Child} {
		if on {
			a = append(a, flag)
		}
	}
	if s.Death > 0 {
		add("-death", itoa(s.Death))
	}
	for flag, v := range map[string]int{"-cpu": s.Lim.CPUSeconds, "-mem": s.Lim.MemoryMB, "-nproc": s.Lim.Processes, "-nofile": s.Lim.OpenFiles} {
		if v != 0 {
			add(flag, itoa(v))
		}
	}
	if s.Tmp != "" {
		add("-t", s.Tmp)
	}
	if s.Exe != "" {
		add("-x", s.Exe)
	}
	return append(a, "--")
}

var errArgs = errors.New("bad arguments")

// Parse reads the flags [Spec.Args] wrote and returns the spec and the
// arguments after "--".
func Parse(args []string) (Spec, []string, error) {
	var s Spec
	for i := 0; i < len(args); i++ {
		flag := args[i]
		if flag == "--" {
			return s, args[i+1:], nil
		}
		if on := switches(&s, flag); on != nil {
			*on = true
			continue
		}
		if i+1 >= len(args) {
			return s, nil, errArgs
		}
		i++
		v := args[i]
		var n *int
		switch flag {
		case "-ws":
			s.WS = v
		case "-r":
			s.Read = append(s.Read, v)
		case "-w":
			s.Write = append(s.Write, v)
		case "-d":
			s.Deny = append(s.Deny, v)
		case "-v":
			s.Devices = append(s.Devices, v)
		case "-t":
			s.Tmp = v
		case "-x":
			s.Exe = v
		case "-ro":
			s.Protect = append(s.Protect, v)
		case "-death":
			n = &s.Death
		case "-p":
			s.Ports = append(s.Ports, 0)
			n = &s.Ports[len(s.Ports)-1]
		case "-cpu":
			n = &s.Lim.CPUSeconds
		case "-mem":
			n = &s.Lim.MemoryMB
		case "-nproc":
			n = &s.Lim.Processes
		case "-nofile":
			n = &s.Lim.OpenFiles
		default:
			return s, nil, errArgs
		}
		if n != nil {
			x, ok := atoi(v)
			if !ok {
				return s, nil, errArgs
			}
			*n = x
		}
	}
	return s, nil, errArgs
}

// switches returns the field a flag without a value sets, or nil.
func switches(s *Spec, flag string) *bool {
	switch flag {
	case "-b":
		return &s.Bind
	case "-ns":
		return &s.NS
	case "-u":
		return &s.UDP
	case "-probe":
		return &s.Probe
	case "-child":
		return &s.Child
	}
	return nil
}

func atoi(s string) (int, bool) {
	if s == "" || len(s) > 9 {
		return 0, false
	}
	n := 0
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	neg := n < 0
	if neg {
		n = -n
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}

// Within reports whether p is dir or below it.
func Within(p, dir string) bool {
	if p == dir {
		return true
	}
	if len(dir) > 1 && dir[len(dir)-1] == '/' {
		dir = dir[:len(dir)-1]
	}
	return len(p) > len(dir) && p[:len(dir)] == dir && (dir == "/" || p[len(dir)] == '/')
}
