package shellparse

import (
	"fmt"
	"strings"

	"github.com/talonhq/talon/tool"
)

// findPrimary is one word of a find expression: how many arguments it
// takes and what it does.
type findPrimary struct {
	args   int
	effect effect
	why    string
}

// findPrimaries is find's expression grammar (GNU findutils 4.9):
// operators, positional options, tests and actions. Primaries are matched
// exactly: find does not abbreviate them.
var findPrimaries = map[string]findPrimary{}

func init() {
	for _, group := range []struct {
		args  int
		names string
	}{
		{0, `( ) ! , -not -a -and -o -or
			-d -depth -mount -xdev -ignore_readdir_race -noignore_readdir_race -noleaf -warn -nowarn
			-follow -daystart
			-empty -executable -false -nogroup -nouser -readable -true -writable
			-print -print0 -ls -prune -quit`},
		{1, `-maxdepth -mindepth -regextype -files0-from
			-amin -anewer -atime -cmin -cnewer -ctime -fstype -gid -group -ilname -iname -inum -ipath
			-iregex -iwholename -links -lname -mmin -mtime -name -newer -path -perm -regex -samefile
			-size -type -uid -used -user -wholename -xtype -context -printf`},
	} {
		for _, n := range strings.Fields(group.names) {
			findPrimaries[n] = findPrimary{args: group.args}
		}
	}
	for _, x := range "aBcmt" {
		for _, y := range "aBcmt" {
			findPrimaries["-newer"+string(x)+string(y)] = findPrimary{args: 1}
		}
	}
	for n, p := range map[string]findPrimary{
		"-exec":    {effect: runs, why: whyRuns},
		"-execdir": {effect: runs, why: whyRuns},
		"-ok":      {effect: runs, why: whyRuns},
		"-okdir":   {effect: runs, why: whyRuns},
		"-delete":  {effect: destroys, why: whyDestructive},
		"-fprint":  {args: 1, effect: writes, why: whyWrites},
		"-fprint0": {args: 1, effect: writes, why: whyWrites},
		"-fls":     {args: 1, effect: writes, why: whyWrites},
		"-fprintf": {args: 2, effect: writes, why: whyWrites},
	} {
		findPrimaries[n] = p
	}
}

// classifyFind reads find [-H|-L|-P] [-D opts] [-Olevel] [starting
// point...] [expression]: low when every primary is known and none runs
// commands, deletes or writes files.
func classifyFind(argv []string) (tool.Tier, string) {
	i := 1
	for ; i < len(argv); i++ {
		a := argv[i]
		switch {
		case a == "-H" || a == "-L" || a == "-P":
		case a == "-D":
			i++
		case strings.HasPrefix(a, "-O") && len(a) > 2 && isDigits(a[2:]):
		case a == "--help" || a == "--version":
		default:
			goto points
		}
	}
points:
	// Starting points run up to the first word that starts an expression.
	for ; i < len(argv); i++ {
		a := argv[i]
		if strings.HasPrefix(a, "-") || a == "(" || a == "!" || a == ")" || a == "," {
			break
		}
	}
	for ; i < len(argv); i++ {
		a := argv[i]
		p, ok := findPrimaries[a]
		if !ok {
			if !strings.HasPrefix(a, "-") {
				return tool.High, fmt.Sprintf("%q is not understood: find takes its starting points before the expression", a)
			}
			return tool.High, fmt.Sprintf("%q is not an expression talon knows for find", a)
		}
		if p.effect != reads {
			return high("find "+a, p.why)
		}
		if i+p.args >= len(argv) {
			return tool.High, fmt.Sprintf("%q of find needs %d argument(s)", a, p.args)
		}
		i += p.args
	}
	return tool.Low, lowRisk("find")
}
