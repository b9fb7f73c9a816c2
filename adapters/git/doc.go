// Package git provides git_operations: structured, local-only git
// operations on the repository whose top level is the workspace.
//
// The model picks an operation (status, diff, log, show, branch, add,
// commit, checkout, switch, stash, restore) and fills the few fields it
// takes; the tool builds the git argument vector itself and runs the git
// binary through the sandbox spawner, never through a shell. Nothing that
// reaches a remote is offered: push, pull, fetch and clone are high risk and
// belong to the shell tool under policy.
//
//	root, err := workspace.New(dir)
//	if err != nil {
//		return err
//	}
//	ops := git.New(root, git.Options{})
//	res, err := ops.Execute(ctx, json.RawMessage(`{"operation":"status"}`))
//
// # Risk
//
// Reading operations (status, diff, log, show, branch listing, stash list)
// are low; local writes (add, commit, checkout, switch, stash
// push/pop/apply/drop, restore, branch creation) are medium.
// [Operations.Assess] reports the tier, the paths the call reads or writes
// (those after "--", and the file of a REV:PATH revision such as
// "HEAD:notes/a.md", whose content show prints) and a plan whose commands
// are the exact argument vectors that will run; policy applies
// forbidden_paths to those paths. A path the workspace protects or forbids
// (talon's own files, the operator's secrets, a profile's forbidden_paths)
// denies the call, as it does for the file tools. A ref that
// starts with "-" (which git would read as an option such as -c, --exec or
// --upload-pack), a ref that looks like a remote URL (ext::, scheme://), an
// invalid branch name, and a path outside the workspace or inside .git deny
// the call.
//
// # Confinement
//
// Every command runs as
//
//	git -C <workspace> --no-pager --literal-pathspecs --git-dir=.git --work-tree=. -c ... <operation>
//
// with an environment of PATH, LC_ALL=C, GIT_CONFIG_NOSYSTEM=1,
// GIT_CONFIG_GLOBAL=/dev/null, GIT_ATTR_NOSYSTEM=1 and
// GIT_TERMINAL_PROMPT=0 only. The -c settings switch off what a repository's
// own config could use to run programs or reach a network: every setting of
// the spawner's table of keys that name programs ([sandbox.GitOverrides]:
// hooks, the file system monitor, pager, editors, credential helpers,
// signing, ext:: and local transports), then transports altogether
// (protocol.allow=never), automatic gc, and identity guessing
// (user.useConfigOnly). The spawner gives every git it starts the same
// settings through GIT_CONFIG_COUNT, and switches off the programs the
// config names by name (drivers, aliases, tools). diff, log and show pass
// --no-ext-diff and --no-textconv. Filter drivers (and, for stash pop and
// apply, merge drivers) would be read wrongly with their programs off, so
// before each operation the tool reads the repository config and refuses
// to run when one is configured. Paths are workspace-relative, literal (no pathspec
// magic or globs) and always follow "--".
//
// # Approvals
//
// Execute builds the plan again and, when the context carries an approved
// plan ([tool.WithApprovedPlan]), refuses to run anything that differs from
// it in any argument, binary, directory or environment name.
//
// # Results
//
// The text is git's standard output, then its standard error under a
// "[stderr]" line. A non-zero exit status, a timeout and output over the
// cap are failed results that say what to do next; Output.Data is a
// [Data].
package git
