//go:build !unix

package extism

import "time"

// cpuTime is not measured on this platform; no cpu-ns/op is reported.
func cpuTime() time.Duration { return 0 }
