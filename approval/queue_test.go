package approval

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/talonhq/talon/tool"
)

// waitPending polls q until n requests wait.
func waitPending(t *testing.T, q *Queue, n int) []Pending {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if l := q.List(); len(l) == n {
			return l
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatalf("queue never held %d requests (has %d)", n, len(q.List()))
	return nil
}

func TestQueueDecide(t *testing.T) {
	tests := []struct {
		name string
		ans  Answer
	}{
		{name: "yes", ans: Yes},
		{name: "no", ans: No},
		{name: "always", ans: Always},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := NewQueue(QueueOptions{})
			type result struct {
				ans Answer
				err error
			}
			done := make(chan result, 1)
			go func() {
				a, err := q.Approve(context.Background(), Request{Tool: "file_write", Tier: tool.Medium})
				done <- result{a, err}
			}()
			p := waitPending(t, q, 1)[0]
			if p.Request.Tool != "file_write" || p.Since.IsZero() {
				t.Fatalf("pending = %+v", p)
			}
			if err := q.Decide(p.ID, tt.ans); err != nil {
				t.Fatal(err)
			}
			r := <-done
			if r.err != nil || r.ans != tt.ans {
				t.Fatalf("Approve = %s, %v; want %s", r.ans, r.err, tt.ans)
			}
			if len(q.List()) != 0 {
				t.Fatal("decided request still listed")
			}
			if err := q.Decide(p.ID, Yes); !errors.Is(err, ErrNotPending) {
				t.Fatalf("second Decide = %v, want ErrNotPending", err)
			}
		})
	}
}

func TestQueueFailsClosed(t *testing.T) {
	tests := []struct {
		name    string
		timeout time.Duration
		ctx     func() (context.Context, context.CancelFunc)
	}{
		{name: "queue timeout", timeout: 20 * time.Millisecond, ctx: func() (context.Context, context.CancelFunc) {
			return context.WithCancel(context.Background())
		}},
		{name: "context deadline", ctx: func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 20*time.Millisecond)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := NewQueue(QueueOptions{Timeout: tt.timeout})
			ctx, cancel := tt.ctx()
			defer cancel()
			ans, err := q.Approve(ctx, Request{Tool: "x"})
			if ans != No || !errors.Is(err, ErrNoApprover) {
				t.Fatalf("Approve = %s, %v; want no, ErrNoApprover", ans, err)
			}
			if len(q.List()) != 0 {
				t.Fatal("expired request still listed")
			}
		})
	}
}

func TestQueueIDs(t *testing.T) {
	q := NewQueue(QueueOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	const n = 50
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _ = q.Approve(ctx, Request{Tool: fmt.Sprint("t", i)})
		}()
	}
	list := waitPending(t, q, n)
	seen := map[string]bool{}
	re := regexp.MustCompile(`^[a-z2-7]{12}$`)
	for _, p := range list {
		if !re.MatchString(p.ID) {
			t.Errorf("id %q is not 12 base32 characters", p.ID)
		}
		if seen[p.ID] {
			t.Errorf("id %q drawn twice", p.ID)
		}
		seen[p.ID] = true
	}
	for i := 1; i < len(list); i++ {
		if list[i].Since.Before(list[i-1].Since) {
			t.Fatal("List is not oldest first")
		}
	}
	cancel()
	wg.Wait()
}

func TestQueueOnPendingAndCaseInsensitiveID(t *testing.T) {
	got := make(chan Pending, 1)
	q := NewQueue(QueueOptions{OnPending: func(p Pending) { got <- p }})
	done := make(chan Answer, 1)
	go func() {
		a, _ := q.Approve(context.Background(), Request{Tool: "shell"})
		done <- a
	}()
	p := <-got
	if err := q.Decide(" "+strings.ToUpper(p.ID)+" ", Yes); err != nil {
		t.Fatal(err)
	}
	if a := <-done; a != Yes {
		t.Fatalf("answer = %s", a)
	}
}

func ExampleQueue() {
	q := NewQueue(QueueOptions{Timeout: time.Minute})
	done := make(chan Answer)
	go func() {
		ans, _ := q.Approve(context.Background(), Request{Tool: "file_write", Tier: tool.Medium})
		done <- ans
	}()
	for len(q.List()) == 0 {
		time.Sleep(time.Millisecond)
	}
	p := q.List()[0]
	fmt.Println(p.Request.Tool, p.Request.Tier)
	_ = q.Decide(p.ID, Yes)
	fmt.Println(<-done)
	// Output:
	// file_write medium
	// yes
}

func TestQueueSubscribe(t *testing.T) {
	tests := []struct {
		name   string
		end    func(q *Queue, id string, cancel context.CancelFunc)
		opts   QueueOptions
		want   EventKind
		answer Answer
	}{
		{name: "decided", end: func(q *Queue, id string, _ context.CancelFunc) { _ = q.Decide(id, Always) }, want: Decided, answer: Always},
		{name: "caller gone", end: func(_ *Queue, _ string, cancel context.CancelFunc) { cancel() }, want: Withdrawn},
		{name: "timed out", end: func(*Queue, string, context.CancelFunc) {}, opts: QueueOptions{Timeout: 10 * time.Millisecond}, want: Withdrawn},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := NewQueue(tt.opts)
			events := make(chan Event, 4)
			stop := q.Subscribe(func(ev Event) { events <- ev })
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan struct{})
			go func() {
				defer close(done)
				_, _ = q.Approve(ctx, Request{Tool: "file_write"})
			}()
			added := <-events
			if added.Kind != Added || added.Pending.Request.Tool != "file_write" || added.Pending.ID == "" {
				t.Fatalf("first event %+v, want the request added", added)
			}
			tt.end(q, added.Pending.ID, cancel)
			ended := <-events
			if ended.Kind != tt.want || ended.Pending.ID != added.Pending.ID || ended.Answer != tt.answer {
				t.Fatalf("second event %+v, want kind %d answer %s for %s", ended, tt.want, tt.answer, added.Pending.ID)
			}
			<-done
			stop()
			go func() { _, _ = q.Approve(context.Background(), Request{Tool: "after"}) }()
			p := waitPending(t, q, 1)[0]
			_ = q.Decide(p.ID, No)
			select {
			case ev := <-events:
				t.Fatalf("event %+v after the subscription ended", ev)
			default:
			}
		})
	}
}
