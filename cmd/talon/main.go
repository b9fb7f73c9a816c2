// Command talon hosts the tools an AI agent calls.
package main

import (
	"os"

	"github.com/talonhq/talon/cli"

	_ "github.com/talonhq/talon/adapters/standard"
	_ "github.com/talonhq/talon/plugins/standard"
)

func main() { os.Exit(cli.Main(os.Args[1:], cli.System())) }
