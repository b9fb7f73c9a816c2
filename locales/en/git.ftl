### Description of git_operations and its parameters, as the model sees them.

## git_operations

tool-git-operations = Run one git operation on the repository at the top of the workspace: status, diff, log, show, branch, add, commit, checkout, switch, stash or restore. Reading operations run without approval; add, commit, checkout, switch, restore, stash changes and branch creation change the repository and may need approval. Nothing that contacts a remote is offered: push, pull, fetch and clone belong to the shell tool, under policy. Hooks and programs named in the repository's config never run. restore, and checkout with paths, discard uncommitted changes to those paths.
tool-git-operations-param-operation = The git operation to run. Each takes only some of the other fields; the others must be left out.
tool-git-operations-param-paths = Files or directories, relative to the workspace, for status, diff, log, show, add, commit, checkout, stash push and restore. They are exact paths, not glob patterns; use ["."] for everything.
tool-git-operations-param-message = The message of a commit (required for commit) or of a stash push.
tool-git-operations-param-ref = A commit, branch or tag such as HEAD~1, main or v1.2. diff compares against it, log starts from it, show shows it (default HEAD), checkout checks it out or takes paths from it, restore takes files from it, stash pop, apply and drop use it as the stash (such as stash@{"{"}1{"}"}), and branch, switch and checkout with create start the new branch at it.
tool-git-operations-param-branch = A branch name: the branch to switch to, or the new branch's name when create is true (for branch, switch and checkout).
tool-git-operations-param-create = Create the branch named in branch: with branch it only creates it; with switch and checkout it also switches to it. Defaults to false.
tool-git-operations-param-staged = For diff, show the changes staged for the next commit; for restore, unstage the paths and keep the files as they are. Defaults to false.
tool-git-operations-param-max-count = How many commits log shows, from 1 to 1000. Defaults to 20.
tool-git-operations-param-stash-action = What stash does: list (the default), push (save and clear the changes), pop (re-apply and remove a stash), apply (re-apply and keep it) or drop (delete it).
