// Package start measures talon as a process: how long `talon --help` and
// `talon tools list` take against a Go program that does nothing, and how
// large the binary is for each build feature. It holds only benchmarks;
// `make bench` runs them.
package start
