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
// [Command.Assign] for the child, but only for inert variables ([InertVar]:
// LANG, LANGUAGE, LC_*, TZ, TERM, COLUMNS, LINES, NO_COLOR, CLICOLOR,
// CLICOLOR_FORCE and FORCE_COLOR), which change how text is printed and
// nothing else. Assigning any other variable (GIT_*, PAGER, EDITOR, HOME,
// TMPDIR, PATH, LD_*, ...) makes the command high risk and not allowed,
// with a reason naming the variable. The same rule holds for env's
// NAME=value and env -u NAME. [Options.ForbiddenEnv] can refuse inert
// names as well.
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
// A command is low risk only when every word of it is understood: each
// low-tier command has a table of the options it accepts, read the way GNU
// getopt_long reads them. Short options may be clustered (-rn) and take
// their value attached (-n5) or as the next word; a long option takes its
// value after '=' or as the next word, an optional value only after '='; a
// long option may be abbreviated to any prefix that selects one option
// (--outp is --output), an exact name winning over longer ones; "--" ends
// the options. A word the table lacks, an ambiguous abbreviation, a
// missing value or an operand too many makes the command high, with a
// reason naming the word. Options that do more than read are in the tables
// with what they do, so the reason says why: sort -o/--output and
// -T/--temporary-directory write files and --compress-program runs a
// program; date -s/--set and a date operand set the clock; hostname's
// operand, -F/--file and -b/--boot set the host name; uniq's second
// operand is a file it writes; diff -l/--paginate runs pr; file
// -C/--compile writes and -S/--no-sandbox is refused.
//
// Low, with their tables: ls, cat, grep (egrep, fgrep), head, tail, wc,
// pwd, df, du, uname, uptime, cut, tr, diff, stat, file, which, basename,
// dirname, realpath, readlink, whoami, id, nproc, seq, printenv,
// sha256sum, sha1sum, md5sum, cksum, cmp, comm, nl, rev, sort, uniq, date
// and hostname; echo, printf, test, [, true and false, whose words are all
// operands; find whose every primary is known and none is -exec,
// -execdir, -ok, -okdir, -delete, -fprint, -fprint0, -fprintf or -fls;
// sed with known options, without -i or -f, and with a safe program.
//
// git reads its global options exactly (-C DIR, --no-pager, -P,
// --git-dir and --work-tree naming a relative path inside the working
// directory, ...); -c, --config-env, --exec-path, -p/--paginate and any
// other global option are high. Low: status, log, diff, show, rev-parse,
// rev-list, ls-files, ls-tree, cat-file, grep, blame, describe, shortlog,
// version, reflog (show, exists), stash list, remote (listing, get-url),
// config when it reads (--get, --get-all, --get-regexp, --get-urlmatch,
// --list, --get-color, --get-colorbool), help without a page, and branch
// and tag when they list; each reads its own table. git's
// tables are not complete, so an abbreviation is read only when it selects
// an option that raises the tier (git diff --textc is --textconv); one
// that could be several options is ambiguous (git log --outp=x could be
// --output) and any other is not understood, all high: write git's
// options in full. --ext-diff, --textconv, --show-signature,
// --output, cat-file --filters, grep -O/--open-files-in-pager and --help
// (which opens a manual viewer) are high. Medium:
// commit, add, tag and branch when they create, checkout of a branch,
// switch, reset (soft, mixed, paths), merge, rebase, cherry-pick, revert,
// stash push/save/pop/apply/branch, init, mv, rm and remote
// add/rename/remove/set-*; their unknown options keep them medium, and the
// options that run programs or discard data raise them. High: push, pull,
// fetch, clone, ls-remote, archive, submodule, clean, restore, gc, prune,
// update-ref, filter-branch, replace, config that sets or edits a value,
// worktree, bisect, reset
// --hard/--merge/--keep, checkout -f, -m, -p, --ours, --theirs or of files
// (after --, several operands, or one naming a file), switch -f/-m, branch
// -D, -f, -M, -C and --edit-description, stash drop/clear, reflog
// expire/delete, remote show/update/prune, git help PAGE, -S/--gpg-sign,
// tag -s/-u/-v, merge and rebase strategies, rebase -i and -x, init
// --template, mv -f and rm -f; any other subcommand.
//
// Medium: touch, mkdir, mv, cp, ln and the git commands above; npm, pnpm
// and yarn install, add, remove, publish (npm also i, ci, uninstall);
// cargo add, install, publish.
//
// High: rm, dd, mkfs, shutdown, reboot, sudo, su, chown, chmod, mount,
// iptables, curl, wget, nc, scp, ssh, ftp, telnet and their kin; every
// shell and interpreter (python, node, ruby, perl, php, lua, osascript, ...)
// with the inline-code flags named in the reason (python -c/-m and
// clusters like -Sc, node -e/--eval/-p/--print, ruby -e, perl -e/-E and
// clusters like -pe, php -r, lua -e, osascript -e); xargs always; awk
// always; make always (it runs its recipes); sed programs with the e or
// w/W commands or the e or w flags of s; a command run by a path that PATH
// lookup would not resolve to the same binary (./ls); anything unknown.
//
// # talon itself
//
// A command named talon, or whose binary is the same file as talon's own
// executable ([Options.Self]), is refused at every level, wrappers and sh
// -c included: approvals and policy are for people, not for the tools they
// govern.
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
// profile (and of their option table), no file operands, no file
// redirections — are low risk and allowed
// even when allowed_commands does not list them, so `git log | head -5`
// passes with allowed_commands = ["git"]. Any path or glob argument
// disqualifies them (a glob that matched becomes file operands) and the
// normal rules apply. A safe bin must be found through PATH directly in
// one of [Options.SafeBinTrustedDirs] (/bin and /usr/bin by default);
// found elsewhere it is judged like any other command. Shells,
// interpreters and the commands that run programs are never safe bins.
//
// # Rules and inline code
//
// [Rule] is an operator's allow, ask or deny pattern over one command:
// the program, then a pattern per argument ("git push **"). [Rules]
// returns the strongest rule matching a command; the shell tool turns it
// into the call's assessment. [InlineEval] says whether a command runs
// code written in its own arguments (python -c, sh -c, awk, find -exec,
// xargs, git -c, ...), which an approval never saves as a rule.
// [Command.OffList] marks a command refused only by the allowlist, which
// a profile may ask about instead of denying.
package shellparse
