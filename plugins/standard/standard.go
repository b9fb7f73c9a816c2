// Package standard compiles talon's plugin hosts in. Each host registers
// itself from init; a file per host is guarded by the build tag that leaves
// that host out.
package standard
