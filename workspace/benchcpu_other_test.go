//go:build !linux

package workspace_test

import "time"

// threadCPU is unknown here: BenchmarkInterleaved reports wall time only.
func threadCPU() time.Duration { return 0 }
