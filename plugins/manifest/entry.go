package manifest

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

var (
	// ErrHashMismatch is wrapped when an entry's SHA-256 differs from the
	// manifest's sha256.
	ErrHashMismatch = errors.New("plugin entry does not match its sha256")
	// ErrEntryOutside is wrapped when an entry resolves outside its plugin
	// directory.
	ErrEntryOutside = errors.New("plugin entry is outside the plugin directory")
)

// HashBytes returns the lowercase hex SHA-256 of data.
func HashBytes(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// HashFile returns the lowercase hex SHA-256 of the file at path.
func HashFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer func() { _ = f.Close() }()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// CheckEntry resolves m.Entry inside dir and checks it: symbolic links are
// resolved first, then the result must still be inside dir (itself
// resolved), be a regular file, and hash to m.SHA256. It returns the
// resolved absolute path, which is what a host must open.
//
// # Errors
//
// An entry outside dir wraps [ErrEntryOutside]; a digest that differs wraps
// [ErrHashMismatch] and still returns the path, so a developer tool can
// choose to go on.
func CheckEntry(dir string, m *Manifest) (string, error) {
	p, _, err := ResolveEntry(dir, m)
	if err != nil {
		return "", err
	}
	return p, CheckDigest(dir, p, m)
}

// ResolveEntry is [CheckEntry] without the digest: it resolves m.Entry
// inside dir and returns the path and what stat says of it.
//
// # Errors
//
// An entry outside dir wraps [ErrEntryOutside]; one that is missing or not
// a regular file is an error that says so.
func ResolveEntry(dir string, m *Manifest) (string, os.FileInfo, error) {
	root, err := resolveDir(dir)
	if err != nil {
		return "", nil, fmt.Errorf("plugin directory: %w", err)
	}
	return ResolveEntryIn(root, m)
}

// ResolveEntryIn is [ResolveEntry] for a plugin directory whose path is
// absolute, clean and free of symbolic links already (a loader resolves
// its plugins directory once): only the entry's own path is looked at,
// one lstat per component unless one of them is a link.
func ResolveEntryIn(root string, m *Manifest) (string, os.FileInfo, error) {
	p, fi, err := evalUnder(root, filepath.FromSlash(m.Entry))
	if err != nil {
		return "", nil, fmt.Errorf("entry %q of plugin %s: %w; reinstall the plugin", m.Entry, m.Name, err)
	}
	if !within(root, p) {
		return "", nil, fmt.Errorf("%w: entry %q of plugin %s resolves to %s; keep the entry inside %s",
			ErrEntryOutside, m.Entry, m.Name, p, root)
	}
	if fi == nil {
		if fi, err = os.Stat(p); err != nil {
			return "", nil, fmt.Errorf("entry %q of plugin %s: %w", m.Entry, m.Name, err)
		}
	}
	if !fi.Mode().IsRegular() {
		return "", nil, fmt.Errorf("entry %q of plugin %s is not a regular file; point entry at the module or binary", m.Entry, m.Name)
	}
	return p, fi, nil
}

// CheckDigest hashes the entry at path (resolved by [ResolveEntry] from
// plugin directory dir) and compares it with m.SHA256.
//
// # Errors
//
// A digest that differs wraps [ErrHashMismatch].
func CheckDigest(dir, path string, m *Manifest) error {
	got, err := HashFile(path)
	if err != nil {
		return fmt.Errorf("hash entry of plugin %s: %w", m.Name, err)
	}
	if got != m.SHA256 {
		return fmt.Errorf("%w: plugin %s: %s has sha256 %s, the manifest expects %s; rebuild or reinstall the plugin, or, if you changed it yourself, run talon plugins sign %s",
			ErrHashMismatch, m.Name, m.Entry, got, m.SHA256, dir)
	}
	return nil
}

// evalUnder resolves rel under root as filepath.EvalSymlinks would, with
// an lstat of each of rel's components and nothing of root's; when it
// meets a symbolic link or "..", it leaves the whole path to
// EvalSymlinks. It returns what lstat said of the last component when that
// was not a link, else nil.
func evalUnder(root, rel string) (string, os.FileInfo, error) {
	full := filepath.Join(root, rel)
	if filepath.IsAbs(rel) || !within(root, full) {
		p, err := filepath.EvalSymlinks(full)
		return p, nil, err
	}
	var fi os.FileInfo
	at := root
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		if part == "" || part == "." {
			continue
		}
		if part == ".." {
			p, err := filepath.EvalSymlinks(full)
			return p, nil, err
		}
		at = filepath.Join(at, part)
		var err error
		if fi, err = os.Lstat(at); err != nil {
			return "", nil, err
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			p, err := filepath.EvalSymlinks(full)
			return p, nil, err
		}
	}
	return full, fi, nil
}

// ResolveDir returns dir absolute, cleaned, with symbolic links resolved,
// as [ResolveEntry] takes a plugin directory.
func ResolveDir(dir string) (string, error) { return resolveDir(dir) }

// resolveDir returns dir absolute, cleaned, with symbolic links resolved.
func resolveDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}

// within reports whether p is root or below it; both must be clean and
// absolute.
func within(root, p string) bool {
	if p == root {
		return true
	}
	if root == string(filepath.Separator) {
		return strings.HasPrefix(p, root)
	}
	return strings.HasPrefix(p, root+string(filepath.Separator))
}
