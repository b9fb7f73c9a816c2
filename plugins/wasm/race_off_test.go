//go:build !race

package wasm

// raceEnabled is false: VmRSS is the process's real footprint.
const raceEnabled = false
