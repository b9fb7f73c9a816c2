// Package mcpbench measures talon serve against the smallest MCP servers
// of the two Go MCP libraries, mark3labs/mcp-go and the official go-sdk,
// each serving one echo tool, over streamable HTTP at several
// concurrencies and over stdio. It is a module of its own so that neither
// library's extra dependencies reach talon's go.mod; `go test ./...` at
// the root never builds it, `make bench` does.
//
// One load generator drives every server with the same raw JSON-RPC
// requests, so the client's cost is the same for all of them, and the
// servers take turns in every round (the order rotates) so that each sees
// the same machine. Each figure is the median over the rounds, with the
// lowest and highest beside it; a ratio is taken round by round, between
// runs that were measured one after the other.
//
// Measured per server: calls per second, the server process's CPU time
// per call (user + system, from /proc) and its peak resident set size
// (VmHWM), which the c=64 runs set.
package mcpbench
