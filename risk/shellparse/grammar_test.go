//go:build unix

package shellparse

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/talonhq/talon/tool"
)

// grammarVectors are the cases of the positive grammar: every word of a
// low command is understood, abbreviations are read as getopt_long reads
// them, operands that write are seen, only inert variables pass, git's
// remote and destructive commands are high and talon never runs itself.
var grammarVectors = []vector{
	// Options the tables accept keep commands low.
	{name: "ls long color abbreviated", line: "ls -la --col=auto", tier: L, allowed: true, an: true},
	{name: "ls ambiguous prefix", line: "ls --c", tier: H, allowed: true, an: true, reason: `"--c" is ambiguous for ls: it could be --classify, --color or --context`},
	{name: "ls unknown long option", line: "ls --frobnicate", tier: H, allowed: true, an: true, reason: `"--frobnicate" is not an option talon knows for ls`},
	{name: "ls unknown short in cluster", line: "ls -lj", tier: H, allowed: true, an: true, reason: `"-j" (in "-lj") is not an option talon knows for ls`},
	{name: "ls value attached", line: "ls -w80 -T4", tier: L, allowed: true, an: true},
	{name: "ls value separate", line: "ls -I '*.o' .", tier: L, allowed: true, an: true},
	{name: "ls flag takes no value", line: "ls --all=yes", tier: H, allowed: true, an: true, reason: "--all of ls takes no value"},
	{name: "ls double dash operand", line: "ls -- --all", tier: L, allowed: true, an: true},
	{name: "grep recursive", line: "grep -rn foo .", tier: L, allowed: true, an: true},
	{name: "grep context attached", line: "grep -C3 foo a.go", tier: L, allowed: true, an: true},
	{name: "grep numeric context", line: "grep -5 foo a.go", tier: L, allowed: true, an: true},
	{name: "grep include abbreviated", line: "grep --inc='*.go' foo .", tier: L, allowed: true, an: true},
	{name: "grep pattern with dash via -e", line: "grep -e -foo a.go", tier: L, allowed: true, an: true},
	{name: "grep pattern file reads", line: "grep -f pats.txt a.go", tier: L, allowed: true, an: true},
	{name: "grep value missing", line: "grep foo -m", tier: H, allowed: true, an: true, reason: `"-m" of grep needs a value`},
	{name: "egrep shares grep table", line: "egrep -i 'a|b' a.go", tier: L, an: true},
	{name: "head numeric", line: "head -5 a.go", tier: L, allowed: true, an: true},
	{name: "head lines attached", line: "head -n5 a.go", tier: L, allowed: true, an: true},
	{name: "tail follow", line: "tail -f a.go", tier: L, allowed: true, an: true},
	{name: "tail pid", line: "tail --pid=1 -f a.go", tier: L, allowed: true, an: true},
	{name: "wc files0-from reads", line: "wc --files0-from=list a.go", tier: L, allowed: true, an: true},
	{name: "cat show-all abbreviated", line: "cat --show-a a.go", tier: L, allowed: true, an: true},
	{name: "cat cluster", line: "cat -nA a.go", tier: L, allowed: true, an: true},
	{name: "pwd physical", line: "pwd -P", tier: L, allowed: true, an: true},
	{name: "pwd operand not understood", line: "pwd x", tier: H, allowed: true, an: true, reason: `"x" is not understood: pwd takes no operands`},
	{name: "df human", line: "df -h", tier: L, allowed: true, an: true},
	{name: "df output fields", line: "df --output=source,size", tier: L, allowed: true, an: true},
	{name: "du summarize", line: "du -sh .", tier: L, allowed: true, an: true},
	{name: "du max depth", line: "du -d 1 .", tier: L, allowed: true, an: true},
	{name: "uname all", line: "uname -a", tier: L, allowed: true, an: true},
	{name: "uname unknown", line: "uname --foo", tier: H, allowed: true, an: true, reason: `"--foo" is not an option talon knows for uname`},
	{name: "uptime pretty", line: "uptime -p", tier: L, allowed: true, an: true},
	{name: "cut fields", line: "cut -d: -f1 a.go", tier: L, allowed: true, an: true},
	{name: "tr three operands", line: "tr a b c", tier: H, allowed: true, an: true, reason: "tr takes at most 2 operands"},
	{name: "diff unified", line: "diff -u a.go b.go", tier: L, allowed: true, an: true},
	{name: "diff numeric context", line: "diff -5 a.go b.go", tier: L, allowed: true, an: true},
	{name: "diff paginate runs pr", line: "diff -l a.go b.go", tier: H, allowed: true, an: true, reason: `"diff -l" is high risk (runs the pr program on its output)`},
	{name: "diff paginate abbreviated", line: "diff --pag a.go b.go", tier: H, allowed: true, an: true, reason: "--pag is read as --paginate"},
	{name: "stat format", line: "stat -c %s a.go", tier: L, allowed: true, an: true},
	{name: "file plain", line: "file a.go", tier: L, allowed: true, an: true},
	{name: "file compile writes", line: "file -C -m magic", tier: H, allowed: true, an: true, reason: `"file -C" is high risk (writes a compiled magic file)`},
	{name: "file no sandbox refused", line: "file -S a.go", tier: H, allowed: true, an: true, reason: "turns off file's own sandbox"},
	{name: "which all", line: "which -a ls", tier: L, allowed: true, an: true},
	{name: "which long option unknown", line: "which --all ls", tier: H, allowed: true, an: true, reason: `"--all" is not an option talon knows for which`},
	{name: "echo takes every word", line: "echo --output=x -o", tier: L, allowed: true, an: true},
	{name: "printf takes every word", line: `printf '%s\n' --x`, tier: L, an: true},
	{name: "test takes every word", line: "test -f a.go", tier: L, an: true},
	{name: "seq negative operand", line: "seq -5 5", tier: L, an: true},
	{name: "seq width", line: "seq -w 1 10", tier: L, an: true},
	{name: "seq too many operands", line: "seq 1 2 3 4", tier: H, an: true, reason: "seq takes at most 3 operands"},
	{name: "id user", line: "id -u", tier: L, an: true},
	{name: "nproc all", line: "nproc --all", tier: L, an: true},
	{name: "printenv name", line: "printenv LANG", tier: L, an: true},
	{name: "sha256sum check", line: "sha256sum -c sums", tier: L, an: true},
	{name: "cmp two files", line: "cmp a.go b.go", tier: L, an: true},
	{name: "comm columns", line: "comm -12 a.go b.go", tier: L, an: true},
	{name: "nl body numbering", line: "nl -ba a.go", tier: L, an: true},
	{name: "rev file", line: "rev a.go", tier: L, an: true},
	{name: "basename suffix", line: "basename /a/b.go .go", tier: L, an: true},
	{name: "realpath relative abbreviated", line: "realpath --relative-t=. a.go", tier: L, an: true},
	{name: "realpath relative ambiguous", line: "realpath --relative=. a.go", tier: H, an: true, reason: "ambiguous for realpath"},
	{name: "readlink canonicalize", line: "readlink -f a.go", tier: L, an: true},

	// sort: -o and --output write, --compress-program runs, -T writes.
	{name: "sort plain flags", line: "sort -rn -k2,2 -t: a.go", tier: L, allowed: true, an: true},
	{name: "sort -o separate", line: "sort -o out a.go", tier: H, allowed: true, an: true, reason: `"sort -o" is high risk (writes a file)`},
	{name: "sort -o in cluster", line: "sort -no out a.go", tier: H, allowed: true, an: true, reason: `"sort -no" is high risk (-o writes a file)`},
	{name: "sort -o attached", line: "sort -oout a.go", tier: H, allowed: true, an: true, reason: "-o writes a file"},
	{name: "sort output full", line: "sort --output=out a.go", tier: H, allowed: true, an: true, reason: `"sort --output=out" is high risk (writes a file)`},
	{name: "sort output abbreviated separate", line: "sort --out out a.go", tier: H, allowed: true, an: true, reason: "--out is read as --output"},
	{name: "sort compress abbreviated", line: "sort --comp=sh a.go", tier: H, allowed: true, an: true, reason: "--comp is read as --compress-program, which runs a program"},
	{name: "sort c ambiguous", line: "sort --c=sh", tier: H, allowed: true, an: true, reason: "--compress-program (which runs a program)"},
	{name: "sort temporary directory", line: "sort -T /tmp a.go", tier: H, allowed: true, an: true, reason: "writes temporary files"},
	{name: "sort after double dash", line: "sort -- -o", tier: L, allowed: true, an: true},
	{name: "sort check", line: "sort -c a.go", tier: L, allowed: true, an: true},
	{name: "sort key missing value", line: "sort -k", tier: H, allowed: true, an: true, reason: `"-k" of sort needs a value`},

	// uniq: uniq [IN [OUT]].
	{name: "uniq one operand", line: "uniq a.go", tier: L, allowed: true, an: true},
	{name: "uniq second operand writes", line: "uniq -c a.go out", tier: H, allowed: true, an: true, reason: `"uniq out" is high risk (writes a file: the second operand of uniq is its output)`},
	{name: "uniq third operand", line: "uniq a b c", tier: H, allowed: true, an: true, reason: "uniq takes at most 2 operands"},
	{name: "uniq skip fields", line: "uniq -f 2 -c a.go", tier: L, allowed: true, an: true},
	{name: "uniq output after options", line: "uniq a.go -c out", tier: H, allowed: true, an: true, reason: "writes a file"},

	// date: -s, --set and a date operand set the clock.
	{name: "date plain", line: "date", tier: L, allowed: true, an: true},
	{name: "date format", line: "date -u +%Y-%m-%d", tier: L, allowed: true, an: true},
	{name: "date operand sets clock", line: "date 010100002020", tier: H, allowed: true, an: true, reason: `"date 010100002020" is high risk (sets the system clock)`},
	{name: "date -s in cluster", line: "date -us now", tier: H, allowed: true, an: true, reason: "-s sets the system clock"},
	{name: "date --set full", line: "date --set=now", tier: H, allowed: true, an: true, reason: `"date --set=now" is high risk (sets the system clock)`},
	{name: "date --s abbreviated", line: "date --s now", tier: H, allowed: true, an: true, reason: "--s is read as --set"},
	{name: "date date option", line: "date -d yesterday +%F", tier: L, allowed: true, an: true},
	{name: "date iso optional value", line: "date -Iseconds", tier: L, allowed: true, an: true},
	{name: "date iso abbreviated", line: "date --iso", tier: L, allowed: true, an: true},
	{name: "date r ambiguous", line: "date --r=a.go", tier: H, allowed: true, an: true, reason: "ambiguous for date"},
	{name: "date two operands", line: "date +%s +%F", tier: H, allowed: true, an: true, reason: "date takes at most 1 operands"},

	// hostname: an operand, -F and -b set the host name.
	{name: "hostname fqdn", line: "hostname -f", tier: L, allowed: true, an: true},
	{name: "hostname fqdn abbreviated", line: "hostname --fq", tier: L, allowed: true, an: true},
	{name: "hostname file", line: "hostname -F /etc/hostname", tier: H, allowed: true, an: true, reason: "sets the host name from a file"},
	{name: "hostname boot abbreviated", line: "hostname --boo", tier: H, allowed: true, an: true, reason: "--boo is read as --boot"},
	{name: "hostname f ambiguous", line: "hostname --f", tier: H, allowed: true, an: true, reason: "ambiguous for hostname"},
	{name: "hostname operand", line: "hostname newname", tier: H, allowed: true, an: true, reason: `"hostname newname" is high risk (sets the host name)`},

	// find: every primary is known.
	{name: "find newer xy", line: "find . -maxdepth 2 -newermt 2020-01-01", tier: L, allowed: true, an: true},
	{name: "find leading option", line: "find -L . -name x", tier: L, allowed: true, an: true},
	{name: "find operators", line: `find . \( -name a -o -name b \) ! -type d`, tier: L, allowed: true, an: true},
	{name: "find perm value with dash", line: "find . -perm -644", tier: L, allowed: true, an: true},
	{name: "find fprintf", line: "find . -fprintf out %p", tier: H, allowed: true, an: true, reason: `"find -fprintf" is high risk (writes a file)`},
	{name: "find fls", line: "find . -fls out", tier: H, allowed: true, an: true, reason: "writes a file"},
	{name: "find unknown primary", line: "find . -frob", tier: H, allowed: true, an: true, reason: `"-frob" is not an expression talon knows for find`},
	{name: "find operand after expression", line: "find . -name x y", tier: H, allowed: true, an: true, reason: "starting points before the expression"},
	{name: "find missing argument", line: "find . -name", tier: H, allowed: true, an: true, reason: "needs 1 argument"},

	// sed's options go through the table too.
	{name: "sed in-place abbreviated", line: "sed --in=.bak s/a/b/ a.go", tier: H, an: true, reason: "--in is read as --in-place, which edits files in place"},
	{name: "sed s ambiguous", line: "sed --s s/a/b/", tier: H, an: true, reason: "ambiguous for sed"},
	{name: "sed sandbox", line: "sed --sandbox s/a/b/ a.go", tier: L, an: true},
	{name: "sed expression abbreviated", line: "sed --exp='1d' a.go", tier: L, an: true},
	{name: "sed file abbreviated", line: "sed --fi=x.sed a.go", tier: H, an: true, reason: "reads its program from a file"},
	{name: "sed unknown option", line: "sed -j 1d", tier: H, an: true, reason: `"-j" is not an option talon knows for sed`},

	// Variables: only inert ones.
	{name: "inert LANG", line: "LANG=C.UTF-8 ls", tier: L, allowed: true, an: true},
	{name: "inert LC prefix", line: "LC_COLLATE=C sort a.go", tier: L, allowed: true, an: true},
	{name: "inert TZ", line: "TZ=UTC date", tier: L, allowed: true, an: true},
	{name: "inert NO_COLOR through env", line: "env NO_COLOR=1 COLUMNS=80 ls", tier: L, allowed: true, an: true, prog: "NO_COLOR=1 COLUMNS=80 ls"},
	{name: "LC_ alone is not a locale variable", line: "LC_=1 ls", tier: H, an: true, reason: "assigning LC_ is not allowed"},
	{name: "GIT_PAGER", line: "GIT_PAGER=cat git log", tier: H, an: true, reason: "assigning GIT_PAGER is not allowed"},
	{name: "PAGER", line: "PAGER=less git log", tier: H, an: true, reason: "assigning PAGER is not allowed"},
	{name: "EDITOR", line: "EDITOR=vim git commit", tier: H, an: true, reason: "assigning EDITOR is not allowed"},
	{name: "HOME", line: "HOME=/tmp git status", tier: H, an: true, reason: "assigning HOME is not allowed"},
	{name: "TMPDIR", line: "TMPDIR=. sort a.go", tier: H, an: true, reason: "assigning TMPDIR is not allowed"},
	{name: "GIT_SSH_COMMAND", line: "GIT_SSH_COMMAND=x git status", tier: H, an: true, reason: "assigning GIT_SSH_COMMAND"},
	{name: "POSIXLY_CORRECT changes option parsing", line: "POSIXLY_CORRECT=1 sort a.go", tier: H, an: true, reason: "assigning POSIXLY_CORRECT"},
	{name: "unset through env -u", line: "env -u PATH ls", tier: H, an: true, reason: "unsetting PATH is not allowed"},
	{name: "unset inert", line: "env -u TZ date", tier: L, allowed: true, an: true},
	{name: "assignment inside sh -c", line: "sh -c 'GIT_DIR=x git status'", tier: H, an: true, reason: "assigning GIT_DIR"},
	{name: "env -i alone is fine", line: "env -i ls", tier: L, allowed: true, an: true},

	// git: read subcommands by table, remote and destructive ones high.
	{name: "git log oneline", line: "git log --oneline -5", tier: L, allowed: true, an: true},
	{name: "git log output abbreviated", line: "git log --outp=x", tier: H, allowed: true, an: true, reason: "--output (which writes a file)"},
	{name: "git log output full", line: "git log --output=x", tier: H, allowed: true, an: true, reason: `"git log --output=x" is high risk (writes a file)`},
	{name: "git log abbreviation of a safe option", line: "git log --onel", tier: H, allowed: true, an: true, reason: "write --oneline in full"},
	{name: "git log ext-diff", line: "git log -p --ext-diff", tier: H, allowed: true, an: true, reason: "runs the external diff program"},
	{name: "git diff textconv abbreviated", line: "git diff --textc", tier: H, allowed: true, an: true, reason: "--textc is read as --textconv"},
	{name: "git diff stat", line: "git diff --stat HEAD~1", tier: L, allowed: true, an: true},
	{name: "git diff cached paths", line: "git diff --cached -- a.go", tier: L, allowed: true, an: true},
	{name: "git status short branch cluster", line: "git status -sb", tier: L, allowed: true, an: true},
	{name: "git status porcelain value", line: "git status --porcelain=v2", tier: L, allowed: true, an: true},
	{name: "git status unknown option", line: "git status --frob", tier: H, allowed: true, an: true, reason: `"--frob" is not an option talon knows for git status`},
	{name: "git show signature runs gpg", line: "git show --show-signature", tier: H, allowed: true, an: true, reason: "runs gpg"},
	{name: "git help with a page", line: "git help log", tier: H, allowed: true, an: true, reason: "opens the manual"},
	{name: "git --help with a page", line: "git --help log", tier: H, allowed: true, an: true, reason: "opens the manual"},
	{name: "git log --help", line: "git log --help", tier: H, allowed: true, an: true, reason: "opens the manual"},
	{name: "git help all", line: "git help -a", tier: L, allowed: true, an: true},
	{name: "git paginate", line: "git -p log", tier: H, allowed: true, an: true, reason: "runs the pager program"},
	{name: "git git-dir inside", line: "git --git-dir=.git status", tier: L, allowed: true, an: true},
	{name: "git git-dir outside", line: "git --git-dir=/tmp/x status", tier: H, allowed: true, an: true, reason: "names a repository outside the working directory"},
	{name: "git work-tree parent", line: "git --work-tree=../x status", tier: H, allowed: true, an: true, reason: "outside the working directory"},
	{name: "git unknown global option", line: "git --bare status", tier: H, allowed: true, an: true, reason: `"--bare" is not an option talon knows for git`},
	{name: "git global abbreviation unknown", line: "git --git-d=.git status", tier: H, allowed: true, an: true, reason: "not an option talon knows for git"},
	{name: "git rev-parse", line: "git rev-parse --show-toplevel", tier: L, allowed: true, an: true},
	{name: "git ls-files", line: "git ls-files -o --exclude-standard", tier: L, allowed: true, an: true},
	{name: "git blame range", line: "git blame -L 1,5 a.go", tier: L, allowed: true, an: true},
	{name: "git blame textconv", line: "git blame --textconv a.go", tier: H, allowed: true, an: true, reason: "textconv"},
	{name: "git describe", line: "git describe --tags --always", tier: L, allowed: true, an: true},
	{name: "git shortlog", line: "git shortlog -sn", tier: L, allowed: true, an: true},
	{name: "git ls-tree", line: "git ls-tree -r --name-only HEAD", tier: L, allowed: true, an: true},
	{name: "git stash list", line: "git stash list", tier: L, allowed: true, an: true},
	{name: "git tag list", line: "git tag -l 'v*'", tier: L, allowed: true, an: true},
	{name: "git remote list", line: "git remote -v", tier: L, allowed: true, an: true},
	{name: "git branch verbose cluster", line: "git branch -vv", tier: L, allowed: true, an: true},
	{name: "git branch create", line: "git branch feature", tier: M, allowed: true, an: true, reason: `"git branch" is medium risk`},
	{name: "git branch move", line: "git branch -m old new", tier: M, allowed: true, an: true},
	{name: "git branch delete merged", line: "git branch -d old", tier: M, allowed: true, an: true},
	{name: "git branch delete abbreviated", line: "git branch --del old", tier: M, allowed: true, an: true, reason: "--del is read as --delete"},
	{name: "git branch delete force cluster", line: "git branch -df old", tier: H, allowed: true, an: true, reason: "-f overwrites or deletes a branch"},
	{name: "git branch delete force long", line: "git branch --delete --force old", tier: H, allowed: true, an: true},
	{name: "git branch edit description", line: "git branch --edit-description", tier: H, allowed: true, an: true, reason: "opens an editor"},
	{name: "git checkout branch", line: "git checkout main", tier: M, allowed: true, an: true},
	{name: "git checkout new branch", line: "git checkout -b feat", tier: M, allowed: true, an: true},
	{name: "git checkout file", line: "git checkout a.go", tier: H, allowed: true, an: true, reason: `"a.go" names files`},
	{name: "git checkout dot", line: "git checkout .", tier: H, allowed: true, an: true, reason: "discarding their changes"},
	{name: "git checkout double dash", line: "git checkout -- a.go", tier: H, allowed: true, an: true, reason: "restores files"},
	{name: "git checkout force", line: "git checkout -f main", tier: H, allowed: true, an: true, reason: "throws away local changes"},
	{name: "git checkout revision and path", line: "git checkout HEAD~1 a.go", tier: H, allowed: true, an: true},
	{name: "git switch create", line: "git switch -c feat", tier: M, allowed: true, an: true},
	{name: "git switch discard", line: "git switch --discard-changes main", tier: H, allowed: true, an: true, reason: "throws away local changes"},
	{name: "git reset soft", line: "git reset --soft HEAD~1", tier: M, allowed: true, an: true},
	{name: "git reset hard abbreviated", line: "git reset --ha", tier: H, allowed: true, an: true, reason: "--ha is read as --hard"},
	{name: "git reset h ambiguous", line: "git reset --h", tier: H, allowed: true, an: true, reason: "ambiguous for git reset"},
	{name: "git reset merge", line: "git reset --merge", tier: H, allowed: true, an: true},
	{name: "git reset keep", line: "git reset --keep HEAD~1", tier: H, allowed: true, an: true},
	{name: "git commit", line: "git commit -am msg", tier: M, allowed: true, an: true},
	{name: "git commit message with dash", line: "git commit -m '-S is not a flag here'", tier: M, allowed: true, an: true},
	{name: "git commit sign", line: "git commit -S -m msg", tier: H, allowed: true, an: true, reason: "runs gpg to sign"},
	{name: "git rebase", line: "git rebase main", tier: M, allowed: true, an: true},
	{name: "git rebase interactive", line: "git rebase -i HEAD~3", tier: H, allowed: true, an: true, reason: "opens an editor"},
	{name: "git rebase exec abbreviated", line: "git rebase --exe=ls main", tier: H, allowed: true, an: true, reason: "--exe is read as --exec"},
	{name: "git merge strategy", line: "git merge -s evil main", tier: H, allowed: true, an: true, reason: "runs a merge strategy program"},
	{name: "git cherry-pick signoff", line: "git cherry-pick -s abc", tier: M, allowed: true, an: true},
	{name: "git tag create", line: "git tag v1", tier: M, allowed: true, an: true},
	{name: "git tag sign", line: "git tag -s v1", tier: H, allowed: true, an: true},
	{name: "git stash", line: "git stash", tier: M, allowed: true, an: true},
	{name: "git stash pop", line: "git stash pop", tier: M, allowed: true, an: true},
	{name: "git stash drop", line: "git stash drop", tier: H, allowed: true, an: true, reason: "deletes stashed changes for good"},
	{name: "git stash clear", line: "git stash clear", tier: H, allowed: true, an: true},
	{name: "git add", line: "git add .", tier: M, allowed: true, an: true},
	{name: "git mv", line: "git mv a.go c.go", tier: M, allowed: true, an: true},
	{name: "git mv force", line: "git mv -f a.go b.go", tier: H, allowed: true, an: true},
	{name: "git rm cached", line: "git rm --cached a.go", tier: M, allowed: true, an: true},
	{name: "git rm force", line: "git rm -f a.go", tier: H, allowed: true, an: true},
	{name: "git init", line: "git init", tier: M, allowed: true, an: true},
	{name: "git init template", line: "git init --template=x", tier: H, allowed: true, an: true, reason: "copies hooks"},
	{name: "git remote add", line: "git remote add o https://example.com/r.git", tier: M, allowed: true, an: true},
	{name: "git remote update", line: "git remote update", tier: H, allowed: true, an: true, reason: "talks to a remote repository"},
	{name: "git push plain", line: "git push", tier: H, allowed: true, an: true, reason: "changes a remote repository"},
	{name: "git push force with lease", line: "git push --force-with-lease origin main", tier: H, allowed: true, an: true},
	{name: "git pull rebase", line: "git pull --rebase", tier: H, allowed: true, an: true, reason: "merges what it fetched"},
	{name: "git fetch all", line: "git fetch --all", tier: H, allowed: true, an: true},
	{name: "git clone", line: "git clone https://example.com/r.git", tier: H, allowed: true, an: true},
	{name: "git ls-remote", line: "git ls-remote origin", tier: H, allowed: true, an: true},
	{name: "git submodule update", line: "git submodule update --init", tier: H, allowed: true, an: true, reason: "update commands"},
	{name: "git clean dry run", line: "git clean -n", tier: H, allowed: true, an: true, reason: "deletes untracked files"},
	{name: "git restore", line: "git restore a.go", tier: H, allowed: true, an: true, reason: "discards changes to files"},
	{name: "git gc prune", line: "git gc --prune=now", tier: H, allowed: true, an: true, reason: "prunes unreachable objects"},
	{name: "git reflog expire", line: "git reflog expire --expire=now --all", tier: H, allowed: true, an: true, reason: "deletes reflog entries"},
	{name: "git reflog", line: "git reflog -5", tier: L, allowed: true, an: true},
	{name: "git update-ref delete", line: "git update-ref -d refs/heads/x", tier: H, allowed: true, an: true, reason: "rewrites refs"},
	{name: "git filter-branch", line: "git filter-branch --tree-filter 'rm x' HEAD", tier: H, allowed: true, an: true, reason: "rewrites history"},
	{name: "git config get", line: "git config --get user.name", tier: L, allowed: true, an: true},
	{name: "git config list", line: "git config -l --show-origin", tier: L, allowed: true, an: true},
	{name: "git config set", line: "git config core.pager cat", tier: H, allowed: true, an: true, reason: "changes configuration, which can name programs git runs"},
	{name: "git config unset abbreviated", line: "git config --unset-a core.pager", tier: H, allowed: true, an: true, reason: "--unset-a is read as --unset-all"},
	{name: "git config edit", line: "git config -e", tier: H, allowed: true, an: true, reason: "opens an editor"},
	{name: "git rev-list count", line: "git rev-list --count HEAD", tier: L, allowed: true, an: true},
	{name: "git cat-file pretty", line: "git cat-file -p HEAD:a.go", tier: L, allowed: true, an: true},
	{name: "git cat-file textconv", line: "git cat-file --textconv HEAD:a.go", tier: H, allowed: true, an: true, reason: "textconv"},
	{name: "git grep", line: "git grep -n -e TODO -- '*.go'", tier: L, allowed: true, an: true},
	{name: "git grep pager", line: "git grep -O foo", tier: H, allowed: true, an: true, reason: "runs a pager program"},
	{name: "git grep pager abbreviated", line: "git grep --open=vi foo", tier: H, allowed: true, an: true, reason: "--open is read as --open-files-in-pager"},
	{name: "git -C keeps working", line: "git -C sub log -1", tier: L, allowed: true, an: true},
	{name: "git -c stays high", line: "git -c core.fsmonitor=x status", tier: H, allowed: true, an: true, reason: "sets configuration"},
	{name: "git config-env stays high", line: "git --config-env=core.pager=X log", tier: H, allowed: true, an: true},

	// talon never runs itself.
	{name: "talon by name", line: "talon tools list", allow: []string{"*"}, tier: H, an: true, reason: `"talon" runs talon itself`},
	{name: "talon by path", line: "./talon", allow: []string{"*"}, tier: H, an: true, reason: "runs talon itself"},
	{name: "talon in sh -c", line: "sh -c 'talon approvals approve x'", allow: []string{"*"}, tier: H, an: true, reason: "runs talon itself"},
	{name: "talon after a pipe", line: "echo y | talon approvals approve x", allow: []string{"*"}, tier: H, an: true, reason: "runs talon itself"},
}

