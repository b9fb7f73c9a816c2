package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// nativeProbes caches, per path, what the protocol probe of a
// talon-sandbox answered: nil when it speaks this talon's protocol.
var nativeProbes sync.Map // path -> error (nil stored as errNone)

var errNone = errors.New("")

// chooseNative returns the talon-sandbox that starts children under p,
// "" when talon re-executes itself (exe), and why it is not used. base is
// the spec children get: a talon-sandbox inside a directory they may
// write is not trusted.
func chooseNative(p Policy, exe string, base spec) (string, string) {
	path := p.NativeHelper
	configured := path != ""
	switch {
	case path == HelperBuiltin:
		return "", `[sandbox] helper is "` + HelperBuiltin + `"`
	case !configured:
		dir := filepath.Dir(exe)
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			dir = filepath.Dir(real)
		}
		path = filepath.Join(dir, NativeName)
		if _, err := os.Lstat(path); err != nil {
			return "", fmt.Sprintf("no %s next to talon in %s", NativeName, dir)
		}
	case !filepath.IsAbs(path):
		return "", fmt.Sprintf("[sandbox] helper %q is not an absolute path", path)
	}
	real, err := trustNative(path, base)
	if err != nil {
		return "", fmt.Sprintf("%s is not used: %v", path, err)
	}
	if err := probeNative(real); err != nil {
		return "", fmt.Sprintf("%s is not used: its protocol probe failed: %v", real, err)
	}
	return real, ""
}

// trustNative returns path with symlinks resolved when the file there may
// run as the helper: a regular, executable file owned by root or talon's
// user that neither group nor others may write, in a directory of the
// same kind, and in no directory children may write (the workspace, a
// read_write path), so that no tool process can replace it.
func trustNative(path string, base spec) (string, error) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", err
	}
	if real, err = filepath.Abs(real); err != nil {
		return "", err
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", err
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("not a regular file")
	}
	if fi.Mode().Perm()&0o111 == 0 {
		return "", fmt.Errorf("not executable")
	}
	if err := ownedSafely(fi, "the file"); err != nil {
		return "", err
	}
	di, err := os.Stat(filepath.Dir(real))
	if err != nil {
		return "", err
	}
	if err := ownedSafely(di, "its directory"); err != nil {
		return "", err
	}
	writable := append([]string{base.WS}, base.Write...)
	for _, w := range writable {
		if w != "" && within(real, w) {
			return "", fmt.Errorf("it lies in %s, which tool processes may write", w)
		}
	}
	return real, nil
}

// ownedSafely fails unless fi belongs to root or talon's effective user
// and neither its group nor others may write it.
func ownedSafely(fi os.FileInfo, what string) error {
	sys, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fmt.Errorf("cannot read the owner of %s", what)
	}
	if sys.Uid != 0 && int(sys.Uid) != os.Geteuid() {
		return fmt.Errorf("%s belongs to uid %d, neither root nor talon's user", what, sys.Uid)
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("%s is writable by its group or others (mode %v)", what, fi.Mode().Perm())
	}
	return nil
}

// probeNative runs `talon-sandbox __sandbox-exec exec -proto N -probe --
// /bin/true true` once per path and process: it answers 0 when it speaks
// protocol N, and runs nothing.
func probeNative(path string) error {
	if r, ok := nativeProbes.Load(path); ok {
		if r == errNone {
			return nil
		}
		return r.(error)
	}
	err := runNativeProbe(path)
	if err == nil {
		nativeProbes.Store(path, errNone)
	} else {
		nativeProbes.Store(path, err)
	}
	return err
}

func runNativeProbe(path string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, HelperCommand, "exec", "-proto", nativeProtocol, "-probe", "--", "/bin/true", "true")
	cmd.Args[0] = NativeName
	cmd.Env = []string{}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return fmt.Errorf("%w: %s", err, msg)
		}
		return err
	}
	return nil
}
