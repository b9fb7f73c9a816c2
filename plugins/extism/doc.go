// Package extism hosts plugins of kind "extism": WebAssembly modules built
// with an Extism PDK (Rust, Go, JavaScript, AssemblyScript, C, Zig, ...),
// run on github.com/extism/go-sdk under talon's grants and limits. It
// registers itself from init; the loader in plugins calls [Host.Load] with
// a plugin whose manifest, digest, signature and consent were already
// checked.
//
// A module is either an MCP servlet, exporting describe (a ListToolsResult
// document) and call (a CallToolRequest in, a CallToolResult out), or a
// module whose plain exports plugin.toml's [[tools]] tables map to tools
// (arguments in, text out). Load compiles it once through the compilation
// cache under <DataDir>/cache/wasm, which the WASM host shares, checks its
// imports and exports, and takes a servlet's tools from the describe cache
// under <DataDir>/cache/extism-describe or, the first time, from describe
// under a deadline of its own.
//
// The Extism kernel stays the SDK's; talon answers the functions that
// reach outside the module: config_get reads only the config keys the
// operator granted (permissions.config_read), http_request goes through
// netguard to the granted allowed_hosts, log_* re-log with the plugin's
// attribution, and granted directories are mounted through
// workspace.Root. Each call runs in a pooled instance under the plugin's
// deadline, memory limit and output cap; any failure is a failed result
// naming the plugin.
//
//	h := extism.New(extism.Options{})
//	loaded, err := h.Load(ctx, plugin, plugins.Env{Workspace: ws, DataDir: data, Logger: log})
//	res, err := loaded.Tools()[0].Execute(ctx, json.RawMessage(`{"text":"abc"}`))
package extism
