// Package wasm is the wazero host for WASM tool plugins (ABI v1, see
// plugins/ABI.md).
package wasm
