//go:build linux

package sandbox

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// nativeBuild is talon-sandbox compiled from native/talon-sandbox.c into
// a directory of its own, once per test binary, when a C compiler is
// there, as make build links it: static with musl (musl-gcc) where it is
// installed, else static with the system's C library, else dynamic where
// there is no static C library.
var nativeBuild struct {
	once      sync.Once
	dir, path string
	why       string
}

// nativeHelper returns the built talon-sandbox, or "" and why there is
// none.
func nativeHelper() (string, string) {
	nb := &nativeBuild
	nb.once.Do(func() {
		var builds [][]string
		if musl, err := exec.LookPath("musl-gcc"); err == nil {
			builds = append(builds, []string{musl, "-static"})
		}
		if cc, err := exec.LookPath("cc"); err == nil {
			builds = append(builds, []string{cc, "-static"}, []string{cc})
		}
		if len(builds) == 0 {
			nb.why = "no C compiler (cc) to build it; scripts/tools.sh installs gcc"
			return
		}
		_, file, _, _ := runtime.Caller(0)
		src := filepath.Join(filepath.Dir(file), "native", "talon-sandbox.c")
		dir, err := os.MkdirTemp("", "talon-native-")
		if err != nil {
			nb.why = err.Error()
			return
		}
		nb.dir = dir
		out := filepath.Join(dir, NativeName)
		var msgs []string
		for _, b := range builds {
			args := append(b[1:], "-O2", "-Wall", "-Werror", "-o", out, src)
			msg, err := exec.Command(b[0], args...).CombinedOutput()
			if err == nil {
				nb.path = out
				return
			}
			msgs = append(msgs, strings.TrimSpace(string(msg)))
		}
		nb.why = "cc cannot build it: " + strings.Join(msgs, "; ")
	})
	return nb.path, nb.why
}

// helperChoice is one helper a test runs with: NativeHelper's value.
type helperChoice struct{ name, native string }

// helpers are talon re-executed and, when it could be built here,
// talon-sandbox.
func helpers(t *testing.T) []helperChoice {
	t.Helper()
	hs := []helperChoice{{"go helper", HelperBuiltin}}
	if native, why := nativeHelper(); native != "" {
		hs = append(hs, helperChoice{"native helper", native})
	} else {
		t.Logf("talon-sandbox is not tried: %s", why)
	}
	return hs
}

// removeNative removes what nativeHelper built; TestMain calls it.
func removeNative() {
	if nativeBuild.dir != "" {
		_ = os.RemoveAll(nativeBuild.dir)
	}
}

// needNative returns the built talon-sandbox, or skips the test saying
// why there is none.
func needNative(t *testing.T) string {
	t.Helper()
	path, why := nativeHelper()
	if path == "" {
		t.Skipf("talon-sandbox not built: %s", why)
	}
	return path
}

// copyFile copies src to dst with mode.
func copyFile(t *testing.T, src, dst string, mode os.FileMode) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dst, mode); err != nil { // past the umask
		t.Fatal(err)
	}
}

