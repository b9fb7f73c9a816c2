package shellparse

import (
	"strings"
	"sync"
)

// The option tables of the low-tier commands, one per command, as their
// GNU implementations (coreutils 9.1, grep 3.8, diffutils 3.8, sed 4.9,
// file 5.44, Debian's hostname and which) accept them. A table marked
// complete lists every long option of the program, hidden ones included,
// so abbreviations are read exactly as getopt_long reads them. Options
// that only change what is read or printed have no effect mark; the
// others say what they do, so the reason can.
var commandSpecs = []spec{
	{cmd: "ls", complete: true, opts: `
		a|all A|almost-all author b|escape block-size= B|ignore-backups c C color=? d|directory
		D|dired f F|classify=? file-type format= full-time g group-directories-first G|no-group
		h|human-readable si H|dereference-command-line dereference-command-line-symlink-to-dir
		hide= hyperlink=? indicator-style= i|inode I=|ignore= k|kibibytes l L|dereference m
		n|numeric-uid-gid N|literal o p q|hide-control-chars show-control-chars Q|quote-name
		quoting-style= r|reverse R|recursive s|size S sort= time= time-style= t T=|tabsize= u U v
		w=|width= x X Z|context zero 1 help version`},
	{cmd: "cat", complete: true, opts: `
		A|show-all b|number-nonblank e E|show-ends n|number s|squeeze-blank t T|show-tabs u
		v|show-nonprinting help version`},
	{cmd: "grep", complete: true, numeric: true, opts: grepOpts},
	{cmd: "egrep", complete: true, numeric: true, opts: grepOpts},
	{cmd: "fgrep", complete: true, numeric: true, opts: grepOpts},
	{cmd: "head", complete: true, numeric: true, opts: `
		c=|bytes= n=|lines= q|quiet|silent v|verbose z|zero-terminated help version`},
	{cmd: "tail", complete: true, numeric: true, opts: `
		c=|bytes= f follow=? F n=|lines= max-unchanged-stats= pid= q|quiet|silent retry
		s=|sleep-interval= v|verbose z|zero-terminated help version`},
	{cmd: "wc", complete: true, opts: `
		c|bytes m|chars l|lines w|words L|max-line-length files0-from= debug help version`},
	{cmd: "pwd", complete: true, maxOperands: -1, opts: `L|logical P|physical help version`},
	{cmd: "df", complete: true, opts: `
		a|all B=|block-size= h|human-readable H|si i|inodes k l|local no-sync output=? P|portability
		sync total t=|type= T|print-type x=|exclude-type= v help version`},
	{cmd: "du", complete: true, opts: `
		0|null a|all apparent-size B=|block-size= b|bytes c|total D|dereference-args d=|max-depth=
		files0-from= H h|human-readable inodes k L|dereference l|count-links m P|no-dereference
		S|separate-dirs si s|summarize t=|threshold= time=? time-style= X=|exclude-from= exclude=
		x|one-file-system help version`},
	{cmd: "uname", complete: true, maxOperands: -1, opts: `
		a|all s|kernel-name|sysname n|nodename r|kernel-release|release v|kernel-version m|machine
		p|processor i|hardware-platform o|operating-system help version`},
	{cmd: "uptime", complete: true, maxOperands: -1, opts: `p|pretty h|help s|since V|version`},
	{cmd: "cut", complete: true, opts: `
		b=|bytes= c=|characters= d=|delimiter= f=|fields= n complement s|only-delimited
		output-delimiter= z|zero-terminated help version`},
	{cmd: "tr", complete: true, maxOperands: 2, opts: `
		c|C|complement d|delete s|squeeze-repeats t|truncate-set1 help version`},
	{cmd: "diff", complete: true, numeric: true, opts: `
		normal q|brief s|report-identical-files c C= context=? u U= unified=? e|ed f|forward-ed n|rcs
		y|side-by-side W=|width= left-column suppress-common-lines p|show-c-function
		F=|show-function-line= L=|label= t|expand-tabs T|initial-tab tabsize= suppress-blank-empty
		l|paginate!r r|recursive no-dereference N|new-file P|unidirectional-new-file
		ignore-file-name-case no-ignore-file-name-case x=|exclude= X=|exclude-from= S=|starting-file=
		from-file= to-file= i|ignore-case E|ignore-tab-expansion Z|ignore-trailing-space
		b|ignore-space-change w|ignore-all-space B|ignore-blank-lines I=|ignore-matching-lines= a|text
		binary strip-trailing-cr D=|ifdef= old-group-format= new-group-format= changed-group-format=
		unchanged-group-format= line-format= old-line-format= new-line-format= unchanged-line-format=
		d|minimal horizon-lines= H|speed-large-files color=? palette= inhibit-hunk-merge
		sdiff-merge-assist h help v|version`,
		why: map[string]string{"l": "runs the pr program on its output"}},
	{cmd: "stat", complete: true, opts: `
		L|dereference f|file-system cached= c=|format= printf= t|terse help version`},
	{cmd: "file", complete: true, opts: `
		help v|version m=|magic-file= z|uncompress Z|uncompress-noreport b|brief c|checking-printout
		e=|exclude= exclude-quiet= f=|files-from= F=|separator= i|mime apple extension mime-type
		mime-encoding k|keep-going l|list L|dereference h|no-dereference n|no-buffer N|no-pad
		0|print0 p|preserve-date P=|parameter= r|raw s|special-files S|no-sandbox!x C|compile!w d|debug`,
		why: map[string]string{"S": "turns off file's own sandbox", "C": "writes a compiled magic file"}},
	{cmd: "which", opts: `a s`},
	{cmd: "basename", complete: true, opts: `a|multiple s=|suffix= z|zero help version`},
	{cmd: "dirname", complete: true, opts: `z|zero help version`},
	{cmd: "realpath", complete: true, opts: `
		e|canonicalize-existing m|canonicalize-missing L|logical P|physical q|quiet relative-to=
		relative-base= s|strip|no-symlinks z|zero help version`},
	{cmd: "readlink", complete: true, opts: `
		f|canonicalize e|canonicalize-existing m|canonicalize-missing n|no-newline q|quiet s|silent
		v|verbose z|zero help version`},
	{cmd: "whoami", complete: true, maxOperands: -1, opts: `help version`},
	{cmd: "id", complete: true, opts: `a Z|context g|group G|groups n|name r|real u|user z|zero help version`},
	{cmd: "nproc", complete: true, maxOperands: -1, opts: `all ignore= help version`},
	{cmd: "seq", complete: true, negative: true, maxOperands: 3, opts: `
		f=|format= s=|separator= w|equal-width help version`},
	{cmd: "printenv", complete: true, opts: `0|null help version`},
	{cmd: "sha256sum", complete: true, opts: digestOpts},
	{cmd: "sha1sum", complete: true, opts: digestOpts},
	{cmd: "md5sum", complete: true, opts: digestOpts},
	{cmd: "cksum", complete: true, opts: `
		a=|algorithm= c|check l=|length= tag untagged z|zero ignore-missing quiet status strict
		w|warn debug help version`},
	{cmd: "cmp", complete: true, maxOperands: 4, opts: `
		b|print-bytes|print-chars i=|ignore-initial= l|verbose n=|bytes= s|quiet|silent v|version help`},
	{cmd: "comm", complete: true, maxOperands: 2, opts: `
		1 2 3 check-order nocheck-order output-delimiter= total z|zero-terminated help version`},
	{cmd: "nl", complete: true, opts: `
		b=|body-numbering= d=|section-delimiter= f=|footer-numbering= h=|header-numbering=
		i=|line-increment= l=|join-blank-lines= n=|number-format= p|no-renumber
		s=|number-separator= v=|starting-line-number= w=|number-width= help version`},
	{cmd: "rev", complete: true, opts: `h|help V|version`},
	{cmd: "sort", complete: true, opts: `
		b|ignore-leading-blanks d|dictionary-order f|ignore-case g|general-numeric-sort
		i|ignore-nonprinting M|month-sort h|human-numeric-sort n|numeric-sort R|random-sort
		random-source= r|reverse sort= V|version-sort batch-size= c|check=? C k=|key= m|merge
		o=|output=!w s|stable S=|buffer-size= t=|field-separator= T=|temporary-directory=!w
		u|unique z|zero-terminated parallel= debug files0-from= compress-program=!r help version`,
		why: map[string]string{"T": "writes temporary files in a directory it names"}},
	{cmd: "uniq", complete: true, maxOperands: 2, operands: uniqOperands, opts: `
		c|count d|repeated D|all-repeated=? group=? f=|skip-fields= i|ignore-case s=|skip-chars=
		u|unique w=|check-chars= z|zero-terminated help version`},
	{cmd: "date", complete: true, maxOperands: 1, operands: dateOperands, opts: `
		d=|date= debug f=|file= I=?|iso-8601=? r=|reference= R|rfc-email|rfc-822|rfc-2822
		rfc-3339= resolution s=|set=!s u|utc|uct|universal help version`,
		why: map[string]string{"s": "sets the system clock"}},
	{cmd: "hostname", complete: true, operands: hostnameOperands, opts: `
		a|alias A|all-fqdns b|boot!s d|domain f|fqdn|long F=|file=!s i|ip-address
		I|all-ip-addresses s|short y|yp|nis h|help V|version v|verbose`,
		why: map[string]string{"b": "sets the host name", "F": "sets the host name from a file"}},
	{cmd: "echo", raw: true},
	{cmd: "printf", raw: true},
	{cmd: "test", raw: true},
	{cmd: "[", raw: true},
	{cmd: "true", raw: true},
	{cmd: "false", raw: true},
}

