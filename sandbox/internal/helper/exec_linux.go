package helper

import (
	"os"
	"runtime"
	"syscall"
)

func init() {
	if len(os.Args) > 2 && os.Args[1] == Command && os.Args[2] == "exec" {
		os.Exit(Exec(os.Args[3:]))
	}
}

// Exec restricts this process by the spec in args (as [Spec.Args] wrote
// it), then execs the binary after "--" with the argv after it and this
// process's environment plus TMPDIR. It
// returns only on failure: 126 (127 when the program is missing), after
// writing the reason to stderr.
func Exec(args []string) int {
	s, rest, err := Parse(args)
	if err != nil || len(rest) < 2 {
		os.Stderr.WriteString("talon sandbox: bad arguments: want FLAGS... -- BINARY ARGV...\n")
		return 126
	}
	// Landlock restricts the calling thread; execve from that same thread
	// carries the domain into the program and ends every other thread.
	runtime.LockOSThread()
	if err := Restrict(s); err != nil {
		os.Stderr.WriteString("talon sandbox: " + err.Error() + "; the program did not run\n")
		return 126
	}
	env := os.Environ()
	if s.Tmp != "" {
		env = setEnv(env, "TMPDIR", s.Tmp)
	}
	err = syscall.Exec(rest[0], rest[1:], env)
	os.Stderr.WriteString("talon: " + rest[0] + ": " + err.Error() + "\n")
	if err == syscall.ENOENT {
		return 127
	}
	return 126
}

func setEnv(env []string, k, v string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if len(kv) > len(k) && kv[:len(k)+1] == k+"=" {
			continue
		}
		out = append(out, kv)
	}
	return append(out, k+"="+v)
}