// notLow in a vector's tier accepts medium or high.
const notLow tool.Tier = 0

// lowGrammars are every compiled table with the command line prefix that
// reaches it ("sort", "git log", "git stash push").
func lowGrammars() []*grammar {
	var out []*grammar
	for _, g := range grammars {
		out = append(out, g)
	}
	out = append(out, sedGrammar)
	var walk func(map[string]gitCmd)
	walk = func(cmds map[string]gitCmd) {
		for _, c := range cmds {
			if c.g != nil {
				out = append(out, c.g)
			}
			walk(c.subs)
		}
	}
	walk(gitCmds)
	sort.Slice(out, func(i, j int) bool { return out[i].cmd < out[j].cmd })
	return out
}

// candidates returns the distinct options whose long spellings start with
// prefix, the way getopt_long looks: an exact spelling alone when there is
// one.
func candidates(g *grammar, prefix string) []*option {
	var out []*option
	for _, sp := range g.long {
		if sp.name == prefix {
			return []*option{sp.opt}
		}
		if strings.HasPrefix(sp.name, prefix) && !slices.Contains(out, sp.opt) {
			out = append(out, sp.opt)
		}
	}
	return out
}

// abbreviationVectors are generated from the tables: for every option
// with an effect, each long spelling and each of its prefixes. A prefix
// that selects only that option is classified like the option written in
// full, with a reason naming it; an ambiguous one is never low.
func abbreviationVectors(t testing.TB, a *Analyzer) []vector {
	var out []vector
	for _, g := range lowGrammars() {
		if g.raw {
			continue
		}
		for _, o := range g.opts {
			if o.effect == reads {
				continue
			}
			for _, name := range o.names {
				if !strings.HasPrefix(name, "--") {
					continue
				}
				sp := findSpelling(g, name[2:])
				value := ""
				if sp.arg == argRequired {
					value = "=v"
				}
				full := a.Analyze(g.cmd + " " + name + value)
				if !full.Analysable {
					t.Fatalf("%s %s%s is not analysable: %q", g.cmd, name, value, full.Reasons)
				}
				for k := 1; k <= len(sp.name); k++ {
					prefix := sp.name[:k]
					line := g.cmd + " --" + prefix + value
					cands := candidates(g, prefix)
					v := vector{name: "abbreviation " + line, line: line, allowed: full.Allowed, an: true}
					switch {
					case len(cands) == 1 && cands[0] == o:
						v.tier = full.Tier
						v.reason = "--" + sp.name
					case len(cands) > 1 && g.lenient:
						// A lenient table reads an ambiguous prefix as its
						// most dangerous candidate.
						v.tier = notLow
					case len(cands) > 1:
						v.tier, v.reason = H, "ambiguous"
					default:
						continue // the prefix is exactly another option
					}
					out = append(out, v)
				}
			}
		}
	}
	return out
}

