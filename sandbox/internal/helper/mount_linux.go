package helper

import (
	"path/filepath"
	"slices"
	"syscall"
)

// Mount flags.
const (
	msRdonly      = 1
	msNosuid      = 2
	msNodev       = 4
	msNoexec      = 8
	msRemount     = 32
	msNoatime     = 1024
	msNodiratime  = 2048
	msBind        = 4096
	msRec         = 16384
	msPrivate     = 1 << 18
	msRelatime    = 1 << 21
	msNosymfollow = 256

	msHidden = msRdonly | msNosuid | msNodev | msNoexec
)

// mountNamespace prepares the helper's new mount namespace: every mount
// becomes private (nothing done here reaches talon's namespace), a fresh
// /proc shows only this PID namespace, the directories between each
// Protect path and its writable grant are pinned (see pins), each Protect path
// is bound read-only over itself, and each Deny path that exists is hidden: a
// directory under an empty read-only tmpfs of mode 000 (without
// capabilities not even root may list it), a file under /dev/null bound
// read-only with nodev, so that opening it fails. A denied directory that
// holds the workspace is left to Landlock, as before namespaces. Last,
// the working directory is entered again, through the new mounts.
func mountNamespace(s Spec) error {
	cwd, err := syscall.Getwd()
	if err != nil {
		return wrap("read the working directory", err)
	}
	if err := syscall.Mount("none", "/", "", msRec|msPrivate, ""); err != nil {
		return wrap("make the mounts private", err)
	}
	if err := syscall.Mount("proc", "/proc", "proc", msNosuid|msNodev|msNoexec, ""); err != nil {
		return wrap("mount a fresh /proc", err)
	}
	for _, d := range pins(s) {
		if err := syscall.Mount(d, d, "", msBind|msRec, ""); err != nil && err != syscall.ENOENT && err != syscall.ENOTDIR {
			return wrap("bind "+d+" over itself", err)
		}
	}
	for _, p := range s.Protect {
		if err := bindReadOnly(p, p, msBind|msRec, 0); err != nil {
			return err
		}
	}
	for _, d := range s.Deny {
		if !hidden(s, d) {
			continue
		}
		if err := hide(d); err != nil {
			return err
		}
	}
	if err := syscall.Chdir(cwd); err != nil {
		return wrap("enter the working directory "+cwd+" (is it denied?)", err)
	}
	return nil
}

// pins are the directories between each Protect path and the innermost
// writable grant (the workspace or a Write path) that holds it, shallowest
// first. Each is bound over itself, writable as before, ahead of the
// read-only binds: a mount point cannot be renamed or removed, so no
// process in the namespace can move a protected path away with its
// directory (mv .git elsewhere) and put one of its own in its place.
func pins(s Spec) []string {
	var out []string
	for _, p := range s.Protect {
		root := ""
		for _, r := range append([]string{s.WS}, s.Write...) {
			if r != "" && r != p && Within(p, r) && len(r) > len(root) {
				root = r
			}
		}
		if root == "" {
			continue
		}
		for d := filepath.Dir(p); d != root && Within(d, root); d = filepath.Dir(d) {
			if !slices.Contains(out, d) {
				out = append(out, d)
			}
		}
	}
	slices.SortStableFunc(out, func(a, b string) int { return len(a) - len(b) })
	return out
}

// hidden reports whether the namespace hides the denied path d: every
// one but "/" and those that hold the workspace.
func hidden(s Spec, d string) bool {
	return d != "/" && (s.WS == "" || !Within(s.WS, d))
}

// hide overmounts path, which may be gone (or inside a directory hidden
// already): then there is nothing to hide.
func hide(path string) error {
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		if err == syscall.ENOENT || err == syscall.ENOTDIR {
			return nil
		}
		return wrap("hide "+path, err)
	}
	if st.Mode&syscall.S_IFMT == syscall.S_IFDIR {
		if err := syscall.Mount("tmpfs", path, "tmpfs", msHidden, "mode=000"); err != nil {
			return wrap("hide "+path, err)
		}
		return nil
	}
	return bindReadOnly("/dev/null", path, msBind, msHidden)
}

// bindReadOnly binds src over dst and makes the bind read-only, keeping
// the flags the mount had (a user namespace may not clear them) and
// adding extra.
func bindReadOnly(src, dst string, flags uintptr, extra uintptr) error {
	if err := syscall.Mount(src, dst, "", flags, ""); err != nil {
		if err == syscall.ENOENT || err == syscall.ENOTDIR {
			return nil
		}
		return wrap("bind "+dst+" read-only", err)
	}
	var fs syscall.Statfs_t
	if err := syscall.Statfs(dst, &fs); err != nil {
		return wrap("read the mount flags of "+dst, err)
	}
	if err := syscall.Mount("none", dst, "", msRemount|msBind|msRdonly|extra|mountFlags(int64(fs.Flags)), ""); err != nil {
		return wrap("make "+dst+" read-only", err)
	}
	return nil
}

// mountFlags turns statfs's ST_* flags into the MS_* flags a bind
// remount keeps.
func mountFlags(st int64) uintptr {
	var ms uintptr
	for _, f := range [...]struct {
		st int64
		ms uintptr
	}{
		{1, msRdonly}, {2, msNosuid}, {4, msNodev}, {8, msNoexec},
		{1024, msNoatime}, {2048, msNodiratime}, {4096, msRelatime}, {8192, msNosymfollow},
	} {
		if st&f.st != 0 {
			ms |= f.ms
		}
	}
	return ms
}