// TestNativeHelperChosen: talon-sandbox starts children only when it is
// found (next to talon, symlinks resolved, or where [sandbox] helper
// says), trusted (a regular file of root or talon's user that neither
// group nor others may change, in such a directory, outside what tool
// processes may write) and answers its protocol probe; otherwise talon
// re-executes itself and the status says why.
func TestNativeHelperChosen(t *testing.T) {
	needLandlock(t, 1)
	native := needNative(t)
	ws := t.TempDir()
	// bin holds talon and talon-sandbox; link/talon is a symlink to talon.
	bin, link := t.TempDir(), t.TempDir()
	talon := filepath.Join(bin, "talon")
	copyFile(t, "/bin/true", talon, 0o755)
	if err := os.Symlink(talon, filepath.Join(link, "talon")); err != nil {
		t.Fatal(err)
	}
	copyFile(t, native, filepath.Join(bin, NativeName), 0o755)
	// place puts a copy of talon-sandbox (or body) in a directory of its
	// own with the modes given.
	place := func(t *testing.T, body string, mode, dirMode os.FileMode) string {
		dir := t.TempDir()
		p := filepath.Join(dir, NativeName)
		if body == "" {
			copyFile(t, native, p, mode)
		} else if err := os.WriteFile(p, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(dir, dirMode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name   string
		policy func(t *testing.T) Policy
		want   func(p Policy) string // the native helper used; "" for none
		why    string                // in HelperReason when none is used
	}{
		{
			name:   "next to talon",
			policy: func(*testing.T) Policy { return Policy{Helper: talon} },
			want:   func(Policy) string { return filepath.Join(bin, NativeName) },
		},
		{
			name:   "next to talon, symlinks resolved",
			policy: func(*testing.T) Policy { return Policy{Helper: filepath.Join(link, "talon")} },
			want:   func(Policy) string { return filepath.Join(bin, NativeName) },
		},
		{
			name:   "none next to talon",
			policy: func(t *testing.T) Policy { return Policy{Helper: testBinary(t)} },
			why:    "no talon-sandbox next to talon",
		},
		{
			name:   "configured",
			policy: func(t *testing.T) Policy { return Policy{Helper: talon, NativeHelper: place(t, "", 0o755, 0o755)} },
			want:   func(p Policy) string { return p.NativeHelper },
		},
		{
			name:   "builtin",
			policy: func(*testing.T) Policy { return Policy{Helper: talon, NativeHelper: HelperBuiltin} },
			why:    `helper is "builtin"`,
		},
		{
			name:   "relative",
			policy: func(*testing.T) Policy { return Policy{Helper: talon, NativeHelper: "bin/" + NativeName} },
			why:    "not an absolute path",
		},
		{
			name: "missing",
			policy: func(t *testing.T) Policy {
				return Policy{Helper: talon, NativeHelper: filepath.Join(t.TempDir(), NativeName)}
			},
			why: "no such file",
		},
		{
			name:   "group-writable",
			policy: func(t *testing.T) Policy { return Policy{Helper: talon, NativeHelper: place(t, "", 0o775, 0o755)} },
			why:    "writable by its group or others",
		},
		{
			name:   "writable by others",
			policy: func(t *testing.T) Policy { return Policy{Helper: talon, NativeHelper: place(t, "", 0o757, 0o755)} },
			why:    "writable by its group or others",
		},
		{
			name:   "in a group-writable directory",
			policy: func(t *testing.T) Policy { return Policy{Helper: talon, NativeHelper: place(t, "", 0o755, 0o775)} },
			why:    "its directory is writable",
		},
		{
			name:   "not executable",
			policy: func(t *testing.T) Policy { return Policy{Helper: talon, NativeHelper: place(t, "", 0o644, 0o755)} },
			why:    "not executable",
		},
		{
			name: "a directory",
			policy: func(t *testing.T) Policy {
				d := filepath.Join(t.TempDir(), NativeName)
				if err := os.Mkdir(d, 0o755); err != nil {
					t.Fatal(err)
				}
				return Policy{Helper: talon, NativeHelper: d}
			},
			why: "not a regular file",
		},
		{
			name: "fails the probe",
			policy: func(t *testing.T) Policy {
				return Policy{Helper: talon, NativeHelper: place(t, "#!/bin/sh\nexit 3\n", 0o755, 0o755)}
			},
			why: "protocol probe failed",
		},
		{
			name: "speaks another protocol",
			policy: func(t *testing.T) Policy {
				return Policy{Helper: talon, NativeHelper: place(t, "#!/bin/sh\n[ \"$4\" = 1 ] && exit 126\nexit 0\n", 0o755, 0o755)}
			},
			why: "protocol probe failed",
		},
		{
			name: "inside the workspace",
			policy: func(t *testing.T) Policy {
				d := filepath.Join(ws, "bin")
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
				p := filepath.Join(d, NativeName)
				copyFile(t, native, p, 0o755)
				return Policy{Helper: talon, NativeHelper: p}
			},
			why: "which tool processes may write",
		},
		{
			name: "inside a read_write directory",
			policy: func(t *testing.T) Policy {
				p := place(t, "", 0o755, 0o755)
				return Policy{Helper: talon, NativeHelper: p, ReadWrite: []string{filepath.Dir(p)}}
			},
			why: "which tool processes may write",
		},
	}
	if isRoot() {
		tests = append(tests, struct {
			name   string
			policy func(t *testing.T) Policy
			want   func(p Policy) string
			why    string
		}{
			name: "owned by another user",
			policy: func(t *testing.T) Policy {
				p := place(t, "", 0o755, 0o755)
				if err := os.Chown(p, 4242, 4242); err != nil {
					t.Fatal(err)
				}
				return Policy{Helper: talon, NativeHelper: p}
			},
			why: "neither root nor talon's user",
		})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.policy(t)
			p.Workspace, p.TempRoot, p.noNamespaces = ws, t.TempDir(), true
			st := newState(p, false)
			defer st.removeTemp()
			want := ""
			if tt.want != nil {
				want = tt.want(p)
			}
			if st.native != want {
				t.Fatalf("native helper %q (%s), want %q", st.native, st.status.HelperReason, want)
			}
			if want != "" {
				if st.status.Helper != want || st.status.HelperReason != "" || st.runner() != want {
					t.Errorf("status helper %q, reason %q, runner %q; want %q", st.status.Helper, st.status.HelperReason, st.runner(), want)
				}
				return
			}
			if st.status.Helper != HelperTalon || !strings.Contains(st.status.HelperReason, tt.why) || st.runner() != p.Helper {
				t.Errorf("status helper %q, reason %q, runner %q; want talon because %q", st.status.Helper, st.status.HelperReason, st.runner(), tt.why)
			}
		})
	}
}

