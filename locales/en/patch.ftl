### Description of apply_patch and its parameters, as the model sees them.

## apply_patch

tool-apply-patch = Apply a unified diff to files in the workspace, all or nothing: several files at once, including new, deleted, renamed and copied files. Every hunk must match the current file exactly (line numbers may be off); if any hunk does not, nothing is changed and the result shows each rejected hunk with the lines that differ. Binary patches and symbolic links are not supported. Prefer file_edit for a single small change.
tool-apply-patch-param-patch = The unified diff, as git diff writes it (diff --git, ---/+++ and @@ hunk lines) or as diff -u writes it. Copy context lines from the current files; new files use /dev/null as the old name.
tool-apply-patch-param-strip = How many leading directory components to remove from the names in the patch, as with patch -p. Defaults to 1, which removes the a/ and b/ of git diffs; use 0 for a diff -u patch whose names have no prefix.