func findSpelling(g *grammar, name string) *spelling {
	for _, sp := range g.long {
		if sp.name == name {
			return sp
		}
	}
	panic("no spelling " + name)
}

func runVector(t *testing.T, a *Analyzer, v vector) {
	t.Helper()
	got := a.Analyze(v.line)
	reasons := strings.Join(got.Reasons, "\n")
	switch {
	case v.tier == notLow:
		if got.Tier == tool.Low {
			t.Errorf("Analyze(%q) is low, want medium or high\n%s", v.line, reasons)
		}
	case got.Tier != v.tier || got.Allowed != v.allowed || got.Analysable != v.an:
		t.Errorf("Analyze(%q) = tier %v allowed %v analysable %v, want %v %v %v\nreasons:\n%s",
			v.line, got.Tier, got.Allowed, got.Analysable, v.tier, v.allowed, v.an, reasons)
	}
	if v.reason != "" && !strings.Contains(reasons, v.reason) {
		t.Errorf("Analyze(%q) reasons lack %q:\n%s", v.line, v.reason, reasons)
	}
	if v.prog != "" && got.Program.String() != v.prog {
		t.Errorf("Analyze(%q).Program = %q, want %q", v.line, got.Program.String(), v.prog)
	}
	if got.Program != nil {
		again := a.Analyze(got.Program.String())
		if !reflect.DeepEqual(again.Program, got.Program) || again.Tier != got.Tier {
			t.Errorf("re-analysing %q gave a different verdict", got.Program.String())
		}
	}
}

