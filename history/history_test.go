package history

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

func TestBoundsAndOrder(t *testing.T) {
	l := New(Options{PerSession: 3, Sessions: 2})
	t0 := time.Unix(1000, 0)
	for i := 0; i < 5; i++ {
		l.Add(Record{Session: "a", Tool: fmt.Sprint("t", i), Time: t0.Add(time.Duration(i) * time.Second), Outcome: OutcomeSuccess})
	}
	h := l.History("a", 0)
	if len(h) != 3 || h[0].Tool != "t2" || h[2].Tool != "t4" {
		t.Fatalf("history %+v", h)
	}
	if h := l.History("a", 2); len(h) != 2 || h[1].Tool != "t4" {
		t.Fatalf("limited history %+v", h)
	}
	l.Add(Record{Session: "b", Time: t0.Add(10 * time.Second), Outcome: OutcomeDenied})
	l.Add(Record{Session: "c", Time: t0.Add(11 * time.Second), Outcome: OutcomeSuccess})
	s := l.Sessions()
	if len(s) != 2 || s[0].Session != "c" || s[1].Session != "b" || s[1].Failures != 1 {
		t.Fatalf("sessions %+v", s)
	}
	if l.History("a", 0) != nil {
		t.Fatal("the least recently active session was kept")
	}
	l.Add(Record{Tool: "no session"})
	if len(l.Sessions()) != 2 {
		t.Fatal("a call without a session was recorded")
	}
}

func TestConcurrent(t *testing.T) {
	l := New(Options{})
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 100; i++ {
				l.Add(Record{Session: fmt.Sprint("s", g), Time: time.Now(), Outcome: OutcomeSuccess})
				_ = l.Sessions()
				_ = l.History("s0", 5)
			}
		}()
	}
	wg.Wait()
	if n := len(l.Sessions()); n != 8 {
		t.Fatalf("%d sessions", n)
	}
}

func TestSubscribe(t *testing.T) {
	l := New(Options{})
	var got []string
	stop := l.Subscribe(func(r Record) { got = append(got, r.Session+"/"+r.Tool) })
	l.Add(Record{Session: "a", Tool: "file_read", Outcome: OutcomeSuccess})
	l.Add(Record{Tool: "no session"})
	l.Add(Record{Session: "b", Tool: "shell", Outcome: OutcomeDenied})
	stop()
	l.Add(Record{Session: "a", Tool: "after"})
	if want := []string{"a/file_read", "b/shell"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("subscriber saw %v, want %v", got, want)
	}
}
