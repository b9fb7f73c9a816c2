// Package extismbench measures the Extism Go SDK host against a bare
// wazero call of the same guest, so that talon's WASM host overhead can be
// compared with Extism's (see bench/REPORT.md). It is a module of its own:
// the Extism SDK never enters talon's go.mod, and nothing here imports
// talon.
//
// Run it from this directory:
//
//	go test -run '^$' -bench . -benchmem
package extismbench
