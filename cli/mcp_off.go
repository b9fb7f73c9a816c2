//go:build talon_no_mcp

package cli

import (
	"errors"

	"github.com/spf13/cobra"
)

// mcpCompiledIn reports whether this binary has the mcp feature: talon
// serve, the MCP client for [mcp.servers], and talon approvals.
const mcpCompiledIn = false

// errNoMCP is what the MCP commands say in a build without the feature.
var errNoMCP = errors.New("this talon was built without the mcp feature: build it without -tags talon_no_mcp, as in `go build ./cmd/talon` or `go run ./xtask release build`")

// newServeCmd keeps `talon serve` in the command tree so that asking for
// it explains what is missing instead of reporting an unknown command.
func newServeCmd(*env) *cobra.Command {
	return &cobra.Command{
		Use:                "serve",
		Short:              "Serve the catalog over MCP (not in this build: it lacks the mcp feature)",
		DisableFlagParsing: true,
		RunE: func(*cobra.Command, []string) error {
			return withCode(ExitUsage, errNoMCP)
		},
	}
}

// newApprovalsCmd answers approvals that only talon serve asks for.
func newApprovalsCmd(*env) *cobra.Command {
	return &cobra.Command{
		Use:                "approvals",
		Short:              "Answer talon serve's approvals (not in this build: it lacks the mcp feature)",
		DisableFlagParsing: true,
		RunE: func(*cobra.Command, []string) error {
			return withCode(ExitUsage, errNoMCP)
		},
	}
}
