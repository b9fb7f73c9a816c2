package cron_test

import (
	"fmt"
	"time"

	"github.com/talonhq/talon/adapters/cron"
)

func ExampleParseSchedule() {
	created := time.Date(2026, 3, 2, 10, 30, 0, 0, time.UTC)
	for _, s := range []string{"0 9 * * 1-5", "every 15m", "at 2026-03-03T18:00:00+09:00"} {
		sched, err := cron.ParseSchedule(s)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(sched, "->", sched.First(created).Format(time.RFC3339))
	}
	// Output:
	// 0 9 * * 1-5 -> 2026-03-03T09:00:00Z
	// every 15m0s -> 2026-03-02T10:45:00Z
	// at 2026-03-03T09:00:00Z -> 2026-03-03T09:00:00Z
}
