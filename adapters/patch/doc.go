// Package patch provides apply_patch: it applies a unified diff to files in
// the workspace, all or nothing.
//
//	root, err := workspace.New(dir)
//	if err != nil {
//		return err
//	}
//	ap := patch.New(root, patch.Options{})
//	res, err := ap.Execute(ctx, json.RawMessage(`{"patch": "--- a/x.txt\n+++ b/x.txt\n@@ -1 +1 @@\n-old\n+new\n"}`))
//
// # Patches
//
// The patch is parsed with go-gitdiff: git's extended format (creations,
// deletions, renames, copies, mode changes) and traditional ---/+++ diffs,
// several files in one patch, a mail header or other text before the first
// file ignored. strip removes leading path components from the names, as
// patch -p and git apply -p do; the default 1 removes git's a/ and b/.
// Binary patches, symbolic links and submodules are not supported.
//
// Every name is checked before anything is read: absolute names, ".."
// components and names inside .git are refused, and each path is resolved
// through [workspace.Root], so a symbolic link cannot lead a write outside
// the workspace, even one swapped in while the patch applies, and a
// protected path or one a profile forbids is refused naming the rule. A
// file that is itself a symbolic link is never deleted or renamed.
//
// # Applying
//
// Every hunk is applied in memory first. A hunk's context and removed lines
// must match the file exactly (only the line ending, LF or CRLF, is not
// compared); a hunk may sit at another line than its header says, and the
// nearest exact match is used, as git apply does. Added lines take the
// file's line ending. When any hunk does not apply, nothing is written and
// the result names each rejected hunk: the file, the hunk header and the
// lines that did not match.
//
// # Atomicity
//
// Only when every hunk applies are the files written, each replaced
// atomically with [workspace.Root.WriteFile], then the deleted files
// removed. If a write or removal fails midway, the files already changed
// are restored from the copies read into memory, new files and directories
// are removed, and the result says so. The guarantee covers failures talon
// sees; it does not survive a crash or power loss in the middle of the
// write phase (each file is then either old or new, but the set may be
// mixed), and it does not lock files against other processes. Calls of one
// tool value are serialized.
//
// # Risk
//
// apply_patch is medium. [ApplyPatch.Assess] reports every file the patch
// touches and a plan summary such as
// "modify 2 files, create 1, delete 1: M a.go, M b.go, A c.go, D d.go
// (patch 3f2a9c1b7d0e, strip 1)", which identifies the patch, so an
// approval covers exactly that patch. A name outside the workspace denies
// the call.
package patch
