// Package shellparse analyses a shell line before anything runs it: it
// parses the line with mvdan.cc/sh/v3/syntax, splits it into every simple
// command, decides each command's risk tier and allowlist verdict, and
// returns the [Program] that talon's shell tool executes itself, without a
// shell.
//
//	a, err := shellparse.New(shellparse.Options{Dir: workspace})
//	if err != nil {
//		return err
//	}
//	an := a.Analyze("ls -la | wc -l")
//	// an.Tier == tool.Low, an.Allowed == true, an.Program.String() == "ls -la | wc -l"
//
// # What a line may contain
//
// Simple commands joined by pipes, ;, &&, || and newlines, with quoting of
// every kind. The line's tier is the highest of its commands' and it is
// allowed only when every command is. A line that uses anything whose effect
// only a running shell knows is not analysable: it is high risk, never
// allowed, and has no Program. That covers command and process
// substitution, parameter expansion outside single quotes (inside double
// quotes too), arithmetic expansion, subshells, blocks, functions, if, for,
// while, until, case and select, [[ ]], (( )), background jobs, coproc,
// negation with !, shell builtins (cd, export, source, ...), array and +=
// assignments, an assignment without a command, here-documents whose body
// expands, and command names with control characters or characters outside
// ASCII (look-alike letters, zero-width spaces, direction overrides).
//
// # Expansion
//
// Quote removal, $'...' escapes, brace expansion, ~ and ~/path (to
// [Options.Home]) and pathname expansion happen at analysis time, as bash
// would perform them: globs are matched against [Options.Dir] and a pattern
// that matches nothing stays literal. The Program therefore holds the exact
// argv that will run, and an approval covers the files a glob matched when
// it was approved. ~user, ~+ and ~- are not analysable, and neither is a
// glob or brace pattern in a command name or a redirection target.
//
// # Redirections
//
// >/dev/null, 2>/dev/null, &>/dev/null, 2>&1 and >&2 keep the tier.
// Writing to any other file (>, >>, &>, >&file) makes the command high risk.
// Reading a file with < is reading: it keeps the tier and lists the file in
// [Analysis.Paths] (as writes are), but a safe bin reading a file is no
// longer a safe bin. Here-documents with a quoted delimiter, unquoted ones
// whose body does not expand, and here-strings become literal stdin text.
// Only descriptors 0, 1 and 2 may be redirected. >/dev/stdout and
// >/dev/stderr become >&1 and >&2.
//
// # Assignments and wrappers
//
// Leading NAME=value assignments are stripped before matching and kept in
// [Command.Assign] for the child. Assigning PATH, LD_*, DYLD_*, BASH_ENV,
// ENV, NODE_OPTIONS, PYTHONPATH or PERL5OPT makes the command high risk and
// not allowed.
//
// env, nice, nohup, stdbuf, timeout and time are transparent: the inner
// command is what is matched, classified and run, at most four wrappers
// deep. The wrapper never runs and never searches PATH itself; talon
// reproduces env's -i, -u and NAME=value, timeout's duration (the command's
// process group is killed and the status is 124) and nice's adjustment;
// nohup, stdbuf and time are dropped. Unknown wrapper options are not
// analysable.
//
// sh, bash, zsh and dash with exactly -c SCRIPT are analysed recursively
// (at most three deep): the script's commands replace the sh -c command in
// the Program, and each must pass on its own. The replacement is made only
// where it is exact: a script of several commands may not follow && or ||,
// sit inside a pipeline, or take redirections, timeout or nice from outside.
// Any other use of a shell (a script file, stdin, other flags) is high.
//
// # Tiers
//
// Low: ls, cat, grep, find without -exec/-execdir/-ok/-okdir/-delete/
// -fprint*, head, tail, wc, pwd, echo, date (not -s), df, du, uname, uptime,
// hostname (no operand), sort (not -o or --compress-program), uniq (one
// operand at most), cut, tr, diff, stat, file, which, a few more read-only
// tools (printf, true, test, basename, realpath, ...), sed with a safe
// program, and git status, log, diff, show, rev-parse, ls-files, blame,
// describe, shortlog, ls-tree, and git branch when it only lists (bare, with
// listing flags, or with --list).
//
// Medium: touch, mkdir, mv, cp, ln; git commit, push, reset, clean, rebase,
// merge, checkout, switch, tag, branch (creating or changing), add,
// restore, stash, fetch, pull, init, mv, rm, cherry-pick, revert; npm, pnpm
// and yarn install, add, remove, publish (npm also i, ci, uninstall); cargo
// add, install, publish.
//
// High: rm, dd, mkfs, shutdown, reboot, sudo, su, chown, chmod, mount,
// iptables, curl, wget, nc, scp, ssh, ftp, telnet and their kin; every
// shell and interpreter (python, node, ruby, perl, php, lua, osascript, ...)
// with the inline-code flags named in the reason (python -c/-m and
// clusters like -Sc, node -e/--eval/-p/--print, ruby -e, perl -e/-E and
// clusters like -pe, php -r, lua -e, osascript -e); xargs always; awk
// always; make always (it runs its recipes); git -c and unknown git
// options or subcommands; any --output of git; sed -i, sed -f and sed
// programs with the e or w/W commands or the e or w flags of s; a command
// run by a path that PATH lookup would not resolve to the same binary
// (./ls); anything unknown.
//
// # The allowlist gate
//
// The gate runs before tiers. A pattern with '/' is an absolute doublestar
// glob matched against the symlink-resolved binary, and against the path
// PATH lookup found only when the link stays in its directory: with
// /usr/bin/python3 -> python3.11, both "/usr/bin/python3" and
// "/usr/bin/python3.11" match, while /usr/local/bin/tool ->
// /home/u/tool is matched only as "/home/u/tool". A bare pattern matches
// only a command found through PATH lookup: ./rg, /tmp/rg and ../bin/rg
// never match "rg". "*" matches everything. A command that is not found is
// never allowed.
//
// # Safe bins
//
// cut, uniq, head, tail, tr and wc (by default; see [SafeBin]) used as pure
// stdin filters — bare name found through PATH, only the flags of their
// profile, no file operands, no file redirections — are low risk and allowed
// even when allowed_commands does not list them, so `git log | head -5`
// passes with allowed_commands = ["git"]. Any path or glob argument
// disqualifies them (a glob that matched becomes file operands) and the
// normal rules apply.
package shellparse
