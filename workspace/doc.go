// Package workspace confines file access to one directory tree, the
// workspace that file tools operate in, and keeps tools away from the
// places talon and the operator protect.
//
// A [Root] opens the workspace directory once. Every path a tool gives is
// cleaned, made relative to that open directory and walked one component
// at a time, each directory opened in its parent without following a
// symbolic link; a link is read and its target resolved from the root
// again, and one that leads outside is refused with an error that wraps
// [ErrOutsideWorkspace]. The operation then happens on the entry the walk
// ended at, in the directory it holds open: [Root.Open], [Root.WriteFile]
// (atomic: a temporary file renamed in that directory), [Root.Remove],
// [Root.Mkdir], [Root.Chmod] and [Root.Walk]. A process that renames
// directories or swaps them for links while a call runs cannot redirect
// it outside the workspace. On Linux a path with no link on the way is
// opened in one openat2 call (RESOLVE_BENEATH, RESOLVE_NO_SYMLINKS,
// RESOLVE_NO_MAGICLINKS), which guarantees the same; any link sends it
// through the walk. A directory already opened is walked as it is, with
// [Root.WalkOpen], and entered with [Root.OpenDirIn], so a search lists
// exactly the directory it checked.
//
// A Root also refuses what a [Protected] list covers (talon's config and
// data, the operator's credential stores, and, for writing, a
// repository's hooks and config) and what a risk profile's forbidden_paths
// patterns match ([Pattern]), both as the path was given and where it
// leads, with a [*RefusedError] that names the rule or the pattern.
//
// The smallest use:
//
//	root, err := workspace.Open(".", workspace.Options{Protected: prot})
//	if err != nil {
//		return err
//	}
//	f, err := root.Open("notes/todo.md")
//	if err != nil {
//		return err // errors.Is(err, workspace.ErrOutsideWorkspace) for escapes
//	}
//	defer f.Close()
//
// [WriteFileAtomic] replaces a file by path, for talon's own files, with
// the same guarantees as [Root.WriteFile] but no confinement.
//
// # Notes
//
// Path components ".." are applied lexically before symbolic links are
// resolved, so "link/../a" means "a" in the workspace whatever "link" points
// to. [Root.Resolve] and [Root.ResolveForWrite] return where a path leads
// at the time of the call, for assessments and messages; acting on that
// string later goes by path again, so tools use the methods that act.
//
// A directory the walk holds open stays valid when it is renamed: a
// process that moves a directory out of the workspace in the middle of a
// call can make that call act inside the moved directory, which lies
// wherever that process could move it, never in a place it could not
// write itself. Hard links are not recognised: a protected file hard-linked
// into the workspace is a different path. On platforms without
// descriptor-relative system calls (Windows), each step goes by path and a
// concurrent rename can still redirect it.
package workspace
