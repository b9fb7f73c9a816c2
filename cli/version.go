package cli

import (
	"fmt"
	"io"
	goruntime "runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/talonhq/talon/plugins"
	"github.com/talonhq/talon/toolfactory"
)

// Release builds stamp these with -ldflags "-X github.com/talonhq/talon/cli.version=v1.2.3
// -X github.com/talonhq/talon/cli.commit=<sha> -X github.com/talonhq/talon/cli.date=<RFC 3339>"
// (go run ./xtask release build does).
var (
	version = "dev"
	commit  = ""
	date    = ""
)

func newVersionCmd(e *env) *cobra.Command {
	var features bool
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print talon's version (and with --features, what this binary contains)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "talon %s (%s, %s/%s)\n", version, goruntime.Version(), goruntime.GOOS, goruntime.GOARCH)
			c, d := buildStamp()
			fmt.Fprintf(out, "commit %s, built %s\n", orUnknown(c), orUnknown(d))
			if features {
				printFeatures(out)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&features, "features", false, "list the build features and tags compiled in")
	return cmd
}

// buildStamp is the commit and date of this build: what a release build
// stamped, else what the Go toolchain recorded from the checkout it built
// (a commit with local changes ends in "+modified").
func buildStamp() (c, d string) {
	c, d = commit, date
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return c, d
	}
	modified := false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			if c == "" {
				c = s.Value
			}
		case "vcs.time":
			if d == "" {
				d = s.Value
			}
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if modified && commit == "" && c != "" {
		c += "+modified"
	}
	return c, d
}

// printFeatures lists the build tags the binary was built with and one line
// per feature it contains: the tool groups with their tools, the plugin
// hosts and mcp. A feature left out by a tag is listed as absent, so the
// list says what to rebuild with.
func printFeatures(out io.Writer) {
	tags := buildTags()
	if tags == "" {
		tags = "(none)"
	}
	fmt.Fprintf(out, "tags: %s\n", tags)
	for _, f := range toolfactory.Features() {
		tag := f.Tag
		if tag == "" {
			tag = "(always)"
		}
		fmt.Fprintf(out, "feature %s %s: %v\n", f.Name, tag, f.Tools)
	}
	hosts := map[string]bool{}
	for _, k := range plugins.Kinds() {
		hosts[string(k)] = true
	}
	for _, kind := range []string{"process", "wasm"} {
		present(out, "plugins-"+kind, "talon_no_plugins_"+kind, hosts[kind], kind+" plugin host")
	}
	present(out, "mcp", "talon_no_mcp", mcpCompiledIn, "talon serve, MCP client, talon approvals")
}

// present prints an opt-out feature: "feature NAME !OFFTAG: [what]" when it
// is compiled in, "absent feature NAME OFFTAG" when the tag left it out.
func present(out io.Writer, name, offTag string, in bool, what string) {
	if in {
		fmt.Fprintf(out, "feature %s !%s: [%s]\n", name, offTag, what)
		return
	}
	fmt.Fprintf(out, "absent feature %s %s\n", name, offTag)
}

// buildTags returns the -tags the binary was built with, as the Go
// toolchain recorded them.
func buildTags() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	for _, s := range info.Settings {
		if s.Key == "-tags" {
			return strings.TrimSpace(s.Value)
		}
	}
	return ""
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