// TestNativeRunsThePlan: with talon-sandbox, the helper is what the
// spawner starts, the plan's argv is what it runs, and talon-sandbox
// itself is refused as a tool process, as talon is.
func TestNativeRunsThePlan(t *testing.T) {
	needLandlock(t, 1)
	native := needNative(t)
	for _, m := range mechanisms(t) {
		if m.policy.NativeHelper != native {
			continue
		}
		t.Run(m.name, func(t *testing.T) {
			p := m.policy
			p.Workspace = t.TempDir()
			p.OnProbe = func(Status) {} // talon's CLI defers the probes to the first child
			configure(t, p)
			// The first child names talon-sandbox: it is refused although
			// the helper was not chosen yet when the call came.
			out := Run(context.Background(), Cmd{Argv: []string{NativeName, HelperCommand, "exec", "--", "/bin/true", "true"}, Binary: native})
			if !errors.Is(out.Err, ErrTalonBinary) {
				t.Errorf("running talon-sandbox as a tool: %+v, want ErrTalonBinary", out)
			}
			if st := Current(); st.Helper != native {
				t.Fatalf("status helper %q (%s), want %s", st.Helper, st.HelperReason, native)
			}
			out = Run(context.Background(), Cmd{Argv: []string{"printf-argv", "%s|", "a b", "--", "-x"}, Binary: "/usr/bin/printf"})
			if out.Err != nil || out.ExitCode != 0 || out.Stdout != "a b|--|-x|" {
				t.Errorf("printf through talon-sandbox: %+v", out)
			}
		})
	}
}

// TestNativeManyPorts: talon-sandbox takes as many allowed ports as the
// policy names, as the Go helper does (it once refused more than 64).
func TestNativeManyPorts(t *testing.T) {
	needLandlock(t, 1)
	native := needNative(t)
	for _, m := range mechanisms(t) {
		if m.policy.NativeHelper != native {
			continue
		}
		t.Run(m.name, func(t *testing.T) {
			p := m.policy
			p.Workspace = t.TempDir()
			for port := 1000; port < 1100; port++ {
				p.AllowConnectPorts = append(p.AllowConnectPorts, port)
			}
			configure(t, p)
			out := Run(context.Background(), Cmd{Argv: []string{"true"}, Binary: "/bin/true"})
			if out.Err != nil || out.ExitCode != 0 {
				t.Errorf("a call allowed 100 ports: %+v", out)
			}
		})
	}
}
