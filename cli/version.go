package cli

import (
	"fmt"
	goruntime "runtime"

	"github.com/spf13/cobra"

	"github.com/talonhq/talon/toolfactory"
)

// version is stamped by release builds with -ldflags "-X github.com/talonhq/talon/cli.version=v1.2.3".
var version = "dev"

func newVersionCmd(e *env) *cobra.Command {
	var features bool
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print talon's version (and with --features, what this binary contains)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "talon %s (%s, %s/%s)\n", version, goruntime.Version(), goruntime.GOOS, goruntime.GOARCH)
			if !features {
				return nil
			}
			for _, f := range toolfactory.Features() {
				tag := f.Tag
				if tag == "" {
					tag = "(always)"
				}
				fmt.Fprintf(out, "feature %s %s: %v\n", f.Name, tag, f.Tools)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&features, "features", false, "list the build features and tools compiled in")
	return cmd
}
