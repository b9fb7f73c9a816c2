// Package process is the hashicorp/go-plugin host for subprocess tool
// plugins: plugin.toml with kind = "process" and entry naming a binary
// that serves the protocol of plugins/proto (plugins written with
// plugins/sdk do).
//
// It registers itself for [manifest.KindProcess] from init; the loader in
// package plugins calls [Host.Load] after it checked the manifest, the
// binary's hash, the signature and the operator's consent:
//
//	loaded, err := process.Host{}.Load(ctx, plugin, plugins.Env{Workspace: ws, DataDir: data, Logger: log})
//	// loaded.Tools() go into the catalog; loaded.Close(ctx) stops the process.
//
// Load asks the plugin to describe its tools once per manifest hash and
// caches the answer under <DataDir>/cache/process, so building a catalog
// does not start plugins. The process starts on the first call, through
// the sandbox spawner, with the workspace as its directory and an explicit
// environment (never talon's). The binary's SHA-256 is checked through
// go-plugin's SecureConfig immediately before every start; the connection
// is gRPC with automatic mutual TLS. An idle plugin is stopped after
// idle_timeout_ms; a plugin that crashed fails the call it was running
// and is started again on the next one. Each call has a deadline: when it
// passes or the caller cancels, the host sends Cancel and kills the
// process if the call does not stop within a grace period. At most
// max_instances calls run at once per plugin.
//
// # Notes
//
// No plugin outlives talon: on Linux the process is started with a
// parent-death signal (from one locked OS thread, since that signal is
// tied to the thread that started the child), and plugins built with the
// SDK also exit when the standard input pipe talon holds closes or their
// parent changes. Close stops the process gracefully.
package process
