// Package procstat reads the one line of a Linux /proc/<pid>/stat file:
// the process's parent, its command name, and any other numbered field of
// proc(5).
//
//	data, _ := os.ReadFile("/proc/self/stat")
//	st, err := procstat.Parse(data)
//	ppid, err := st.Int(procstat.PPID)
//
// The command name sits in parentheses and may itself hold spaces and
// parentheses, so the fields after it start at the last ')'.
package procstat

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
)

// Field numbers of proc(5), counted from 1 like the manual page.
const (
	PPID     = 4
	EnvStart = 50
	EnvEnd   = 51
)

// ErrFormat reports a stat line that does not have the shape of proc(5).
var ErrFormat = errors.New("not a /proc/<pid>/stat line")

// Stat is one parsed stat line.
type Stat struct {
	// PID is field 1.
	PID int
	// Comm is field 2 without its parentheses.
	Comm string
	// rest holds fields 3 and on.
	rest [][]byte
}

// Parse reads a stat line.
//
// # Errors
//
// A line without "pid (comm) state" wraps [ErrFormat].
func Parse(data []byte) (Stat, error) {
	open := bytes.IndexByte(data, '(')
	closing := bytes.LastIndexByte(data, ')')
	if open < 1 || closing < open {
		return Stat{}, fmt.Errorf("%w: no (comm)", ErrFormat)
	}
	pid, err := strconv.Atoi(string(bytes.TrimSpace(data[:open])))
	if err != nil || pid < 0 {
		return Stat{}, fmt.Errorf("%w: bad pid", ErrFormat)
	}
	rest := bytes.Fields(data[closing+1:])
	if len(rest) == 0 {
		return Stat{}, fmt.Errorf("%w: no state", ErrFormat)
	}
	return Stat{PID: pid, Comm: string(data[open+1 : closing]), rest: rest}, nil
}

// Field returns field n (3 or more) as text.
//
// # Errors
//
// A field the line does not have wraps [ErrFormat].
func (s Stat) Field(n int) (string, error) {
	if n < 3 || n-3 >= len(s.rest) {
		return "", fmt.Errorf("%w: no field %d", ErrFormat, n)
	}
	return string(s.rest[n-3]), nil
}

// Int returns field n (3 or more) as a number.
//
// # Errors
//
// A field the line does not have, or one that is not a non-negative
// decimal number, wraps [ErrFormat].
func (s Stat) Int(n int) (uint64, error) {
	f, err := s.Field(n)
	if err != nil {
		return 0, err
	}
	v, err := strconv.ParseUint(f, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%w: field %d is %q", ErrFormat, n, f)
	}
	return v, nil
}
