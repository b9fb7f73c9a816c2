package fleet

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/talonhq/talon/approval"
	"github.com/talonhq/talon/tool"
)

// waiting is a call waiting in a queue for approval.
type waiting struct {
	answer chan approval.Answer
	err    chan error
}

func wait(q *approval.Queue, req approval.Request) *waiting {
	w := &waiting{answer: make(chan approval.Answer, 1), err: make(chan error, 1)}
	go func() {
		a, err := q.Approve(context.Background(), req)
		w.answer <- a
		w.err <- err
	}()
	return w
}

func shellRequest(line string) approval.Request {
	return approval.Request{Tool: "shell", Attribution: "builtin.shell", Tier: tool.High, Reasons: []string{"writes outside the workspace"},
		Plan: &tool.Plan{Summary: line, Commands: []tool.PlannedCommand{{Argv: strings.Fields(line), Binary: "/usr/bin/" + strings.Fields(line)[0]}}},
		Args: `{"command":"` + line + `"}`, Channel: tool.ChannelMCP, Profile: "default", SessionID: "s-1", Delegation: []string{"researcher"}}
}

// published waits until the inbox has written the request and returns
// its row.
func published(t *testing.T, db *DB, toolName string) Approval {
	t.Helper()
	var got Approval
	eventually(t, "the approval is published", func() (bool, error) {
		list, err := db.Pending(context.Background())
		for _, a := range list {
			if a.Tool == toolName {
				got = a
				return true, nil
			}
		}
		return false, err
	})
	return got
}

func inboxHost(t *testing.T, url string, timeout time.Duration) (*host, *approval.Queue) {
	t.Helper()
	h := newHost(t, url, Options{})
	q := approval.NewQueue(approval.QueueOptions{Timeout: timeout})
	h.fleet.Attach(q, timeout)
	h.fleet.Start()
	return h, q
}

func TestApprovalAnsweredFromAnotherMachine(t *testing.T) {
	db, url := migrated(t)
	ctx := testCtx(t)
	h, q := inboxHost(t, url, time.Minute)
	w := wait(q, shellRequest("rm -rf build"))
	a := published(t, db, "shell")
	if a.Host != h.fleet.Host() || a.Summary() != "rm -rf build" || a.Tier != "high" || len(a.Delegation) != 1 || a.Deadline.Sub(a.RequestedAt) != time.Minute {
		t.Fatalf("the row does not describe the request: %+v", a)
	}
	if st := h.fleet.Stats(); st.Pending != 1 {
		t.Errorf("Stats.Pending = %d", st.Pending)
	}
	out, err := db.Answer(ctx, strings.ToUpper(a.ID), approval.Always, Approver{User: "alice", Host: "desk-7"}, 30*time.Second)
	if err != nil || !out.Applied {
		t.Fatalf("Answer = %+v, %v", out, err)
	}
	if got := <-w.answer; got != approval.Always || <-w.err != nil {
		t.Fatalf("the waiting call got %v", got)
	}
	row, err := db.Approval(ctx, a.ID)
	if err != nil || row.State != "answered" || row.AnsweredBy != "alice" || row.AnsweredHost != "desk-7" || row.AnsweredVia != "fleet" || row.Applied == nil || !*row.Applied {
		t.Fatalf("the row after the answer: %+v, %v", row, err)
	}

	// A second answer is refused, naming the first.
	_, err = db.Answer(ctx, a.ID, approval.No, Approver{User: "mallory", Host: "elsewhere"}, time.Second)
	if !errors.Is(err, ErrAnswered) || !strings.Contains(err.Error(), "by alice on desk-7") {
		t.Fatalf("a second answer: %v", err)
	}
	if _, err := db.Answer(ctx, "nosuchid", approval.Yes, Approver{User: "alice"}, time.Second); !errors.Is(err, ErrNoApproval) {
		t.Errorf("an unknown id: %v", err)
	}
}

func TestApprovalAnswersThatDoNotCount(t *testing.T) {
	db, url := migrated(t)
	ctx := testCtx(t)
	bob := Approver{User: "bob", Host: "desk-9"}

	t.Run("answered here first", func(t *testing.T) {
		_, q := inboxHost(t, url, time.Minute)
		w := wait(q, shellRequest("make clean"))
		a := published(t, db, "shell")
		if err := q.Decide(a.ID, approval.No); err != nil {
			t.Fatal(err)
		}
		if got := <-w.answer; got != approval.No {
			t.Fatalf("the call got %v", got)
		}
		eventually(t, "the local answer is recorded", func() (bool, error) {
			row, err := db.Approval(ctx, a.ID)
			return row.State == "answered" && row.AnsweredVia == "local", err
		})
		if _, err := db.Answer(ctx, a.ID, approval.Yes, bob, time.Second); !errors.Is(err, ErrAnswered) {
			t.Fatalf("an answer after the local one: %v", err)
		}
	})

	t.Run("timed out", func(t *testing.T) {
		_, q := inboxHost(t, url, 300*time.Millisecond)
		w := wait(q, shellRequest("git push"))
		a := published(t, db, "shell")
		if err := <-w.err; !errors.Is(err, approval.ErrNoApprover) {
			t.Fatalf("the call: %v", err)
		}
		_, err := db.Answer(ctx, a.ID, approval.Yes, bob, time.Second)
		if !errors.Is(err, ErrExpired) {
			t.Fatalf("an answer after the timeout: %v", err)
		}
	})

	t.Run("row changed in the database", func(t *testing.T) {
		_, q := inboxHost(t, url, time.Minute)
		w := wait(q, shellRequest("rm -rf /srv/data"))
		a := published(t, db, "shell")
		// Someone with write access makes the approver see a harmless
		// plan.
		if _, err := db.pool.Exec(ctx, `UPDATE talon.approvals SET plan = '{"summary":"ls"}' WHERE id = $1`, a.ID); err != nil {
			t.Fatal(err)
		}
		out, err := db.Answer(ctx, a.ID, approval.Yes, bob, 30*time.Second)
		if !errors.Is(err, ErrNotApplied) || !strings.Contains(err.Error(), "differs from the call that waits") || out.Applied {
			t.Fatalf("an answer to a changed row: %+v, %v", out, err)
		}
		select {
		case got := <-w.answer:
			t.Fatalf("the call took the answer to a changed row: %v", got)
		default:
		}
		if err := q.Decide(a.ID, approval.No); err != nil {
			t.Fatalf("the call no longer waits: %v", err)
		}
		<-w.answer
	})

	t.Run("forged notification", func(t *testing.T) {
		h, q := inboxHost(t, url, time.Minute)
		w := wait(q, shellRequest("curl example.com"))
		a := published(t, db, "shell")
		if _, err := db.pool.Exec(ctx, `SELECT pg_notify($1, $2)`, notifyChannel, "answered\t"+h.fleet.Host()+"\t"+h.fleet.server+"\t"+a.ID); err != nil {
			t.Fatal(err)
		}
		// The row says nobody answered: the call waits on. A real
		// answer after it is taken.
		if _, err := db.Answer(ctx, a.ID, approval.Yes, bob, 30*time.Second); err != nil {
			t.Fatal(err)
		}
		if got := <-w.answer; got != approval.Yes {
			t.Fatalf("the call got %v", got)
		}
	})
}
