//go:build unix

package shellparse_test

import (
	"fmt"

	"github.com/talonhq/talon/risk/shellparse"
)

func ExampleAnalyzer_Analyze() {
	a, err := shellparse.New(shellparse.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, line := range []string{"ls -la | wc -l", "echo $(id)"} {
		an := a.Analyze(line)
		fmt.Println(an.Tier, an.Analysable, an.Allowed, an.Reasons[0])
	}
	// Output:
	// low true true "ls" is low risk (read-only)
	// high false false command substitution $(...) cannot be analysed
}

func ExampleProgram_String() {
	a, err := shellparse.New(shellparse.Options{Home: "/home/me"})
	if err != nil {
		fmt.Println(err)
		return
	}
	an := a.Analyze(`env FOO=1 nohup sh -c "ls ~/src &>/dev/null"`)
	fmt.Println(an.Program)
	// Output:
	// FOO=1 ls /home/me/src >/dev/null 2>&1
}

func ExampleNew() {
	_, err := shellparse.New(shellparse.Options{AllowedCommands: []string{"git", "bin/rg"}})
	fmt.Println(err)
	// Output:
	// invalid allowed_commands pattern "bin/rg": a pattern with '/' matches resolved binaries and must be absolute; write the full path
}
