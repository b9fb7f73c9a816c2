//go:build race

package wasm

// raceEnabled: the race detector keeps shadow memory for every heap byte
// the process ever used and never returns it, so VmRSS cannot show memory
// going back; tests compare the Go runtime's own accounting instead.
const raceEnabled = true
