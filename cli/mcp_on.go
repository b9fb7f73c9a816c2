//go:build !talon_no_mcp

package cli

// mcpCompiledIn reports whether this binary has the mcp feature: talon
// serve, the MCP client for [mcp.servers], and talon approvals.
const mcpCompiledIn = true