func TestGrammarVectors(t *testing.T) {
	env := newTestEnv(t)
	def := env.analyzer(t, nil)
	all := append(slices.Clone(grammarVectors), abbreviationVectors(t, def)...)
	if len(all) < 150 {
		t.Fatalf("only %d vectors", len(all))
	}
	seen := map[string]bool{}
	for _, v := range all {
		if seen[v.name] {
			continue // a spelling shared by two options' prefixes
		}
		seen[v.name] = true
		t.Run(v.name, func(t *testing.T) {
			a := def
			if v.allow != nil {
				a = env.analyzer(t, v.allow)
			}
			runVector(t, a, v)
		})
	}
}

// TestAbbreviationsOfDangerousOptions spells out the generated cases of
// the options the containment review abused.
func TestAbbreviationsOfDangerousOptions(t *testing.T) {
	env := newTestEnv(t)
	vs := abbreviationVectors(t, env.analyzer(t, nil))
	for _, want := range []string{"sort --com=v", "sort --o=v", "sort --outp=v", "date --se=v", "date --s=v",
		"hostname --fi=v", "hostname --b", "sed --i", "git log --outp=v", "git reset --ha", "git rebase --e=v"} {
		if !slices.ContainsFunc(vs, func(v vector) bool { return v.line == want }) {
			t.Errorf("no generated vector %q", want)
		}
	}
}