const grepOpts = `
	E|extended-regexp F|fixed-strings|fixed-regexp G|basic-regexp P|perl-regexp e=|regexp= f=|file=
	i|y|ignore-case no-ignore-case w|word-regexp x|line-regexp z|null-data s|no-messages
	v|invert-match V|version help m=|max-count= b|byte-offset n|line-number line-buffered
	H|with-filename h|no-filename label= o|only-matching q|quiet|silent binary-files= a|text I
	d=|directories= D=|devices= r|recursive R|dereference-recursive include= exclude= exclude-from=
	exclude-dir= L|files-without-match l|files-with-matches c|count T|initial-tab Z|null
	B=|before-context= A=|after-context= C=|context= group-separator= no-group-separator
	color=? colour=? U|binary u|unix-byte-offsets`

const digestOpts = `
	b|binary c|check tag t|text z|zero ignore-missing quiet status strict w|warn help version`

// uniqOperands: uniq [INPUT [OUTPUT]]; the second operand is a file it
// writes.
func uniqOperands(ops []string) (effect, string, string) {
	if len(ops) >= 2 {
		return writes, ops[1], "writes a file: the second operand of uniq is its output"
	}
	return reads, "", ""
}

// dateOperands: +FORMAT prints; any other operand sets the clock.
func dateOperands(ops []string) (effect, string, string) {
	for _, op := range ops {
		if !strings.HasPrefix(op, "+") {
			return system, op, "sets the system clock"
		}
	}
	return reads, "", ""
}

// hostnameOperands: any operand is a new host name.
func hostnameOperands(ops []string) (effect, string, string) {
	if len(ops) > 0 {
		return system, ops[0], "sets the host name"
	}
	return reads, "", ""
}

// grammars are the compiled tables, by command name. loadTables fills
// them, and gitCmds, on first use: a process that analyses no line (talon
// --help, tools list) never compiles them.
var grammars = map[string]*grammar{}

var tablesOnce sync.Once

// loadTables compiles the command and git tables, once.
func loadTables() { tablesOnce.Do(func() { compileCommandTables(); compileGitTables() }) }

func compileCommandTables() {
	for _, s := range commandSpecs {
		if grammars[s.cmd] != nil {
			panic("shellparse: two tables for " + s.cmd)
		}
		s.lean = true
		grammars[s.cmd] = s.compile()
	}
}
