// Package client turns configured MCP servers into tools of the catalog.
//
// Each [mcp.servers.<name>] table is a stdio command or a streamable HTTP
// URL. [Start] connects to every enabled server (each within its startup
// timeout), lists its tools and wraps them as [tool.Tool]s named
// <server>__<tool>, attributed mcp.<server>, with the server's own
// description and input schema and the configured tier (high unless set).
// A server that fails to start is reported in [Manager.Status] and
// skipped; it never stops the others. Calls are forwarded with
// cancellation; when a server crashes, the call fails and the next call
// starts it again.
//
// A stdio server's process gets an explicit environment: PATH and HOME
// from talon's, plus the table's env, never talon's whole environment.
//
//	m := client.Start(ctx, client.Options{Servers: cfg.MCP.Servers})
//	defer m.Close()
//	rt.ReloadWith(cfg, m.Tools())
package client
