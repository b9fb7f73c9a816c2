package cron

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkTickIdle is the scheduler's steady cost: one pass over a full
// database (100 jobs) with nothing due, as every second in talon serve.
func BenchmarkTickIdle(b *testing.B) {
	s := NewStore(filepath.Join(b.TempDir(), FileName), StoreOptions{})
	defer func() { _ = s.Close() }()
	for i := range MaxJobs {
		sc, _ := ParseSchedule("0 9 * * *")
		j := Job{Name: fmt.Sprintf("job%d", i), Schedule: sc.String(), Tool: "t", Args: []byte(`{}`), AllowedTools: []string{"t"},
			Profile: "default", Created: t0, Next: sc.First(t0)}
		if err := s.Add(context.Background(), j); err != nil {
			b.Fatal(err)
		}
	}
	sched := NewScheduler(SchedulerOptions{Store: s, Caller: &recorder{}, Now: func() time.Time { return t0 }})
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		sched.Tick(ctx)
	}
}
