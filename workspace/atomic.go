package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
)

// WriteFileAtomic replaces the file at path with data so that a reader
// sees either the old content or the new, never a mix, and a crash leaves
// one of the two on disk. It writes a temporary file in the same directory,
// syncs it, renames it over path and syncs the directory.
//
// When path already exists, its permission bits are kept and perm is
// ignored; a new file gets exactly perm (the process umask is not applied).
// The parent directory must exist.
//
// # Notes
//
// path should be a real location from [Root.ResolveForWrite] or
// [Root.Resolve]: a symbolic link at path is replaced by a regular file, not
// followed. Ownership, extended attributes and hard links of the old file
// are not carried over, as with any replace-by-rename.
//
// # Errors
//
// Writing over a directory or another non-regular file is refused. On any
// failure the temporary file is removed and path is left as it was.
func WriteFileAtomic(path string, data []byte, perm fs.FileMode) (err error) {
	mode := perm.Perm()
	if fi, statErr := os.Stat(path); statErr == nil {
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("write %s: not a regular file: choose a file path, not a directory or device", path)
		}
		mode = fi.Mode().Perm()
	} else if !errors.Is(statErr, fs.ErrNotExist) {
		return fmt.Errorf("write %s: %w", path, statErr)
	}

	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, ".talon-write-*.tmp")
	if err != nil {
		return fmt.Errorf("write %s: create temporary file: %w", path, err)
	}
	tmpName := tmp.Name()
	renamed := false
	defer func() {
		if err != nil && !renamed {
			_ = tmp.Close()
			_ = os.Remove(tmpName)
		}
	}()

	if _, err = tmp.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = tmp.Chmod(mode); err != nil {
		return fmt.Errorf("write %s: set mode: %w", path, err)
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("write %s: sync: %w", path, err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("write %s: close: %w", path, err)
	}
	if err = os.Rename(tmpName, path); err != nil {
		return fmt.Errorf("write %s: rename into place: %w", path, err)
	}
	renamed = true
	if err := syncDir(dir); err != nil {
		// The rename happened: the new content is in place, only its
		// durability across a crash is in doubt. Report it without
		// removing anything.
		return fmt.Errorf("write %s: sync directory: %w", path, err)
	}
	return nil
}

// syncDir makes a rename in dir durable. Platforms and file systems that
// cannot sync a directory are treated as done.
func syncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, syscall.ENOTSUP) {
		return err
	}
	return nil
}
