package cron

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/talonhq/talon/tool"
)

// gate is a Caller whose calls wait until the test opens the gate, so a
// run can be kept in flight while other runners look at the job.
type gate struct {
	mu      sync.Mutex
	calls   int
	started chan struct{} // receives once per call, when it starts
	open    chan struct{}
}

func newGate() *gate { return &gate{started: make(chan struct{}, 16), open: make(chan struct{})} }

func (g *gate) Call(ctx context.Context, _ tool.Call) (tool.Result, error) {
	g.mu.Lock()
	g.calls++
	g.mu.Unlock()
	g.started <- struct{}{}
	select {
	case <-g.open:
	case <-ctx.Done():
	}
	return tool.Text("ok"), nil
}

func (g *gate) count() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.calls
}

// runners returns n schedulers, each with its own connection to one cron
// database, as n talon serve processes on one data directory have.
func runners(t *testing.T, n int, c *clock, caller interface {
	Call(context.Context, tool.Call) (tool.Result, error)
}) (first *Store, scheds []*Scheduler) {
	t.Helper()
	path := filepath.Join(t.TempDir(), FileName)
	for i := range n {
		st := NewStore(path, StoreOptions{})
		t.Cleanup(func() { _ = st.Close() })
		if i == 0 {
			first = st
		}
		sc := NewScheduler(SchedulerOptions{Store: st, Caller: caller, Now: c.Now, Logger: zerolog.Nop(), RunTimeout: 5 * time.Minute})
		t.Cleanup(sc.Stop)
		scheds = append(scheds, sc)
	}
	return first, scheds
}

// tickAll has every runner look for due jobs at the same moment.
func tickAll(scheds []*Scheduler, c *clock, at time.Time) {
	c.Set(at)
	var wg sync.WaitGroup
	for _, sc := range scheds {
		wg.Go(func() { sc.Tick(context.Background()) })
	}
	wg.Wait()
}

func TestSeveralRunnersRunEachDueRunOnce(t *testing.T) {
	c := &clock{now: t0}
	caller := &recorder{}
	st, scheds := runners(t, 4, c, caller)
	addJob(t, st, "often", "every 1m", t0)
	for m := 1; m <= 10; m++ {
		tickAll(scheds, c, t0.Add(time.Duration(m)*time.Minute+time.Second))
		for _, sc := range scheds {
			sc.Wait()
		}
		if got := caller.count(); got != m {
			t.Fatalf("after the run due at minute %d: %d calls, want %d", m, got, m)
		}
	}
	rs := runsOf(t, st, "often")
	if len(rs) != 10 {
		t.Fatalf("%d runs recorded, want 10: %+v", len(rs), rs)
	}
	for _, r := range rs {
		if r.Outcome != OutcomeSuccess {
			t.Errorf("run %+v, want success", r)
		}
	}
}

// TestRunInFlightElsewhereIsNotStartedAgain: a run still going on in one
// runner keeps every other runner from starting the job, until the run
// ends or its lease expires (a runner that crashed mid-run).
func TestRunInFlightElsewhereIsNotStartedAgain(t *testing.T) {
	tests := []struct {
		name string
		// when the second runner looks again, after the first run began
		after   time.Duration
		release bool // the first run ends before the second look
		want    int  // calls in total
	}{
		{name: "still running", after: time.Minute, want: 1},
		{name: "finished", after: time.Minute, release: true, want: 2},
		{name: "lease expired", after: 10 * time.Minute, want: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &clock{now: t0}
			g := newGate()
			st, scheds := runners(t, 2, c, g)
			a, b := scheds[0], scheds[1]
			addJob(t, st, "often", "every 1m", t0)
			defer func() {
				select {
				case <-g.open:
				default:
					close(g.open)
				}
				a.Wait()
				b.Wait()
			}()

			start := t0.Add(time.Minute + time.Second)
			c.Set(start)
			a.Tick(context.Background())
			<-g.started
			if tt.release {
				close(g.open)
				a.Wait()
			}
			// The second runner sees the job due again at its next time,
			// (and past the lease when it expired), within the grace.
			due := t0.Add(time.Minute + tt.after)
			if err := setNext(st, "often", due); err != nil {
				t.Fatal(err)
			}
			c.Set(due.Add(time.Second))
			b.Tick(context.Background())
			if tt.want == 1 {
				// A skip is recorded before Tick returns.
				rs := runsOf(t, st, "often")
				if len(rs) != 1 || rs[0].Outcome != OutcomeSkipped || !strings.Contains(rs[0].Error, "still running") {
					t.Fatalf("runs = %+v, want one skipped run naming the run still going on", rs)
				}
			} else {
				<-g.started
			}
			select {
			case <-g.open:
			default:
				close(g.open)
			}
			a.Wait()
			b.Wait()
			if got := g.count(); got != tt.want {
				t.Fatalf("%d calls, want %d", got, tt.want)
			}
		})
	}
}

// setNext moves a job's next time, as its schedule would have.
func setNext(st *Store, name string, next time.Time) error {
	db, err := st.handle(context.Background())
	if err != nil {
		return err
	}
	_, err = db.Exec(`UPDATE jobs SET next_run = ? WHERE name = ?`, ms(next), name)
	return err
}