func TestGrammarParse(t *testing.T) {
	g := spec{cmd: "t", complete: true, opts: `a b=|bee= c=? long-one long-two= exact ex=?!w x|exec!r`}.compile()
	tests := []struct {
		name     string
		args     []string
		uses     string // "as=value" separated by spaces
		operands string
		bad      string
	}{
		{name: "cluster", args: []string{"-ab", "v"}, uses: "-a= -b=v"},
		{name: "attached short value", args: []string{"-bv"}, uses: "-b=v"},
		{name: "optional short value", args: []string{"-cv", "op"}, uses: "-c=v", operands: "op"},
		{name: "optional short value absent", args: []string{"-c", "op"}, uses: "-c=", operands: "op"},
		{name: "long value separate", args: []string{"--bee", "v"}, uses: "--bee=v"},
		{name: "long abbreviated", args: []string{"--long-t=v"}, uses: "--long-t=v"},
		{name: "exact beats prefix", args: []string{"--ex=1"}, uses: "--ex=1"},
		{name: "prefix of two", args: []string{"--ex"}, uses: "--ex="},
		{name: "ambiguous", args: []string{"--long"}, bad: `"--long" is ambiguous for t: it could be --long-one or --long-two`},
		{name: "double dash", args: []string{"-a", "--", "-b", "--bee"}, uses: "-a=", operands: "-b --bee"},
		{name: "permutation", args: []string{"op", "-a"}, uses: "-a=", operands: "op"},
		{name: "lone dash is an operand", args: []string{"-"}, operands: "-"},
		{name: "unknown short", args: []string{"-az"}, bad: `"-z" (in "-az") is not an option talon knows for t`},
		{name: "missing value", args: []string{"-b"}, bad: `"-b" of t needs a value`},
		{name: "value on a flag", args: []string{"--exact=1"}, bad: "--exact of t takes no value"},
		{name: "empty long name", args: []string{"--=x"}, bad: "not an option talon knows"},
		{name: "non-ASCII short", args: []string{"-é"}, bad: "not an option talon knows"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := g.parse(tt.args)
			var uses []string
			for _, u := range p.uses {
				uses = append(uses, u.as+"="+u.value)
			}
			if p.bad != "" || tt.bad != "" {
				if !strings.Contains(p.bad, tt.bad) || tt.bad == "" {
					t.Fatalf("parse(%q).bad = %q, want %q", tt.args, p.bad, tt.bad)
				}
				return
			}
			if strings.Join(uses, " ") != tt.uses || strings.Join(p.operands, " ") != tt.operands {
				t.Fatalf("parse(%q) = uses %q operands %q, want %q %q", tt.args, uses, p.operands, tt.uses, tt.operands)
			}
		})
	}
}

