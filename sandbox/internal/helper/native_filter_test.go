//go:build linux && (amd64 || arm64 || riscv64)

package helper

import (
	"encoding/binary"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
)

// TestNativeFilterSame: talon-sandbox, the helper in C
// (sandbox/native/talon-sandbox.c), installs the same seccomp program as
// socketFilter, instruction for instruction, with UDP allowed and not. A
// build of it with TALON_SANDBOX_DUMP_FILTER writes the program it would
// install.
func TestNativeFilterSame(t *testing.T) {
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler (cc) to build talon-sandbox; scripts/tools.sh installs gcc")
	}
	_, file, _, _ := runtime.Caller(0)
	src := filepath.Join(filepath.Dir(file), "..", "..", "native", "talon-sandbox.c")
	bin := filepath.Join(t.TempDir(), "dump")
	if out, err := exec.Command(cc, "-O2", "-Wall", "-Werror", "-DTALON_SANDBOX_DUMP_FILTER", "-o", bin, src).CombinedOutput(); err != nil {
		t.Fatalf("cc: %v\n%s", err, out)
	}
	for _, udp := range []bool{false, true} {
		arg := "tcp"
		if udp {
			arg = "udp"
		}
		out, err := exec.Command(bin, arg).Output()
		if err != nil {
			t.Fatalf("%s: %v", arg, err)
		}
		var got []syscall.SockFilter
		for len(out) >= 8 {
			got = append(got, syscall.SockFilter{
				Code: binary.LittleEndian.Uint16(out[0:]), Jt: out[2], Jf: out[3], K: binary.LittleEndian.Uint32(out[4:]),
			})
			out = out[8:]
		}
		want := socketFilter(auditArch[runtime.GOARCH], udp)
		if len(got) != len(want) || len(out) != 0 {
			t.Fatalf("udp %v: talon-sandbox's filter has %d instructions (%d bytes left), socketFilter %d", udp, len(got), len(out), len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("udp %v: instruction %d is %+v in talon-sandbox, %+v in socketFilter", udp, i, got[i], want[i])
			}
		}
	}
}
