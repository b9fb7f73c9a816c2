package cron

import (
	"testing"
	"time"
)

// FuzzParseSchedule checks that no schedule text panics the parser, and
// that an accepted schedule re-parses to itself and moves forward.
func FuzzParseSchedule(f *testing.F) {
	for _, s := range []string{"0 9 * * 1-5", "@daily", "every 5m", "at 2026-01-01T00:00:00Z", "CRON_TZ=Asia/Tokyo 0 9 * * *", "*/0 * * * *", "every -1h"} {
		f.Add(s)
	}
	now := time.Date(2026, 3, 2, 10, 30, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, s string) {
		sc, err := ParseSchedule(s)
		if err != nil {
			return
		}
		again, err := ParseSchedule(sc.String())
		if err != nil || again.String() != sc.String() {
			t.Fatalf("%q canonicalizes to %q, which re-parses to %q, %v", s, sc, again, err)
		}
		if first := sc.First(now); !first.IsZero() {
			if next, _ := sc.After(first, first); !next.IsZero() && !next.After(first) {
				t.Fatalf("%q: next %s is not after %s", s, next, first)
			}
		}
	})
}