// TestTables checks the tables against themselves: every low command has
// one, and every option with an effect says why.
func TestTables(t *testing.T) {
	for _, g := range lowGrammars() {
		for _, o := range g.opts {
			if o.effect != reads && o.reason() == "" {
				t.Errorf("%s %s has an effect without a reason", g.cmd, o.names[0])
			}
		}
		if !sort.SliceIsSorted(g.long, func(i, j int) bool { return g.long[i].name < g.long[j].name }) {
			t.Errorf("%s: long options are not sorted", g.cmd)
		}
	}
	for name := range highRisk {
		if grammars[name] != nil {
			t.Errorf("%s is both high risk and in a table", name)
		}
	}
	for name := range localState {
		if grammars[name] != nil {
			t.Errorf("%s is both medium risk and in a table", name)
		}
	}
	for name := range DefaultSafeBins() {
		if grammars[name] == nil {
			t.Errorf("safe bin %s has no table", name)
		}
	}
}

func TestInertVar(t *testing.T) {
	for _, tt := range []struct {
		name string
		want bool
	}{
		{"LANG", true}, {"LANGUAGE", true}, {"LC_ALL", true}, {"LC_MESSAGES", true}, {"TZ", true},
		{"NO_COLOR", true}, {"TERM", true}, {"COLUMNS", true}, {"LINES", true}, {"CLICOLOR_FORCE", true},
		{"LC_", false}, {"LC_A-B", false}, {"LANGX", false}, {"PATH", false}, {"HOME", false},
		{"TMPDIR", false}, {"PAGER", false}, {"EDITOR", false}, {"GIT_DIR", false}, {"GIT_CONFIG_COUNT", false},
		{"LD_PRELOAD", false}, {"", false}, {"tz", false},
	} {
		if got := InertVar(tt.name); got != tt.want {
			t.Errorf("InertVar(%q) = %v, want %v", tt.name, got, tt.want)
		}
	}
	list := InertVars()
	list[0] = "PATH"
	if InertVar("PATH") {
		t.Fatal("InertVars returned the list itself")
	}
}

