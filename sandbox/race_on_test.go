//go:build race

package sandbox

// raceEnabled: the children are this race-instrumented binary, slow to
// start, so the containment tests try one mechanism, not every one.
const raceEnabled = true
