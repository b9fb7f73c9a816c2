package procstat

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name     string
		line     string
		pid      int
		comm     string
		ppid     uint64
		parseErr bool
		ppidErr  bool
	}{
		{name: "plain", line: "42 (sh) S 7 42 42 0", pid: 42, comm: "sh", ppid: 7},
		{name: "spaces and parens in comm", line: "9 (a ) (b) R 3 9", pid: 9, comm: "a ) (b", ppid: 3},
		{name: "empty comm", line: "5 () S 1", pid: 5, comm: "", ppid: 1},
		{name: "trailing newline", line: "5 (x) S 1\n", pid: 5, comm: "x", ppid: 1},
		{name: "no fields after comm", line: "5 (x)", parseErr: true},
		{name: "no comm", line: "5 S 1", parseErr: true},
		{name: "no pid", line: "(x) S 1", parseErr: true},
		{name: "negative pid", line: "-1 (x) S 1", parseErr: true},
		{name: "close before open", line: "1 )x( S 1", parseErr: true},
		{name: "no ppid", line: "5 (x) S", pid: 5, comm: "x", ppidErr: true},
		{name: "ppid not a number", line: "5 (x) S -3", pid: 5, comm: "x", ppidErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, err := Parse([]byte(tt.line))
			if tt.parseErr {
				if !errors.Is(err, ErrFormat) {
					t.Fatalf("Parse(%q) = %+v, %v; want ErrFormat", tt.line, st, err)
				}
				return
			}
			if err != nil || st.PID != tt.pid || st.Comm != tt.comm {
				t.Fatalf("Parse(%q) = %+v, %v", tt.line, st, err)
			}
			ppid, err := st.Int(PPID)
			if tt.ppidErr {
				if !errors.Is(err, ErrFormat) {
					t.Fatalf("PPID = %d, %v; want ErrFormat", ppid, err)
				}
				return
			}
			if err != nil || ppid != tt.ppid {
				t.Fatalf("PPID = %d, %v; want %d", ppid, err, tt.ppid)
			}
		})
	}
}

func TestParseSelf(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc/<pid>/stat is Linux's")
	}
	data, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		t.Fatal(err)
	}
	st, err := Parse(data)
	if err != nil || st.PID != os.Getpid() {
		t.Fatalf("Parse = %+v, %v", st, err)
	}
	if ppid, err := st.Int(PPID); err != nil || int(ppid) != os.Getppid() {
		t.Fatalf("PPID = %d, %v; want %d", ppid, err, os.Getppid())
	}
	start, err1 := st.Int(EnvStart)
	end, err2 := st.Int(EnvEnd)
	if err1 != nil || err2 != nil || start == 0 || end <= start {
		t.Fatalf("env block [%d, %d): %v %v", start, end, err1, err2)
	}
}

// FuzzParse checks that no line makes Parse or Field panic, and that a
// line built from a pid, a comm and a ppid reads back as those.
func FuzzParse(f *testing.F) {
	f.Add([]byte("42 (sh) S 7 42 42 0"), 1, "x) (y", uint64(3))
	f.Add([]byte("1 ((((( R"), 0, "", uint64(0))
	f.Fuzz(func(t *testing.T, line []byte, pid int, comm string, ppid uint64) {
		if st, err := Parse(line); err == nil {
			for n := 0; n < 60; n++ {
				_, _ = st.Field(n)
				_, _ = st.Int(n)
			}
		}
		if pid < 0 {
			return
		}
		built := fmt.Sprintf("%d (%s) S %d 1 1", pid, comm, ppid)
		st, err := Parse([]byte(built))
		if err != nil {
			t.Fatalf("Parse(%q): %v", built, err)
		}
		got, err := st.Int(PPID)
		if st.PID != pid || st.Comm != comm || err != nil || got != ppid {
			t.Fatalf("Parse(%q) = %+v, ppid %d, %v", built, st, got, err)
		}
	})
}