// TestSelf refuses a command whose binary is talon's own executable under
// another name, and leaves other binaries alone.
func TestSelf(t *testing.T) {
	env := newTestEnv(t)
	self := filepath.Join(env.root, "talon-build")
	writeExec(t, self)
	must(t, os.Link(self, filepath.Join(env.bin, "helper")))
	must(t, os.Symlink(self, filepath.Join(env.work, "tl")))
	a, err := New(Options{AllowedCommands: []string{"*"}, PATH: env.bin, Dir: env.work, Home: env.home, Self: []string{self}})
	must(t, err)
	for _, tt := range []struct {
		line string
		self bool
	}{
		{line: "helper approvals approve x", self: true},
		{line: self + " approvals list", self: true},
		{line: "./tl tools list", self: true},
		{line: "timeout 5 helper x", self: true},
		{line: "rg x"},
	} {
		got := a.Analyze(tt.line)
		isSelf := strings.Contains(strings.Join(got.Reasons, "\n"), "runs talon itself")
		if isSelf != tt.self || tt.self && (got.Allowed || got.Tier != tool.High) {
			t.Errorf("Analyze(%q) = %v allowed=%v %q, want self=%v", tt.line, got.Tier, got.Allowed, got.Reasons, tt.self)
		}
	}
	def, err := New(Options{PATH: env.bin, Dir: env.work})
	must(t, err)
	if len(def.self) != 1 {
		t.Fatalf("a nil Self should name the running executable, got %d files", len(def.self))
	}
	if exe, _ := os.Executable(); !os.SameFile(def.self[0], statOrNil(exe)) {
		t.Fatal("a nil Self is not the running executable")
	}
}

func statOrNil(p string) os.FileInfo {
	fi, _ := os.Stat(p)
	return fi
}
