// Package workspace confines file access to one directory tree, the
// workspace that file tools operate in.
//
// Every path a tool receives goes through a [Root] before anything touches
// the disk. [Root.Resolve] is for paths that must already exist (reading,
// listing, editing); [Root.ResolveForWrite] is for paths that may not exist
// yet (creating a file). Both accept paths relative to the workspace or
// absolute, clean them, resolve symbolic links, and refuse any path whose
// real location lies outside the workspace with an error that wraps
// [ErrOutsideWorkspace].
//
// The smallest use:
//
//	root, err := workspace.New(".")
//	if err != nil {
//		return err
//	}
//	abs, err := root.Resolve("notes/todo.md")
//	if err != nil {
//		return err // errors.Is(err, workspace.ErrOutsideWorkspace) for escapes
//	}
//	data, err := os.ReadFile(abs)
//
// [WriteFileAtomic] replaces a file so that readers see either the old or the
// new content, never a mix, and keeps the permission bits of the file it
// replaces.
//
// # Notes
//
// Path components ".." are applied lexically before symbolic links are
// resolved, so "link/../a" means "a" in the workspace whatever "link" points
// to. The returned path is the real, symlink-free location; callers must use
// it, not the original argument, for the operation that follows.
//
// The check and the operation that follows are separate system calls: a
// process that can rename directories inside the workspace between the two
// can still redirect an operation. The confinement protects against paths
// chosen by a model, not against a concurrent local attacker; the sandbox
// package covers processes.
package workspace
