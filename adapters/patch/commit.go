package patch

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"syscall"
)

// newDirMode is the mode of directories the patch creates.
const newDirMode fs.FileMode = 0o755

// step is one change made to the disk and how to take it back.
type step struct {
	what string // for messages: the workspace-relative path
	undo func() error
}

// commit writes the patched files: first it removes deleted files (and the
// directories they leave empty), then writes every changed or new file
// atomically, creating directories as needed. If any step fails, every
// earlier step is undone in reverse order from the copies in memory.
func (a *ApplyPatch) commit(files []*vfile) error {
	var done []step
	fail := func(rel string, err error) error {
		return &CommitError{File: rel, Err: unwrapPath(err), Unrestored: a.rollback(done)}
	}
	for _, f := range files {
		if !f.origExists || f.exists {
			continue
		}
		if err := a.fs.remove(f.real); err != nil {
			return fail(f.rel, err)
		}
		done = append(done, step{f.rel, func() error {
			// Writing creates the directories removed after the file.
			return a.fs.write(f.real, f.orig, f.origPerm)
		}})
		for dir := filepath.Dir(f.real); a.root.Contains(dir) && dir != a.root.Dir(); dir = filepath.Dir(dir) {
			// Removing a directory that is not empty fails, which ends
			// the climb.
			if a.fs.remove(dir) != nil {
				break
			}
			done = append(done, step{a.root.Rel(dir), func() error { return a.fs.mkdir(dir, newDirMode) }})
		}
	}
	for _, f := range files {
		if !f.changed() {
			continue
		}
		created, err := a.mkdirs(filepath.Dir(f.real))
		for _, dir := range created {
			done = append(done, step{a.root.Rel(dir), func() error { return a.fs.remove(dir) }})
		}
		if err != nil {
			return fail(f.rel, err)
		}
		if err := a.fs.write(f.real, f.data, f.perm); err != nil {
			return fail(f.rel, err)
		}
		if !f.origExists {
			done = append(done, step{f.rel, func() error { return a.fs.remove(f.real) }})
			continue
		}
		done = append(done, step{f.rel, func() error {
			if err := a.fs.write(f.real, f.orig, f.origPerm); err != nil {
				return err
			}
			return a.fs.chmod(f.real, f.origPerm)
		}})
		if f.perm != f.origPerm {
			if err := a.fs.chmod(f.real, f.perm); err != nil {
				return fail(f.rel, err)
			}
		}
	}
	return nil
}

// rollback undoes the steps in reverse order and returns what could not be
// undone.
func (a *ApplyPatch) rollback(done []step) []string {
	var failed []string
	for i := len(done) - 1; i >= 0; i-- {
		if err := done[i].undo(); err != nil {
			failed = append(failed, fmt.Sprintf("%s (%v)", done[i].what, unwrapPath(err)))
		}
	}
	return failed
}

// mkdirs creates dir and its missing parents and returns the directories
// it created, outermost first.
func (a *ApplyPatch) mkdirs(dir string) ([]string, error) {
	var missing []string
	for d := dir; a.root.Contains(d) && d != a.root.Dir(); d = filepath.Dir(d) {
		if _, err := a.root.Lstat(d); err == nil {
			break
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		missing = append(missing, d)
	}
	var created []string
	for i := len(missing) - 1; i >= 0; i-- {
		if err := a.fs.mkdir(missing[i], newDirMode); err != nil {
			return created, err
		}
		created = append(created, missing[i])
	}
	return created, nil
}

// unwrapPath drops the absolute path of a *fs.PathError: messages name
// files relative to the workspace.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		if errors.Is(pe.Err, syscall.ENOSPC) {
			return errors.New("the disk is full")
		}
		return pe.Err
	}
	return err
}
