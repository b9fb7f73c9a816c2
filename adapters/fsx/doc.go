// Package fsx provides the file tools: file_read, glob_search,
// content_search, file_write and file_edit.
//
// Every path argument goes through a [workspace.Root], so no tool reads,
// lists, searches or writes anything whose real location is outside the
// workspace, whatever symbolic links lie on the way or are swapped in
// while a call runs. Protected paths (talon's config and data, the
// operator's secrets; a repository's hooks and config for writing) and a
// profile's forbidden_paths are refused by name; searches and listings
// leave them out and say how many they left out. Searches never descend
// into symbolic links to directories and list a linked file only when its
// target is inside the workspace; they skip .git directories.
//
// The smallest use:
//
//	root, err := workspace.Open(dir, workspace.Options{Protected: prot})
//	if err != nil {
//		return err
//	}
//	read := fsx.NewReadFile(root, fsx.ReadFileOptions{})
//	res, err := read.Execute(ctx, json.RawMessage(`{"path":"go.mod","limit":20}`))
//
// Problems the model can act on (a missing file, a path outside the
// workspace, an ambiguous edit) are failed results whose text says what to
// do next; a Go error from Execute means something unexpected went wrong.
// The tools register themselves with toolfactory in init.
//
// # Notes
//
// file_write and file_edit replace files atomically with
// [workspace.Root.WriteFile]: a failed call leaves the file as it was, and
// an edit keeps the file's permission bits. Writing through a symbolic link
// inside the workspace writes its target and keeps the link.
package fsx
